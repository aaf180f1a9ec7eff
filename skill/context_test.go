package skill

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCacheStopsWithItsContext: what reads or removes under the cache, or
// reads a skill folder, heeds its context: a done one stops it with the
// context's error and nothing removed.
func TestCacheStopsWithItsContext(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	c := NewCache(WithSkillCacheRoot(root))
	dir, err := c.Materialize(t.Context(), Inline("tone", "---\nname: tone\ndescription: d\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	os.MkdirAll(plain, 0o755)
	os.WriteFile(filepath.Join(plain, "SKILL.md"), []byte("---\nname: plain\ndescription: d\n---\n"), 0o644)
	done, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Entries", func(ctx context.Context) error { _, err := c.Entries(ctx); return err }},
		{"DriverFolders", func(ctx context.Context) error { _, err := c.DriverFolders(ctx); return err }},
		{"ContentDigest", func(ctx context.Context) error { _, err := ContentDigest(ctx, plain); return err }},
		{"ContentDigest of a cached tree", func(ctx context.Context) error { _, err := ContentDigest(ctx, dir); return err }},
		// Last, as their calls with a live context remove what is there.
		{"CollectDriverFolders", func(ctx context.Context) error { _, err := c.CollectDriverFolders(ctx, 0); return err }},
		{"GC", func(ctx context.Context) error {
			removed, err := c.GC(ctx, 0)
			if ctx.Err() != nil && len(removed) != 0 {
				t.Errorf("GC(done context) removed %v, want nothing", removed)
			}
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(done); !errors.Is(err, context.Canceled) {
				t.Errorf("%s(done context) = %v, want context.Canceled", tt.name, err)
			}
			if err := tt.call(t.Context()); err != nil {
				t.Errorf("%s(live context) = %v, want nil", tt.name, err)
			}
		})
	}
}
