package filelock

import (
	"context"
	"errors"
	"os"
	"time"
)

// ErrLocked is the error of [TryLock] when another open file holds the
// lock.
var ErrLocked = errors.New("locked by another process")

// pollInterval is how often [Lock] tries again while it waits with a
// context that can be cancelled.
const pollInterval = 50 * time.Millisecond

// TryLock takes an exclusive lock on f if no other open file holds it,
// and otherwise fails at once with [ErrLocked].
func TryLock(f *os.File) error {
	return tryLock(f, false)
}

// Lock takes an exclusive lock on f, waiting while another open file
// holds it, until ctx is done (see rule 4 of the package).
func Lock(ctx context.Context, f *os.File) error {
	return lock(ctx, f, false)
}

// TryLockShared takes a shared lock on f if no other open file holds an
// exclusive one, and otherwise fails at once with [ErrLocked] (rule 8).
func TryLockShared(f *os.File) error {
	return tryLock(f, true)
}

// LockShared takes a shared lock on f, waiting while another open file
// holds an exclusive one, until ctx is done (rules 4 and 8).
func LockShared(ctx context.Context, f *os.File) error {
	return lock(ctx, f, true)
}

func lock(ctx context.Context, f *os.File, shared bool) error {
	done := ctx.Done()
	if done == nil {
		return waitLock(f, shared)
	}
	for {
		if err := tryLock(f, shared); !errors.Is(err, ErrLocked) {
			return err
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-done:
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
