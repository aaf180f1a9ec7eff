//go:build unix || windows

package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The installer's file lock keeps out every other open file of the lock
// file, in this process as in others, until its holder closes it.
func TestLockFileExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".agentskills.flock")
	held, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := lockFile(held); err != nil {
		t.Fatalf("lockFile(%s) = %v, want nil", path, err)
	}
	got := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			got <- err
			return
		}
		defer f.Close()
		got <- lockFile(f)
	}()
	select {
	case err := <-got:
		t.Fatalf("lockFile(%s) returned %v while another file held the lock", path, err)
	case <-time.After(100 * time.Millisecond):
	}
	held.Close()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("lockFile(%s) = %v once released, want nil", path, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("lockFile(%s) still waiting 10s after the holder closed the file", path)
	}
}
