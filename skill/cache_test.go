package skill

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestZeroCacheRefusesEveryUse(t *testing.T) {
	t.Chdir(t.TempDir())
	var c Cache
	if _, err := c.Materialize(t.Context(), Inline("tone", "# Tone\n")); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: Materialize = %v, want %v", err, errZeroCache)
	}
	if _, err := c.Entries(t.Context()); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: Entries = %v", err)
	}
	if _, err := c.GC(t.Context(), 0); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: GC = %v", err)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("a zero Cache wrote to the working folder: %v", entries)
	}
}

func TestCacheGCOfMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "absent")
	if removed, err := NewCache(WithSkillCacheRoot(root)).GC(t.Context(), 0); err != nil || len(removed) != 0 {
		t.Errorf("GC of a missing root = %v, %v, want nothing", removed, err)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("GC created the missing root: Stat = %v", err)
	}
}

func TestCacheOpenIsRetried(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "cache")
	// A root under a folder every user may write (and not sticky) is
	// refused; once the folder is made private, the same Cache works.
	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	c := NewCache(WithSkillCacheRoot(root))
	s := Inline("tone", "---\nname: tone\ndescription: d\n---\n")
	if _, err := c.Materialize(t.Context(), s); err == nil {
		t.Fatalf("Materialize under a folder every user may write succeeded")
	}
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Materialize(t.Context(), s); err != nil {
		t.Errorf("Materialize once the folder is private = %v, want the open tried again", err)
	}
}

// TestCacheGCPrunesKeptReports checks that GC removes the audit reports
// package trust keeps under the root's .audit as it removes memos: a
// report written before the cut-off goes, a newer one stays, and a
// clear (GC(0)) removes every one, so the next install audits again.
func TestCacheGCPrunesKeptReports(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	c := NewCache(WithSkillCacheRoot(root))
	if _, err := c.Materialize(t.Context(), Inline("tone", "# Tone\n")); err != nil {
		t.Fatal(err)
	}
	kept := func(name string, age time.Duration) string {
		p := filepath.Join(root, ".audit", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, recent := kept("old.json", 48*time.Hour), kept("recent.json", 0)
	if _, err := c.GC(t.Context(), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("GC(24h) left the report written 48h ago: Stat = %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("GC(24h) removed the report written now: Stat = %v", err)
	}
	if _, err := c.GC(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(recent); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("GC(0) (cache clear) left a kept report: Stat = %v", err)
	}
}
