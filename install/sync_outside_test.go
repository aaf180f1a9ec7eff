package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncLocalOutsideProject checks rule 5 for a local folder outside
// the project: a cloned lock file naming ../home/.claude/skills/private
// (its author's decoy) does not make a sync copy the user's own private
// skill into the project; a folder outside the project that holds what
// the lock file records (a sibling folder of a monorepo) is synced as
// before, and one changed since is refused until it is added again.
func TestSyncLocalOutsideProject(t *testing.T) {
	t.Run("cloned lock file", func(t *testing.T) {
		a := newFixture(t)
		writeFiles(t, filepath.Join(a.env.Home, ".claude", "skills", "private"), map[string]string{"SKILL.md": skillMD("private")})
		if _, err := a.installer(t).Add(t.Context(), Request{Sources: []string{filepath.Join(a.env.Home, ".claude", "skills", "private")}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
		lock, err := os.ReadFile(filepath.Join(a.env.Project, ".agents", LockName))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(lock), `"../home/.claude/skills/private"`) {
			t.Fatalf("the lock file does not record the relative path:\n%s", lock)
		}
		v := newFixture(t)
		writeFiles(t, filepath.Join(v.env.Home, ".claude", "skills", "private"), map[string]string{"SKILL.md": skillMD("private") + "the victim's secret notes\n"})
		writeFiles(t, v.env.Project, map[string]string{".agents/" + LockName: string(lock)})
		_, err = v.installer(t).Sync(t.Context(), SyncRequest{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "outside the project") {
			t.Errorf("Sync of a cloned lock file naming a folder outside the project with other content = %v; want ErrRefused saying why", err)
		}
		if _, err := os.Stat(filepath.Join(v.env.Project, ".agents", "skills", "private")); err == nil {
			t.Errorf("the user's private skill was copied into the project")
		}
	})
	t.Run("sibling folder", func(t *testing.T) {
		f := newFixture(t)
		sibling := filepath.Join(filepath.Dir(f.env.Project), "shared", "review")
		writeFiles(t, sibling, map[string]string{"SKILL.md": skillMD("review")})
		if _, err := f.installer(t).Add(t.Context(), Request{Sources: []string{sibling}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
		canonical := filepath.Join(f.env.Project, ".agents", "skills", "review")
		os.RemoveAll(canonical)
		if _, err := f.installer(t).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatalf("Sync of a sibling folder holding what the lock file records = %v", err)
		}
		if _, err := os.Stat(filepath.Join(canonical, "SKILL.md")); err != nil {
			t.Errorf("the sync did not restore the canonical copy: %v", err)
		}
		writeFiles(t, sibling, map[string]string{"SKILL.md": skillMD("review") + "Changed.\n"})
		if _, err := f.installer(t).Sync(t.Context(), SyncRequest{}); !errors.Is(err, ErrRefused) {
			t.Errorf("Sync of a changed sibling folder = %v, want ErrRefused until it is added again", err)
		}
		if _, err := f.installer(t).Add(t.Context(), Request{Sources: []string{sibling}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatalf("Add of the changed sibling folder = %v", err)
		}
		if _, err := f.installer(t).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Errorf("Sync after the sibling folder was added again = %v", err)
		}
	})
}
