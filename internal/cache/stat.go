package cache

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/bootid"
)

// The stat record of a tree (rule 4): <digest>/.stat, beside the
// manifest, never inside the tree.
const (
	statName = ".stat"
	statHead = "agentadaptor skill stat v3"
)

// The racy windows of rule 4: a recorded change time this close to the
// time its record was taken, or later, could be shared by a change made
// just after the stamp was taken (file times come from a clock that
// ticks every few milliseconds, or every second or two on file systems
// that keep whole seconds), so the entry is re-hashed until a later
// record takes it out of the window.
const (
	racyWindow   = 50 * time.Millisecond
	coarseWindow = 2 * time.Second
)

// RacyWindow is how long after a tree is published, or its record
// refreshed, its entries are still re-hashed by every lookup (rule 4),
// on file systems that keep sub-second change times. Tests that want a
// lookup to rely on the record alone wait this long.
const RacyWindow = racyWindow

// stamp is what a lookup compares of one file or folder of a tree: what
// git's index compares, and the permission bits ([Stamp], the name
// [stampEntry] embeds it by).
type stamp = Stamp

// stampEntry is one file or folder of a record. Its path is relative to
// the tree's folder, "." for the folder itself.
type stampEntry struct {
	path string
	stamp
	file *File // the manifest's entry, for a file
}

// record is a tree's stat record: the stamp of every file and folder of
// the tree when a check last found it intact, in the order of
// comparePaths ("." first, each folder right before what it holds).
type record struct {
	taken    int64 // when the stamps were taken, or earlier (ns)
	manifest stamp // the manifest's, so a changed manifest is read again
	entries  []stampEntry
}

// racy reports whether a change made right after s was taken could have
// left s as it was (see racyWindow).
func (r *record) racy(s stamp) bool {
	return Racy(s.Ctime, r.taken)
}

func (r *record) racyCount() int {
	n := 0
	for _, e := range r.entries {
		if r.racy(e.stamp) {
			n++
		}
	}
	return n
}

// comparePaths orders slash-separated paths element by element, "."
// first: a folder comes right before everything it holds.
func comparePaths(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == ".":
		return -1
	case b == ".":
		return 1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		switch {
		case ca == cb:
			continue
		case ca == '/':
			return -1
		case cb == '/':
			return 1
		}
		return cmp.Compare(ca, cb)
	}
	return cmp.Compare(len(a), len(b))
}

func (r *record) encode(name string) []byte {
	var b strings.Builder
	m := r.manifest
	fmt.Fprintf(&b, "%s\n%s\nname %s\ntaken %d\nmanifest %d %d %d %d %d %d\n", statHead, bootid.Line(), name, r.taken, m.Mode, m.Size, m.Mtime, m.Ctime, m.Dev, m.Ino)
	for _, e := range r.entries {
		if e.file != nil {
			fmt.Fprintf(&b, "%x", e.file.Sum)
		} else {
			b.WriteByte('-')
		}
		fmt.Fprintf(&b, " %d %d %d %d %d %d %s\n", e.Mode, e.Size, e.Mtime, e.Ctime, e.Dev, e.Ino, e.path)
	}
	// The last line counts the entries: a record cut short (it is written
	// without a flush, writeRecord) is whole only with it.
	fmt.Fprintf(&b, "end %d\n", len(r.entries))
	return []byte(b.String())
}

