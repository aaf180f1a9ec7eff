package install

import (
	"path/filepath"
	"testing"
)

// app -> dep -> leaf; the policy requires dep. Removing app must keep dep
// and leaf (dep, which stays, requires leaf).
func TestRemoveKeptDependencyKeepsItsOwnDependency(t *testing.T) {
	requiredRepo(t)
	base := t.TempDir()
	leaf := filepath.Join(base, "leaf")
	gitRepo(t, leaf, map[string]string{"SKILL.md": skillMD("leaf")})
	leafSrc := "git+file://" + filepath.ToSlash(leaf)
	dep := filepath.Join(base, "dep")
	gitRepo(t, dep, map[string]string{"SKILL.md": requiringMD("dep", leafSrc)})
	depSrc := "git+file://" + filepath.ToSlash(dep)
	app := filepath.Join(base, "app")
	gitRepo(t, app, map[string]string{"SKILL.md": requiringMD("app", depSrc)})
	f := newFixture(t)
	in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+depSrc+"\n", "")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"git+file://" + filepath.ToSlash(app)}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	lock, _ := readLock(lockPath)
	t.Logf("before: dep=%+v leaf=%+v", lock.Skills["dep"], lock.Skills["leaf"])
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"app"}}); err != nil {
		t.Fatalf("Remove(app) = %v, want app removed, dep and leaf kept", err)
	}
	lock, _ = readLock(lockPath)
	if lock.Skills["leaf"] == nil || lock.Skills["dep"] == nil {
		t.Errorf("after Remove: dep %+v leaf %+v", lock.Skills["dep"], lock.Skills["leaf"])
	}
}
