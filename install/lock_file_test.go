//go:build unix || windows

package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The installer's file lock keeps out every other taker of the same
// scope's lock, in this process as in others, until its holder releases
// it: a taker waits, and its wait ends with its context.
func TestLockFileExcludes(t *testing.T) {
	f := newFixture(t)
	unlock, err := f.installer(t).lockOnly(t.Context())
	if err != nil {
		t.Fatalf("lockOnly() = %v, want the lock", err)
	}
	defer unlock()
	// Held: a taker whose context ends gets the context's error, not the
	// lock (a done context still tries once, so this is no race).
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if other, err := f.installer(t).lockOnly(ctx); !errors.Is(err, context.Canceled) {
		if err == nil {
			other()
		}
		t.Fatalf("lockOnly(cancelled) while another taker holds the lock = %v, want context.Canceled", err)
	}
	got := make(chan error, 1)
	go func() {
		unlock, err := f.installer(t).lockOnly(t.Context())
		if err == nil {
			unlock()
		}
		got <- err
	}()
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

// An operation waiting for the scope's lock, held by another run, stops
// when its context ends, says what it waited for, and changes nothing.
// The context is done before the call: the lock wait is the first step of
// Sync and Remove that heeds it, and a done context still tries the lock
// once, so the test cannot lose a race.
func TestLockWaitCancelled(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "review", "review", "")
	if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(f.env.Project, ".agents", lockName)
	before, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := f.installer(t).lockOnly(t.Context())
	if err != nil {
		t.Fatalf("lockOnly() = %v, want the lock", err)
	}
	defer unlock()
	ops := []struct {
		name string
		run  func(ctx context.Context, in *Installer) error
	}{
		{"Sync", func(ctx context.Context, in *Installer) error {
			_, err := in.Sync(ctx, SyncRequest{})
			return err
		}},
		{"Remove", func(ctx context.Context, in *Installer) error {
			_, err := in.Remove(ctx, RemoveRequest{Names: []string{"review"}})
			return err
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			done := make(chan error, 1)
			go func() { done <- op.run(ctx, f.installer(t)) }()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for the lock") {
					t.Errorf("%s while the lock is held, cancelled = %v, want context.Canceled while waiting for the lock", op.name, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s still waiting for the lock 10s after its context ended", op.name)
			}
		})
	}
	if after, err := os.ReadFile(lockFile); err != nil || !bytes.Equal(after, before) {
		t.Errorf("lock file after cancelled operations = %q, %v; want it unchanged", after, err)
	}
	if _, err := os.Stat(f.canonicalOf("review")); err != nil {
		t.Errorf("the installed skill after a cancelled removal: %v", err)
	}
}
