// Package cache is the content-addressed store behind the default skill
// materializer.
//
// # Layout
//
//	<root>/<digest>/<name>/...   a published skill tree (files read-only)
//	<root>/<digest>/.manifest    what the tree holds, published with it
//	<root>/.memo/<key>           archive memo: a source's key -> its digest
//	<root>/.tmp/<id>.lock        locked while staging <id> is alive
//	<root>/.tmp/<id>/            a staging area, renamed to <root>/<digest>
//	<root>/.tmp/<id>.spool       a spooled archive being extracted
//	<root>/.tmp/<id>.scratch     its decompressed stream
//
// The digest is [Digest] of the runtime name and the files, so a published
// tree is fully determined by its folder name.
//
// # Digest
//
// A tree's digest ([Digest], [DigestTree]) is the lowercase hex SHA-256 of
// the byte string below, in which u64 is an unsigned 64-bit big-endian
// integer and str is a u64 byte count followed by that many bytes (no
// terminator):
//
//	"agentadaptor skill tree v1" 0x00   27 bytes: the encoding and its version
//	str name                            the runtime name (the tree's folder name)
//	u64 n                               the number of entries
//	n entries, in order of path
//
// where each entry is one of
//
//	str path  0x00  u64 size  sha256    a regular file
//	str path  0x01  u64 size  sha256    an executable regular file
//	str path  0x02  str target          a symbolic link
//
// A path is slash-separated and relative to the tree's folder; size is the
// file's length and sha256 the 32-byte SHA-256 of its bytes; target is the
// text the link holds, slash-separated, never followed. Entries are sorted
// by path, comparing bytes (so "B" < "a" < "a/b" < "a0"); entries with the
// same path, which no real tree has, are sorted by the bytes that follow
// the path, so the digest never depends on the order of the input.
// Folders are not entries: they hold nothing of their own, and an empty
// folder does not change the digest. Nothing else (times, owners, modes
// other than the executable bit, special files) is encoded.
//
// Every field either has a fixed length or carries its length, and the tag
// byte after each path says which fields follow, so the byte string reads
// back one way only: two different trees never share an encoding.
// Known-answer tests fix the digests of sample trees.
//
// Version 1 at first had no link entry: a link, which only a folder
// digested in place can hold (package skill's ContentDigest), was encoded
// as a regular file named "<path> -> link" holding the target, which a
// real file of that name matched. The link entry replaced it and the
// version stayed 1, because a tree without links is encoded byte for byte
// as before: every published tree and every digest recorded for a tree
// without links keeps its value. Only a folder holding a link has a new
// digest. Any further change of the encoding changes the version.
//
// # Rules
//
//  1. A tree is staged in <root>/.tmp, on the same file system, and
//     published by renaming the whole staging folder to <root>/<digest>. A
//     tree that is visible is therefore complete; a crash leaves only
//     staging, which no lookup ever sees.
//  2. When the rename finds the digest already published, the existing
//     tree wins if it checks out, and the staging is discarded. A tree that
//     no longer matches its manifest (a file deleted, truncated or replaced)
//     is moved aside and replaced.
//  3. Each staging area is locked while its owner lives. A sweep, run once
//     per [Store], removes areas whose lock can be taken: their owner died.
//     Where file locks are unavailable, areas older than a day are swept.
//  4. Lookups check the manifest against the digest, refuse links on the
//     way to the tree, check every file's type, size and executable bit,
//     and refuse any entry the manifest does not list. They do not re-hash
//     contents: a file changed in place to the same size (which takes a
//     chmod first, as files are read-only) is not noticed.
//  5. The root and its .tmp and .memo folders must be real folders owned by
//     the current user and not writable by every user. A sweep removes
//     only names a Store makes, through an os.Root on .tmp.
//
// A Store is safe for concurrent use by goroutines and by processes that
// share a root.
package cache

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

var errLocked = errors.New("locked by another process")

const (
	tmpDir       = ".tmp"
	memoDir      = ".memo"
	manifestName = ".manifest"
	manifestHead = "agentadaptor skill manifest v1"
)

// Store is a cache root.
type Store struct {
	root  string
	sweep sync.Once
}

