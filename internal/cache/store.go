// Package cache is the content-addressed store behind the default skill
// materializer.
//
// # Layout
//
//	<root>/<digest>/<name>/...   a published skill tree (read-only, rule 6)
//	<root>/<digest>/.manifest    what the tree holds, published with it
//	<root>/<digest>/.stat        the stat record of the tree (rule 4)
//	<root>/.memo/<key>           archive memo: a source's key -> its digest
//	<root>/.memo/.<key>.tmp-<r>  a memo being written, renamed to <key>
//	<root>/.memo/<digest>.lock   locked while a damaged tree is replaced
//	<root>/.memo/<key>.folder    the stat record of a source folder used in place
//	<root>/.memo/<key>.set       the record of a skill set (package skill's rule 12)
//	<root>/.tmp/<id>.lock        locked while staging <id> is alive
//	<root>/.tmp/<id>/            a staging area, renamed to <root>/<digest>
//	<root>/.tmp/<id>/<digest>/   a folder of a staging area's tree being
//	                              published on its own (PublishFolder),
//	                              renamed to <root>/<digest>, or back when that fails
//	<root>/.tmp/<id>.spool       a spooled archive being extracted
//	<root>/.tmp/<id>.scratch     its decompressed stream, when an extraction checks a
//	                              tar in full before writing (no caller does now)
//	<root>/.tmp/<id>.old         a tree moved aside to be removed (repair, gc)
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
// # Showing what is written
//
// A caller that must read what a materialization writes (package trust
// audits it) passes a [Show] in the context ([WithShow]): package skill
// gives it the bytes of every file of each tree it stages for that call
// as they are written, and the digest of each such tree once published
// whole; a tree found in the cache is shown nothing. The context carries
// it because it concerns one call, whichever materializer in a chain
// reaches the cache.
//
// # Rules
//
//  1. A tree is staged in <root>/.tmp, on the same file system, and
//     published by renaming the whole staging folder to <root>/<digest>. A
//     tree that is visible is therefore complete; a crash leaves only
//     staging, which no lookup ever sees.
//  2. When the rename finds the digest already published, the existing
//     tree wins if it checks out (rule 4), and the staging is discarded. A
//     tree that does not check out (a file edited, deleted, truncated,
//     replaced or added, a permission changed) is moved aside and
//     replaced: whoever edited it loses the edit, and the next user gets
//     the genuine tree.
//  3. Each staging area is locked while its owner lives. A sweep removes
//     areas whose lock can be taken: their owner died. [Open] sweeps, so
//     every process that uses a cache (a warm run too) and every [GC]
//     does; with nothing left over a sweep costs one listing of .tmp.
//     Where file locks are unavailable, areas older than a day are swept.
//  4. Lookups check the manifest against the digest, refuse links on the
//     way to the tree, and check that the tree holds exactly the files of
//     its manifest, with their bytes, and nothing else. They do it as
//     git's index does, without hashing: publishing writes a stat record,
//     <digest>/.stat, with every file's and folder's type, permissions,
//     size, modification time, change time, device and inode, and a
//     lookup compares a stat of each with it. A file whose stat differs is
//     hashed again, and a folder whose stat differs is listed again (an
//     added or removed entry changes its folder's times); when they still
//     match the manifest (a file touched, or made writable and read-only
//     again) the record is updated, and otherwise the tree fails the
//     lookup. A changed permission (a file or folder made writable) fails
//     it as well, as does any added entry, a link, or a folder: a tree is
//     what its manifest records, and nothing a process leaves in it
//     reaches a later run. What makes a stat enough is the change time: a
//     write or a chmod sets it to the current time, and no user can set
//     it back (times restored with touch or os.Chtimes still change it).
//     Because file times come from a clock that ticks every few
//     milliseconds (whole seconds on some file systems), an entry whose
//     change time lies within 50 ms (2 s when it has no sub-second part)
//     of when its record was taken, or later, is racy, as git calls it: a
//     change made right after the stat could have left it unchanged, so
//     such entries are re-hashed by every lookup until a lookup out of
//     that window records them again. A tree published without a record
//     (by an older version), or whose record does not fit its manifest,
//     is read and hashed in full once, which writes the record (so is a
//     record of the format before this one, which lacked the last line
//     below); so is
//     every lookup on a platform without change times that users cannot
//     set back: Linux, macOS and the BSDs have them; Windows lets a
//     program set a file's change time, so there every lookup hashes the
//     tree and lists its folders (and compares no permissions, which
//     Windows does not have). Folders holding no file are
//     not content (no digest encodes them). The record, like the tree, is
//     the user's to write: it stops a change to a tree, not a process that
//     also rewrites the record to match (one that could as well rewrite
//     the agent's own settings). The record is written without a flush
//     to the disk (it is best effort, and a flush costs a publish about
//     as much as the rest of it): its last line counts its entries, so
//     one a crash cut short is no record, and the tree is hashed once.
//     Nor are the tree's files flushed, and some file systems (ext4 with
//     data=writeback, ext2, vfat, some FUSE and network ones) keep a
//     file's size and inode across a crash but not its bytes, so a record
//     holds the id of the boot that wrote it, and one of another boot is
//     no record either (package bootid's rule 1): after a restart each
//     tree is hashed once in full and recorded again. A lookup reaches each file and folder
//     from its parent, without listing folders whose stat matches, so it
//     costs a few system calls per file and folder, however deep the
//     tree. A Store remembers the records it read or wrote, so later
//     lookups in the same process compare stats with the record held
//     instead of reading it again; a record held is replaced only by a
//     check of the tree, never by what is on disk, and it stands in for
//     no stat.
//  5. The root and its .tmp and .memo folders must be real folders owned by
//     the current user that neither their group nor every user may write
//     ([CheckOwner]); folders the store
//     creates are private (0700). Every folder above the root, and the
//     targets of links on the way, must belong to the current user or to
//     root and be writable by no one else, unless sticky (as /tmp is):
//     otherwise another user could swap the cache for a forged one. The
//     root is then held open, and every file is reached through it; a
//     lookup or publish whose root path no longer names the folder held
//     fails. A sweep removes only names a Store makes, through an os.Root
//     on .tmp.
//  6. Published trees are read-only: files 0444 (0555 when executable) and
//     folders 0555, so nothing is added to a tree by accident (a script
//     run from it cannot write a cache beside itself), and a tree made
//     writable fails its next lookup (rule 4). The <digest> folder stays
//     writable by its owner, so a tree can be renamed away and its stat
//     record rewritten. Removing
//     a tree (gc, repair, sweep) makes its folders writable first; to
//     remove a cache by hand, run chmod -R u+w on it first, as for Go's
//     module cache.
//  7. A lookup that finds a tree, and a memo hit, record the use in the
//     time of the <digest> folder (or the memo file) when the time recorded
//     is more than a second old: one write per tree per run, and [GC]'s
//     cut-off is exact to the second. [Entries] reports it as LastUse.
//
// A Store is safe for concurrent use by goroutines and by processes that
// share a root.
package cache

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

