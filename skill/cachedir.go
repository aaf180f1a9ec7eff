package skill

import (
	"time"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// CacheEntry is one skill tree in a default materializer's cache.
type CacheEntry struct {
	// Digest is the tree's content digest.
	Digest string
	// Name is its runtime name.
	Name string
	// Dir is the folder a materialization returns for it.
	Dir string
	// Size is the total size of its files in bytes.
	Size int64
	// Files is the number of its files.
	Files int
	// LastUse is when a materialization last returned it.
	LastUse time.Time
}

// CacheEntries lists the skill trees in the cache at root (see
// [DefaultCacheRoot]), sorted by digest.
func CacheEntries(root string) ([]CacheEntry, error) {
	entries, err := cache.Entries(root)
	return toCacheEntries(entries), err
}

// CacheGC removes from the cache at root the trees, and archive memo
// entries, not used for olderThan, and returns the trees removed. Last use
// is recorded to the second, so any olderThan is exact. It also sweeps
// what interrupted materializations left in the cache. A tree
// in use by a running agent can be removed too: collect when agents are
// idle, or with an age longer than any run.
func CacheGC(root string, olderThan time.Duration) ([]CacheEntry, error) {
	removed, err := cache.GC(root, time.Now().Add(-olderThan))
	return toCacheEntries(removed), err
}

func toCacheEntries(in []cache.Entry) []CacheEntry {
	out := make([]CacheEntry, len(in))
	for i, e := range in {
		out[i] = CacheEntry(e)
	}
	return out
}
