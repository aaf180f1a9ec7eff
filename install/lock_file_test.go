//go:build unix || windows

package install

import (
	"testing"
	"time"
)

// The installer's file lock keeps out every other taker of the same
// scope's lock, in this process as in others, until its holder releases
// it.
func TestLockFileExcludes(t *testing.T) {
	f := newFixture(t)
	unlock, err := f.installer(t).lockOnly()
	if err != nil {
		t.Fatalf("lockOnly() = %v, want the lock", err)
	}
	defer unlock()
	got := make(chan error, 1)
	go func() {
		unlock, err := f.installer(t).lockOnly()
		if err == nil {
			unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("lockOnly() returned %v while another taker held the lock", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("lockOnly() = %v once released, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lockOnly() still waiting 10s after the holder released the lock")
	}
}