const (
	tmpDir       = ".tmp"
	memoDir      = ".memo"
	manifestName = ".manifest"
	manifestHead = "agentadaptor skill manifest v1"
)

// Store is a cache root, held open: every file of the store is reached
// through the folder opened by [Open], so a folder renamed or replaced
// above it later cannot redirect what the store reads or writes.
type Store struct {
	path    string      // the absolute root, as opened
	dir     *os.Root    // the root folder, held open
	info    os.FileInfo // its identity
	records recordMemo  // the records of trees this store checked (rule 4)
}

// Open returns the store at root, creating its folders (0700). The root is
// made absolute and held open until [Store.Close]. The root, every folder
// above it and the store's own folders must pass rule 5. Open sweeps
// abandoned staging (rule 3).
func Open(root string) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("create cache folder: %w (%s)", err, otherRoot)
	}
	dir, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open cache folder: %w (%s)", err, otherRoot)
	}
	s := &Store{path: abs, dir: dir}
	if err := s.check(); err != nil {
		dir.Close()
		return nil, err
	}
	for _, sub := range []string{tmpDir, memoDir} {
		if err := dir.Mkdir(sub, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			dir.Close()
			return nil, fmt.Errorf("create cache folder: %w (%s)", err, otherRoot)
		}
		fi, err := dir.Lstat(sub)
		if err == nil {
			err = checkFolder(filepath.Join(abs, sub), fi)
		}
		if err != nil {
			dir.Close()
			return nil, err
		}
	}
	s.sweepStaging()
	return s, nil
}

