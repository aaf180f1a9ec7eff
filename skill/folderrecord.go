package skill

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// folderHead starts the stat record of a source folder (rule 11 of the
// package doc).
const folderHead = "agentadaptor folder stat v4"

// The kinds of entry a folder's record holds.
const (
	kindDir  = 'd'
	kindFile = 'f'
	kindLink = 'l'
)

// folderEntry is what a folder's record holds of one folder, regular
// file or link: its stamp when it was last read, and for a file its
// SHA-256, for a link its target text.
type folderEntry struct {
	kind   byte
	stamp  cache.Stamp
	sum    [32]byte
	target string
}

// folderRecord is the stat record of a source folder: every entry that
// counts for its digest, and the folders that hold them, by
// slash-separated path ("." for the folder itself), and when the stamps
// were taken (ns, taken before the first stat). A record is never
// changed once made.
type folderRecord struct {
	dir      string
	digest   string // the digest the read that made it found ("" if unknown)
	taken    int64
	entries  map[string]folderEntry
	children map[string][]string // a folder's path: the names it holds
}

// folderCheck is one read of a folder: with old, the record of an earlier
// read (nil for none), a folder or file whose stamp is old's and not racy
// is neither listed nor read; next is the record this read makes.
type folderCheck struct {
	old    *folderRecord
	next   *folderRecord
	stamps bool // every entry had a stamp: next may be kept
	hashed int  // files read and hashed
	files  []cache.File
	links  []cache.Link
}

// errFolderChanged stops a read that relied on a folder's record and
// found an entry the record's listing does not match (a change within
// the racy window of a stamp that then matched): the folder is read
// again without the record.
var errFolderChanged = errors.New("folder changed while read")

// folderKey names the record of the folder dir (absolute) in the cache.
func folderKey(dir string) string {
	sum := sha256.Sum256([]byte("agentadaptor folder record v1\x00" + dir))
	return hex.EncodeToString(sum[:])
}

// digestFolder reads the folder dir as ContentDigest describes and
// returns its digest. With a record (old not nil), what the record
// vouches for is not read again (rule 11); chk collects the next record.
func digestFolder(ctx context.Context, dir string, chk *folderCheck) (string, error) {
	err := chk.read(ctx, dir)
	if errors.Is(err, errFolderChanged) {
		*chk = folderCheck{next: chk.next, stamps: true}
		clear(chk.next.entries)
		clear(chk.next.children)
		err = chk.read(ctx, dir)
	}
	if err != nil {
		return "", fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	return cache.DigestTree(filepath.Base(dir), chk.files, chk.links), nil
}

func (chk *folderCheck) read(ctx context.Context, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return chk.folder(ctx, dir, ".", fi)
}

// folder reads the folder full, at path p in the skill, whose stat is fi.
func (chk *folderCheck) folder(ctx context.Context, full, p string, fi fs.FileInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	names, listed, err := chk.names(full, p, fi)
	if err != nil {
		return err
	}
	for _, name := range names {
		if extract.LeftOut(name) {
			continue // not part of the skill (rule 10 of the package doc)
		}
		cfull, cp := filepath.Join(full, name), path.Join(p, name)
		cfi, err := os.Lstat(cfull)
		if errors.Is(err, fs.ErrNotExist) && !listed {
			return errFolderChanged
		}
		if err != nil {
			return err
		}
		switch t := cfi.Mode().Type(); {
		case t.IsDir():
			err = chk.folder(ctx, cfull, cp, cfi)
		case t.IsRegular():
			err = chk.file(ctx, cfull, cp, cfi)
		case t&fs.ModeSymlink != 0:
			err = chk.link(cfull, cp, cfi)
		default:
			continue // other special files do not count
		}
		if err != nil {
			return err
		}
		if chk.next != nil {
			chk.next.children[p] = append(chk.next.children[p], name)
		}
	}
	return nil
}

// names returns what the folder full (path p, stat fi) holds: from the
// record when its stamp is the record's and not racy (an entry added,
// removed or renamed changes a folder's times), listed otherwise.
func (chk *folderCheck) names(full, p string, fi fs.FileInfo) (names []string, listed bool, err error) {
	st, ok := chk.stamp(fi)
	if _, known := chk.vouched(p, st, ok, kindDir); known {
		names = chk.old.children[p]
	} else {
		f, err := os.Open(full)
		if err != nil {
			return nil, false, err
		}
		names, err = f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return nil, false, err
		}
		slices.Sort(names)
		listed = true
	}
	if chk.next != nil && ok {
		chk.next.entries[p] = folderEntry{kind: kindDir, stamp: st}
		chk.next.children[p] = make([]string, 0, len(names))
	}
	return names, listed, nil
}

