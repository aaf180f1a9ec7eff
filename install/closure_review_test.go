package install

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// A published skill requires published sources (rule 17): a git+file://
// repository in any case of its scheme, and a loopback host, are refused.
func TestRequiresPublishedRefusesMachineSources(t *testing.T) {
	needGit(t)
	o := newOCIFixture(t)
	priv := gitSkill(t, t.TempDir(), "private", nil)
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	for _, req := range []string{
		"git+FILE://" + strings.TrimPrefix(priv, "git+file://") + "#ref=main",
		"git+http://127.0.0.1:1/x.git",
		"git+ssh://git@localhost/x.git",
		"git+https://127.1.2.3/x.git",
		"https://[::1]/x.tar.gz",
	} {
		ref := o.Push(t, "skills/evil", "v1", "evil", requiringMD("evil", req))
		_, err := in.Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "claude-code")})
		if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "a published skill requires published sources") {
			t.Errorf("Add(published skill requiring %s) = %v; want it refused; lock %+v", req, err, summarize(projectLock(t, f)))
		}
	}
}

// A requirement with credentials is refused, and recorded (with
// NoRequires) and shown without them (rule 17).
func TestRequiresCredentialsNeverRecorded(t *testing.T) {
	f := newFixture(t)
	req := "git+https://ghp_SECRETTOKEN@example.invalid/acme/x.git"
	writeFiles(t, f.sources, map[string]string{"app/SKILL.md": requiringMD("app", req)})
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "codex"), NoRequires: true}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(f.env.Project, ".agents", lockName))
	if strings.Contains(string(b), "SECRETTOKEN") {
		t.Errorf("lock file records the credential:\n%s", b)
	}
	st, _ := in.Verify(t.Context())
	for _, s := range st {
		if strings.Contains(s.Requirement, "SECRETTOKEN") {
			t.Errorf("Verify reports the credential: %+v", s)
		}
	}
	// Without NoRequires the error names it too.
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "codex")})
	if !errors.Is(err, ErrInvalidSource) || strings.Contains(err.Error(), "SECRETTOKEN") || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("Add(app requiring %s) = %v; want it refused, the credential not shown", req, err)
	}
}

// A new requirement with another range of an installed skill's
// repository does not move it where an installed skill's requirement
// does not admit it: it fails naming the installed chain.
func TestRequiresKeepInstalledRequirersRanges(t *testing.T) {
	needGit(t)
	repos := t.TempDir()
	changelog := gitSkill(t, repos, "changelog", []string{"v1.0.0", "v1.9.0", "v2.0.0"})
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"z/SKILL.md": requiringMD("z", changelog+"#ref=^1"),
		"y/SKILL.md": requiringMD("y", changelog+"#ref=^2"),
	})
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "z")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "y")}, Agents: agentsOf(t, "claude-code")})
	b, _ := os.ReadFile(filepath.Join(f.env.Project, ".agents", "skills", "changelog", "SKILL.md"))
	t.Logf("Add(y) = %v; changelog now %q; lock %+v", err, strings.TrimSpace(string(b[strings.LastIndex(string(b), "version"):])), summarize(projectLock(t, f)))
	if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), "z -> changelog ("+changelog+"#ref=^1, installed v1.9.0)") || strings.Contains(string(b), "version v2.0.0") {
		st, _ := in.Verify(t.Context())
		t.Errorf("Add(y) = %v; want ErrRequirements naming z's requirement, changelog kept at v1.9.0; Verify = %+v", err, st)
	}
	// A range the installed version answers leaves it as it is.
	writeFiles(t, f.sources, map[string]string{"w/SKILL.md": requiringMD("w", changelog+"#ref=>=1.5.0")})
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "w")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if l := projectLock(t, f); l.Skills["changelog"].Version != "v1.9.0" || !strings.HasSuffix(l.Skills["changelog"].Source, "#ref=^1") {
		t.Errorf("Add(w) moved changelog: %+v", l.Skills["changelog"])
	}
}

// A skill the user named is never moved by a requirement: a range its
// version answers takes it as it is; one it does not fails.
func TestRequiresKeepNamedPinnedSkill(t *testing.T) {
	needGit(t)
	repos := t.TempDir()
	changelog := gitSkill(t, repos, "changelog", []string{"v1.0.0", "v1.9.0"})
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{"y/SKILL.md": requiringMD("y", changelog+"#ref=^1")})
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{changelog + "#ref=v1.0.0"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "y")}, Agents: agentsOf(t, "claude-code")})
	b, _ := os.ReadFile(filepath.Join(f.env.Project, ".agents", "skills", "changelog", "SKILL.md"))
	l := projectLock(t, f)
	t.Logf("Add(y) = %v; changelog entry source %s", err, l.Skills["changelog"].Source)
	if err != nil || strings.Contains(string(b), "version v1.9.0") || !strings.HasSuffix(l.Skills["changelog"].Source, "#ref=v1.0.0") || l.Skills["changelog"].Dependency {
		t.Errorf("Add(y) = %v; moved the user's changelog pinned at v1.0.0: %+v", err, l.Skills["changelog"])
	}
	writeFiles(t, f.sources, map[string]string{"x/SKILL.md": requiringMD("x", changelog+"#ref=>=1.5.0")})
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "x")}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), "installed as named") {
		t.Errorf("Add(x requiring >=1.5.0 of changelog pinned at v1.0.0) = %v; want ErrRequirements", err)
	}
}