// otherRoot says how to choose another cache root.
const otherRoot = "set another root with WithSkillCacheRoot or $AGENT_ADAPTOR_SKILL_CACHE_ROOT"

// check applies rule 5 to the root the store holds open: the folder its
// path names now must be that folder, safe from other users all the way
// up.
func (s *Store) check() error {
	info, err := s.dir.Stat(".")
	if err != nil {
		return err
	}
	fi, err := os.Lstat(s.path)
	if err != nil {
		return err
	}
	if err := checkFolder(s.path, fi); err != nil {
		return err
	}
	if !os.SameFile(fi, info) {
		return fmt.Errorf("cache folder %s was replaced while it was opened (%s)", s.path, otherRoot)
	}
	if err := checkAncestors(s.path); err != nil {
		return fmt.Errorf("cache folder %s is not safe from other users: %w (%s)", s.path, err, otherRoot)
	}
	s.info = info
	return nil
}

// checkFolder refuses a cache folder that is a link or a file, or that
// another user could change.
func checkFolder(p string, fi os.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("cache folder %s is not a folder (a link or a file is there); remove it or %s", p, otherRoot)
	}
	if err := CheckOwner(fi); err != nil {
		return fmt.Errorf("cache folder %s %v; %s", p, err, otherRoot)
	}
	return nil
}

// same reports whether the store's path still names the folder it holds
// open, so that a path it returns leads to what it checked.
func (s *Store) same() bool {
	fi, err := os.Stat(s.path)
	return err == nil && os.SameFile(fi, s.info)
}

// errMoved reports a root that no longer is where it was opened.
func (s *Store) errMoved() error {
	return fmt.Errorf("cache folder %s was moved or replaced since it was opened; check who changed it, or %s", s.path, otherRoot)
}

// Close releases the root folder.
func (s *Store) Close() error { return s.dir.Close() }

// Root returns the store's absolute root folder.
func (s *Store) Root() string { return s.path }

// Path returns where the tree with this digest and name is published.
func (s *Store) Path(digest, name string) string {
	return filepath.Join(s.path, digest, name)
}

// Lookup reports whether the tree with this digest and name is published
// and intact (rule 4), and returns its folder. A tree that was changed
// after it was published is not intact: it is left in place for a publish
// of the same content to replace (rule 2).
func (s *Store) Lookup(digest, name string) (string, bool) {
	if !validDigest(digest) {
		return "", false
	}
	lastUse, ok := intact(s.dir, digest, name, &s.records)
	if !ok || !s.same() {
		return "", false
	}
	// Record the use for gc in the tree's folder time (rule 7).
	if now := time.Now(); now.Sub(lastUse) > useGranularity {
		s.dir.Chtimes(digest, now, now)
	}
	return s.Path(digest, name), true
}

// Lookup is [Store.Lookup] in the store at root, opened for this one
// lookup: the root must exist and pass rule 5, and nothing is created in
// it or swept from it, as [Open] would; only the use is recorded. It is
// for a program that finds a tree by a digest it recorded, apart from the
// store a materializer holds open.
func Lookup(root, digest, name string) (string, bool) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false
	}
	dir, err := os.OpenRoot(abs)
	if err != nil {
		return "", false
	}
	s := &Store{path: abs, dir: dir}
	defer s.Close()
	if s.check() != nil {
		return "", false
	}
	return s.Lookup(digest, name)
}

