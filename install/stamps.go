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
	pathpkg "path"
	"path/filepath"
	"slices"
	"strconv"
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
	// devs is stampableFS of the folders met on each device, asked once
	// a device an operation: forgotten when one starts (forgetDevs) and
	// when it saves, so an operation that failed before saving leaves no
	// answer for the next, which may come after a remount.
	devs map[uint64]bool
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
	if s == nil {
		return skill.ContentDigest(ctx, dir)
	}
	if !rehash {
		if d, ok := s.vouched(ctx, in, dir); ok {
			return d, nil
		}
	}
	if !in.stampableFS(dir) {
		s.count()
		return skill.ContentDigest(ctx, dir)
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

// stampableFS is skillcache.StampableFS (rule 16), or what a test set in its place.
func (in *Installer) stampableFS(dir string) bool {
	if in.stampable != nil {
		return in.stampable(dir)
	}
	return skillcache.StampableFS(dir)
}

// forgetDevs forgets the file system answers of earlier operations: every
// entry point that may hash a folder calls it first.
func (s *folderStamps) forgetDevs() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.devs = nil
	s.mu.Unlock()
}

// stampableDev is stampableFS of dir, a folder on the device dev (its
// stat's), asked once a device until the next save.
func (s *folderStamps) stampableDev(in *Installer, dir string, dev uint64) bool {
	s.mu.Lock()
	ok, known := s.devs[dev]
	s.mu.Unlock()
	if known {
		return ok
	}
	ok = in.stampableFS(dir)
	s.mu.Lock()
	if s.devs == nil {
		s.devs = map[uint64]bool{}
	}
	s.devs[dev] = ok
	s.mu.Unlock()
	return ok
}

// count counts a folder read, for tests; a nil s counts nothing.
func (s *folderStamps) count() {
	if s != nil {
		s.read.Add(1)
	}
}

