package cachetest_test

import (
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestStaged checks that Staged reads the staging folder the cache
// really uses: a writer's staging area, its lock and its spooled file
// while it stages, nothing once it is closed.
func TestStaged(t *testing.T) {
	root := t.TempDir()
	if got := cachetest.Staged(t, filepath.Join(root, "missing")); len(got) != 0 {
		t.Errorf("Staged(missing root) = %v, want none", got)
	}
	s, err := cache.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stage("kit")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.File("spool"); err != nil {
		t.Fatal(err)
	}
	got := cachetest.Staged(t, root)
	if len(got) != 3 || got[1] != got[0]+".lock" || got[2] != got[0]+".spool" {
		t.Errorf("Staged(%s) = %v, want a staging area ID, ID.lock and ID.spool", root, got)
	}
	st.Close()
	if got := cachetest.Staged(t, root); len(got) != 0 {
		t.Errorf("Staged after Close = %v, want none", got)
	}
}