// keptReportsDir is the folder of package trust's kept audit reports
// under a root (trust's reportsDir).
const keptReportsDir = ".audit"

// useGranularity is how precisely last use is recorded (rule 7).
const useGranularity = time.Second

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
// that does not exist holds none; one that fails rule 5 is an error. It
// stops between two trees when ctx is done, with ctx's error.
func Entries(ctx context.Context, root string) ([]Entry, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	dir, err := os.OpenRoot(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := &Store{path: abs, dir: dir}
	defer s.Close()
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.entries(ctx)
}

func (s *Store) entries(ctx context.Context) ([]Entry, error) {
	names, err := readNames(s.dir, ".")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Entry
	for _, d := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !validDigest(d) {
			continue
		}
		fi, err := s.dir.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		data, err := s.dir.ReadFile(path.Join(d, manifestName))
		if err != nil {
			continue
		}
		files, name, err := parseManifest(data)
		if err != nil {
			continue
		}
		e := Entry{Digest: d, Name: name, Dir: s.Path(d, name), Files: len(files), LastUse: fi.ModTime()}
		for _, f := range files {
			e.Size += f.Size
		}
		out = append(out, e)
	}
	return out, nil
}

// GC removes the trees under root not used since before, and memo entries
// and kept audit reports (package trust's, under .audit) written before
// it, and returns the trees it removed. A tree is first renamed into
// the staging folder, so no lookup sees it half removed. The trees whose
// digests are in keep stay, however old (something still links to them).
// It stops between two trees when ctx is done, with ctx's error and the
// trees removed until then.
func GC(ctx context.Context, root string, before time.Time, keep ...string) ([]Entry, error) {
	s, err := Open(root)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	all, err := s.entries(ctx)
	if err != nil {
		return nil, err
	}
	var removed []Entry
	// One staging area lends its id, and its lock, to the name each tree
	// is moved aside to: if this process dies while removing one, a sweep
	// finishes the job once the lock is free.
	var st *Staging
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	for _, e := range all {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		if !e.LastUse.Before(before) || slices.Contains(keep, e.Digest) {
			continue
		}
		if st == nil {
			if st, err = s.Stage("gc"); err != nil {
				return removed, err
			}
		}
		aside := path.Join(tmpDir, st.id+".old")
		if err := s.dir.Rename(e.Digest, aside); err != nil {
			continue // used or removed meanwhile
		}
		removed = append(removed, e)
		if err := removeAll(s.dir, aside); err != nil {
			return removed, fmt.Errorf("remove tree %s: %w", e.Digest, err)
		}
	}
	memos, _ := readNames(s.dir, memoDir) // none if there is no memo folder
	for _, m := range memos {
		p := path.Join(memoDir, m)
		if info, err := s.dir.Lstat(p); err == nil && info.ModTime().Before(before) {
			s.dir.Remove(p)
		}
	}
	// The audit reports package trust keeps beside the trees (# Kept
	// reports there) go as the memos do: one lost costs an audit. Only
	// regular files are removed; a link is left, as nothing reads it.
	reports, _ := readNames(s.dir, keptReportsDir)
	for _, m := range reports {
		p := path.Join(keptReportsDir, m)
		if info, err := s.dir.Lstat(p); err == nil && info.Mode().IsRegular() && info.ModTime().Before(before) {
			s.dir.Remove(p)
		}
	}
	return removed, nil
}

// Verify reports whether dir is a tree published by some store, that is
// <root>/<digest>/<name>, intact (rule 4) and in a root that passes rule 5,
// and returns its digest.
func Verify(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	parent := filepath.Dir(abs)
	digest := filepath.Base(parent)
	if !validDigest(digest) {
		return "", false
	}
	root := filepath.Dir(parent)
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", false
	}
	s := &Store{path: root, dir: r}
	defer s.Close()
	if s.check() != nil {
		return "", false
	}
	if _, ok := intact(r, digest, filepath.Base(abs), nil); !ok || !s.same() {
		return "", false
	}
	return digest, true
}

