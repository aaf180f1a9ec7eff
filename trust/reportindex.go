package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// indexHead starts the record of a store's empty reports (# Kept
// reports, rule 7).
const indexHead = "agentadaptor audit report index v1"

// maxIndexed bounds the reports an index holds; past it, reports found
// empty are read each time, as without an index.
const maxIndexed = 100_000

// emptyIndex is what a report store knows of the kept reports it found
// empty (# Kept reports, rule 7): by content digest, the stamp of the
// report's file when it was read and found so, not racy then. A file
// that still has that stamp holds that report; one removed, replaced or
// changed since has another stamp, or none, and is read again. It is
// read from the skill cache once and written back by save when it
// changed. It is safe for concurrent use.
type emptyIndex struct {
	store  *heldStore // where it is kept
	mu     sync.Mutex
	loaded bool
	stamps map[string]cache.Stamp
	dirty  bool
	// off is set when the reports' file system is not one whose stamps
	// may stand for reading (cache.StampableFS): the index is then none.
	// It is asked again after each save, an operation's end.
	off bool
}

// stampableFS is cache.StampableFS; tests set another.
var stampableFS = cache.StampableFS

// indexKey names a store's index among the skill cache's records, for
// the reports of reportFormat made by the rules of audit.RulesVersion:
// other rules' reports are other files, and a report of another format
// is never empty by an index of this one.
func indexKey() string { return indexKeyOf(reportFormat, audit.RulesVersion) }

// indexKeyOf is indexKey for the reports of format made by rules.
func indexKeyOf(format, rules string) string {
	sum := sha256.Sum256([]byte(indexHead + "\x00format " + format + "\x00rules " + rules))
	return hex.EncodeToString(sum[:])
}

// load reads the index kept under dir, once; the caller holds x.mu.
func (x *emptyIndex) load(dir string) {
	if x.loaded {
		return
	}
	x.loaded = true
	x.stamps = map[string]cache.Stamp{}
	if x.off = !stampableFS(dir); x.off {
		return
	}
	x.store.with(dir, func(store *cache.Store) { x.stamps = parseIndex(store.FolderRecord(indexKey())) })
}

// heldStore is the skill cache's store under a report store's folder,
// where the clean sets and the index are kept: opened on first use and
// held for the report store's life, as a skill.Cache holds its own, so
// that a process opens it once, not for each record it reads or writes.
// A failed open (rule 5 of the cache: a root others may write) is tried
// again on the next use. It is never closed: the folder it holds is
// released when the checker that keeps it is no longer used (os.Root
// closes on collection), as a skill.Cache's is. It is safe for
// concurrent use, as a cache.Store is.
type heldStore struct {
	mu    sync.Mutex
	store *cache.Store // once opened
}

// with runs f with the skill cache's store under dir; it runs nothing
// when the store does not open.
func (h *heldStore) with(dir string, f func(*cache.Store)) {
	h.mu.Lock()
	if h.store == nil {
		store, err := cache.Open(dir)
		if err != nil {
			h.mu.Unlock()
			return
		}
		h.store = store
	}
	store := h.store
	h.mu.Unlock()
	f(store)
}

// empty reports whether the index holds the report of digest as empty,
// and the file at name (the report's) still has the stamp it had then.
func (x *emptyIndex) empty(dir, digest, name string) bool {
	x.mu.Lock()
	x.load(dir)
	st, ok := x.stamps[digest]
	ok = ok && !x.off
	x.mu.Unlock()
	if !ok {
		return false
	}
	if fi, err := os.Lstat(name); err == nil {
		if now, ok := cache.StampOf(fi); ok && now == st {
			return true
		}
	}
	x.mu.Lock()
	delete(x.stamps, digest)
	x.dirty = true
	x.mu.Unlock()
	return false
}

// found records that the report of digest, read from a file whose
// stamp, taken before it was read at taken (ns), is st, is empty. A
// stamp that is racy is not recorded: the file could change without it
// showing.
func (x *emptyIndex) found(dir, digest string, st cache.Stamp, taken int64) {
	if cache.Racy(st.Ctime, taken) {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.load(dir)
	if old, ok := x.stamps[digest]; x.off || ok && old == st || len(x.stamps) >= maxIndexed {
		return
	}
	x.stamps[digest] = st
	x.dirty = true
}

// save writes the index back under dir when it changed; best effort:
// without it, the reports are read again.
func (x *emptyIndex) save(dir string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.off {
		x.loaded, x.off = false, false // asked again by the next operation
		return
	}
	if !x.dirty {
		return
	}
	x.store.with(dir, func(store *cache.Store) {
		if store.SetFolderRecord(indexKey(), encodeIndex(x.stamps)) == nil {
			x.dirty = false
		}
	})
}

// encodeIndex writes the index: a head, the id of the boot that wrote
// it, a line a report (its digest and the six numbers of its file's
// stamp) in digest order, and a last line with the SHA-256 of
// everything before it, so that an index cut short or damaged is
// refused.
func encodeIndex(stamps map[string]cache.Stamp) []byte {
	var b bytes.Buffer
	b.Grow(len(stamps) * 128)
	b.WriteString(indexHead + "\n" + bootid.Line() + "\n")
	for _, digest := range slices.Sorted(maps.Keys(stamps)) {
		s := stamps[digest]
		fmt.Fprintf(&b, "%s %d %d %d %d %d %d\n", digest, s.Mode, s.Size, s.Mtime, s.Ctime, s.Dev, s.Ino)
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Fprintf(&b, "sum %x\n", sum)
	return b.Bytes()
}

// parseIndex reads an index encodeIndex wrote. One that is missing, cut
// short, damaged, malformed or of another boot (package bootid's rule 1:
// the reports are written without a flush) gives an empty index.
func parseIndex(data []byte) map[string]cache.Stamp {
	out := map[string]cache.Stamp{}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return out
	}
	j := bytes.LastIndexByte(data[:len(data)-1], '\n')
	content, last := data[:j+1], data[j+1:]
	body, ok := bytes.CutPrefix(content, []byte(indexHead+"\n"+bootid.Line()+"\n"))
	if !ok || bootid.ID() == "" || string(last) != fmt.Sprintf("sum %x\n", sha256.Sum256(content)) {
		return out
	}
	for len(body) > 0 {
		var l []byte
		l, body, _ = bytes.Cut(body, []byte("\n"))
		fields := bytes.Split(l, []byte(" "))
		if len(fields) != 7 || len(fields[0]) == 0 || len(fields[0]) > maxDigest || len(out) >= maxIndexed {
			return map[string]cache.Stamp{}
		}
		var n [6]uint64
		for i := range n {
			var err error
			if n[i], err = strconv.ParseUint(string(fields[i+1]), 10, 64); err != nil {
				return map[string]cache.Stamp{}
			}
		}
		digest := string(fields[0])
		if _, dup := out[digest]; dup {
			return map[string]cache.Stamp{}
		}
		out[digest] = cache.Stamp{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Dev: n[4], Ino: n[5]}
	}
	return out
}

// now is the time a stamp is taken, in ns.
func now() int64 { return time.Now().UnixNano() }
