//go:build (unix || windows) && !linux

package filelock

import (
	"context"
	"os"
	"testing"
	"time"
)

// lockInKernel calls Lock(context.Background(), f) on a goroutine and
// returns the channel its result comes on. Here a wait in the kernel
// cannot be seen, so it returns after 200 ms (or once Lock has returned):
// that bounds only how soon a Lock that does not wait is caught; a
// correct Lock passes however slow the machine. On Linux the wait is
// seen in /proc.
func lockInKernel(t *testing.T, f *os.File) <-chan error {
	t.Helper()
	got := make(chan error, 1)
	go func() { got <- Lock(context.Background(), f) }()
	select {
	case err := <-got:
		got <- err
	case <-time.After(200 * time.Millisecond):
	}
	return got
}