// intact checks the tree <digest>/<name> under root against its manifest
// and its stat record (rule 4): no link on the way, and the tree holding
// exactly the manifest's files, with their bytes.
//
// It also returns the tree folder's time, its last recorded use. With a
// memo, a record held there stands for the one in the tree's folder.
func intact(root *os.Root, digest, name string, memo *recordMemo) (time.Time, bool) {
	ok, fi := intactTree(root, digest, name, &treeCheck{memo: memo})
	if !ok {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

func intactTree(root *os.Root, digest, name string, c *treeCheck) (bool, os.FileInfo) {
	c.start = time.Now().UnixNano()
	topInfo, err := root.Lstat(digest)
	if err != nil || !topInfo.IsDir() {
		return false, nil
	}
	top, err := root.OpenRoot(digest)
	if err != nil {
		return false, nil
	}
	defer top.Close()
	fi, err := top.Lstat(name)
	if err != nil || !fi.IsDir() {
		return false, nil
	}
	tree, err := openFolderAs(top, name, fi)
	if err != nil {
		return false, nil
	}
	defer tree.Close()
	// The record holds what the manifest holds, and the stamps: when it
	// makes the digest, the manifest need not be read (only be there, for
	// Entries and GC).
	mi, err := top.Lstat(manifestName)
	if err != nil || !mi.Mode().IsRegular() {
		return false, nil
	}
	if c.manifest, c.stamps = stampOf(mi); c.stamps {
		old, ok := c.memo.get(digest, name)
		if !ok {
			old, ok = readRecord(top, digest, name)
		}
		if ok {
			if c.manifest != old.manifest || old.racy(old.manifest) {
				// The manifest changed since it was recorded: it must
				// still describe this digest, as the record does.
				c.changed = true
				if !manifestMatches(top, name, digest) {
					c.memo.put(digest, name, nil)
					return false, nil
				}
			}
			if !c.checkRecorded(tree, fi, old) {
				c.memo.put(digest, name, nil)
				return false, nil
			}
			c.settle(top, name, old)
			if c.changed {
				old = &record{taken: c.start, manifest: c.manifest, entries: c.next}
			}
			c.memo.put(digest, name, old)
			return true, topInfo
		}
	}
	// No usable record (a tree published by an older version, or a
	// platform without change times): check the manifest against the
	// digest, read and hash the whole tree, then record it.
	c.changed = false
	data, err := top.ReadFile(manifestName)
	if err != nil {
		return false, nil
	}
	files, gotName, err := parseManifest(data)
	if err != nil || gotName != name || Digest(name, files) != digest {
		return false, nil
	}
	if !c.checkAll(tree, fi, files, true) {
		return false, nil
	}
	if c.stamps {
		r := &record{taken: c.start, manifest: c.manifest, entries: c.next}
		writeRecord(top, name, r)
		c.memo.put(digest, name, r)
	}
	return true, topInfo
}

// readRecord reads the record of the tree name in top (<digest>), when it
// is well formed and its files make the digest.
func readRecord(top *os.Root, digest, name string) (*record, bool) {
	data, err := top.ReadFile(statName)
	if err != nil {
		return nil, false
	}
	r, rname, files, ok := parseRecord(data)
	if !ok || rname != name || Digest(name, files) != digest {
		return nil, false
	}
	return r, true
}

// manifestMatches reports whether the manifest in top describes the tree
// name with this digest.
func manifestMatches(top *os.Root, name, digest string) bool {
	data, err := top.ReadFile(manifestName)
	if err != nil {
		return false
	}
	files, gotName, err := parseManifest(data)
	return err == nil && gotName == name && Digest(name, files) == digest
}

// openFolder opens the folder name, one element, under dir, refusing a
// link or anything else that is not a folder.
func openFolder(dir *os.Root, name string) (*os.Root, error) {
	fi, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	return openFolderAs(dir, name, fi)
}

// openFolderAs opens the folder name under dir whose Lstat is fi, and
// checks that what it opened is that folder.
func openFolderAs(dir *os.Root, name string, fi os.FileInfo) (*os.Root, error) {
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", name)
	}
	sub, err := dir.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if now, err := sub.Stat("."); err != nil || !os.SameFile(fi, now) {
		sub.Close()
		return nil, fmt.Errorf("%s changed while it was opened", name)
	}
	return sub, nil
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
	dir   string // .tmp/<id>, relative to the store's root
	name  string
	lock  *os.File
	root  *os.Root
	files map[string]*os.File // private files beside the staging area
	// moved is whether the tree was moved in from another staging area
	// (PublishFolder), which Publish then checks against the files it is
	// given.
	moved bool
}

// Stage creates a staging area for a tree with the given runtime name.
func (s *Store) Stage(name string) (*Staging, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		st, err := s.stage(name)
		if !errors.Is(err, filelock.ErrLocked) || attempt == 10 {
			return st, err
		}
		// A sweep took the new lock file before this process could lock
		// it: start again under another id.
	}
}

