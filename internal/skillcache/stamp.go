package skillcache

import (
	"os"

	"github.com/agentadaptor/agentadaptor/internal/cache"
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
