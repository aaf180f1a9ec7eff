//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Locks are LockFileEx's on a file's first byte (which need not exist).
// Windows releases them when the handle is closed or its process ends.
//
// Untested on Windows: CI has no Windows machine. The package's tests
// state what the locks must do and compile for Windows, but have run only
// on Unix.

// tryLock takes an exclusive (or shared) lock on f without waiting.
func tryLock(f *os.File, shared bool) error {
	err := lockFileEx(f, flags(shared)|windows.LOCKFILE_FAIL_IMMEDIATELY)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrLocked
	}
	return err
}

// waitLock takes an exclusive (or shared) lock on f, waiting in the
// kernel.
func waitLock(f *os.File, shared bool) error {
	return lockFileEx(f, flags(shared))
}

func flags(shared bool) uint32 {
	if shared {
		return 0
	}
	return windows.LOCKFILE_EXCLUSIVE_LOCK
}

// lockFileEx locks the first byte of f with the given flags.
func lockFileEx(f *os.File, flags uint32) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = rc.Control(func(h uintptr) {
		opErr = windows.LockFileEx(windows.Handle(h), flags, 0, 1, 0, new(windows.Overlapped))
	})
	if err != nil {
		return err
	}
	return opErr
}