// NoRequires refuses a cycle as rule 17 does.
func TestRequiresNoRequiresRefusesCycle(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"a/SKILL.md": requiringMD("a", "../b"),
		"b/SKILL.md": requiringMD("b", "../a"),
	})
	in := f.installer(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "a"), filepath.Join(f.sources, "b")}, Agents: agentsOf(t, "codex"), NoRequires: true})
	if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), "a -> b -> a") {
		t.Errorf("Add(a, b, NoRequires) = %v; lock %+v", err, summarize(projectLock(t, f)))
	}
}

// Skills that require each other, added one by one with NoRequires,
// record no cycle: a later Add and Remove work.
func TestRequiresNoRequiresOneByOne(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"a/SKILL.md": requiringMD("a", "../b"),
		"b/SKILL.md": requiringMD("b", "../a"),
		"c/SKILL.md": requiringMD("c", "../a"),
	})
	in := f.installer(t)
	for _, s := range []string{"a", "b"} {
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, s)}, Agents: agentsOf(t, "codex"), NoRequires: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "c")}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Errorf("Add(c) = %v", err)
	}
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"c"}}); err != nil {
		t.Errorf("Remove(c) = %v", err)
	}
}

// A dependency the user then adds by name loses the mark, and survives
// the removal of what required it.
func TestRequiresNamedDependencySurvivesRemove(t *testing.T) {
	for _, none := range []bool{false, true} {
		f := newFixture(t)
		writeFiles(t, f.sources, map[string]string{
			"y/SKILL.md": requiringMD("y", "../b"),
			"b/SKILL.md": requiringMD("b"),
		})
		in := f.installer(t)
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "y")}, Agents: agentsOf(t, "codex")}); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "b")}, Agents: agentsOf(t, "codex"), NoRequires: none}); err != nil {
			t.Fatal(err)
		}
		t.Logf("none=%v lock %+v", none, summarize(projectLock(t, f)))
		ch, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"y"}})
		if err != nil {
			t.Fatal(err)
		}
		if projectLock(t, f).Skills["b"] == nil {
			t.Errorf("none=%v: b, added by name, was removed with y: %+v", none, ch)
		}
	}
}

// stopWhen is a context that ends once the file at path exists (exists
// set) or no longer exists.
type stopWhen struct {
	context.Context
	path   string
	exists bool
}

func (c stopWhen) Err() error {
	_, err := os.Stat(c.path)
	if c.exists && err == nil || !c.exists && errors.Is(err, os.ErrNotExist) {
		return context.Canceled
	}
	return nil
}

// An interrupted removal leaves nothing behind for ever: dependencies go
// before the skills named, so a second run naming them takes the rest.
func TestRequiresRemoveInterruptedTakesDependencies(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"y/SKILL.md": requiringMD("y", "../b"),
		"b/SKILL.md": requiringMD("b"),
	})
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "y")}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	ctx := stopWhen{t.Context(), filepath.Join(f.env.Project, ".agents", "skills", "y"), false}
	_, err := in.Remove(ctx, RemoveRequest{Names: []string{"y"}})
	t.Logf("Remove(y) interrupted = %v", err)
	_, err = in.Remove(t.Context(), RemoveRequest{Names: []string{"y"}})
	t.Logf("Remove(y) again = %v", err)
	if e := projectLock(t, f).Skills["b"]; e != nil {
		t.Errorf("b stays, a dependency nothing needs, which no later removal takes: %+v", summarize(projectLock(t, f))["b"])
	}
}

// An interrupted Add installs what a skill requires before it (rule 17:
// a skill is never installed without what it requires).
func TestRequiresAddInterruptedRequiredFirst(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md": requiringMD("app", "../b"),
		"b/SKILL.md":   requiringMD("b"),
	})
	in := f.installer(t)
	ctx := stopWhen{t.Context(), filepath.Join(f.env.Project, ".agents", "skills", "app", "SKILL.md"), true}
	_, err := in.Add(ctx, AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "codex")})
	t.Logf("Add(app) interrupted = %v", err)
	l := projectLock(t, f)
	if l.Skills["app"] != nil && l.Skills["b"] == nil {
		st, _ := in.Verify(t.Context())
		t.Errorf("app installed without b; verify = %+v", st)
	}
}

