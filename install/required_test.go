package install

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// requiredRepo makes a git repository with the skills changelog and
// review under skills/, tagged v1.0.0, v1.1.0 and v2.0.0, each
// changelog's SKILL.md ending with its tag; it returns the repository's
// git+file:// URL.
func requiredRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(t.TempDir(), "repo")
	for _, tag := range []string{"v1.0.0", "v1.1.0", "v2.0.0"} {
		gitRepo(t, repo, map[string]string{
			"skills/changelog/SKILL.md": skillMD("changelog") + "version " + tag + "\n",
			"skills/review/SKILL.md":    skillMD("review") + "version " + tag + "\n",
		})
		cmd := exec.Command("git", "tag", tag)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git tag: %v\n%s", err, out)
		}
	}
	return "git+file://" + filepath.ToSlash(repo)
}

// requiredInstaller writes the user's and the project's policy files
// (none when "") and returns an installer that enforces them, and lets
// the project's file require the tests' local repositories.
func (f *fixture) requiredInstaller(t *testing.T, user, project string) *Installer {
	t.Helper()
	for dir, body := range map[string]string{f.env.Home: user, f.env.Project: project} {
		if body == "" {
			continue
		}
		name := filepath.Join(dir, ".agents", policy.FileName)
		os.MkdirAll(filepath.Dir(name), 0o755)
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := policy.Load(f.env.Home, f.env.Project)
	if err != nil {
		t.Fatal(err)
	}
	c := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	in := New(f.env, WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithTrust(trust.NewChecker(p), Trust{}))
	in.localRequired = true // the test repositories are on this machine
	return in
}

// requiredStates is "SOURCE STATE SKILLS" of each required skill.
func requiredStates(t *testing.T, in *Installer) []string {
	t.Helper()
	got, err := in.PolicyRequired(t.Context())
	if err != nil {
		t.Fatalf("Required = %v", err)
	}
	var out []string
	for _, r := range got {
		out = append(out, string(r.State)+" "+strings.Join(r.Skills, ","))
	}
	return out
}

// # Required skills, rules 1 to 3: a missing required skill fails a
// frozen sync, changing nothing; a sync installs it at the highest
// version its range admits and records that version; list marks it;
// remove refuses it, forced or not.
func TestRequiredSyncListRemove(t *testing.T) {
	repo := requiredRepo(t)
	f := newFixture(t)
	src := repo + "#ref=^1&path=skills/changelog"
	in := f.requiredInstaller(t, "", "version: 1\nrequired:\n  - source: "+src+"\n    agents: [claude-code]\n    reason: we keep a changelog\n")
	ctx := t.Context()
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)

	if got, want := requiredStates(t, in), []string{"missing "}; !slices.Equal(got, want) {
		t.Errorf("Required before = %q, want %q", got, want)
	}
	_, err := in.Sync(ctx, SyncRequest{Frozen: true})
	var rerr *PolicyRequiredError
	if !errors.As(err, &rerr) || !errors.Is(err, ErrPolicyRequired) || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), policy.FileName+":3") {
		t.Fatalf("frozen Sync = %v, want a *PolicyRequiredError naming %s and the policy's line", err, src)
	}
	if _, err := os.Lstat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("frozen Sync wrote the lock file (%v); want nothing changed", err)
	}

	changes, err := in.Sync(ctx, SyncRequest{})
	if err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if !slices.Contains(actions(changes), "changelog/claude-code:link:installed") {
		t.Errorf("Sync = %v, want changelog installed for claude-code", actions(changes))
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "changelog", "SKILL.md")); !strings.HasSuffix(got, "version v1.1.0\n") {
		t.Errorf("Sync installed %q, want v1.1.0's (the highest ^1 admits)", got)
	}
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if e := lock.Skills["changelog"]; e == nil || e.Source != src || e.Version != "v1.1.0" {
		t.Fatalf("lock entry = %+v, want %s at version v1.1.0", e, src)
	}
	if got, want := requiredStates(t, in), []string{"met changelog"}; !slices.Equal(got, want) {
		t.Errorf("Required after Sync = %q, want %q", got, want)
	}
	if changes, err := in.Sync(ctx, SyncRequest{}); err != nil || Changed(changes) {
		t.Errorf("second Sync = %v, %v; want nothing changed", actions(changes), err)
	}
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync once met = %v", err)
	}
	if l, _ := readLock(lockPath); l.Skills["changelog"].Version != "v1.1.0" {
		t.Errorf("syncs at the pin recorded %+v, want the version kept", l.Skills["changelog"])
	}

	st, err := in.List(ctx, ListRequest{Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Skill == "changelog" && !strings.HasPrefix(s.RequiredByPolicy, "required[1] (") {
			t.Errorf("List: %+v, want it marked required[1]", s)
		}
	}

	for _, force := range []bool{false, true} {
		_, err := in.Remove(ctx, RemoveRequest{Names: []string{"changelog"}, Force: force})
		if !errors.Is(err, ErrPolicyRequired) || !strings.Contains(err.Error(), "required[1]") || !strings.Contains(err.Error(), "we keep a changelog") {
			t.Errorf("Remove(force %v) = %v, want ErrPolicyRequired naming the entry and its reason", force, err)
		}
	}
	_, err = in.Remove(ctx, RemoveRequest{Names: []string{"changelog"}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, ErrPolicyRequired) {
		t.Errorf("Remove for claude-code = %v, want ErrPolicyRequired: the policy names that agent", err)
	}
	if l, _ := readLock(lockPath); l.Skills["changelog"] == nil {
		t.Errorf("a refused Remove removed changelog from the lock file")
	}
}

// # Required skills, rule 1: a skill installed at a version outside the
// range, or at one the lock file does not know, is out of range; a sync
// adds the required source, which moves it into the range.
func TestRequiredOutOfRange(t *testing.T) {
	repo := requiredRepo(t)
	for _, tt := range []struct{ name, installed, detail string }{
		{"a version tag", repo + "#ref=v2.0.0&path=skills/changelog", "changelog at v2.0.0, outside ^1"},
		{"a range", repo + "#ref=^2&path=skills", "changelog at v2.0.0, outside ^1"},
		{"a branch", repo + "#ref=main&path=skills/changelog", "does not record"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			src := repo + "#ref=^1&path=skills/changelog"
			in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+src+"\n", "")
			ctx := t.Context()
			if _, err := in.Add(ctx, AddRequest{Sources: []string{tt.installed}, Agents: agentsOf(t, "codex"), Skills: []string{"changelog"}}); err != nil {
				t.Fatalf("Add(%s) = %v", tt.installed, err)
			}
			got, err := in.PolicyRequired(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].State != RequiredOutOfRange || !strings.Contains(got[0].Problem, tt.detail) || !strings.Contains(got[0].Problem, "agentskills sync") && !strings.Contains(got[0].Problem, SettingSync) {
				t.Fatalf("Required = %+v, want out of range saying %q and what to run", got, tt.detail)
			}
			if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); !errors.Is(err, ErrPolicyRequired) {
				t.Errorf("frozen Sync = %v, want ErrPolicyRequired", err)
			}
			if _, err := in.Sync(ctx, SyncRequest{}); err != nil {
				t.Fatalf("Sync = %v", err)
			}
			if got, want := requiredStates(t, in), []string{"met changelog"}; !slices.Equal(got, want) {
				t.Errorf("Required after Sync = %q, want %q", got, want)
			}
			lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
			if e := lock.Skills["changelog"]; e.Source != src || e.Version != "v1.1.0" || e.Agents["codex"].Kind == "" {
				t.Errorf("lock entry = %+v, want %s at v1.1.0, still for codex", e, src)
			}
		})
	}
}

