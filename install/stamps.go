package install

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
)

// stampHead starts the stat record of the folders an Installer hashes
// (rule 16 of the package doc).
const stampHead = "agentadaptor install stat v2"

// stampedEntry is what the stat record holds of one folder or regular
// file of a hashed folder: its slash-separated path in it ("." for the
// folder itself), its stamp when it was hashed, and for a folder how
// many entries below it the record holds.
type stampedEntry struct {
	path  string
	held  int
	stamp skillcache.Stamp
}

// stampedFolder is what the stat record holds of one folder: the content
// digest (skill.ContentDigest) a read found, when its stamps were taken
// (ns, before the first stat), and the stamps, "." first, then in path
// order. Never changed once made.
type stampedFolder struct {
	digest  string
	taken   int64
	entries []stampedEntry
	// checked, for a skill's folder in a folder source, is the name
	// its SKILL.md gave when a sync found it usable, with nothing of
	// the specification broken: what checking it again would find.
	checked string
}

// folderStamps is the stat record of the folders an Installer hashes
// (canonical copies, copies, the folders of folder sources), by absolute
// path (rule 16): a folder whose every stamp is the record's, and none
// racy, has the digest the record holds without being read. It is read
// from the skill cache once and written back by save when an operation
// changed it. It is safe for concurrent use.
type folderStamps struct {
	mu      sync.Mutex
	loaded  bool
	folders map[string]*stampedFolder
	used    map[string]bool // vouched for or hashed since the last save
	dirty   bool            // differs from what the cache holds
	read    atomic.Int64    // folders read (not vouched for), for tests
}

// checksVersion names the checks that find a folder source's skill
// usable (skillmd's reading of SKILL.md, specChecker, checkName): the
// record's verdicts hold for the checks they were made by, so a change
// to the checks, which TestChecksVersion notices, bumps it and the
// record of every scope is made anew.
const checksVersion = "1"

// stampKey names the stat record of the Installer's scope in the cache,
// for the checks of checksVersion.
func (in *Installer) stampKey() string {
	sum := sha256.Sum256([]byte("agentadaptor install stat record v1\x00checks " + checksVersion + "\x00" + in.Root()))
	return hex.EncodeToString(sum[:])
}

// load reads the scope's record from the cache, once.
func (s *folderStamps) load(in *Installer) {
	if s.loaded {
		return
	}
	s.loaded = true
	s.folders = parseStamps(skillcache.Record(in.cache, in.stampKey()))
	s.used = map[string]bool{}
}

// digest returns the content digest of the folder dir (absolute), as
// skill.ContentDigest does: from the record when it vouches for dir and
// not rehash, else read, stamps first, and recorded. A nil s reads dir.
func (s *folderStamps) digest(ctx context.Context, in *Installer, dir string, rehash bool) (string, error) {
	if s == nil || !in.stampableFS(dir) {
		s.count()
		return skill.ContentDigest(ctx, dir)
	}
	if !rehash {
		if d, ok := s.vouched(ctx, in, dir); ok {
			return d, nil
		}
	}
	s.read.Add(1)
	d, f, err := hashStamped(ctx, dir, in.cache.Limits().MaxArchiveEntries)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load(in)
	old := s.folders[dir]
	switch {
	case f != nil:
		s.used[dir] = true
		if old == nil || !old.same(f) || f.racyCount() < old.racyCount() {
			s.folders[dir] = f
			s.dirty = true
		}
	case old != nil:
		delete(s.folders, dir)
		s.dirty = true
	}
	return d, nil
}

// stampableFS is stampableFS, or what a test set in its place.
func (in *Installer) stampableFS(dir string) bool {
	if in.stampable != nil {
		return in.stampable(dir)
	}
	return stampableFS(dir)
}

// count counts a folder read, for tests; a nil s counts nothing.
func (s *folderStamps) count() {
	if s != nil {
		s.read.Add(1)
	}
}

// vouched returns the digest the record holds for dir when every stamp
// it holds is what a stat finds now and none is racy.
func (s *folderStamps) vouched(ctx context.Context, in *Installer, dir string) (string, bool) {
	s.mu.Lock()
	s.load(in)
	f := s.folders[dir]
	s.mu.Unlock()
	if f == nil || !f.holds(ctx, dir) {
		return "", false
	}
	s.mu.Lock()
	s.used[dir] = true
	s.mu.Unlock()
	return f.digest, true
}

