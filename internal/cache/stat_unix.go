//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package cache

import (
	"os"
	"syscall"
)

// stampOf returns what a lookup compares of fi (rule 4), and whether the
// platform gives a change time and an inode. Only where the change time
// sits in syscall.Stat_t differs between these platforms ([changeTime],
// in stat_ctim.go and stat_ctimespec.go).
func stampOf(fi os.FileInfo) (stamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stamp{
		Mode:  uint32(fi.Mode()),
		Size:  fi.Size(),
		Mtime: fi.ModTime().UnixNano(),
		Ctime: changeTime(st),
		Dev:   uint64(st.Dev),
		Ino:   uint64(st.Ino),
	}, true
}