// A requirement naming a source of several skills is refused, also when
// one of them is installed.
func TestRequiresKitNotAnsweredByOneInstalled(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md":   requiringMD("app", "../kit"),
		"kit/x/SKILL.md": skillMD("x"),
		"kit/y/SKILL.md": skillMD("y"),
	})
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Skills: []string{"x"}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "codex")})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "holds 2 skills") {
		t.Errorf("Add(app requiring ../kit, of 2 skills) = %v; lock %+v", err, summarize(projectLock(t, f)))
	}
}

func tagSkill(t *testing.T, repo, name, tag, body string) {
	t.Helper()
	gitRepo(t, repo, map[string]string{"SKILL.md": requiringMD(name) + "version " + tag + "\n" + body})
	cmd := exec.Command("git", "tag", tag)
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git tag: %v\n%s", err, out)
	}
}

// Update merges a named range and a new requirement's range that a
// version answers (v1.4.0 admits ^1 and ~1.4), as Add does.
func TestRequiresUpdateMergesRanges(t *testing.T) {
	needGit(t)
	f := newFixture(t)
	repos := t.TempDir()
	cl := filepath.Join(repos, "changelog")
	tagSkill(t, cl, "changelog", "v1.0.0", "")
	tagSkill(t, cl, "changelog", "v1.4.0", "")
	changelog := "git+file://" + filepath.ToSlash(cl)
	app := gitSkill(t, repos, "app", nil) + "#ref=main"
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{app, changelog + "#ref=^1"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	tagSkill(t, cl, "changelog", "v1.9.0", "")
	gitRepo(t, filepath.Join(repos, "app"), map[string]string{"SKILL.md": requiringMD("app", changelog+"#ref=~1.4")})
	if _, _, err := in.Update(t.Context(), UpdateRequest{}); err != nil {
		t.Fatalf("Update = %v; want changelog at v1.4.0, which ^1 and ~1.4 both admit", err)
	}
	if e := projectLock(t, f).Skills["changelog"]; e.Version != "v1.4.0" {
		t.Errorf("changelog after Update: %+v; want v1.4.0", e)
	}
}

// Sync, and Sync with Frozen, restore skills and their requirements at
// the pins the lock file records, keeping it byte for byte: a newer
// version a requirement's range admits is not read.
func TestRequiresSyncKeepsPins(t *testing.T) {
	needGit(t)
	repos := t.TempDir()
	changelog := gitSkill(t, repos, "changelog", []string{"v1.0.0", "v1.9.0"})
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{"y/SKILL.md": requiringMD("y", changelog+"#ref=^1")})
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "y")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	before, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	gitSkill(t, repos, "changelog", []string{"v1.9.5"}) // ^1 now picks v1.9.5
	for _, frozen := range []bool{false, true} {
		for _, dir := range []string{filepath.Join(f.env.Project, ".agents", "skills"), filepath.Join(f.env.Project, ".claude", "skills")} {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := in.Sync(t.Context(), SyncRequest{Frozen: frozen}); err != nil {
			t.Fatalf("Sync(frozen=%v) = %v", frozen, err)
		}
		after, err := os.ReadFile(lockPath)
		if err != nil {
			t.Fatal(err)
		}
		if string(after) != string(before) {
			t.Errorf("Sync(frozen=%v) changed the lock file:\n%s\nwant\n%s", frozen, after, before)
		}
		b, err := os.ReadFile(filepath.Join(f.env.Project, ".claude", "skills", "changelog", "SKILL.md"))
		if err != nil || !strings.Contains(string(b), "version v1.9.0") {
			t.Errorf("Sync(frozen=%v): changelog = %q, %v; want v1.9.0, its pin", frozen, b, err)
		}
		if _, err := os.Stat(filepath.Join(f.env.Project, ".claude", "skills", "y", "SKILL.md")); err != nil {
			t.Errorf("Sync(frozen=%v): y not restored: %v", frozen, err)
		}
	}
}

// Two ranges of one repository install the highest version both admit,
// also when neither one's own pick is admitted by the other (as the
// SDK's merge of requirements picks).
func TestRequiresRangesHighestBothAdmit(t *testing.T) {
	needGit(t)
	repos := t.TempDir()
	changelog := gitSkill(t, repos, "changelog", []string{"v1.0.0", "v1.4.0", "v1.4.5", "v1.9.0"})
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md":     requiringMD("app", "../release", "../notes"),
		"release/SKILL.md": requiringMD("release", changelog+"#ref=^1,!=1.9.0"), // alone v1.4.5
		"notes/SKILL.md":   requiringMD("notes", changelog+"#ref=^1,!=1.4.5"),   // alone v1.9.0
	})
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if e := projectLock(t, f).Skills["changelog"]; e == nil || e.Version != "v1.4.0" || !e.Dependency {
		t.Errorf("changelog's entry = %+v; want v1.4.0, the highest both admit", e)
	}
}
