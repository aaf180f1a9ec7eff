//go:build unix || windows

package cache

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// The staging lock, as the sweep relies on it: held by one open file, it
// cannot be taken through another (even in the same process), and once
// its holder closes it the sweep can claim it and remove the file while
// holding it.
func TestStagingLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.lock")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	held, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := filelock.TryLock(held); err != nil {
		t.Fatalf("TryLock(%s) = %v, want nil", path, err)
	}

	other, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := filelock.TryLock(other); !errors.Is(err, filelock.ErrLocked) {
		t.Errorf("TryLock(%s) while another file holds it = %v, want %v", path, err, filelock.ErrLocked)
	}
	if release, ok := claimAbandoned(root, "x.lock", time.Now()); ok {
		release()
		t.Fatalf("claimAbandoned(%s) while its lock is held = true, want false", path)
	}

	// The repair lock waits for the holder.
	got := make(chan error, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err
			return
		}
		err = filelock.Lock(context.Background(), f)
		// Released before the test reads the result, which it then
		// claims: a deferred Close could still hold it.
		f.Close()
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Lock(%s) returned %v while the lock was held", path, err)
	case <-time.After(100 * time.Millisecond):
	}
	held.Close()
	if err := <-got; err != nil {
		t.Fatalf("Lock(%s) = %v once released, want nil", path, err)
	}

	release, ok := claimAbandoned(root, "x.lock", time.Now())
	if !ok {
		t.Fatalf("claimAbandoned(%s) once its holder closed it = false, want true", path)
	}
	if err := os.Remove(path); err != nil {
		t.Errorf("remove %s while claimed: %v", path, err)
	}
	release()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file %s still there after removal: %v", path, err)
	}
}
