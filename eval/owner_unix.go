//go:build unix

package eval

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUs reports whether the file of fi is this process's user's.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
