package install

import (
	"path/filepath"
	"testing"
)

// Rule 18: app requires leaf (from repo A). leaf is removed with
// Required; then an unrelated skill also named leaf (repo B) is added.
// app's requirement stays unanswered: the lock file no longer links it to
// leaf, and verify reports it unmet.
func TestRemoveRequiredUnlinksRequirement(t *testing.T) {
	needGit(t)
	base := t.TempDir()
	leafA := filepath.Join(base, "leafA")
	gitRepo(t, leafA, map[string]string{"SKILL.md": skillMD("leaf") + "A\n"})
	leafB := filepath.Join(base, "leafB")
	gitRepo(t, leafB, map[string]string{"SKILL.md": skillMD("leaf") + "B\n"})
	app := filepath.Join(base, "app")
	gitRepo(t, app, map[string]string{"SKILL.md": requiringMD("app", "git+file://"+filepath.ToSlash(leafA))})
	f := newFixture(t)
	in := f.requiredInstaller(t, "version: 1\n", "")
	in.localRequired = true
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"git+file://" + filepath.ToSlash(app)}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"leaf"}, Required: true}); err != nil {
		t.Fatal(err)
	}
	st, _ := in.Verify(ctx)
	n := 0
	for _, s := range st {
		if s.State == StateUnmet {
			n++
		}
	}
	if n != 1 {
		t.Errorf("unmet after removal: %d, want 1", n)
	}
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"git+file://" + filepath.ToSlash(leafB)}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if by := lock.Skills["leaf"].RequiredBy; len(by) != 0 {
		t.Errorf("leaf from %s is recorded as required by %v", leafB, by)
	}
	st, _ = in.Verify(ctx)
	for _, s := range st {
		if s.State == StateUnmet {
			return
		}
	}
	t.Errorf("app requires leaf from %s, installed leaf is from %s; verify reports nothing unmet", leafA, leafB)
}
