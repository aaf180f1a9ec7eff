//go:build unix || windows

package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// held opens a new lock file and locks it through that open file, which
// the test closes at its end.
func held(t *testing.T) (path string, f *os.File) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "x.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := TryLock(f); err != nil {
		t.Fatalf("TryLock(%s) = %v, want nil", path, err)
	}
	return path, f
}

// open opens path again: another open file of it, in this process.
func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Rules 1 and 3: a lock held through one open file cannot be taken
// through another, even in the same process, until the holder closes
// its file.
func TestTryLockHeldElsewhere(t *testing.T) {
	path, holder := held(t)
	other := open(t, path)
	if err := TryLock(other); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock(%s) while another file holds it = %v, want %v", path, err, ErrLocked)
	}
	holder.Close()
	if err := TryLock(other); err != nil {
		t.Fatalf("TryLock(%s) once its holder closed it = %v, want nil", path, err)
	}
	if err := TryLock(open(t, path)); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock(%s) while the second file holds it = %v, want %v", path, err, ErrLocked)
	}
}

// Rule 4: Lock waits for the holder to close its file, by polling (a
// context that can be cancelled) and in the kernel (one that cannot).
func TestLockWaitsForRelease(t *testing.T) {
	// Polling runs on the fake clock of a synctest bubble: once every
	// goroutine of the bubble is blocked, Lock has tried and is waiting
	// for its next try.
	t.Run("cancellable", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			path, holder := held(t)
			other := open(t, path)
			got := make(chan error, 1)
			go func() { got <- Lock(ctx, other) }()
			for range 3 { // the first try and two more
				synctest.Wait()
				select {
				case err := <-got:
					t.Fatalf("Lock(%s) returned %v while another file held it", path, err)
				default:
				}
				time.Sleep(pollInterval)
			}
			holder.Close()
			time.Sleep(pollInterval)
			synctest.Wait()
			select {
			case err := <-got:
				if err != nil {
					t.Fatalf("Lock(%s) = %v once released, want nil", path, err)
				}
			default:
				t.Fatalf("Lock(%s) still waiting a poll interval after the holder closed its file", path)
			}
			if err := TryLock(open(t, path)); !errors.Is(err, ErrLocked) {
				t.Errorf("TryLock(%s) after Lock took it = %v, want %v", path, err, ErrLocked)
			}
		})
	})
	// The wait in the kernel is seen where it can be (see lockInKernel).
	t.Run("background", func(t *testing.T) {
		path, holder := held(t)
		got := lockInKernel(t, open(t, path))
		select {
		case err := <-got:
			t.Fatalf("Lock(%s) returned %v while another file held it", path, err)
		default:
		}
		holder.Close()
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("Lock(%s) = %v once released, want nil", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Lock(%s) still waiting 10s after the holder closed its file", path)
		}
		if err := TryLock(open(t, path)); !errors.Is(err, ErrLocked) {
			t.Errorf("TryLock(%s) after Lock took it = %v, want %v", path, err, ErrLocked)
		}
	})
}

// Rule 4: Lock gives up with ctx's error once ctx is done, leaving the
// lock to its holder. Both cases run on the fake clock of a synctest
// bubble.
func TestLockCancelled(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			path, _ := held(t)
			other := open(t, path)
			ctx, cancel := context.WithCancel(t.Context())
			got := make(chan error, 1)
			go func() { got <- Lock(ctx, other) }()
			synctest.Wait() // Lock has tried, and waits
			select {
			case err := <-got:
				t.Fatalf("Lock(%s) returned %v while another file held it", path, err)
			default:
			}
			cancel()
			synctest.Wait()
			select {
			case err := <-got:
				if err != context.Canceled {
					t.Fatalf("Lock(%s) once cancelled = %v, want %v", path, err, context.Canceled)
				}
			default:
				t.Fatalf("Lock(%s) still waiting after its context was cancelled", path)
			}
		})
	})
	t.Run("deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			path, _ := held(t)
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			if err := Lock(ctx, open(t, path)); err != context.DeadlineExceeded {
				t.Fatalf("Lock(%s) past its deadline = %v, want %v", path, err, context.DeadlineExceeded)
			}
		})
	})
}

// Rule 4: a free lock is taken even when ctx is already done.
func TestLockFreeWithDoneContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Lock(ctx, open(t, path)); err != nil {
		t.Fatalf("Lock(%s) of a free lock with a done context = %v, want nil", path, err)
	}
	if err := TryLock(open(t, path)); !errors.Is(err, ErrLocked) {
		t.Errorf("TryLock(%s) after Lock took it = %v, want %v", path, err, ErrLocked)
	}
}

// Rule 8: shared locks are held through several open files at once and
// keep out an exclusive lock, which keeps them out in turn.
func TestSharedLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	first, second := open(t, path), open(t, path)
	if err := TryLockShared(first); err != nil {
		t.Fatalf("TryLockShared(%s) = %v, want nil", path, err)
	}
	if err := LockShared(t.Context(), second); err != nil {
		t.Fatalf("LockShared(%s) beside another shared lock = %v, want nil", path, err)
	}
	excl := open(t, path)
	if err := TryLock(excl); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock(%s) while shared locks are held = %v, want %v", path, err, ErrLocked)
	}
	first.Close()
	if err := TryLock(excl); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLock(%s) while one shared lock is held = %v, want %v", path, err, ErrLocked)
	}
	second.Close()
	if err := TryLock(excl); err != nil {
		t.Fatalf("TryLock(%s) once the shared locks are released = %v, want nil", path, err)
	}
	if err := TryLockShared(open(t, path)); !errors.Is(err, ErrLocked) {
		t.Fatalf("TryLockShared(%s) while an exclusive lock is held = %v, want %v", path, err, ErrLocked)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if err := LockShared(ctx, open(t, path)); err != context.DeadlineExceeded {
		t.Fatalf("LockShared(%s) while an exclusive lock is held, past its deadline = %v, want %v", path, err, context.DeadlineExceeded)
	}
}