// sourceDigest is digest of a skill's folder in a folder source, when it
// holds no link (a link is read as the file it points to, which the
// record does not follow): "" when it holds one, or more than the
// cache's limits let through, so that the caller reads it as staging
// does.
func (s *folderStamps) sourceDigest(ctx context.Context, in *Installer, c *candidate) string {
	if c.root != "" && !c.noLinks {
		return ""
	}
	d, err := s.digest(ctx, in, c.dir, false)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	f := s.folders[c.dir]
	s.mu.Unlock()
	if f == nil || f.digest != d || !f.within(in.cache.Limits()) {
		return ""
	}
	return d
}

// save writes the record back to the cache when it changed, leaving out
// the folders no longer there; best effort: without it, the next
// Installer reads every folder.
func (s *folderStamps) save(in *Installer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return
	}
	for dir := range s.folders {
		if _, err := os.Lstat(dir); !s.used[dir] && err != nil {
			delete(s.folders, dir)
		}
	}
	skillcache.SetRecord(in.cache, in.stampKey(), encodeStamps(s.folders))
	s.dirty = false
	clear(s.used)
}

// holds reports whether every stamp of f is what a stat of dir finds now,
// and none is racy: the digest of f is dir's.
func (f *stampedFolder) holds(ctx context.Context, dir string) bool {
	for _, e := range f.entries {
		if ctx.Err() != nil {
			return false
		}
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(e.path)))
		if err != nil {
			return false
		}
		st, ok := skillcache.StampOf(fi)
		if !ok || st != e.stamp || skillcache.Racy(st.Ctime, f.taken) {
			return false
		}
	}
	return true
}

// within reports whether the files f records are within the limits.
func (f *stampedFolder) within(l skill.Limits) bool {
	var files, total int64
	for _, e := range f.entries {
		if fs.FileMode(e.stamp.Mode).IsRegular() {
			files++
			total += e.stamp.Size
			if e.stamp.Size > l.MaxFileSize {
				return false
			}
		}
	}
	return int64(len(f.entries)) <= int64(l.MaxArchiveEntries) && files > 0 && total <= l.MaxTotalSize
}

func (f *stampedFolder) same(o *stampedFolder) bool {
	return f.digest == o.digest && f.checked == o.checked && slices.Equal(f.entries, o.entries)
}

// checked returns the name c's SKILL.md gives and the digest of c's
// folder, when the record vouches for the folder and holds that name: a
// sync found the skill usable, its content within the cache's limits,
// and the folder has not changed since, so its check would find the
// same.
func (s *folderStamps) checked(ctx context.Context, in *Installer, c *candidate) (name, digest string, ok bool) {
	if in.custom || c.root == "" || !c.noLinks || !in.stampableFS(c.dir) {
		return "", "", false
	}
	s.mu.Lock()
	s.load(in)
	f := s.folders[c.dir]
	s.mu.Unlock()
	if f == nil || f.checked == "" || !f.within(in.cache.Limits()) || !f.holds(ctx, c.dir) {
		return "", "", false
	}
	s.mu.Lock()
	s.used[c.dir] = true
	s.mu.Unlock()
	return f.checked, f.digest, true
}

// markChecked records that the skill c, read from a folder source whose
// folder has the digest d, is usable as it is, by the name c has.
func (s *folderStamps) markChecked(in *Installer, c *candidate, d string) {
	if in.custom || c.name == "" || c.problem != "" || c.spec != "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.folders[c.dir]
	if f == nil || f.digest != d || f.checked == c.name {
		return
	}
	g := *f
	g.checked = c.name
	s.folders[c.dir] = &g
	s.dirty = true
}

func (f *stampedFolder) racyCount() int {
	n := 0
	for _, e := range f.entries {
		if skillcache.Racy(e.stamp.Ctime, f.taken) {
			n++
		}
	}
	return n
}