// Open returns the store at root, creating its folders. The root is made
// absolute. The root and the store's own folders must be real folders
// owned by the current user and not writable by others (rule 5).
func Open(root string) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("create cache folder: %w (set another root with WithSkillCacheRoot)", err)
	}
	if err := checkFolder(abs); err != nil {
		return nil, err
	}
	for _, sub := range []string{tmpDir, memoDir} {
		p := filepath.Join(abs, sub)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create cache folder: %w (set another root with WithSkillCacheRoot)", err)
		}
		if err := checkFolder(p); err != nil {
			return nil, err
		}
	}
	return &Store{root: abs}, nil
}

// checkFolder refuses a cache folder that is a link or a file, or that
// another user could change.
func checkFolder(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("cache folder %s is not a folder (a link or a file is there); remove it or set another root with WithSkillCacheRoot", p)
	}
	if err := CheckOwner(fi); err != nil {
		return fmt.Errorf("cache folder %s %v; set another root with WithSkillCacheRoot", p, err)
	}
	return nil
}

// Root returns the store's absolute root folder.
func (s *Store) Root() string { return s.root }

// Path returns where the tree with this digest and name is published.
func (s *Store) Path(digest, name string) string {
	return filepath.Join(s.root, digest, name)
}

// Lookup reports whether the tree with this digest and name is published
// and intact (rule 4), and returns its folder.
func (s *Store) Lookup(digest, name string) (string, bool) {
	if !validDigest(digest) {
		return "", false
	}
	lastUse, ok := intact(s.root, digest, name)
	if !ok {
		return "", false
	}
	// Record the use for gc in the tree's folder time, at most once per
	// useGranularity so a warm lookup rarely writes.
	if now := time.Now(); now.Sub(lastUse) > useGranularity {
		os.Chtimes(filepath.Join(s.root, digest), now, now)
	}
	return s.Path(digest, name), true
}

// useGranularity is how precisely last use is recorded.
const useGranularity = time.Hour

// Entry is one published tree.
type Entry struct {
	// Digest is the tree's content digest.
	Digest string
	// Name is its runtime name.
	Name string
	// Dir is the tree's folder.
	Dir string
	// Size is the total size of its files in bytes.
	Size int64
	// Files is the number of its files.
	Files int
	// LastUse is when a lookup last returned it (or when it was published).
	LastUse time.Time
}

// Entries lists the trees published under root, sorted by digest. A root
// that does not exist holds none.
func Entries(root string) ([]Entry, error) {
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range dirs {
		if !d.IsDir() || !validDigest(d.Name()) {
			continue
		}
		m := filepath.Join(root, d.Name(), manifestName)
		data, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		files, name, err := parseManifest(data)
		if err != nil {
			continue
		}
		e := Entry{Digest: d.Name(), Name: name, Dir: filepath.Join(root, d.Name(), name), Files: len(files)}
		for _, f := range files {
			e.Size += f.Size
		}
		if fi, err := d.Info(); err == nil {
			e.LastUse = fi.ModTime()
		}
		out = append(out, e)
	}
	return out, nil
}

// GC removes the trees under root not used since before, and memo entries
// as old, and returns the trees it removed. A tree is first renamed into
// the staging folder, so no lookup sees it half removed.
func GC(root string, before time.Time) ([]Entry, error) {
	s, err := Open(root)
	if err != nil {
		return nil, err
	}
	all, err := Entries(s.root)
	if err != nil {
		return nil, err
	}
	var removed []Entry
	for _, e := range all {
		if !e.LastUse.Before(before) {
			continue
		}
		st, err := s.Stage("gc")
		if err != nil {
			return removed, err
		}
		aside := filepath.Join(s.root, tmpDir, st.id+".old")
		if err := os.Rename(filepath.Join(s.root, e.Digest), aside); err == nil {
			removed = append(removed, e)
		}
		st.Close()
		os.RemoveAll(aside)
	}
	memos, _ := os.ReadDir(filepath.Join(s.root, memoDir))
	for _, m := range memos {
		if info, err := m.Info(); err == nil && info.ModTime().Before(before) {
			os.Remove(filepath.Join(s.root, memoDir, m.Name()))
		}
	}
	return removed, nil
}