// file adds the regular file full (path p, Lstat fi): its sum from the
// record when its stamp is the record's and not racy, read and hashed
// otherwise. The stat comes first, so a change made while the file is
// read moves its change time past the stamp and the next read hashes it
// again.
func (chk *folderCheck) file(ctx context.Context, full, p string, fi fs.FileInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, ok := chk.stamp(fi)
	e, known := chk.vouched(p, st, ok, kindFile)
	f := cache.File{Size: st.Size, Sum: e.sum}
	if !known {
		chk.hashed++
		var err error
		if f, err = hashFile(full); err != nil {
			return err
		}
		e = folderEntry{kind: kindFile, stamp: st, sum: f.Sum}
		if f.Size != st.Size {
			ok = false // changed while read: not recorded
			chk.stamps = false
		}
	}
	f.Path, f.Exec = p, fi.Mode()&0o111 != 0
	chk.files = append(chk.files, f)
	if chk.next != nil && ok {
		chk.next.entries[p] = e
	}
	return nil
}

// link adds the link full (path p, Lstat fi) as its target text.
func (chk *folderCheck) link(full, p string, fi fs.FileInfo) error {
	st, ok := chk.stamp(fi)
	e, known := chk.vouched(p, st, ok, kindLink)
	if !known {
		target, err := os.Readlink(full)
		if err != nil {
			return err
		}
		e = folderEntry{kind: kindLink, stamp: st, target: filepath.ToSlash(target)}
	}
	chk.links = append(chk.links, cache.Link{Path: p, Target: e.target})
	if chk.next != nil && ok {
		chk.next.entries[p] = e
	}
	return nil
}

// stamp returns fi's stamp and whether there is one to record; without
// one the next record is not kept.
func (chk *folderCheck) stamp(fi fs.FileInfo) (cache.Stamp, bool) {
	if chk.next == nil {
		return cache.Stamp{}, false
	}
	st, ok := cache.StampOf(fi)
	if !ok {
		chk.stamps = false
	}
	return st, ok
}

// vouched returns the old record's entry for p when it is of kind, has
// the stamp st and is not racy: what it holds stands for reading p.
func (chk *folderCheck) vouched(p string, st cache.Stamp, ok bool, kind byte) (folderEntry, bool) {
	if !ok || chk.old == nil {
		return folderEntry{}, false
	}
	e, found := chk.old.entries[p]
	if !found || e.kind != kind || e.stamp != st || cache.Racy(e.stamp.Ctime, chk.old.taken) {
		return folderEntry{}, false
	}
	return e, true
}

// folderDigest returns the ContentDigest of the folder dir (absolute),
// listing only the folders and hashing only the files whose stat differs
// from the folder's record, or is racy (rule 11), and keeps the record
// this read makes. Without a usable store it reads the whole folder, as
// ContentDigest does.
func (c *Cache) folderDigest(ctx context.Context, dir string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	if d, ok := cache.Verify(dir); ok {
		return d, nil
	}
	store, err := c.open()
	if err != nil {
		return ContentDigest(ctx, dir)
	}
	digest, _, err := c.folderDigestIn(ctx, store, dir)
	return digest, err
}

// folderDigestIn is folderDigest with the store, also returning how many
// files were hashed. The record is the one this Cache holds for dir, else
// the one in the store.
func (c *Cache) folderDigestIn(ctx context.Context, store *cache.Store, dir string) (string, int, error) {
	key := folderKey(dir)
	c.mu.Lock()
	old, held := c.folders[dir]
	c.mu.Unlock()
	if !held {
		old = parseFolderRecord(store.FolderRecord(key), dir)
	}
	chk := &folderCheck{old: old, next: newFolderRecord(dir, time.Now().UnixNano()), stamps: true}
	digest, err := digestFolder(ctx, dir, chk)
	if err != nil {
		return "", chk.hashed, err
	}
	keep := chk.stamps && len(chk.next.entries) <= c.limits.MaxArchiveEntries
	c.mu.Lock()
	if c.folders == nil {
		c.folders = make(map[string]*folderRecord)
	}
	if keep {
		chk.next.digest = digest
		c.folders[dir] = chk.next
	} else {
		delete(c.folders, dir)
	}
	c.mu.Unlock()
	if keep && chk.changed() {
		store.SetFolderRecord(key, chk.next.encode()) // best effort: without it, the next process reads all
	}
	return digest, chk.hashed, nil
}

func newFolderRecord(dir string, taken int64) *folderRecord {
	return &folderRecord{dir: dir, taken: taken, entries: make(map[string]folderEntry), children: make(map[string][]string)}
}

// changed reports whether the record this read made should replace the
// old one in the store: it differs, or has fewer racy entries.
func (chk *folderCheck) changed() bool {
	old := chk.old
	if old == nil || !maps.Equal(old.entries, chk.next.entries) {
		return true
	}
	return chk.next.racyCount() < old.racyCount()
}

