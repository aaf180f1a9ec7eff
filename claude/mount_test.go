package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// resolved makes a resolved set of skill folders, as the root package does.
func resolved(t testing.TB, dirs ...string) driver.ResolvedSkills {
	t.Helper()
	var rs driver.ResolvedSkills
	for _, d := range dirs {
		digest, err := skill.ContentDigest(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(d)
		rs.Entries = append(rs.Entries, driver.ResolvedSkill{Key: name, RuntimeName: name, Path: d, Digest: digest})
		rs.Fingerprint += digest[:8]
	}
	return rs
}

// mountNow makes the mount of rs and releases its lease at once.
func mountNow(root string, rs driver.ResolvedSkills) (string, error) {
	dir, release, err := mount(context.Background(), root, rs)
	if err == nil {
		release()
	}
	return dir, err
}

// mountIntact reports whether the mount at dir holds exactly rs.
func mountIntact(ctx context.Context, dir string, rs driver.ResolvedSkills) (bool, error) {
	return agentdir.MountIntact(ctx, dir, skillsDir, rs, skill.ContentDigest)
}

func mounted(t *testing.T, dir string) []string {
	t.Helper()
	names, err := agentdir.ReadNames(filepath.Join(dir, ".claude", "skills"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestMount(t *testing.T) {
	root, src := t.TempDir(), t.TempDir()
	a, b := cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B")
	ab, onlyA := resolved(t, a, b), resolved(t, a)

	m1, err := mountNow(root, ab)
	if err != nil {
		t.Fatal(err)
	}
	if got := mounted(t, m1); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("mount holds %q, want a and b", got)
	}
	for _, e := range ab.Entries {
		target, err := os.Readlink(filepath.Join(m1, ".claude", "skills", e.RuntimeName))
		if err != nil || target != e.Path {
			t.Errorf("link %s -> %q, %v; want %s", e.RuntimeName, target, err, e.Path)
		}
	}
	// The same set reuses the mount; another set gets its own.
	if m2, err := mountNow(root, ab); err != nil || m2 != m1 {
		t.Errorf("second mount = %q, %v; want %q", m2, err, m1)
	}
	m3, err := mountNow(root, onlyA)
	if err != nil || m3 == m1 {
		t.Fatalf("mount of another set = %q, %v; want a new folder", m3, err)
	}
	if got := mounted(t, m3); len(got) != 1 || got[0] != "a" {
		t.Errorf("second set's mount holds %q, want a only", got)
	}
	// The same content in other folders is another mount: a mount never
	// links to another run's folders.
	src2 := t.TempDir()
	moved := resolved(t, cachetest.WriteSkill(t, src2, "a", "A"), cachetest.WriteSkill(t, src2, "b", "B"))
	if moved.Fingerprint != ab.Fingerprint {
		t.Fatal("test setup: fingerprints differ")
	}
	if m4, err := mountNow(root, moved); err != nil || m4 == m1 {
		t.Errorf("mount of moved folders = %q, %v; want a new folder", m4, err)
	}
	// Mounts are read-only, and no staging is left behind.
	if err := os.WriteFile(filepath.Join(m1, ".claude", "skills", "x"), nil, 0o644); err == nil && os.Geteuid() != 0 {
		t.Error("wrote into a mount's skills folder")
	}
	left, _ := filepath.Glob(filepath.Join(root, "mounts", "claude", ".staging-*"))
	if len(left) != 0 {
		t.Errorf("staging left behind: %q", left)
	}
}

func TestMountRebuildsAChangedMount(t *testing.T) {
	root, src := t.TempDir(), t.TempDir()
	rs := resolved(t, cachetest.WriteSkill(t, src, "a", "A"), cachetest.WriteSkill(t, src, "b", "B"))
	elsewhere := cachetest.WriteSkill(t, t.TempDir(), "evil", "E")
	tests := []struct {
		name   string
		change func(skills string)
	}{
		{"link retargeted", func(s string) { os.Remove(filepath.Join(s, "a")); os.Symlink(elsewhere, filepath.Join(s, "a")) }},
		{"link removed", func(s string) { os.Remove(filepath.Join(s, "b")) }},
		{"skill added", func(s string) { os.Symlink(elsewhere, filepath.Join(s, "evil")) }},
		{"file beside .claude", func(s string) { os.WriteFile(filepath.Join(s, "..", "..", "CLAUDE.md"), []byte("x"), 0o644) }},
		{".claude a link", func(s string) {
			claudeDir := filepath.Join(s, "..")
			elsewhere := t.TempDir()
			os.CopyFS(elsewhere, os.DirFS(claudeDir))
			os.Chmod(s, 0o755)
			os.RemoveAll(claudeDir)
			os.Symlink(elsewhere, claudeDir)
		}},
		{"link replaced by a folder", func(s string) {
			os.Remove(filepath.Join(s, "a"))
			os.CopyFS(filepath.Join(s, "a"), os.DirFS(elsewhere))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := mountNow(root, rs)
			if err != nil {
				t.Fatal(err)
			}
			skills := filepath.Join(m, ".claude", "skills")
			os.Chmod(skills, 0o755)
			tt.change(skills)
			if ok, _ := mountIntact(t.Context(), m, rs); ok {
				t.Fatal("changed mount passes the check")
			}
			again, err := mountNow(root, rs)
			if err != nil || again != m {
				t.Fatalf("remount = %q, %v", again, err)
			}
			if ok, err := mountIntact(t.Context(), m, rs); !ok {
				t.Errorf("rebuilt mount does not check out: %v", err)
			}
		})
	}
}

func TestMountConcurrent(t *testing.T) {
	root, src := t.TempDir(), t.TempDir()
	var dirs []string
	for i := range 20 {
		dirs = append(dirs, cachetest.WriteSkill(t, src, fmt.Sprintf("s%02d", i), "x"))
	}
	rs := resolved(t, dirs...)
	var wg sync.WaitGroup
	got := make([]string, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Go(func() { got[i], errs[i] = mountNow(root, rs) })
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i] != got[0] {
			t.Errorf("mount %d = %q, %v; want %q", i, got[i], errs[i], got[0])
		}
	}
	if ok, err := mountIntact(t.Context(), got[0], rs); !ok {
		t.Errorf("mount does not check out: %v", err)
	}
	names, _ := agentdir.ReadNames(filepath.Join(root, "mounts", "claude"))
	key := filepath.Base(got[0])
	// A mount found settled is stamped (rule 12 of internal/agentdir).
	names = slices.DeleteFunc(names, func(n string) bool { return n == key+".stamp-mount" })
	if !slices.Equal(names, []string{".kind", key, key + ".lease"}) {
		t.Errorf("mounts folder holds %q, want the kind file, the mount and its lease (and its stamp)", names)
	}
}

func TestMountRefusesAForeignFolder(t *testing.T) {
	root := t.TempDir()
	rs := resolved(t, cachetest.WriteSkill(t, t.TempDir(), "a", "A"))
	if err := os.MkdirAll(filepath.Join(root, "mounts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "mounts", "claude")); err != nil {
		t.Fatal(err)
	}
	if _, err := mountNow(root, rs); err == nil {
		t.Error("mount through a linked mounts folder succeeded")
	}
	os.Remove(filepath.Join(root, "mounts", "claude"))
	if err := os.Mkdir(filepath.Join(root, "mounts", "claude"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(root, "mounts", "claude"), 0o777)
	if _, err := mountNow(root, rs); err == nil {
		t.Error("mount in a folder every user can write succeeded")
	}
	// Also when the mount was made before the folder became writable.
	os.Chmod(filepath.Join(root, "mounts", "claude"), 0o700)
	if _, err := mountNow(root, rs); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(root, "mounts", "claude"), 0o777)
	if _, err := mountNow(root, rs); err == nil {
		t.Error("reuse of a mount in a folder every user can write succeeded")
	}
}

func TestShadows(t *testing.T) {
	root, src := t.TempDir(), t.TempDir()
	rs := resolved(t, cachetest.WriteSkill(t, src, "review", "ours"))
	m, err := mountNow(root, rs)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		place  func(user, project string) string // returns the shadowing folder, or ""
		shadow bool
	}{
		{"none", func(user, project string) string { return "" }, false},
		{"user, other content", func(user, _ string) string { return cachetest.WriteSkill(t, user, "review", "theirs") }, true},
		{"user, same content", func(user, _ string) string { cachetest.WriteSkill(t, user, "review", "ours"); return "" }, false},
		{"project, other content", func(_, project string) string {
			return cachetest.WriteSkill(t, filepath.Join(project, ".claude", "skills"), "review", "theirs")
		}, true},
		{"above the project", func(_, project string) string {
			return cachetest.WriteSkill(t, filepath.Join(project, "..", ".claude", "skills"), "review", "theirs")
		}, true},
		{"above the repository", func(_, project string) string {
			os.Mkdir(filepath.Join(project, ".git"), 0o755)
			cachetest.WriteSkill(t, filepath.Join(project, "..", ".claude", "skills"), "review", "theirs")
			return ""
		}, false},
		{"another name", func(user, _ string) string { cachetest.WriteSkill(t, user, "other", "theirs"); return "" }, false},
		{"a file of that name", func(user, _ string) string {
			os.MkdirAll(user, 0o755)
			os.WriteFile(filepath.Join(user, "review"), []byte("x"), 0o644)
			return ""
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			user := filepath.Join(base, "home", ".claude", "skills")
			project := filepath.Join(base, "work", "project")
			os.MkdirAll(project, 0o755)
			theirs := tt.place(user, project)
			err := checkShadows(t.Context(), rs, m, project, user)
			var se *driver.ShadowError
			if !tt.shadow {
				if err != nil {
					t.Fatalf("checkShadows = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &se) || !errors.Is(err, driver.ErrSkillShadowed) {
				t.Fatalf("checkShadows = %v, want a *driver.ShadowError", err)
			}
			if se.Name != "review" || se.Ours != rs.Entries[0].Path || filepath.Clean(se.Theirs) != filepath.Clean(theirs) {
				t.Errorf("ShadowError = %+v, want review, %s, %s", se, rs.Entries[0].Path, theirs)
			}
		})
	}
}

// A mount may hold copies where links cannot be made: a copy with the
// skill's content checks out, one with other content does not.
func TestMountAcceptsFaithfulCopies(t *testing.T) {
	root, src := t.TempDir(), t.TempDir()
	a := cachetest.WriteSkill(t, src, "a", "A")
	rs := resolved(t, a)
	m, err := mountNow(root, rs)
	if err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(m, ".claude", "skills")
	os.Chmod(skills, 0o755)
	os.Remove(filepath.Join(skills, "a"))
	if err := os.CopyFS(filepath.Join(skills, "a"), os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	if ok, err := mountIntact(t.Context(), m, rs); !ok {
		t.Errorf("mount with a faithful copy does not check out: %v", err)
	}
	os.WriteFile(filepath.Join(skills, "a", "extra.md"), []byte("x"), 0o644)
	if ok, _ := mountIntact(t.Context(), m, rs); ok {
		t.Error("mount with a changed copy checks out")
	}
}