// checkName refuses a runtime name that is not one element that can be
// a tree's folder.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") || strings.ContainsAny(name, "/\\\x00") {
		return fmt.Errorf("invalid runtime name %q", name)
	}
	return nil
}

func (s *Store) stage(name string) (*Staging, error) {
	var b [12]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	lockPath := path.Join(tmpDir, id+".lock")
	lock, err := s.dir.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create staging lock: %w", err)
	}
	st := &Staging{store: s, id: id, dir: path.Join(tmpDir, id), name: name, lock: lock}
	if err := filelock.TryLock(lock); err != nil {
		st.Close()
		return nil, err
	}
	// Between creating the lock file and locking it, a sweep may have
	// locked it, judged it abandoned and removed it: the lock held must be
	// on the file that is still in place.
	if !stillInPlace(s.dir, lock, lockPath) {
		lock.Close()
		st.lock = nil
		st.Close()
		return nil, filelock.ErrLocked
	}
	if err := s.dir.Mkdir(st.dir, 0o755); err != nil {
		st.Close()
		return nil, err
	}
	if err := s.dir.Mkdir(path.Join(st.dir, name), 0o755); err != nil {
		st.Close()
		return nil, err
	}
	if st.root, err = s.dir.OpenRoot(path.Join(st.dir, name)); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func stillInPlace(dir *os.Root, f *os.File, name string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := dir.Stat(name)
	return err == nil && os.SameFile(held, now)
}

// Root is the folder the tree is written into, as an [os.Root].
func (st *Staging) Root() *os.Root { return st.root }

// PublishFolder publishes the folder sub of st's tree (slash-separated;
// "." for the whole tree) as a tree of its own, with runtime name name,
// that holds files, by renaming it rather than writing it again: what
// was written once into st is published, and leaves st's tree. It is
// staged in a folder inside st's staging area, which st's lock keeps
// from sweeps (rule 3), and published as [Staging.Publish] publishes
// (rules 1 and 2), once it is checked to hold exactly files (their
// sizes and executable bits, and nothing else); their bytes are the
// caller's to vouch for, as for a tree written through Root. Folders of
// st's tree made read-only by an earlier PublishFolder are not allowed
// in sub. It may be called for disjoint folders at once. When it fails
// after moving the folder, it puts the folder back where it was in st's
// tree, its folders writable, unless its error says that failed too.
func (st *Staging) PublishFolder(sub, name string, files []File) (dir, digest string, err error) {
	if err := checkName(name); err != nil {
		return "", "", err
	}
	if st.dir == "" || (sub != "." && !fs.ValidPath(sub)) {
		return "", "", fmt.Errorf("cannot publish folder %q of a closed staging area", sub)
	}
	s := st.store
	digest = Digest(name, files)
	area := path.Join(st.dir, digest)
	if err := s.dir.Mkdir(area, 0o755); err != nil {
		return "", "", err
	}
	child := &Staging{store: s, id: st.id, dir: area, name: name, moved: true}
	defer child.Close()
	from, moved := path.Join(st.dir, st.name, sub), path.Join(area, name)
	if err := s.dir.Rename(from, moved); err != nil {
		return "", "", err
	}
	if child.root, err = s.dir.OpenRoot(moved); err == nil {
		dir, digest, err = child.Publish(files)
	}
	if err != nil {
		// Put the folder back, its folders writable again, before Close
		// removes the child's area: the caller may read it from st.
		if child.root != nil {
			child.root.Close()
			child.root = nil
		}
		makeWritable(s.dir, moved, 0)
		if rerr := s.dir.Rename(moved, from); rerr != nil {
			return "", "", fmt.Errorf("%w; the folder %s has left the staging area: %v", err, sub, rerr)
		}
		return "", "", err
	}
	return dir, digest, nil
}

