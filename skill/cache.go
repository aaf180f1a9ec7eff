package skill

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// Cache is the default materializer as a value a program can hold: one
// cache root and the limits everything entering it obeys. Everything
// that reads skill content on the cache's behalf (materialization, and
// tools that download for it through [Cache.Limits]) applies the same
// limits. A Cache is safe for concurrent
// use by goroutines, and by processes sharing its root (the package doc
// gives the rules). Make one with NewCache: the zero Cache has no root and
// refuses every use.
type Cache struct {
	root   string
	limits Limits

	mu       sync.Mutex
	store    *cache.Store                  // once opened
	embedded map[embeddedTree][]cache.File // what embed.FS trees hold (rule 11)
	folders  map[string]*folderRecord      // source folders' records, by folder (rule 11)
	sets     map[string]*setRecord         // skill sets' records, by key (rule 12)

	flightMu sync.Mutex
	flights  map[string]*flight // trees being staged, by digest
}

// errZeroCache is the error of every use of a Cache not made by NewCache.
var errZeroCache = errors.New("skill: a Cache must be made with NewCache")

// errFlightAborted is what a materialization waiting for another's
// staging of the same tree sees when that one panicked; it stages anew.
var errFlightAborted = errors.New("skill: the staging this materialization waited for was aborted")

// Limits are a Cache's limits, as set by [WithMaxArchiveSize],
// [WithMaxFileSize], [WithMaxTotalSize] and [WithMaxArchiveEntries]; in a
// Cache's Limits every field is positive, the defaults filled in.
type Limits struct {
	// MaxArchiveSize caps the compressed bytes read from one archive.
	MaxArchiveSize int64
	// MaxFileSize caps the bytes of any one file.
	MaxFileSize int64
	// MaxTotalSize caps the bytes one skill expands to.
	MaxTotalSize int64
	// MaxArchiveEntries caps the entries of one archive or tree.
	MaxArchiveEntries int
}

// The limits a Cache has when none is set.
const (
	defaultMaxArchiveSize    = 256 << 20
	defaultMaxFileSize       = 64 << 20
	defaultMaxTotalSize      = 1 << 30
	defaultMaxArchiveEntries = 10000
)

var _ ContentMaterializer = (*Cache)(nil)

// NewDefaultSkillMaterializer returns the SDK's built-in materializer,
// which handles the sources produced by Dir, FS, Inline, and Archive.
// Agents install it automatically; construct one explicitly only to tune
// the options above or to compose a chain-of-responsibility around it:
//
//	type storeMaterializer struct {
//	    fallback skill.Materializer
//	    store    *MyStoreClient
//	}
//
//	func (m *storeMaterializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
//	    if src, ok := s.Source.(myCustomSource); ok {
//	        return m.store.Fetch(ctx, src)
//	    }
//	    return m.fallback.Materialize(ctx, s)
//	}
//
// The materializer is a *[Cache]; [NewCache] returns the same with its
// type, for programs that also list or collect the cache.
func NewDefaultSkillMaterializer(opts ...DefaultMaterializerOption) Materializer {
	return NewCache(opts...)
}

// NewCache returns a Cache configured by opts. The root is resolved here
// and opened (created, checked and held open) on first use, so NewCache
// itself does no I/O: NewCache().Root() is the default root.
func NewCache(opts ...DefaultMaterializerOption) *Cache {
	var cfg defaultMaterializerConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	l := &cfg.limits
	if l.MaxArchiveSize <= 0 {
		l.MaxArchiveSize = defaultMaxArchiveSize
	}
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = defaultMaxFileSize
	}
	if l.MaxTotalSize <= 0 {
		l.MaxTotalSize = defaultMaxTotalSize
	}
	if l.MaxArchiveEntries <= 0 {
		l.MaxArchiveEntries = defaultMaxArchiveEntries
	}
	if cfg.root == "" {
		cfg.root = cache.DefaultRoot()
	} else if abs, err := filepath.Abs(cfg.root); err == nil {
		cfg.root = abs
	}
	return &Cache{root: cfg.root, limits: cfg.limits}
}

// Root returns the cache's root folder. When none is configured it is
// $AGENT_ADAPTOR_SKILL_CACHE_ROOT, else
// os.UserCacheDir()/agent-adaptor/skill-cache, else
// os.TempDir()/agent-adaptor-<uid>/skill-cache (the user id keeps users of
// a shared temp folder apart). It is absolute (made so from the working
// folder NewCache saw). Drivers keep what they build for a run beside the
// skill trees under this root, and package oci its downloads in its .oci
// folder.
func (c *Cache) Root() string { return c.root }

// Limits returns the cache's limits.
func (c *Cache) Limits() Limits { return c.limits }

// open returns the store, opening it on first use. A failed open is
// tried again on the next use: a root made safe or mounted later works
// without a new Cache.
func (c *Cache) open() (*cache.Store, error) {
	if c.root == "" {
		return nil, errZeroCache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store == nil {
		store, err := cache.Open(c.root)
		if err != nil {
			return nil, err
		}
		c.store = store
	}
	return c.store, nil
}

// extractOptions are the cache's limits in the extractor's terms: the
// one place the two meet.
func (c *Cache) extractOptions() extract.Options {
	return extract.Options{
		MaxFileSize:       c.limits.MaxFileSize,
		MaxTotalSize:      c.limits.MaxTotalSize,
		MaxArchiveEntries: c.limits.MaxArchiveEntries,
	}
}

// CacheEntry is one skill tree in a [Cache].
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
	// LastUse is when a materialization or a lookup last returned it.
	LastUse time.Time
}