// # Required skills, rules 1 and 2 with package policy's rule 26: the
// entries of both files apply; a sync meets both when one version can,
// and fails naming them when none can.
func TestRequiredBothFiles(t *testing.T) {
	repo := requiredRepo(t)
	t.Run("met together", func(t *testing.T) {
		f := newFixture(t)
		in := f.requiredInstaller(t,
			"version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n",
			"version: 1\nrequired:\n  - source: "+repo+"#ref=<1.1&path=skills/changelog\n  - source: "+repo+"#path=skills/review\n    agents: [claude-code, codex]\n")
		if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatalf("Sync = %v", err)
		}
		if got, want := requiredStates(t, in), []string{"met changelog", "met changelog", "met review"}; !slices.Equal(got, want) {
			t.Errorf("Required = %q, want %q", got, want)
		}
		lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
		if e := lock.Skills["changelog"]; e.Version != "v1.0.0" {
			t.Errorf("changelog at %q, want v1.0.0, which both ranges admit", e.Version)
		}
		if e := lock.Skills["review"]; len(e.Agents) != 2 {
			t.Errorf("review for %v, want claude-code and codex", e.Agents)
		}
		// Taking review from one agent the policy names is refused.
		if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"review"}, Agents: agentsOf(t, "codex")}); !errors.Is(err, ErrPolicyRequired) || !strings.Contains(err.Error(), "for codex") {
			t.Errorf("Remove(review for codex) = %v, want ErrPolicyRequired naming codex", err)
		}
	})
	t.Run("no common version", func(t *testing.T) {
		f := newFixture(t)
		in := f.requiredInstaller(t,
			"version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n",
			"version: 1\nrequired:\n  - source: "+repo+"#ref=^2&path=skills/changelog\n")
		_, err := in.Sync(t.Context(), SyncRequest{})
		var rerr *PolicyRequiredError
		if !errors.As(err, &rerr) || len(rerr.Skills) != 2 || !strings.Contains(err.Error(), "nothing was changed") {
			t.Fatalf("Sync = %v, want a *PolicyRequiredError naming both entries, nothing changed", err)
		}
		if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", lockName)); !os.IsNotExist(err) {
			t.Errorf("the failed sync wrote the lock file (%v)", err)
		}
	})
}