func (r *folderRecord) racyCount() int {
	n := 0
	for _, e := range r.entries {
		if cache.Racy(e.stamp.Ctime, r.taken) {
			n++
		}
	}
	return n
}

// encode writes the record: a head, the id of the boot that wrote it,
// the folder, the time, and a line per
// entry in path order: its kind, its sum (a file), target (a link, in
// hex) or how many entries it holds (a folder, so that a record that
// lost lines is refused), the six numbers of its stamp, and its path.
func (r *folderRecord) encode() []byte {
	held := make(map[string]int)
	for p := range r.entries {
		if p != "." {
			held[path.Dir(p)]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\ndir %s\ntaken %d\n", folderHead, bootid.Line(), hex.EncodeToString([]byte(r.dir)), r.taken)
	for _, p := range slices.Sorted(maps.Keys(r.entries)) {
		e := r.entries[p]
		s := e.stamp
		b.WriteByte(e.kind)
		switch e.kind {
		case kindFile:
			fmt.Fprintf(&b, " %x", e.sum)
		case kindLink:
			fmt.Fprintf(&b, " %x", e.target)
		default:
			fmt.Fprintf(&b, " %d", held[p])
		}
		fmt.Fprintf(&b, " %d %d %d %d %d %d %s\n", s.Mode, s.Size, s.Mtime, s.Ctime, s.Dev, s.Ino, hex.EncodeToString([]byte(p)))
	}
	return []byte(b.String())
}

// parseFolderRecord reads a record of the folder dir; it returns nil for
// one that is missing, malformed, of another boot (package bootid's rule
// 1), or of another folder, which is then
// ignored and rebuilt.
func parseFolderRecord(data []byte, dir string) *folderRecord {
	text, ok := strings.CutPrefix(string(data), folderHead+"\n")
	if !ok {
		return nil
	}
	boot, text, _ := strings.Cut(text, "\n")
	if !bootid.IsLine(boot) {
		return nil
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return nil
	}
	lines = lines[:len(lines)-1]
	if lines[0] != "dir "+hex.EncodeToString([]byte(dir)) {
		return nil
	}
	taken, ok := strings.CutPrefix(lines[1], "taken ")
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(taken, 10, 64)
	if err != nil {
		return nil
	}
	r := newFolderRecord(dir, n)
	held := make(map[string]int) // a folder's path: how many entries it holds
	for _, l := range lines[2:] {
		p, e, n, ok := parseFolderEntry(l)
		if !ok || (p == ".") != (len(r.entries) == 0) || (p == "." && e.kind != kindDir) {
			return nil
		}
		if _, dup := r.entries[p]; dup {
			return nil
		}
		r.entries[p] = e
		if e.kind == kindDir {
			held[p] = n
		}
	}
	// Every entry but "." is held by a recorded folder.
	for p := range r.entries {
		if p == "." {
			continue
		}
		parent := path.Dir(p)
		if r.entries[parent].kind != kindDir {
			return nil
		}
		r.children[parent] = append(r.children[parent], path.Base(p))
	}
	for _, names := range r.children {
		slices.Sort(names)
	}
	// Each folder holds as many entries as its line says: a record that
	// lost lines is refused.
	for p, n := range held {
		if len(r.children[p]) != n {
			return nil
		}
	}
	return r
}

// parseFolderEntry reads one line of a record, and for a folder how many
// entries it holds.
func parseFolderEntry(l string) (string, folderEntry, int, bool) {
	var e folderEntry
	held := 0
	f := strings.Split(l, " ")
	if len(f) != 9 || len(f[0]) != 1 {
		return "", e, 0, false
	}
	e.kind = f[0][0]
	var n [6]uint64
	for i := range n {
		var err error
		if n[i], err = strconv.ParseUint(f[i+2], 10, 64); err != nil {
			return "", e, 0, false
		}
	}
	e.stamp = cache.Stamp{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Dev: n[4], Ino: n[5]}
	p, err := hex.DecodeString(f[8])
	if err != nil || !fs.ValidPath(string(p)) {
		return "", e, 0, false
	}
	mode := fs.FileMode(e.stamp.Mode)
	switch {
	case e.kind == kindDir && mode.IsDir():
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 || strconv.Itoa(n) != f[1] {
			return "", e, 0, false
		}
		held = n
	case e.kind == kindFile && mode.IsRegular() && len(f[1]) == 64:
		if _, err := hex.Decode(e.sum[:], []byte(f[1])); err != nil {
			return "", e, 0, false
		}
	case e.kind == kindLink && mode&fs.ModeSymlink != 0:
		t, err := hex.DecodeString(f[1])
		if err != nil {
			return "", e, 0, false
		}
		e.target = string(t)
	default:
		return "", e, 0, false
	}
	return string(p), e, held, true
}