// hashStamped returns skill.ContentDigest of dir and, where the platform
// gives stamps and dir holds only folders and regular files (no more
// than max entries), what the record keeps of it: each entry is stamped
// before it is read, so a change made while it is read moves its change
// time past its stamp. A folder the record cannot cover (a link,
// a file that changed while read) is read by skill.ContentDigest alone.
func hashStamped(ctx context.Context, dir string, max int) (string, *stampedFolder, error) {
	taken := time.Now().UnixNano()
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", nil, fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	w := &stampWalk{ctx: ctx, max: max, f: &stampedFolder{taken: taken}}
	if fi.IsDir() {
		err = w.folder(dir, ".", fi)
	} else {
		err = errNoStamps
	}
	if errors.Is(err, errNoStamps) {
		d, err := skill.ContentDigest(ctx, dir)
		return d, nil, err
	}
	if err != nil {
		return "", nil, fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	d := skillcache.FilesDigest(filepath.Base(dir), w.files)
	if !w.ok {
		return d, nil, nil
	}
	w.f.digest = d
	return d, w.f, nil
}

// errNoStamps stops a stamped read of a folder that the record cannot
// cover: skill.ContentDigest reads it instead.
var errNoStamps = errors.New("no stamps")

// stampWalk is one stamped read of a folder.
type stampWalk struct {
	ctx   context.Context
	max   int
	f     *stampedFolder
	files []skillcache.File
	ok    bool // every entry stamped and read whole
}

// folder reads the folder full, at path p, whose Lstat is fi, as
// skill.ContentDigest does: version-control metadata left out, special
// files ignored.
func (w *stampWalk) folder(full, p string, fi fs.FileInfo) error {
	if p == "." {
		w.ok = true
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	i := w.add(p, fi)
	if i < 0 {
		return errNoStamps
	}
	f, err := os.Open(full)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	slices.Sort(names)
	held := 0
	for _, name := range names {
		if skillcache.LeftOut(name) {
			continue
		}
		cfull, cp := filepath.Join(full, name), path.Join(p, name)
		cfi, err := os.Lstat(cfull)
		if err != nil {
			return err
		}
		switch t := cfi.Mode().Type(); {
		case t.IsDir():
			err = w.folder(cfull, cp, cfi)
		case t.IsRegular():
			err = w.file(cfull, cp, cfi)
		case t&fs.ModeSymlink != 0:
			return errNoStamps // a link's target is part of the digest
		default:
			continue // other special files do not count
		}
		if err != nil {
			return err
		}
		held++
	}
	w.f.entries[i].held = held
	return nil
}

// add records the stamp of the entry at p and returns its index, or -1
// when the platform gives no stamp, the folder holds too many entries, or
// the entry is on another device than the folder.
func (w *stampWalk) add(p string, fi fs.FileInfo) int {
	st, ok := skillcache.StampOf(fi)
	if !ok || len(w.f.entries) >= w.max || len(w.f.entries) > 0 && st.Dev != w.f.entries[0].stamp.Dev {
		return -1 // one on another file system is not known to be stampable
	}
	w.f.entries = append(w.f.entries, stampedEntry{path: p, stamp: st})
	return len(w.f.entries) - 1
}

// file hashes the regular file full, at path p, whose Lstat is fi. The
// file opened must be the one stamped: one replaced in between (by a
// link, say) has the folder read by skill.ContentDigest instead.
func (w *stampWalk) file(full, p string, fi fs.FileInfo) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	i := w.add(p, fi)
	if i < 0 {
		return errNoStamps
	}
	f, err := os.OpenFile(full, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return errNoStamps
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !ofi.Mode().IsRegular() {
		return errNoStamps
	} else if st, _ := skillcache.StampOf(ofi); st != w.f.entries[i].stamp {
		return errNoStamps
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if n != fi.Size() {
		w.ok = false // changed while read: not recorded
	}
	file := skillcache.File{Path: p, Exec: fi.Mode()&0o111 != 0, Size: n}
	h.Sum(file.Sum[:0])
	w.files = append(w.files, file)
	return nil
}

// encodeStamps writes the record: a head, the id of the boot that wrote
// it, then for each folder in path
// order a line with its path (in hex), digest, time taken and number of
// entries, then a line per entry (kind, entries held, the six numbers of
// its stamp, its path in hex), and a last line with the SHA-256 of
// everything before it, so that a record cut short or damaged is
// refused.
func encodeStamps(folders map[string]*stampedFolder) []byte {
	var b bytes.Buffer
	b.WriteString(stampHead + "\n" + bootid.Line() + "\n")
	for _, dir := range slices.Sorted(maps.Keys(folders)) {
		f := folders[dir]
		fmt.Fprintf(&b, "F %x %s %d %d %x\n", dir, f.digest, f.taken, len(f.entries), f.checked)
		for _, e := range f.entries {
			kind := byte('f')
			if fs.FileMode(e.stamp.Mode).IsDir() {
				kind = 'd'
			}
			s := e.stamp
			fmt.Fprintf(&b, "%c %d %d %d %d %d %d %d %x\n", kind, e.held, s.Mode, s.Size, s.Mtime, s.Ctime, s.Dev, s.Ino, e.path)
		}
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Fprintf(&b, "sum %x\n", sum)
	return b.Bytes()
}

// parseStamps reads a record encodeStamps wrote. A record that is
// missing, cut short, damaged, malformed or of another boot (package
// bootid's rule 1) gives an empty one: every
// folder is read again, and the record made anew.
func parseStamps(data []byte) map[string]*stampedFolder {
	out := map[string]*stampedFolder{}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return out
	}
	j := bytes.LastIndexByte(data[:len(data)-1], '\n')
	content, last := data[:j+1], string(data[j+1:])
	body, ok := bytes.CutPrefix(content, []byte(stampHead+"\n"+bootid.Line()+"\n"))
	if !ok || bootid.ID() == "" || last != fmt.Sprintf("sum %x\n", sha256.Sum256(content)) {
		return out
	}
	rest := strings.Split(string(body), "\n")
	rest = rest[:len(rest)-1]
	for len(rest) > 0 {
		dir, f, n, ok := parseStampedFolder(rest[0])
		if !ok || n > len(rest)-1 || out[dir] != nil {
			return map[string]*stampedFolder{}
		}
		if f.entries, ok = parseStampedEntries(rest[1 : 1+n]); !ok {
			return map[string]*stampedFolder{}
		}
		out[dir] = f
		rest = rest[1+n:]
	}
	return out
}

// parseStampedFolder reads a folder's line: its path, the folder, and
// how many entry lines follow.
func parseStampedFolder(l string) (string, *stampedFolder, int, bool) {
	fields := strings.Split(l, " ")
	if len(fields) != 6 || fields[0] != "F" {
		return "", nil, 0, false
	}
	checked, err := hex.DecodeString(fields[5])
	if err != nil || checkName(string(checked)) != nil && len(checked) > 0 {
		return "", nil, 0, false
	}
	p, err := hex.DecodeString(fields[1])
	dir := string(p)
	if err != nil || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return "", nil, 0, false
	}
	if d := fields[2]; len(d) != 64 || strings.Trim(d, "0123456789abcdef") != "" {
		return "", nil, 0, false
	}
	taken, err1 := strconv.ParseInt(fields[3], 10, 64)
	n, err2 := strconv.Atoi(fields[4])
	if err1 != nil || err2 != nil || n < 1 {
		return "", nil, 0, false
	}
	return dir, &stampedFolder{digest: strings.Clone(fields[2]), taken: taken, checked: string(checked)}, n, true
}

// parseStampedEntries reads a folder's entry lines: "." first, each
// path once, each but "." inside a folder listed before it, and each
// folder holding as many entries as its line says.
func parseStampedEntries(lines []string) ([]stampedEntry, bool) {
	entries := make([]stampedEntry, 0, len(lines))
	held := map[string]int{} // a folder's: the entries it holds not yet read
	seen := map[string]bool{}
	for i, l := range lines {
		fields := strings.Split(l, " ")
		if len(fields) != 9 || len(fields[0]) != 1 {
			return nil, false
		}
		var n [7]uint64
		for j := range n {
			var err error
			if n[j], err = strconv.ParseUint(fields[j+1], 10, 64); err != nil {
				return nil, false
			}
		}
		p, err := hex.DecodeString(fields[8])
		if err != nil || !fs.ValidPath(string(p)) || (i == 0) != (string(p) == ".") {
			return nil, false
		}
		e := stampedEntry{path: string(p), held: int(n[0]), stamp: skillcache.Stamp{Mode: uint32(n[1]), Size: int64(n[2]), Mtime: int64(n[3]), Ctime: int64(n[4]), Dev: n[5], Ino: n[6]}}
		mode := fs.FileMode(e.stamp.Mode)
		switch {
		case fields[0] == "d" && mode.IsDir():
			held[e.path] = e.held
		case fields[0] == "f" && mode.IsRegular() && e.held == 0:
		default:
			return nil, false
		}
		if seen[e.path] {
			return nil, false
		}
		seen[e.path] = true
		if i > 0 {
			parent := path.Dir(e.path)
			if _, ok := held[parent]; !ok {
				return nil, false
			}
			held[parent]--
		}
		entries = append(entries, e)
	}
	for _, left := range held {
		if left != 0 {
			return nil, false
		}
	}
	return entries, true
}
