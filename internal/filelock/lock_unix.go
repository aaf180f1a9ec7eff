//go:build unix

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes flock's exclusive (or shared) lock on f without waiting.
func tryLock(f *os.File, shared bool) error {
	err := flock(f, how(shared)|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// waitLock takes flock's exclusive (or shared) lock on f, waiting in the
// kernel.
func waitLock(f *os.File, shared bool) error {
	return flock(f, how(shared))
}

func how(shared bool) int {
	if shared {
		return unix.LOCK_SH
	}
	return unix.LOCK_EX
}

// flock applies how to f's open file description, retrying when a signal
// interrupts the call.
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = rc.Control(func(fd uintptr) {
		for {
			opErr = unix.Flock(int(fd), how)
			if !errors.Is(opErr, unix.EINTR) {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return opErr
}