// Dir returns the absolute folder the tree is written into: the folder
// [Staging.Root] holds open.
func (st *Staging) Dir() string {
	return filepath.Join(st.store.path, filepath.FromSlash(path.Join(st.dir, st.name)))
}

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
	f, err := st.store.dir.OpenFile(st.fileName(kind), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if st.files == nil {
		st.files = make(map[string]*os.File)
	}
	st.files[kind] = f
	return f, nil
}

func (st *Staging) fileName(kind string) string {
	return path.Join(tmpDir, st.id+"."+kind)
}

// Publish records the manifest of files, which must be exactly what was
// written under Root, and renames the staging area into place (rules 1
// and 2). It returns the published folder and the digest.
func (st *Staging) Publish(files []File) (dir, digest string, err error) {
	digest = Digest(st.name, files)
	s := st.store
	if err := s.dir.WriteFile(path.Join(st.dir, manifestName), manifest(st.name, files), 0o444); err != nil {
		return "", "", err
	}
	if err := st.readOnly(files); err != nil {
		return "", "", err
	}
	if !st.record(files) && st.moved {
		return "", "", fmt.Errorf("publish %s: the tree moved into staging does not hold exactly the files of its manifest", digest)
	}
	if err := st.root.Close(); err != nil {
		return "", "", err
	}
	st.root = nil
	if !s.same() {
		return "", "", s.errMoved()
	}
	for attempt := 0; ; attempt++ {
		err := s.dir.Rename(st.dir, digest)
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
		if dir, ok, err := st.repair(digest); ok || err != nil {
			return dir, digest, err
		}
	}
}