// Entries lists the skill trees in the cache, sorted by digest. A cache
// whose root does not exist yet is empty. It stops when ctx is done, with
// ctx's error.
func (c *Cache) Entries(ctx context.Context) ([]CacheEntry, error) {
	if c.root == "" {
		return nil, errZeroCache
	}
	entries, err := cache.Entries(ctx, c.root)
	return toCacheEntries(entries), err
}

// GC removes the trees, and archive memo entries, not used for olderThan,
// and the audit reports package trust keeps under the root (# Kept
// reports there) written longer ago than olderThan, and returns the
// trees removed: a report lost costs an audit, nothing more, and a
// clear (olderThan 0) makes the next install audit again. Last use is recorded to the second, so
// any olderThan is exact. It also sweeps what interrupted
// materializations left in the cache. An olderThan of 0 or less removes
// every tree that no driver folder links to. A tree that a driver's
// folder under the root (a Claude Code skill mount, a managed Codex home)
// links to is kept as long as that folder is, so a tree in use by a
// running agent through one stays: collect the folders first, with
// [Cache.CollectDriverFolders]. Another tree in use by a running agent
// can be removed: collect when agents are idle, or with an age longer
// than any run. A root that does not exist yet is left alone. Only skill
// trees, memo entries and kept reports are collected here: what package
// oci keeps under the root is its own. It stops between two trees when ctx is done, with
// ctx's error and the trees removed until then.
func (c *Cache) GC(ctx context.Context, olderThan time.Duration) ([]CacheEntry, error) {
	if c.root == "" {
		return nil, errZeroCache
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(c.root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	linked, err := agentdir.Linked(c.root)
	if err != nil {
		return nil, err
	}
	removed, err := cache.GC(ctx, c.root, time.Now().Add(-olderThan), linked...)
	return toCacheEntries(removed), err
}

// toCacheEntries converts the store's listing. CacheEntry has the fields
// of cache.Entry one for one, on purpose: the conversion CacheEntry(e)
// then fails to compile when the two drift apart. The public type is
// declared, not aliased, so its fields are documented where users read
// them, and the store, below this package, cannot use it.
func toCacheEntries(in []cache.Entry) []CacheEntry {
	out := make([]CacheEntry, len(in))
	for i, e := range in {
		out[i] = CacheEntry(e)
	}
	return out
}

// defaultMaterializerConfig collects DefaultMaterializerOption values.
type defaultMaterializerConfig struct {
	root   string
	limits Limits
}

// DefaultMaterializerOption configures the materializer returned by
// NewDefaultSkillMaterializer and the [Cache] returned by [NewCache].
type DefaultMaterializerOption func(*defaultMaterializerConfig)

// WithMaxArchiveEntries caps the number of entries (files + dirs) in a
// single archive. Archives with more entries surface as an error before any
// file is written. Default 10000; values <= 0 are treated as the default.
// Every entry counts, links and an explicit root entry ("./") included,
// and so does every folder the entries' names imply without an entry of
// its own ("a/b/c.md" alone is three entries). The cap applies to FS
// trees too.
func WithMaxArchiveEntries(n int) DefaultMaterializerOption {
	return func(c *defaultMaterializerConfig) { c.limits.MaxArchiveEntries = n }
}

// WithMaxArchiveSize caps the total compressed bytes the materializer reads
// from an Archive source. Streams that exceed the cap surface as an error
// before any extraction begins. Default 256 MiB; values <= 0 are treated as
// the default.
func WithMaxArchiveSize(bytes int64) DefaultMaterializerOption {
	return func(c *defaultMaterializerConfig) { c.limits.MaxArchiveSize = bytes }
}

// WithMaxFileSize caps the uncompressed bytes a single archive entry may
// occupy. Decompression bombs surface as an error mid-extraction and the
// partially extracted temporary directory is removed. Default 64 MiB;
// values <= 0 are treated as the default. The cap applies to FS trees and
// inline content too.
func WithMaxFileSize(bytes int64) DefaultMaterializerOption {
	return func(c *defaultMaterializerConfig) { c.limits.MaxFileSize = bytes }
}

// WithMaxTotalSize caps the bytes one skill may expand to: everything that
// comes out of the decompressor (tar headers included) plus bytes copied
// for links. It stops bombs that stay under the per-file cap in every
// entry. Default 1 GiB; values <= 0 are treated as the default. The cap
// applies to FS trees too.
func WithMaxTotalSize(bytes int64) DefaultMaterializerOption {
	return func(c *defaultMaterializerConfig) { c.limits.MaxTotalSize = bytes }
}

// WithSkillCacheRoot overrides the cache root the default materializer
// writes to. Empty input falls back to SkillCacheRootEnv, then
// os.UserCacheDir(), then os.TempDir() (see [Cache.Root]).
func WithSkillCacheRoot(path string) DefaultMaterializerOption {
	return func(c *defaultMaterializerConfig) { c.root = path }
}
