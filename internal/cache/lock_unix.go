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

// abandoned reports whether a staging area whose lock file is lock has no
// living owner: its lock can be taken.
func abandoned(lock string, _ time.Time) bool {
	f, err := os.Open(lock)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	defer f.Close()
	return lockFile(f) == nil
}
