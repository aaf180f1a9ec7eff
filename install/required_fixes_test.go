package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
)

// strictInstaller is requiredInstaller without its leave for local
// repositories: the installer a user runs.
func (f *fixture) strictInstaller(t *testing.T, user, project string) *Installer {
	t.Helper()
	in := f.requiredInstaller(t, user, project)
	in.localRequired = false
	return in
}

// # Required skills, rule 7: a project's file cannot make sync copy a
// repository on this machine, or one a loopback or link-local host
// serves, into the project; the user's own file can name one.
func TestRequiredProjectSourceOnThisMachineRefused(t *testing.T) {
	repo := requiredRepo(t)
	local := strings.TrimPrefix(repo, "git+file://")
	for _, src := range []string{
		repo + "#ref=^1&path=skills/changelog",
		"git+FILE://" + local + "#path=skills/changelog",
		"git+FiLe://" + local,
		"git+http://127.0.0.1/r.git#ref=^1",
		"git+https://127.9.9.9:8443/r.git",
		"git+https://[::1]/r.git#ref=^1",
		"git+ssh://git@localhost/r.git",
		"git+https://LocalHost./r.git",
		"git+http://169.254.169.254/latest.git#ref=^1",
		"git+https://[fe80::1]/r.git",
		"git+https://[::ffff:127.0.0.1]/r.git",
		"oci://localhost:5000/skills/x:^1",
		"oci://127.0.0.1:5000/skills/x",
		"oci://[::1]:5000/skills/x:^1",
	} {
		t.Run(src, func(t *testing.T) {
			f := newFixture(t)
			in := f.strictInstaller(t, "", "version: 1\nrequired:\n  - source: '"+src+"'\n")
			_, err := in.Sync(t.Context(), SyncRequest{})
			file := filepath.Join(f.env.Project, ".agents", policy.FileName) + ":3"
			if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "a project's policy may require only skills published elsewhere") {
				t.Fatalf("Sync = %v, want policy.ErrInvalid naming %s", err, file)
			}
			if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", lockName)); !os.IsNotExist(err) {
				t.Errorf("the refused sync wrote the lock file (%v)", err)
			}
			if _, err := in.PolicyRequired(t.Context()); !errors.Is(err, policy.ErrInvalid) {
				t.Errorf("Required = %v, want policy.ErrInvalid", err)
			}
		})
	}
	t.Run("the user's file", func(t *testing.T) {
		f := newFixture(t)
		in := f.strictInstaller(t, "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n", "")
		if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
			t.Fatalf("Sync = %v, want the user's own local repository installed", err)
		}
		if got := requiredStates(t, in); len(got) != 1 || got[0] != "met changelog" {
			t.Errorf("Required = %q, want met", got)
		}
	})
}

// onThisMachine passes sources published elsewhere.
func TestRequiredOnThisMachineElsewhere(t *testing.T) {
	for _, src := range []string{
		"github:acme/skills/changelog@^1",
		"git+https://git.acme.corp/skills.git#ref=^1",
		"git+ssh://git@git.acme.corp/skills.git",
		"git+https://127.example/r.git",
		"oci://ghcr.io/acme/skills:^1",
		"oci://10.0.0.5:5000/skills",
	} {
		if err := onThisMachine(src); err != nil {
			t.Errorf("onThisMachine(%s) = %v, want nil", src, err)
		}
	}
}

// # Required skills, rule 5: a lock entry's "version" its source's own
// range refuses was written by hand; verify ignores it, and a sync does
// not keep it, so a skill installed at v2.0.0 never meets ^1.
func TestRequiredForgedLockVersionIgnored(t *testing.T) {
	repo := requiredRepo(t)
	f := newFixture(t)
	in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n", "")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{repo + "#ref=^2&path=skills/changelog"}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	raw, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(raw), `"version": "v2.0.0"`, `"version": "v1.1.0"`, 1)
	if forged == string(raw) {
		t.Fatalf("no version v2.0.0 in the lock file: %s", raw)
	}
	if err := os.WriteFile(lockPath, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := requiredStates(t, in); got[0] == "met changelog" {
		t.Errorf("Required with the forged version = %q, want not met", got)
	}
	if _, err := in.Sync(ctx, SyncRequest{}); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	lock := projectLock(t, f)
	body := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "changelog", "SKILL.md"))
	if got := requiredStates(t, in); got[0] == "met changelog" && strings.HasSuffix(body, "version v2.0.0\n") {
		t.Errorf("^1 met with v2.0.0 installed (source %s, version %q)", lock.Skills["changelog"].Source, lock.Skills["changelog"].Version)
	}
	if e := lock.Skills["changelog"]; e.Version == "v1.1.0" && strings.Contains(e.Source, "ref=^2") {
		t.Errorf("sync kept the forged version: %+v", e)
	}
}

