//go:build windows

package cache

import (
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/windows"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// Untested on Windows: CI has no Windows machine. TestStagingLock states
// what the sweep needs of claimAbandoned and compiles for Windows, but has
// run only on Unix.

// claimAbandoned reports whether a staging area whose lock file is lock
// has no living owner, in which case it returns holding the lock: the
// caller removes the area, lock file last, then calls release. The file is
// opened sharing delete access, as Windows refuses to remove a file that
// is open without it.
//
// The file is named by its path: os.Root opens files without sharing
// delete access.
func claimAbandoned(dir *os.Root, lock string, _ time.Time) (release func(), ok bool) {
	path := filepath.Join(dir.Name(), lock)
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, false
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(h), path)
	if filelock.TryLock(f) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// CheckOwner accepts every folder: on Windows, access is governed by
// access control lists, which are not checked.
func CheckOwner(os.FileInfo) error { return nil }