// readOnly makes the folders of the staged tree read-only (rule 6): the
// folders that hold files, and the tree's own folder.
func (st *Staging) readOnly(files []File) error {
	dirs := make(map[string]bool)
	for _, f := range files {
		for d := path.Dir(f.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		local, err := filepath.Localize(d)
		if err != nil {
			return err
		}
		if err := st.root.Chmod(local, readOnlyDir); err != nil {
			return err
		}
	}
	return st.store.dir.Chmod(path.Join(st.dir, st.name), readOnlyDir)
}

// record writes the stat record of the staged tree, now read-only (rule
// 4), beside its manifest. Renaming the staging area into place changes
// neither the inodes nor the change times of what it holds. It is best
// effort: a tree without a record is checked in full by its first
// lookup, which writes one. It reports whether the tree holds exactly
// files (their sizes and executable bits), whether or not a record was
// written.
func (st *Staging) record(files []File) bool {
	c := &treeCheck{start: time.Now().UnixNano()}
	fi, err := st.root.Lstat(".")
	if err != nil || !c.checkAll(st.root, fi, files, false) {
		return false
	}
	mi, err := st.store.dir.Lstat(path.Join(st.dir, manifestName))
	if err != nil {
		return true
	}
	c.manifest, _ = stampOf(mi)
	if !c.stamps {
		return true
	}
	r := &record{taken: c.start, manifest: c.manifest, entries: c.next}
	st.store.dir.WriteFile(path.Join(st.dir, statName), r.encode(st.name), 0o444)
	return true
}

// readOnlyDir is the mode of a published tree's folders.
const readOnlyDir = 0o555

// removeAll removes name under dir, first making writable the read-only
// folders of a published tree it may hold. Links are removed, never
// followed.
func removeAll(dir *os.Root, name string) error {
	if err := dir.RemoveAll(name); err == nil {
		return nil
	}
	makeWritable(dir, name, 0)
	return dir.RemoveAll(name)
}

// makeWritable gives the owner write access to the folder name under dir
// and to every folder below it, down to the deepest a tree may have.
func makeWritable(dir *os.Root, name string, depth int) {
	fi, err := dir.Lstat(name)
	if err != nil || !fi.IsDir() || depth > 64 {
		return
	}
	dir.Chmod(name, fi.Mode().Perm()|0o700)
	sub, err := openFolder(dir, name)
	if err != nil {
		return
	}
	defer sub.Close()
	names, _ := readNames(sub, ".")
	for _, n := range names {
		makeWritable(sub, n, depth+1)
	}
}

// repair replaces a damaged tree with the staged one.
func (st *Staging) repair(digest string) (string, bool, error) {
	s := st.store
	lock, err := s.dir.OpenFile(path.Join(memoDir, digest+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", false, err
	}
	defer lock.Close()
	if err := filelock.Lock(context.Background(), lock); err != nil {
		return "", false, err
	}
	if dir, ok := s.Lookup(digest, st.name); ok {
		return dir, true, nil // repaired by another writer meanwhile
	}
	old := path.Join(tmpDir, st.id+".old")
	if err := s.dir.Rename(digest, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("move damaged tree %s aside: %w", s.Path(digest, st.name), err)
	}
	if err := s.dir.Rename(st.dir, digest); err != nil {
		return "", false, nil // let the caller try again
	}
	removeAll(s.dir, old)
	return s.Path(digest, st.name), true, nil
}

// Close removes whatever the staging area still holds and releases its
// lock. It is safe to call more than once.
func (st *Staging) Close() error {
	if st.root != nil {
		st.root.Close()
		st.root = nil
	}
	s := st.store
	for kind, f := range st.files {
		f.Close()
		s.dir.Remove(st.fileName(kind))
		delete(st.files, kind)
	}
	var err error
	if st.dir != "" {
		err = removeAll(s.dir, st.dir)
		st.dir = ""
	}
	if st.lock != nil {
		// Closed first: Windows does not remove a file that is open. A
		// sweep may take the lock in between and remove the file first.
		st.lock.Close()
		s.dir.Remove(st.fileName("lock"))
		st.lock = nil
	}
	return err
}

// sweepStaging removes staging areas whose owners are gone (rule 3). It
// touches only names a Store makes (<24 hex digits>[.<kind>]) and removes
// them through a root on the staging folder, so a link planted there
// leads nowhere.
func (s *Store) sweepStaging() {
	tmp, err := s.dir.OpenRoot(tmpDir)
	if err != nil {
		return
	}
	defer tmp.Close()
	names, err := readNames(tmp, ".")
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
				removeAll(tmp, name)
			}
			continue
		}
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		release, ok := claimAbandoned(tmp, lock, info.ModTime())
		if !ok {
			continue
		}
		for _, name := range names {
			if name != lock {
				removeAll(tmp, name)
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

// manifest encodes what a tree holds.
func manifest(name string, files []File) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nname %s\n", manifestHead, name)
	for _, f := range files {
		x := "-"
		if f.Exec {
			x = "x"
		}
		fmt.Fprintf(&b, "%x %s %d %s\n", f.Sum, x, f.Size, f.Path)
	}
	return []byte(b.String())
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
	if !validDigest(key) {
		return "", false
	}
	name := path.Join(memoDir, key)
	f, err := s.dir.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
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
		s.dir.Chtimes(name, now, now) // last use, for gc
	}
	return d, true
}

// SetMemo records digest for an archive key, atomically.
func (s *Store) SetMemo(key, digest string) error {
	if !validDigest(key) {
		return fmt.Errorf("invalid memo key %q", key)
	}
	return atomicfile.WriteIn(s.dir, path.Join(memoDir, key), []byte(digest+"\n"), 0o600)
}