// # Required skills, rule 2: the change of a skill a sync installs for
// the policy says which entry required it, and that the project's file
// asked.
func TestRequiredSyncSaysWhy(t *testing.T) {
	repo := requiredRepo(t)
	f := newFixture(t)
	in := f.requiredInstaller(t, "", "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n")
	changes, err := in.Sync(t.Context(), SyncRequest{})
	if err != nil {
		t.Fatalf("Sync = %v", err)
	}
	want := "required by the policy: required[1] (" + filepath.Join(f.env.Project, ".agents", policy.FileName) + ":3), the project's file"
	found := false
	for _, c := range changes {
		if c.Skill == "changelog" && c.Agent == "" {
			found = c.Reason == want
			if !found {
				t.Errorf("canonical change's Reason = %q, want %q", c.Reason, want)
			}
		}
	}
	if !found {
		t.Errorf("Sync = %+v, want changelog's canonical copy installed, saying why", changes)
	}
}

// # Required skills, rule 6: removing a skill the policy does not
// require keeps its dependency (install rule 18) when the policy
// requires that one: it stays, installed directly from then on.
func TestRequiredDependencyStaysOnRemove(t *testing.T) {
	requiredRepo(t)
	base := t.TempDir()
	depSrc := gitSkill(t, base, "dep", nil)
	appSrc := gitSkill(t, base, "app", nil, depSrc)
	f := newFixture(t)
	in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+depSrc+"\n", "")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{appSrc}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if lock := projectLock(t, f); lock.Skills["dep"] == nil || !lock.Skills["dep"].Dependency {
		t.Fatalf("dep is not recorded as a dependency: %+v", lock)
	}
	changes, err := in.Remove(ctx, RemoveRequest{Names: []string{"app"}})
	if err != nil {
		t.Fatalf("Remove(app) = %v, want app removed and dep kept", err)
	}
	for _, c := range changes {
		if c.Skill == "dep" {
			t.Errorf("Remove changed dep: %+v", c)
		}
	}
	lock := projectLock(t, f)
	if lock.Skills["app"] != nil || lock.Skills["dep"] == nil || lock.Skills["dep"].Dependency {
		t.Errorf("after Remove: app %+v, dep %+v; want app gone, dep installed directly", lock.Skills["app"], lock.Skills["dep"])
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "dep", "SKILL.md")); err != nil {
		t.Errorf("dep's canonical copy: %v", err)
	}
	if got := requiredStates(t, in); len(got) != 1 || got[0] != "met dep" {
		t.Errorf("Required = %q, want met", got)
	}
}

// # Required skills, rule 2: a sync that cannot meet every requirement
// changes nothing, and fails alike each time: entries whose ranges admit
// no common version (^1 in the user's file, ^2 in the project's), and
// an entry whose range no tag meets beside one that could be met.
func TestRequiredSyncFailsChangingNothing(t *testing.T) {
	repo := requiredRepo(t)
	for name, files := range map[string][2]string{
		"conflicting ranges": {
			"version: 1\nrequired:\n  - source: " + repo + "#ref=^1&path=skills/changelog\n",
			"version: 1\nrequired:\n  - source: " + repo + "#ref=^2&path=skills/changelog\n",
		},
		"one unmeetable": {
			"",
			"version: 1\nrequired:\n  - source: " + repo + "#ref=^1&path=skills/changelog\n  - source: " + repo + "#ref=^9&path=skills/review\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			in := f.requiredInstaller(t, files[0], files[1])
			for range 2 {
				changes, err := in.Sync(t.Context(), SyncRequest{})
				if !errors.Is(err, ErrPolicyRequired) || !strings.Contains(err.Error(), "nothing was changed") || Changed(changes) {
					t.Fatalf("Sync = %+v, %v; want ErrPolicyRequired, nothing changed", changes, err)
				}
			}
			for _, p := range []string{filepath.Join(".agents", lockName), filepath.Join(".agents", "skills", "changelog")} {
				if _, err := os.Stat(filepath.Join(f.env.Project, p)); !os.IsNotExist(err) {
					t.Errorf("the failed syncs made %s (%v)", p, err)
				}
			}
		})
	}
}