// parseRecord reads a record: the tree's runtime name, its files (what
// its manifest records, sorted by comparePaths) and their stamps. A
// record that is malformed, in which an entry is not under a folder
// entry, or written on another boot (package bootid's rule 1), is not used (the tree is then checked in full against its
// manifest and the record written again); one whose files do not make
// the tree's digest is refused by the caller the same way.
func parseRecord(data []byte) (r *record, name string, files []File, ok bool) {
	text := string(data)
	line := func() (string, bool) {
		l, rest, found := strings.Cut(text, "\n")
		text = rest
		return l, found
	}
	head, _ := line()
	bootLine, _ := line()
	nameLine, _ := line()
	takenLine, _ := line()
	manifestLine, _ := line()
	if head != statHead || !bootid.IsLine(bootLine) {
		return nil, "", nil, false
	}
	name, ok1 := strings.CutPrefix(nameLine, "name ")
	taken, ok2 := strings.CutPrefix(takenLine, "taken ")
	m, ok3 := strings.CutPrefix(manifestLine, "manifest ")
	if !ok1 || !ok2 || !ok3 {
		return nil, "", nil, false
	}
	n := strings.Count(text, "\n")
	r = &record{entries: make([]stampEntry, 0, n)}
	var err error
	if r.taken, err = strconv.ParseInt(taken, 10, 64); err != nil {
		return nil, "", nil, false
	}
	var rest string
	if r.manifest, rest, ok = parseStamp(m); !ok || rest != "" {
		return nil, "", nil, false
	}
	// The folders that hold the entry being read: entries come in the
	// order of comparePaths, each folder right before what it holds.
	open := []string{"."}
	for {
		l, found := line()
		if !found {
			return nil, "", nil, false
		}
		if count, isEnd := strings.CutPrefix(l, "end "); isEnd {
			if text != "" || count != strconv.Itoa(len(r.entries)) {
				return nil, "", nil, false
			}
			break
		}
		sum, fields, _ := strings.Cut(l, " ")
		var e stampEntry
		if e.stamp, e.path, ok = parseStamp(fields); !ok {
			return nil, "", nil, false
		}
		mode := fs.FileMode(e.Mode)
		if len(r.entries) == 0 {
			if e.path != "." || !mode.IsDir() || sum != "-" {
				return nil, "", nil, false
			}
			r.entries = append(r.entries, e)
			continue
		}
		if !fs.ValidPath(e.path) || e.path == "." || comparePaths(r.entries[len(r.entries)-1].path, e.path) >= 0 {
			return nil, "", nil, false
		}
		for len(open) > 1 && !isBelow(e.path, open[len(open)-1]) {
			open = open[:len(open)-1]
		}
		if path.Dir(e.path) != open[len(open)-1] {
			return nil, "", nil, false
		}
		switch {
		case mode.IsDir() && sum == "-":
			open = append(open, e.path)
		case mode.IsRegular() && len(sum) == 64:
			f := File{Path: e.path, Exec: mode&0o111 != 0, Size: e.Size}
			if _, err := hex.Decode(f.Sum[:], []byte(sum)); err != nil {
				return nil, "", nil, false
			}
			files = append(files, f)
		default:
			return nil, "", nil, false
		}
		r.entries = append(r.entries, e)
	}
	if len(r.entries) == 0 {
		return nil, "", nil, false
	}
	// Point each file entry at its File, now that files stays put.
	i := 0
	for j := range r.entries {
		if fs.FileMode(r.entries[j].Mode).IsRegular() {
			r.entries[j].file = &files[i]
			i++
		}
	}
	return r, name, files, true
}

// parseStamp reads the six numbers of a stamp, as encode writes them, at
// the start of s, and returns what follows them and a space: the rest of
// the line, "" when there is nothing more.
func parseStamp(s string) (st stamp, rest string, ok bool) {
	var n [6]uint64
	for i := range n {
		f, r, _ := strings.Cut(s, " ")
		var err error
		if n[i], err = strconv.ParseUint(f, 10, 64); err != nil {
			return stamp{}, "", false
		}
		s = r
	}
	return stamp{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Dev: n[4], Ino: n[5]}, s, true
}

// writeRecord replaces the record of the tree in the folder top
// (<digest>), atomically. It is best effort: without a record, the next
// lookup checks the tree in full. So it is not flushed to the disk
// (atomicfile's rule 6): a record a crash cut short lacks its last line,
// which counts its entries, and is no record.
func writeRecord(top *os.Root, name string, r *record) {
	atomicfile.WriteInUnflushed(top, statName, r.encode(name), 0o444)
}

