//go:build linux || darwin

package agentdir

import (
	"io/fs"
	"syscall"
)

// changeTime returns the change time of the file fi describes, in
// nanoseconds since the epoch.
func changeTime(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	c := ctime(st)
	return c.Nano(), true
}

// fileID returns the device and inode of the file fi describes.
func fileID(fi fs.FileInfo) (dev, ino uint64) {
	st := fi.Sys().(*syscall.Stat_t)
	return uint64(st.Dev), uint64(st.Ino)
}
