//go:build windows

package install

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock on f, waiting for it. The lock is
// LockFileEx's on the file's first byte (which need not exist); Windows
// releases it when f is closed or its process ends.
//
// Untested on Windows: CI has no Windows machine. TestLockFileExcludes
// states what the lock must do and compiles for Windows, but has run only
// on Unix.
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}
