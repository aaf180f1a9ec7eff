package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// GC keeps the trees it is told something links to, however old.
func TestGCKeeps(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, linked := publish(t, s, "linked", "x")
	_, loose := publish(t, s, "loose", "y")
	past := time.Now().Add(-48 * time.Hour)
	for _, d := range []string{linked, loose} {
		os.Chtimes(filepath.Join(root, d), past, past)
	}
	removed, err := GC(t.Context(), root, time.Now(), linked)
	if err != nil || len(removed) != 1 || removed[0].Digest != loose {
		t.Fatalf("GC(keep %s) = %+v, %v; want only %s removed", linked, removed, err, loose)
	}
	if _, ok := s.Lookup(linked, "linked"); !ok {
		t.Errorf("GC removed the tree it was told to keep")
	}
}