// Verify reports whether dir is a tree published by some store, that is
// <root>/<digest>/<name> and intact (rule 4), and returns its digest.
func Verify(dir string) (string, bool) {
	parent := filepath.Dir(dir)
	digest := filepath.Base(parent)
	if !validDigest(digest) {
		return "", false
	}
	if _, ok := intact(filepath.Dir(parent), digest, filepath.Base(dir)); !ok {
		return "", false
	}
	return digest, true
}

// intact checks the tree <root>/<digest>/<name> against its manifest: no
// link on the way, every listed file a regular file of the recorded size
// and executable bit, and nothing else in any folder.
//
// It also returns the tree folder's time, its last recorded use.
func intact(storeRoot, digest, name string) (time.Time, bool) {
	ok, fi := intactTree(storeRoot, digest, name)
	if !ok {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

func intactTree(storeRoot, digest, name string) (bool, os.FileInfo) {
	root, err := os.OpenRoot(storeRoot)
	if err != nil {
		return false, nil
	}
	defer root.Close()
	topInfo, err := root.Lstat(digest)
	if err != nil || !topInfo.IsDir() {
		return false, nil
	}
	top, err := root.OpenRoot(digest)
	if err != nil {
		return false, nil
	}
	defer top.Close()
	data, err := top.ReadFile(manifestName)
	if err != nil {
		return false, nil
	}
	files, gotName, err := parseManifest(data)
	if err != nil || gotName != name || Digest(name, files) != digest {
		return false, nil
	}
	if fi, err := top.Lstat(name); err != nil || !fi.IsDir() {
		return false, nil
	}
	// What each folder must hold: file name -> index in files, or -1 for a
	// folder.
	want := map[string]map[string]int{".": {}}
	for i, f := range files {
		dir, base := path.Split(f.Path)
		dir = path.Clean(dir)
		if _, ok := want[dir]; !ok {
			for d := dir; d != "."; d = path.Dir(d) {
				if want[d] == nil {
					want[d] = map[string]int{}
				}
				parent := path.Dir(d)
				if want[parent] == nil {
					want[parent] = map[string]int{}
				}
				want[parent][path.Base(d)] = -1
			}
		}
		want[dir][base] = i
	}
	for dir, names := range want {
		local, err := filepath.Localize(path.Join(name, dir))
		if err != nil {
			return false, nil
		}
		f, err := top.Open(local)
		if err != nil {
			return false, nil
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil || len(entries) != len(names) {
			return false, nil
		}
		for _, e := range entries {
			i, ok := names[e.Name()]
			if !ok || (i < 0) != e.IsDir() {
				return false, nil
			}
			if i < 0 {
				continue
			}
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() || fi.Size() != files[i].Size || (fi.Mode()&0o111 != 0) != files[i].Exec {
				return false, nil
			}
		}
	}
	return true, topInfo
}

func validDigest(d string) bool {
	if len(d) != 64 {
		return false
	}
	_, err := hex.DecodeString(d)
	return err == nil
}

// Staging is a private folder in which one tree is built before it is
// published. Close it when done, whether or not it was published.
type Staging struct {
	store *Store
	id    string
	dir   string // <root>/.tmp/<id>
	name  string
	lock  *os.File
	root  *os.Root
	files map[string]*os.File // private files beside the staging area
}

// Stage creates a staging area for a tree with the given runtime name. The
// first call on a Store sweeps abandoned staging (rule 3).
func (s *Store) Stage(name string) (*Staging, error) {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") || strings.ContainsAny(name, "/\\\x00") {
		return nil, fmt.Errorf("invalid runtime name %q", name)
	}
	s.sweep.Do(s.sweepStaging)
	for attempt := 0; ; attempt++ {
		st, err := s.stage(name)
		if err != errLocked || attempt == 10 {
			return st, err
		}
		// A sweep took the new lock file before this process could lock
		// it: start again under another id.
	}
}

func (s *Store) stage(name string) (*Staging, error) {
	var b [12]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	tmp := filepath.Join(s.root, tmpDir)
	lockPath := filepath.Join(tmp, id+".lock")
	lock, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create staging lock: %w", err)
	}
	st := &Staging{store: s, id: id, dir: filepath.Join(tmp, id), name: name, lock: lock}
	if err := lockFile(lock); err != nil {
		st.Close()
		return nil, err
	}
	// Between creating the lock file and locking it, a sweep may have
	// locked it, judged it abandoned and removed it: the lock held must be
	// on the file that is still in place.
	if !stillInPlace(lock, lockPath) {
		lock.Close()
		st.lock = nil
		st.Close()
		return nil, errLocked
	}
	if err := os.Mkdir(st.dir, 0o755); err != nil {
		st.Close()
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(st.dir, name), 0o755); err != nil {
		st.Close()
		return nil, err
	}
	if st.root, err = os.OpenRoot(filepath.Join(st.dir, name)); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func stillInPlace(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(held, now)
}

// Root is the folder the tree is written into, as an [os.Root].
func (st *Staging) Root() *os.Root { return st.root }

// File returns the private file <id>.<kind> beside the staging area,
// creating it on first use; Close removes it. Kinds name what a file holds
// (such as "spool" or "scratch") and must be lowercase letters.
func (st *Staging) File(kind string) (*os.File, error) {
	if f := st.files[kind]; f != nil {
		return f, nil
	}
	if kind == "" || kind == "lock" || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return nil, fmt.Errorf("invalid staging file kind %q", kind)
	}
	f, err := os.OpenFile(filepath.Join(st.store.root, tmpDir, st.id+"."+kind), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if st.files == nil {
		st.files = make(map[string]*os.File)
	}
	st.files[kind] = f
	return f, nil
}

// Publish records the manifest of files, which must be exactly what was
// written under Root, and renames the staging area into place (rules 1
// and 2). It returns the published folder and the digest.
func (st *Staging) Publish(files []File) (dir, digest string, err error) {
	digest = Digest(st.name, files)
	if err := writeManifest(filepath.Join(st.dir, manifestName), st.name, files); err != nil {
		return "", "", err
	}
	if err := st.root.Close(); err != nil {
		return "", "", err
	}
	st.root = nil
	s := st.store
	final := filepath.Join(s.root, digest)
	for attempt := 0; ; attempt++ {
		err := os.Rename(st.dir, final)
		if err == nil {
			return s.Path(digest, st.name), digest, nil
		}
		if dir, ok := s.Lookup(digest, st.name); ok {
			return dir, digest, nil // another writer won (rule 2)
		}
		if attempt == 2 {
			return "", "", fmt.Errorf("publish %s: %w", digest, err)
		}
		// The published tree is damaged. Replace it under a lock, so that
		// two repairers do not remove each other's fresh tree, checking
		// again once the lock is held.
		if dir, ok, err := st.repair(digest, final); ok || err != nil {
			return dir, digest, err
		}
	}
}

// repair replaces a damaged tree at final with the staged one.
func (st *Staging) repair(digest, final string) (string, bool, error) {
	s := st.store
	lock, err := os.OpenFile(filepath.Join(s.root, memoDir, digest+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", false, err
	}
	defer lock.Close()
	if err := waitLock(lock); err != nil {
		return "", false, err
	}
	if dir, ok := s.Lookup(digest, st.name); ok {
		return dir, true, nil // repaired by another writer meanwhile
	}
	old := filepath.Join(s.root, tmpDir, st.id+".old")
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("move damaged tree %s aside: %w", final, err)
	}
	if err := os.Rename(st.dir, final); err != nil {
		return "", false, nil // let the caller try again
	}
	tmp, err := os.OpenRoot(filepath.Join(s.root, tmpDir))
	if err == nil {
		tmp.RemoveAll(st.id + ".old")
		tmp.Close()
	}
	return s.Path(digest, st.name), true, nil
}

// Close removes whatever the staging area still holds and releases its
// lock. It is safe to call more than once.
func (st *Staging) Close() error {
	if st.root != nil {
		st.root.Close()
		st.root = nil
	}
	for kind, f := range st.files {
		f.Close()
		os.Remove(f.Name())
		delete(st.files, kind)
	}
	var err error
	if st.dir != "" {
		err = os.RemoveAll(st.dir)
		st.dir = ""
	}
	if st.lock != nil {
		// Closed first: Windows does not remove a file that is open. A
		// sweep may take the lock in between and remove the file first.
		st.lock.Close()
		os.Remove(st.lock.Name())
		st.lock = nil
	}
	return err
}

// sweepStaging removes staging areas whose owners are gone (rule 3). It
// touches only names a Store makes (<24 hex digits>[.<kind>]) and removes
// them through a root on the staging folder, so a link planted there
// leads nowhere.
func (s *Store) sweepStaging() {
	tmp, err := os.OpenRoot(filepath.Join(s.root, tmpDir))
	if err != nil {
		return
	}
	defer tmp.Close()
	f, err := tmp.Open(".")
	if err != nil {
		return
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return
	}
	byID := make(map[string][]string)
	for _, name := range names {
		if id, ok := stagingID(name); ok {
			byID[id] = append(byID[id], name)
		}
	}
	for id, names := range byID {
		lock := id + ".lock"
		info, err := tmp.Lstat(lock)
		if errors.Is(err, fs.ErrNotExist) {
			// No lock: its owner finished or died after removing it.
			for _, name := range names {
				tmp.RemoveAll(name)
			}
			continue
		}
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		release, ok := claimAbandoned(filepath.Join(s.root, tmpDir, lock), info.ModTime())
		if !ok {
			continue
		}
		for _, name := range names {
			if name != lock {
				tmp.RemoveAll(name)
			}
		}
		tmp.Remove(lock)
		release()
	}
}

// stagingID returns the staging id a name in the staging folder belongs
// to, if it is one a Store makes.
func stagingID(name string) (string, bool) {
	id, kind, _ := strings.Cut(name, ".")
	if len(id) != 24 || strings.Trim(id, "0123456789abcdef") != "" || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return "", false
	}
	return id, true
}

func writeManifest(path, name string, files []File) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nname %s\n", manifestHead, name)
	for _, f := range files {
		x := "-"
		if f.Exec {
			x = "x"
		}
		fmt.Fprintf(&b, "%x %s %d %s\n", f.Sum, x, f.Size, f.Path)
	}
	return os.WriteFile(path, []byte(b.String()), 0o444)
}

