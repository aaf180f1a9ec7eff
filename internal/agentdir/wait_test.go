package agentdir

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestNoRunWaitsForAnother checks rule 2's last sentence: while one run's
// build of its folder is held up (by a hook the test releases), runs of
// another key and of the same key take their leases, build and return.
func TestNoRunWaitsForAnother(t *testing.T) {
	root := cachetest.Root(t)
	ctx := t.Context()
	const held, other = "aaaa", "bbbb"
	fill := func(dir string) error { return os.WriteFile(filepath.Join(dir, "x"), []byte("x"), 0o600) }
	build := func(l *Lease) (string, error) {
		return Publish(l, func(dir string) bool { _, err := os.Stat(filepath.Join(dir, "x")); return err == nil }, fill)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, rel, err := Use(ctx, root, ClaudeMount, held, func(l *Lease) (string, error) {
			close(entered)
			<-release
			return build(l)
		})
		if err == nil {
			rel()
		}
		done <- err
	}()
	<-entered
	tests := []struct{ name, key string }{
		{"another key", other},
		{"the same key", held},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A bound, not a wait: a run that waited for the held one
			// would wait until it, and fail.
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			dir, rel, err := Use(ctx, root, ClaudeMount, tt.key, build)
			if err != nil {
				t.Fatalf("Use(%q) while another run builds = %v", tt.key, err)
			}
			rel()
			if want := filepath.Join(root, "mounts", "claude", tt.key); dir != want {
				t.Errorf("Use(%q) = %q, want %q", tt.key, dir, want)
			}
		})
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the held run: %v", err)
	}
}