// treeCheck is one check of a tree against its manifest and record.
type treeCheck struct {
	start    int64        // when the check started (ns): the next record's time
	manifest stamp        // the manifest's stamp, for the next record
	next     []stampEntry // the stamps found, for the next record
	changed  bool         // a stamp differed from the record
	stamps   bool         // the platform gives stamps
	hashed   int          // files read and hashed
	memo     *recordMemo  // the records this process knows, or nil
}

// recordMemo holds the records of trees a Store checked or wrote, by
// digest and name, so that a later lookup in the same process compares
// the tree's stats with the record without reading and parsing it again
// (rule 4). A record held is never changed; a check that finds the tree
// changed replaces it. The zero recordMemo is empty and ready; a nil
// *recordMemo holds nothing.
type recordMemo struct {
	mu sync.Mutex
	m  map[string]*record
}

func (m *recordMemo) get(digest, name string) (*record, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[digest+"/"+name]
	return r, ok
}

// put holds r for the tree, or, when r is nil, forgets it.
func (m *recordMemo) put(digest, name string, r *record) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r == nil {
		delete(m.m, digest+"/"+name)
		return
	}
	if m.m == nil {
		m.m = make(map[string]*record)
	}
	m.m[digest+"/"+name] = r
}

// checkRecorded checks the tree whose folder is dir (whose Lstat is fi)
// against its record r: a stat per file and folder, a file re-hashed and a
// folder listed only when its stamp differs from the record or is racy.
// A changed permission, a file whose bytes no longer match the manifest,
// and a file or folder added or removed, are damage.
func (c *treeCheck) checkRecorded(dir *os.Root, fi os.FileInfo, r *record) bool {
	c.next = make([]stampEntry, 0, len(r.entries))
	return c.entry(dir, ".", fi, r, r.entries)
}

// entry checks the entry es[0], named rel in dir (whose Lstat is fi), and
// when it is a folder the entries below it, which follow it in es.
func (c *treeCheck) entry(dir *os.Root, rel string, fi os.FileInfo, r *record, es []stampEntry) bool {
	e := &es[0]
	now, ok := stampOf(fi)
	if !ok || now.Mode != e.Mode {
		return false // the type or the permissions changed
	}
	same := now == e.stamp && !r.racy(e.stamp)
	c.next = append(c.next, stampEntry{path: e.path, stamp: now, file: e.file})
	if !same {
		c.changed = true
	}
	if !fi.IsDir() {
		return same || c.hash(dir, rel, fi, e.file)
	}
	below := es[1:]
	n := 0
	for n < len(below) && isBelow(below[n].path, e.path) {
		n++
	}
	below = below[:n]
	if same && n == 0 {
		return true
	}
	sub := dir
	if rel != "." {
		var err error
		if sub, err = openFolderAs(dir, rel, fi); err != nil {
			return false
		}
		defer sub.Close()
	}
	if !same && !namesMatch(sub, e.path, below) {
		return false
	}
	for len(below) > 0 {
		name := below[0].path
		if e.path != "." {
			name = name[len(e.path)+1:]
		}
		cfi, err := sub.Lstat(name)
		if err != nil {
			return false
		}
		m := 1
		for m < len(below) && isBelow(below[m].path, below[0].path) {
			m++
		}
		if !c.entry(sub, name, cfi, r, below[:m]) {
			return false
		}
		below = below[m:]
	}
	return true
}