func parseManifest(data []byte) ([]File, string, error) {
	var err error
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	bad := errors.New("malformed manifest")
	if !sc.Scan() || sc.Text() != manifestHead || !sc.Scan() {
		return nil, "", bad
	}
	name, ok := strings.CutPrefix(sc.Text(), "name ")
	if !ok {
		return nil, "", bad
	}
	var files []File
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 4)
		if len(fields) != 4 || len(fields[0]) != 64 {
			return nil, "", bad
		}
		var f File
		if _, err := hex.Decode(f.Sum[:], []byte(fields[0])); err != nil {
			return nil, "", bad
		}
		f.Exec = fields[1] == "x"
		if f.Size, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
			return nil, "", bad
		}
		f.Path = fields[3]
		files = append(files, f)
	}
	return files, name, nil
}

// Memo returns the digest recorded for an archive key, if any.
func (s *Store) Memo(key string) (string, bool) {
	f, err := os.Open(filepath.Join(s.root, memoDir, key))
	if err != nil {
		return "", false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", false
	}
	mod := info.ModTime()
	data, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", false
	}
	d := strings.TrimSpace(string(data))
	if !validDigest(d) {
		return "", false
	}
	if now := time.Now(); now.Sub(mod) > useGranularity {
		os.Chtimes(filepath.Join(s.root, memoDir, key), now, now) // last use, for gc
	}
	return d, true
}

// SetMemo records digest for an archive key, atomically.
func (s *Store) SetMemo(key, digest string) error {
	if !validDigest(key) {
		return fmt.Errorf("invalid memo key %q", key)
	}
	dir := filepath.Join(s.root, memoDir)
	f, err := os.CreateTemp(dir, key+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.WriteString(digest + "\n")
	cerr := f.Close()
	if werr == nil && cerr == nil {
		if err := os.Rename(f.Name(), filepath.Join(dir, key)); err == nil {
			return nil
		}
	}
	os.Remove(f.Name())
	return errors.Join(werr, cerr)
}
