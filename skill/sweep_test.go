package skill

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// plantLeftovers leaves in root what an extraction killed with kill -9
// leaves: its unlocked lock file, a half-written staging tree (folders
// already read-only), and its spooled archive and scratch stream.
func plantLeftovers(t *testing.T, root string) {
	t.Helper()
	id := filepath.Join(root, ".tmp", "0123456789abcdef01234567")
	if err := os.MkdirAll(filepath.Join(id, "kit", "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(id, "kit", "refs", "a.md"), []byte("a"), 0o444)
	os.Chmod(filepath.Join(id, "kit", "refs"), 0o555)
	for _, kind := range []string{"lock", "spool", "scratch"} {
		if err := os.WriteFile(id+"."+kind, []byte(kind), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// Leftovers of a killed extraction are swept by the next process that
// uses the cache, even when everything it asks for is already there (a
// warm run), and by gc.
func TestLeftoversSweptWithoutAMiss(t *testing.T) {
	m, root := newTestMaterializer(t)
	s := Archive("kit", ArchiveBytes(tarBytes(t, true, skillFiles())))
	if _, err := m.Materialize(t.Context(), s); err != nil {
		t.Fatal(err)
	}

	plantLeftovers(t, root)
	warm := NewDefaultSkillMaterializer(WithSkillCacheRoot(root))
	if _, err := warm.Materialize(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	if got := staging(t, root); len(got) != 0 {
		t.Errorf("after a warm run, staging holds %v, want it swept", got)
	}

	plantLeftovers(t, root)
	removed, err := CacheGC(root, 24*time.Hour)
	if err != nil || len(removed) != 0 {
		t.Fatalf("CacheGC = %v, %v, want nothing collected", removed, err)
	}
	if got := staging(t, root); len(got) != 0 {
		t.Errorf("after gc, staging holds %v, want it swept", got)
	}
}