// settle writes the stamps a successful checkRecorded found as the tree's
// new record, when they differ from the old record's or fewer of them are
// racy now; it reports true.
func (c *treeCheck) settle(top *os.Root, name string, old *record) bool {
	if !c.changed {
		return true
	}
	next := &record{taken: c.start, manifest: c.manifest, entries: c.next}
	same := c.manifest == old.manifest && slices.EqualFunc(old.entries, next.entries, func(a, b stampEntry) bool { return a.stamp == b.stamp })
	if !same || next.racyCount() < old.racyCount() {
		writeRecord(top, name, next)
	}
	return true
}

// isBelow reports whether p is under the folder dir.
func isBelow(p, dir string) bool {
	if dir == "." {
		return true
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir
}

// namesMatch reports whether the folder dir (at path p in the tree)
// holds exactly the direct children that entries (everything below it)
// name.
func namesMatch(dir *os.Root, p string, entries []stampEntry) bool {
	names, err := readNames(dir, ".")
	if err != nil {
		return false
	}
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	want := 0
	for _, e := range entries {
		rel := e.path
		if p != "." {
			rel = rel[len(p)+1:]
		}
		if strings.Contains(rel, "/") {
			continue
		}
		want++
		if !have[rel] {
			return false
		}
	}
	return want == len(names)
}

// readNames returns the names in the folder name of dir ("." for dir
// itself), in no order.
func readNames(dir *os.Root, name string) ([]string, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// checkAll checks the tree whose folder is dir (whose Lstat is fi) in
// full: every folder listed, every file the manifest's, and, when hash
// is set, its bytes re-hashed. Folders that hold no file are allowed (a
// digest has no entry for them). It collects the stamps for a record.
func (c *treeCheck) checkAll(dir *os.Root, fi os.FileInfo, files []File, hash bool) bool {
	want := make(map[string]*File, len(files))
	for i := range files {
		want[files[i].Path] = &files[i]
	}
	seen := 0
	if !c.walk(dir, ".", fi, want, &seen, hash) || seen != len(files) {
		return false
	}
	slices.SortFunc(c.next, func(a, b stampEntry) int { return comparePaths(a.path, b.path) })
	return true
}

func (c *treeCheck) walk(dir *os.Root, p string, fi os.FileInfo, want map[string]*File, seen *int, hash bool) bool {
	c.add(p, fi, nil)
	names, err := readNames(dir, ".")
	if err != nil {
		return false
	}
	for _, name := range names {
		q := name
		if p != "." {
			q = p + "/" + name
		}
		cfi, err := dir.Lstat(name)
		if err != nil {
			return false
		}
		switch {
		case cfi.Mode().IsRegular():
			w := want[q]
			if w == nil || cfi.Size() != w.Size || (cfi.Mode()&0o111 != 0) != w.Exec {
				return false
			}
			if hash && !c.hash(dir, name, cfi, w) {
				return false
			}
			*seen++
			c.add(q, cfi, w)
		case cfi.IsDir():
			sub, err := openFolderAs(dir, name, cfi)
			if err != nil {
				return false
			}
			ok := c.walk(sub, q, cfi, want, seen, hash)
			sub.Close()
			if !ok {
				return false
			}
		default:
			return false // a link or a special file: never published
		}
	}
	return true
}

func (c *treeCheck) add(p string, fi os.FileInfo, f *File) {
	s, ok := stampOf(fi)
	c.stamps = ok
	c.next = append(c.next, stampEntry{path: p, stamp: s, file: f})
}

// hash reports whether the file name in dir, whose Lstat is fi, holds
// the bytes the manifest's entry f records.
func (c *treeCheck) hash(dir *os.Root, name string, fi os.FileInfo, f *File) bool {
	if f == nil {
		return false
	}
	c.hashed++
	file, err := dir.Open(name)
	if err != nil {
		return false
	}
	defer file.Close()
	if now, err := file.Stat(); err != nil || !os.SameFile(fi, now) {
		return false
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(file, f.Size+1))
	if err != nil || n != f.Size {
		return false
	}
	var sum [32]byte
	return [32]byte(h.Sum(sum[:0])) == f.Sum
}
