//go:build unix

package cache

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive lock on f, failing at once with
// errLocked when another open file holds it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}

// claimAbandoned reports whether a staging area whose lock file is lock
// has no living owner, in which case it returns holding the lock: the
// caller removes the area, lock file last, then calls release.
func claimAbandoned(dir *os.Root, lock string, _ time.Time) (release func(), ok bool) {
	f, err := dir.Open(lock)
	if err != nil {
		return nil, false
	}
	if lockFile(f) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// waitLock takes an exclusive lock on f, waiting for it.
func waitLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// CheckOwner refuses a folder another user owns or may write: one that
// is not the current user's, or that its group or every user may write.
func CheckOwner(fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("belongs to user %d, not to this user", st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("may be written by its group or by every user (mode %v; chmod go-w it)", fi.Mode().Perm())
	}
	return nil
}