// vouched returns the digest the record holds for dir when every stamp
// it holds is what a stat finds now and none is racy, on a file system
// whose stamps the record may trust.
func (s *folderStamps) vouched(ctx context.Context, in *Installer, dir string) (string, bool) {
	s.mu.Lock()
	s.load(in)
	f := s.folders[dir]
	s.mu.Unlock()
	if f == nil || len(f.entries) == 0 || !f.holds(ctx, dir) || !s.stampableDev(in, dir, f.entries[0].stamp.Dev) {
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

// saveRecords writes back what an operation learnt for the next: the
// stat record, and what the trust checker learnt of its kept reports.
func (in *Installer) saveRecords() {
	in.stamps.save(in)
	if in.trust != nil {
		in.trust.checker.Flush()
	}
}

// save writes the record back to the cache when it changed, leaving out
// the folders no longer there; best effort: without it, the next
// Installer reads every folder.
func (s *folderStamps) save(in *Installer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.devs = nil
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
	if in.custom || c.root == "" || !c.noLinks {
		return "", "", false
	}
	s.mu.Lock()
	s.load(in)
	f := s.folders[c.dir]
	s.mu.Unlock()
	if f == nil || f.checked == "" || !f.within(in.cache.Limits()) || len(f.entries) == 0 || !f.holds(ctx, c.dir) || !s.stampableDev(in, c.dir, f.entries[0].stamp.Dev) {
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
		cfull, cp := filepath.Join(full, name), pathpkg.Join(p, name)
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
// folder is read again, and the record made anew. It reads the record in
// place, line by line, and the paths inside folders, most of them alike
// from one folder to the next ("." and SKILL.md), are kept once.
func parseStamps(data []byte) map[string]*stampedFolder {
	out := map[string]*stampedFolder{}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return out
	}
	j := bytes.LastIndexByte(data[:len(data)-1], '\n')
	content, last := data[:j+1], data[j+1:]
	body, ok := bytes.CutPrefix(content, []byte(stampHead+"\n"+bootid.Line()+"\n"))
	if !ok || bootid.ID() == "" || string(last) != fmt.Sprintf("sum %x\n", sha256.Sum256(content)) {
		return out
	}
	// body is empty or ends with a newline.
	p := stampParser{paths: map[string]string{}}
	for len(body) > 0 {
		var l []byte
		l, body, _ = bytes.Cut(body, []byte("\n"))
		dir, f, n, ok := parseStampedFolder(l)
		if !ok || out[dir] != nil {
			return map[string]*stampedFolder{}
		}
		if f.entries, body, ok = p.entries(body, n); !ok {
			return map[string]*stampedFolder{}
		}
		out[dir] = f
	}
	return out
}

// cutFields splits l at each space into exactly len(out) fields, as
// strings.Split would, and reports whether there were that many.
func cutFields(l []byte, out [][]byte) bool {
	for i := range len(out) - 1 {
		var ok bool
		if out[i], l, ok = bytes.Cut(l, []byte(" ")); !ok {
			return false
		}
	}
	out[len(out)-1] = l
	return bytes.IndexByte(l, ' ') < 0
}

// parseStampedFolder reads a folder's line: its path, the folder, and
// how many entry lines follow.
func parseStampedFolder(l []byte) (string, *stampedFolder, int, bool) {
	var fields [6][]byte
	if !cutFields(l, fields[:]) || string(fields[0]) != "F" {
		return "", nil, 0, false
	}
	checked := make([]byte, hex.DecodedLen(len(fields[5])))
	if _, err := hex.Decode(checked, fields[5]); err != nil || checkName(string(checked)) != nil && len(checked) > 0 {
		return "", nil, 0, false
	}
	p := make([]byte, hex.DecodedLen(len(fields[1])))
	_, err := hex.Decode(p, fields[1])
	dir := string(p)
	if err != nil || !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return "", nil, 0, false
	}
	if d := fields[2]; len(d) != 64 || len(bytes.Trim(d, "0123456789abcdef")) != 0 {
		return "", nil, 0, false
	}
	taken, err1 := strconv.ParseInt(string(fields[3]), 10, 64)
	n, err2 := strconv.Atoi(string(fields[4]))
	if err1 != nil || err2 != nil || n < 1 {
		return "", nil, 0, false
	}
	return dir, &stampedFolder{digest: string(fields[2]), taken: taken, checked: string(checked)}, n, true
}

// stampParser reads the entry lines of a record's folders, keeping each
// path inside a folder once.
type stampParser struct {
	paths map[string]string
}

// path decodes the hex text of a path inside a folder.
func (p *stampParser) path(text []byte) (string, bool) {
	var buf [128]byte
	n := hex.DecodedLen(len(text))
	if n > len(buf) {
		b := make([]byte, n)
		_, err := hex.Decode(b, text)
		return string(b), err == nil
	}
	if _, err := hex.Decode(buf[:n], text); err != nil {
		return "", false
	}
	if s, ok := p.paths[string(buf[:n])]; ok {
		return s, true
	}
	s := string(buf[:n])
	p.paths[s] = s
	return s, true
}

// entries reads a folder's n entry lines from the start of body, and
// returns them with the rest of body: "." first, each path once, each
// but "." inside a folder listed before it, and each folder holding as
// many entries as its line says.
func (p *stampParser) entries(body []byte, n int) ([]stampedEntry, []byte, bool) {
	if n > len(body)/16 { // an entry line is longer
		return nil, nil, false
	}
	entries := make([]stampedEntry, 0, n)
	// left is, for each of entries (by index), whether it is a folder
	// and, for a folder, the entries it holds not yet read.
	type held struct {
		folder bool
		left   int
	}
	var small [8]held
	left := small[:0]
	var byPath map[string]int // the index of each path, for many entries
	if n > len(small) {
		byPath = make(map[string]int, n)
	}
	find := func(path string) int {
		if byPath != nil {
			if i, ok := byPath[path]; ok {
				return i
			}
			return -1
		}
		for i, e := range entries {
			if e.path == path {
				return i
			}
		}
		return -1
	}
	for i := range n {
		var l []byte
		l, body, _ = bytes.Cut(body, []byte("\n"))
		var fields [9][]byte
		if !cutFields(l, fields[:]) || len(fields[0]) != 1 {
			return nil, nil, false
		}
		var num [7]uint64
		for j := range num {
			var err error
			if num[j], err = strconv.ParseUint(string(fields[j+1]), 10, 64); err != nil {
				return nil, nil, false
			}
		}
		path, ok := p.path(fields[8])
		if !ok || !fs.ValidPath(path) || (i == 0) != (path == ".") {
			return nil, nil, false
		}
		e := stampedEntry{path: path, held: int(num[0]), stamp: skillcache.Stamp{Mode: uint32(num[1]), Size: int64(num[2]), Mtime: int64(num[3]), Ctime: int64(num[4]), Dev: num[5], Ino: num[6]}}
		mode := fs.FileMode(e.stamp.Mode)
		var h held
		switch {
		case fields[0][0] == 'd' && mode.IsDir():
			h = held{folder: true, left: e.held}
		case fields[0][0] == 'f' && mode.IsRegular() && e.held == 0:
		default:
			return nil, nil, false
		}
		if find(e.path) >= 0 {
			return nil, nil, false
		}
		if i > 0 {
			parent := find(pathpkg.Dir(e.path))
			if parent < 0 || !left[parent].folder {
				return nil, nil, false
			}
			left[parent].left--
		}
		entries = append(entries, e)
		left = append(left, h)
		if byPath != nil {
			byPath[e.path] = i
		}
	}
	for _, h := range left {
		if h.left != 0 {
			return nil, nil, false
		}
	}
	return entries, body, true
}
