package cache

import (
	"io"
	"os"
	"path"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// The records of skill sets: <root>/.memo/<key>.set (package skill's rule
// 12). What a record holds is its writer's, as for the records of source
// folders; this package only keeps it.
const (
	setSuffix    = ".set"
	maxSetRecord = 16 << 20
)

// SkillSet returns the record of a skill set kept under key (a hex
// SHA-256), or nil when there is none, it cannot be read, or it is over
// 16 MiB. A record read is a use, for [GC] (rule 7), as a memo's is.
func (s *Store) SkillSet(key string) []byte {
	if !validDigest(key) {
		return nil
	}
	name := path.Join(memoDir, key+setSuffix)
	f, err := s.dir.OpenFile(name, os.O_RDONLY|openRecord, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxSetRecord {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSetRecord+1))
	if err != nil || len(data) > maxSetRecord {
		return nil
	}
	if now := time.Now(); now.Sub(info.ModTime()) > useGranularity {
		s.dir.Chtimes(name, now, now) // last use, for gc
	}
	return data
}

// SetSkillSet replaces the record of a skill set kept under key,
// atomically. A record over 16 MiB is not kept.
func (s *Store) SetSkillSet(key string, data []byte) error {
	if !validDigest(key) || len(data) > maxSetRecord {
		return nil
	}
	// Unflushed (atomicfile's rule 6): the record ends with a SHA-256 of
	// everything before it, so one a crash cut short is no record.
	return atomicfile.WriteInUnflushed(s.dir, path.Join(memoDir, key+setSuffix), data, 0o600)
}

// PathStamp is the stamp of one file or folder of a tree, by its
// slash-separated path relative to the tree's folder ("." for the folder
// itself).
type PathStamp struct {
	Path string
	Stamp
}

// TreeStamps returns the stamps that this store's last check of the tree
// <digest>/<name> found (rule 4), and when they were taken (ns): every
// file and folder of the tree, "." first. It reports false when the store
// holds no record of the tree (it has not checked it, or the platform
// gives no stamps). Nothing is read from disk: what it returns is what a
// check in this process vouched for.
func (s *Store) TreeStamps(digest, name string) (taken int64, stamps []PathStamp, ok bool) {
	r, ok := s.records.get(digest, name)
	if !ok || r == nil {
		return 0, nil, false
	}
	stamps = make([]PathStamp, len(r.entries))
	for i, e := range r.entries {
		stamps[i] = PathStamp{Path: e.path, Stamp: e.stamp}
	}
	return r.taken, stamps, true
}

// Top returns the stamp of the folder <digest> that holds a published
// tree, refusing a link or anything else that is not a folder, and
// records a use of the tree as a lookup does (rule 7). Only the folder's
// device and inode say which folder it is: its times are those of its
// last use.
func (s *Store) Top(digest string) (Stamp, bool) {
	if !validDigest(digest) {
		return Stamp{}, false
	}
	fi, err := s.dir.Lstat(digest)
	if err != nil || !fi.IsDir() {
		return Stamp{}, false
	}
	st, ok := stampOf(fi)
	if !ok {
		return Stamp{}, false
	}
	if now := time.Now(); now.Sub(fi.ModTime()) > useGranularity {
		s.dir.Chtimes(digest, now, now)
	}
	return st, true
}

// Same reports whether the store's root path still names the folder it
// holds open (rule 5), so that paths under it lead to what it checked.
func (s *Store) Same() bool { return s.same() }