// # Required skills, rule 2: entries of both files for one repository
// are met by one version both admit, the highest.
func TestRequiredSyncIntersectsRanges(t *testing.T) {
	repo := requiredRepo(t)
	f := newFixture(t)
	in := f.requiredInstaller(t,
		"version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n",
		"version: 1\nrequired:\n  - source: "+repo+"#ref=>=1.0 <2&path=skills/changelog\n")
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if got := requiredStates(t, in); len(got) != 2 || got[0] != "met changelog" || got[1] != "met changelog" {
		t.Errorf("Required = %q, want both met", got)
	}
}

// Package policy reads a required source's reference as the kind's
// package does: a source the policy accepts names the same reference
// to both, and one install would read otherwise is refused at load.
func TestRequiredRefReadAlike(t *testing.T) {
	for _, src := range []string{
		"github:acme/x@^1",
		"github:acme/x/sub@>=1.0 <2",
		"git+https://h.example/r.git#ref=^1&path=a",
		"git+https://h.example/r.git#path=a&ref=%5E1",
		"git+https://h.example/r.git#ref=^1&ref=^2",
		"git+https://h.example/r.git?ref=v9.0.0#ref=^1",
		"git+https://h.example/r.git#ref=^1&path=../x",
		"git+https://h.example/r.git#ref=^1;path=x",
		"oci://h.example/r:^1",
		"oci://h.example:5000/r:v1.2.3",
		"git+ssh://git@h.example/r.git#ref=v1.2.3",
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".agents"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".agents", policy.FileName), []byte("version: 1\nrequired:\n  - source: '"+src+"'\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := policy.Load("", dir)
		if err != nil {
			continue // refused where it is written, with its line
		}
		in := New(Env{Home: t.TempDir(), Project: dir, Getenv: func(string) string { return "" }})
		pl, ok, err := in.sourcePlace(src)
		if err != nil || !ok {
			t.Errorf("%s: the policy accepts it, install reads %v, %v", src, ok, err)
			continue
		}
		if got := p.Required()[0].Ref; pl.ref != got {
			t.Errorf("%s: the policy reads the reference %q, install %q", src, got, pl.ref)
		}
	}
}

// # Required skills, rule 9: under sources.pinned: true a sync adds a
// required skill at the pin its reference resolves to, and records the
// tag, so the requirement is met.
func TestRequiredPinnedPolicy(t *testing.T) {
	repo := requiredRepo(t)
	for ref, want := range map[string]string{"^1": "v1.1.0", "v1.0.0": "v1.0.0", "": "v2.0.0"} {
		t.Run(ref, func(t *testing.T) {
			f := newFixture(t)
			src := repo + "#path=skills/changelog"
			if ref != "" {
				src = repo + "#ref=" + ref + "&path=skills/changelog"
			}
			in := f.requiredInstaller(t, "version: 1\nsources:\n  pinned: true\nrequired:\n  - source: "+src+"\n", "")
			if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
				t.Fatalf("Sync = %v", err)
			}
			e := projectLock(t, f).Skills["changelog"]
			if e == nil || e.Version != want || e.Pin == "" || !strings.Contains(e.Source, "ref="+e.Pin) {
				t.Fatalf("changelog = %+v, want it at the pin of %s, recorded as %s", e, want, want)
			}
			if got := requiredStates(t, in); got[0] != "met changelog" {
				t.Errorf("Required = %q, want met", got)
			}
			if changes, err := in.Sync(t.Context(), SyncRequest{}); err != nil || Changed(changes) {
				t.Errorf("second Sync = %+v, %v; want nothing to do", changes, err)
			}
		})
	}
}
