//go:build unix

package cache

import (
	"errors"
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
func claimAbandoned(lock string, _ time.Time) (release func(), ok bool) {
	f, err := os.Open(lock)
	if err != nil {
		return nil, false
	}
	if lockFile(f) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
