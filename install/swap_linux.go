//go:build linux

package install

import (
	"os"

	"golang.org/x/sys/unix"
)

// swapDirs exchanges two folders in one atomic step.
func swapDirs(a, b string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
