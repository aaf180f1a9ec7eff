package skill

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// plantLeftovers leaves in root what an extraction killed with kill -9
// leaves: a helper process stages a tree through the cache's own API,
// writes part of it (its folders already read-only), a spooled archive
// and a scratch stream, and exits without closing the staging area, so
// its lock dies with it. It returns the names the helper left.
func plantLeftovers(t *testing.T, root string) []string {
	t.Helper()
	before := staging(t, root)
	cmd := helperCmd(t, "abandon", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("abandoning helper: %v: %s", err, out)
	}
	var left []string
	for _, name := range staging(t, root) {
		if !slices.Contains(before, name) {
			left = append(left, name)
		}
	}
	if len(left) != 4 { // the staging area, its lock, spool and scratch
		t.Fatalf("the abandoning helper left %v, want a staging area, its lock, spool and scratch", left)
	}
	return left
}

// helperAbandon is the helper process of [plantLeftovers].
func helperAbandon() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	store, err := cache.Open(os.Getenv("SKILL_TEST_ROOT"))
	if err != nil {
		fail(err)
	}
	st, err := store.Stage("kit")
	if err != nil {
		fail(err)
	}
	r := st.Root()
	if err := r.Mkdir("refs", 0o755); err != nil {
		fail(err)
	}
	if err := r.WriteFile("refs/a.md", []byte("a"), 0o444); err != nil {
		fail(err)
	}
	if err := r.Chmod("refs", 0o555); err != nil {
		fail(err)
	}
	for _, kind := range []string{"spool", "scratch"} {
		f, err := st.File(kind)
		if err != nil {
			fail(err)
		}
		if _, err := f.WriteString(kind); err != nil {
			fail(err)
		}
	}
	os.Exit(0) // without st.Close: killed mid-extraction
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
	removed, err := NewCache(WithSkillCacheRoot(root)).GC(t.Context(), 24*time.Hour)
	if err != nil || len(removed) != 0 {
		t.Fatalf("GC = %v, %v, want nothing collected", removed, err)
	}
	if got := staging(t, root); len(got) != 0 {
		t.Errorf("after gc, staging holds %v, want it swept", got)
	}
}
