package skillcache

import (
	"os"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Stamp is what a stat says of a file that changes whenever the file
// does (type and mode, size, times, change time, device and inode), as
// the cache's stat records keep it: what a package outside the cache
// compares to know that a file it read is unchanged (install's lock file
// while an operation that changes nothing reads it).
type Stamp = cache.Stamp

// StampOf returns fi's stamp, and false on a platform where no stamp may
// stand in for reading the file (Windows: no change time users cannot
// set back).
func StampOf(fi os.FileInfo) (Stamp, bool) { return cache.StampOf(fi) }

// Racy reports whether a file whose change time is ctime, stamped by a
// read taken at taken (ns, before the stat), could have changed after
// its stamp without the stamp showing it (the cache's racy window): such
// a file is read again.
func Racy(ctime, taken int64) bool { return cache.Racy(ctime, taken) }

// Record returns the stat record kept in c under key (a hex SHA-256 the
// caller derives from what the record is of), or nil when there is none,
// it cannot be read, or c's root does not exist or is not safe from
// other users: the caller then reads what the record would have
// vouched for. Records are kept beside package skill's records of
// source folders (<root>/.memo/<key>.folder) and collected with them
// (skill.Cache.GC); reading one is a use. What a record holds is its
// writer's: the caller parses it and ignores one it cannot use, and one
// written on another boot (package bootid's rule 1).
func Record(c *skill.Cache, key string) []byte {
	if c.Root() == "" {
		return nil
	}
	if _, err := os.Lstat(c.Root()); err != nil {
		return nil // not created for a record alone
	}
	store, err := cache.Open(c.Root())
	if err != nil {
		return nil
	}
	defer store.Close()
	return store.FolderRecord(key)
}

// SetRecord keeps data as the stat record under key in c, atomically,
// for [Record] to return. A record over 16 MiB is not kept.
func SetRecord(c *skill.Cache, key string, data []byte) error {
	if c.Root() == "" {
		return errZeroCache
	}
	store, err := cache.Open(c.Root())
	if err != nil {
		return err
	}
	defer store.Close()
	return store.SetFolderRecord(key, data)
}

// StampableFS reports whether the folder dir lies on a file system whose
// change times a stamp may stand for: a local one the kernel keeps them
// on, which no user can set back (see internal/cache).
func StampableFS(dir string) bool { return cache.StampableFS(dir) }
