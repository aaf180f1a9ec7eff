package cache

import (
	"bytes"
	"io"
	"os"
	"path"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// Stamp is what git's index compares of a file, and its permission bits:
// what the stat record of a tree keeps of each file and folder (rule 4),
// and what records kept outside this package (package skill's records of
// source folders) keep with the same racy rule.
type Stamp struct {
	Mode  uint32 // fs.FileMode: the type and permission bits
	Size  int64
	Mtime int64 // nanoseconds since the epoch
	Ctime int64 // nanoseconds since the epoch; no user can set it back
	Dev   uint64
	Ino   uint64
}

// StampOf returns fi's stamp, and false on a platform without a change
// time that users cannot set back (Windows), where no stamp may stand in
// for reading the file.
func StampOf(fi os.FileInfo) (Stamp, bool) {
	return stampOf(fi)
}

// Racy reports whether a file whose change time is ctime, stamped by a
// record taken at taken (ns, taken before the stat), could have been
// changed after its stamp without the stamp showing it: its change time
// lies within the racy window (rule 4: 50 ms, 2 s for whole-second
// times) of taken, or later. A racy entry is hashed again.
func Racy(ctime, taken int64) bool {
	w := racyWindow
	if ctime%int64(time.Second) == 0 {
		w = coarseWindow
	}
	return ctime >= taken-int64(w)
}

// The stat records of source folders: <root>/.memo/<key>.folder.
const (
	folderSuffix    = ".folder"
	maxFolderRecord = 16 << 20
)

// FolderRecord returns the stat record kept under key (a hex SHA-256) for
// a source folder, or nil when there is none or it cannot be read. What a
// record holds is its writer's; a reader parses it and ignores one it
// cannot use. A record read is a use, for [GC] (rule 7), as a memo's is.
func (s *Store) FolderRecord(key string) []byte {
	if !validDigest(key) {
		return nil
	}
	name := path.Join(memoDir, key+folderSuffix)
	f, err := s.dir.OpenFile(name, os.O_RDONLY|openRecord, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxFolderRecord {
		return nil
	}
	// Read into a buffer of the file's size (and a byte more, to see
	// its end): a record of megabytes is not copied as it grows.
	var b bytes.Buffer
	b.Grow(int(info.Size()) + bytes.MinRead + 1)
	_, err = b.ReadFrom(io.LimitReader(f, maxFolderRecord+1))
	data := b.Bytes()
	if err != nil || len(data) > maxFolderRecord {
		return nil
	}
	if now := time.Now(); now.Sub(info.ModTime()) > useGranularity {
		s.dir.Chtimes(name, now, now) // last use, for gc
	}
	return data
}

// SetFolderRecord replaces the stat record kept under key, atomically. A
// record over 16 MiB is not kept.
func (s *Store) SetFolderRecord(key string, data []byte) error {
	if !validDigest(key) || len(data) > maxFolderRecord {
		return nil
	}
	return atomicfile.WriteIn(s.dir, path.Join(memoDir, key+folderSuffix), data, 0o600)
}