// # Required skills, rule 1: a requirement with agents is missing for an
// agent the skill is not installed for; a sync adds it for them. A skill
// not required is removed as ever.
func TestRequiredAgents(t *testing.T) {
	repo := requiredRepo(t)
	f := newFixture(t)
	in := f.requiredInstaller(t, "", "version: 1\nrequired:\n  - source: "+repo+"#path=skills/changelog\n    agents: [claude-code, codex]\n")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{repo + "#path=skills"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	got, err := in.PolicyRequired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].State != RequiredMissing || !strings.Contains(got[0].Problem, "not installed for codex") {
		t.Fatalf("Required = %+v, want missing for codex", got)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"review"}}); err != nil {
		t.Errorf("Remove(review) = %v, want it removed: the policy does not require it", err)
	}
	if _, err := in.Sync(ctx, SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	if got, want := requiredStates(t, in), []string{"met changelog"}; !slices.Equal(got, want) {
		t.Errorf("Required after Sync = %q, want %q", got, want)
	}
}

// Without a policy's trust engine nothing is required.
func TestRequiredNoPolicy(t *testing.T) {
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	if got, err := in.PolicyRequired(t.Context()); got != nil || err != nil {
		t.Errorf("Required = %v, %v; want nothing", got, err)
	}
}

// # Required skills, rule 1, on GitHub: the skill's folder is matched
// from the repository's root whatever folder the installed source
// names, and the version its range picked is recorded.
func TestRequiredGitHub(t *testing.T) {
	g := newFakeGitHub(t)
	for i, tag := range []string{"v1.0.0", "v1.2.0", "v2.0.0"} {
		g.publish("refs/tags/"+tag, strings.Repeat(string(rune('a'+i)), 40), map[string]string{
			"skills/changelog/SKILL.md": skillMD("changelog") + tag + "\n",
			"skills/review/SKILL.md":    skillMD("review"),
		})
	}
	f := newFixture(t)
	in := f.requiredInstaller(t, "", "version: 1\nrequired:\n  - source: github:o/skills/skills/changelog@^1\n")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"github:o/skills@^2"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	got, err := in.PolicyRequired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].State != RequiredOutOfRange || !strings.Contains(got[0].Problem, "changelog at v2.0.0, outside ^1") {
		t.Fatalf("Required = %+v, want changelog out of range at v2.0.0", got)
	}
	if _, err := in.Sync(ctx, SyncRequest{}); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if e := lock.Skills["changelog"]; e.Version != "v1.2.0" || e.Source != "github:o/skills/skills/changelog@^1" {
		t.Errorf("changelog recorded as %+v, want the required source at v1.2.0", e)
	}
	if e := lock.Skills["review"]; e == nil || e.Version != "v2.0.0" {
		t.Errorf("review recorded as %+v, want it kept at v2.0.0 (not required)", e)
	}
	if got, want := requiredStates(t, in), []string{"met changelog"}; !slices.Equal(got, want) {
		t.Errorf("Required after Sync = %q, want %q", got, want)
	}
}

// # Required skills: nothing is required in the user's scope, which is
// not a project.
func TestRequiredNotInUserScope(t *testing.T) {
	f := newFixture(t)
	body := "version: 1\nrequired:\n  - source: github:acme/skills/changelog@^1\n"
	f.requiredInstaller(t, body, "") // writes the user's file
	p, err := policy.Load(f.env.Home, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Required()) != 1 {
		t.Fatalf("Required() = %v, want the user's entry", p.Required())
	}
	c := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	user := New(f.env, WithScope(User), WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")), WithTrust(trust.NewChecker(p), Trust{}))
	if got, err := user.PolicyRequired(t.Context()); got != nil || err != nil {
		t.Errorf("Required in the user's scope = %v, %v; want nothing", got, err)
	}
	if _, err := user.Sync(t.Context(), SyncRequest{Frozen: true}); !errors.Is(err, ErrNothingRecorded) {
		t.Errorf("frozen Sync in the user's scope = %v, want ErrNothingRecorded (nothing required there)", err)
	}
}

// The lock file's "version" follows the pin: Update --latest records the
// tag it moved to, which takes a required skill out of its range.
func TestRequiredAfterUpdate(t *testing.T) {
	repo := requiredRepo(t)
	f := newFixture(t)
	src := repo + "#ref=^1&path=skills/changelog"
	in := f.requiredInstaller(t, "", "version: 1\nrequired:\n  - source: "+src+"\n")
	ctx := t.Context()
	if _, err := in.Sync(ctx, SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := in.Update(ctx, UpdateRequest{Latest: true}); err != nil {
		t.Fatalf("Update = %v", err)
	}
	lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if e := lock.Skills["changelog"]; e.Version != "v2.0.0" || !strings.Contains(e.Source, "ref=^2.0.0") {
		t.Fatalf("after Update --latest: %+v, want ^2.0.0 at v2.0.0", e)
	}
	got, err := in.PolicyRequired(ctx)
	if err != nil || len(got) != 1 || got[0].State != RequiredOutOfRange {
		t.Errorf("Required after Update = %+v, %v; want out of range", got, err)
	}
}
