package install

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// requiringMD is a SKILL.md of name whose metadata.requires lists reqs.
func requiringMD(name string, reqs ...string) string {
	if len(reqs) == 0 {
		return skillMD(name)
	}
	return fmt.Sprintf("---\nname: %s\ndescription: the %s skill\nmetadata:\n  requires: %q\n---\n# %s\n", name, name, strings.Join(reqs, " "), name)
}

// needGit skips t without git, and keeps the user's git configuration
// out of it.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// gitSkill makes a repository under root holding the skill name at its
// root, requiring reqs, tagged with each of tags in turn (each a new
// commit whose SKILL.md names the tag), and returns its git+file URL
// without a reference.
func gitSkill(t *testing.T, root, name string, tags []string, reqs ...string) string {
	t.Helper()
	repo := filepath.Join(root, name)
	if len(tags) == 0 {
		gitRepo(t, repo, map[string]string{"SKILL.md": requiringMD(name, reqs...)})
	}
	for _, tag := range tags {
		gitRepo(t, repo, map[string]string{"SKILL.md": requiringMD(name, reqs...) + "version " + tag + "\n"})
		cmd := exec.Command("git", "tag", tag)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git tag %s: %v\n%s", tag, err, out)
		}
	}
	return "git+file://" + filepath.ToSlash(repo)
}

// projectLock reads the project's lock file.
func projectLock(t *testing.T, f *fixture) *lockFile {
	t.Helper()
	l, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// reqSummary is what the lock file records of one skill's requirements.
type reqSummary struct {
	Requires   []lockRequirement
	RequiredBy []string
	Dependency bool
}

func summarize(l *lockFile) map[string]reqSummary {
	out := map[string]reqSummary{}
	for name, e := range l.Skills {
		out[name] = reqSummary{e.Requires, e.RequiredBy, e.Dependency}
	}
	return out
}

// requiredChanges maps each canonical copy's change to its RequiredBy.
func requiredChanges(changes []Change) map[string][]string {
	out := map[string][]string{}
	for _, c := range changes {
		if c.Agent == "" && c.Action != ActionSkipped {
			out[c.Skill] = c.RequiredBy
		}
	}
	return out
}

// TestRequiresChain checks rule 17 on a chain of three: a folder a
// requires the git repository b, which requires the git repository c;
// Add installs all three, b and c as dependencies, each requirement
// recorded with the skill that answers it, and a second Add of a changes
// nothing and reads nothing new.
func TestRequiresChain(t *testing.T) {
	needGit(t)
	f := newFixture(t)
	repos := t.TempDir()
	c := gitSkill(t, repos, "c", nil) + "#ref=main"
	b := gitSkill(t, repos, "b", nil, c) + "#ref=main"
	a := filepath.Join(f.sources, "a")
	writeFiles(t, a, map[string]string{"SKILL.md": requiringMD("a", b)})
	in := f.remoteInstaller(t, cachetest.Root(t))
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{a}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatalf("Add(a) = %v", err)
	}
	want := map[string]reqSummary{
		"a": {Requires: []lockRequirement{{Source: b, Skill: "b"}}},
		"b": {Requires: []lockRequirement{{Source: c, Skill: "c"}}, RequiredBy: []string{"a"}, Dependency: true},
		"c": {RequiredBy: []string{"b"}, Dependency: true},
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock after Add(a) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string][]string{"a": nil, "b": {"a"}, "c": {"b"}}, requiredChanges(changes)); diff != "" {
		t.Errorf("Add(a) changes' RequiredBy (-want +got):\n%s", diff)
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := os.Stat(filepath.Join(f.env.Project, ".claude", "skills", name, "SKILL.md")); err != nil {
			t.Errorf("%s not installed for claude-code: %v", name, err)
		}
	}
	// Again, with the repositories gone: b is answered by the installed
	// b (same source), c by the lock file's record of b, neither read;
	// nothing changes.
	hidden := repos + ".hidden"
	if err := os.Rename(repos, hidden); err != nil {
		t.Fatal(err)
	}
	changes, err = in.Add(t.Context(), AddRequest{Sources: []string{a}, Agents: agentsOf(t, "claude-code")})
	if err != nil || Changed(changes) {
		t.Errorf("second Add(a) = %v, %v; want nothing changed", changes, err)
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock after the second Add(a) (-want +got):\n%s", diff)
	}
	if err := os.Rename(hidden, repos); err != nil {
		t.Fatal(err)
	}
	// Sync keeps what the lock file records of requirements.
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock after Sync (-want +got):\n%s", diff)
	}
	// Adding b by name clears its dependency mark.
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{b}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if e := projectLock(t, f).Skills["b"]; e.Dependency || !slices.Equal(e.RequiredBy, []string{"a"}) {
		t.Errorf("b after Add(b) = %+v; want no dependency mark, required by a", e)
	}
}

// TestRequiresDiamond checks that a skill two skills require is
// installed once, recorded as required by both: a -> b, a -> c, b -> d,
// c -> d, with paths relative to each requiring skill's folder.
func TestRequiresDiamond(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"a/SKILL.md": requiringMD("a", "../b", "../c"),
		"b/SKILL.md": requiringMD("b", "../d"),
		"c/SKILL.md": requiringMD("c", "../d/SKILL.md"),
		"d/SKILL.md": requiringMD("d"),
	})
	in := f.installer(t)
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "a")}, Agents: agentsOf(t, "codex")})
	if err != nil {
		t.Fatal(err)
	}
	l := projectLock(t, f)
	want := map[string]reqSummary{
		"a": {Requires: []lockRequirement{{Source: "../b", Skill: "b"}, {Source: "../c", Skill: "c"}}},
		"b": {Requires: []lockRequirement{{Source: "../d", Skill: "d"}}, RequiredBy: []string{"a"}, Dependency: true},
		"c": {Requires: []lockRequirement{{Source: "../d/SKILL.md", Skill: "d"}}, RequiredBy: []string{"a"}, Dependency: true},
		"d": {RequiredBy: []string{"b", "c"}, Dependency: true},
	}
	if diff := cmp.Diff(want, summarize(l)); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	if got := requiredChanges(changes)["d"]; !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("d's change RequiredBy = %v; want [b c]", got)
	}
	n := 0
	for _, c := range changes {
		if c.Skill == "d" && c.Agent == "" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("d's canonical copy changed %d times; want once", n)
	}
}

// TestRequiresRefused checks that a conflict, a cycle, a requirement of
// a relative path from a published skill and the limits are refused
// before anything changes, naming the chains.
func TestRequiresRefused(t *testing.T) {
	needGit(t)
	repos := t.TempDir()
	changelog := gitSkill(t, repos, "changelog", []string{"v1.0.0", "v1.4.0", "v1.9.0", "v2.0.0"})
	other := filepath.Join(t.TempDir(), "changelog")
	writeFiles(t, other, map[string]string{"SKILL.md": skillMD("changelog")})
	published := gitSkill(t, repos, "published", nil, "../changelog") + "#ref=main"
	tests := []struct {
		name  string
		files map[string]string
		add   string
		is    error
		want  []string
	}{
		{"two ranges no version answers", map[string]string{
			"app/SKILL.md":     requiringMD("app", "../release", "../notes"),
			"release/SKILL.md": requiringMD("release", changelog+"#ref=^1"),
			"notes/SKILL.md":   requiringMD("notes", changelog+"#ref=^2"),
		}, "app", ErrRequirements, []string{
			`skill "changelog"`, "no version answers both",
			"app -> release -> changelog (" + changelog + "#ref=^1, which picks v1.9.0)",
			"app -> notes -> changelog (" + changelog + "#ref=^2, which picks v2.0.0)",
		}},
		{"two sources for one name", map[string]string{
			"app/SKILL.md":     requiringMD("app", "../release", "../notes"),
			"release/SKILL.md": requiringMD("release", changelog+"#ref=^1"),
			"notes/SKILL.md":   requiringMD("notes", other),
		}, "app", ErrRequirements, []string{
			"two sources", "app -> release -> changelog (" + changelog + "#ref=^1, which picks v1.9.0)", "app -> notes -> changelog (" + other + ")",
		}},
		{"a requirement and a skill named", map[string]string{
			"changelog/SKILL.md": skillMD("changelog"),
			"release/SKILL.md":   requiringMD("release", changelog+"#ref=^1"),
		}, "changelog release", ErrRequirements, []string{"changelog (named: ", "release -> changelog ("}},
		{"a cycle", map[string]string{
			"a/SKILL.md": requiringMD("a", "../b"),
			"b/SKILL.md": requiringMD("b", "../c"),
			"c/SKILL.md": requiringMD("c", "../a"),
		}, "a", ErrRequirements, []string{"a cycle, a -> b -> c -> a"}},
		{"a skill requiring itself", map[string]string{
			"a/SKILL.md": requiringMD("a", "."),
		}, "a", ErrRequirements, []string{"a cycle, a -> a"}},
		{"a path from a published skill", map[string]string{
			"app/SKILL.md": requiringMD("app", published),
		}, "app", ErrInvalidSource, []string{"app -> published -> ../changelog: ", "a published skill requires published sources"}},
		{"a requirement that is no source", map[string]string{
			"app/SKILL.md": requiringMD("app", "git+file://"),
		}, "app", ErrInvalidSource, []string{"app -> git+file://: "}},
		{"a requirement of a source of two skills", map[string]string{
			"app/SKILL.md":      requiringMD("app", "../kit"),
			"kit/x/SKILL.md":    skillMD("x"),
			"kit/y/SKILL.md":    skillMD("y"),
			"kit/y/z/README.md": "z",
		}, "app", ErrInvalidSource, []string{"app -> ../kit: ", "holds 2 skills (x, y)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeFiles(t, f.sources, tt.files)
			var srcs []string
			for _, s := range strings.Fields(tt.add) {
				srcs = append(srcs, filepath.Join(f.sources, s))
			}
			in := f.remoteInstaller(t, cachetest.Root(t))
			_, err := in.Add(t.Context(), AddRequest{Sources: srcs, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, tt.is) {
				t.Fatalf("Add(%s) = %v; want %v", tt.add, err, tt.is)
			}
			t.Log(err)
			for _, w := range append(tt.want, "nothing was changed") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Add(%s) = %v; want it to say %q", tt.add, err, w)
				}
			}
			assertNothingInstalled(t, f)
		})
	}
}

// TestRequiresRanges checks that two ranges of one repository are
// answered by one version when one exists: ^1 (which alone picks
// v1.9.0) and ~1.4 (v1.4.0) install v1.4.0 once, whichever is read
// first.
func TestRequiresRanges(t *testing.T) {
	needGit(t)
	repos := t.TempDir()
	changelog := gitSkill(t, repos, "changelog", []string{"v1.0.0", "v1.4.0", "v1.9.0", "v2.0.0"})
	for _, order := range [][]string{{"^1", "~1.4"}, {"~1.4", "^1"}} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			f := newFixture(t)
			writeFiles(t, f.sources, map[string]string{
				"app/SKILL.md":     requiringMD("app", "../release", "../notes"),
				"release/SKILL.md": requiringMD("release", changelog+"#ref="+order[0]),
				"notes/SKILL.md":   requiringMD("notes", changelog+"#ref="+order[1]),
			})
			in := f.remoteInstaller(t, cachetest.Root(t))
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "claude-code")}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(f.env.Project, ".agents", "skills", "changelog", "SKILL.md"))
			if err != nil || !strings.Contains(string(b), "version v1.4.0") {
				t.Errorf("changelog installed = %q, %v; want v1.4.0", b, err)
			}
			if e := projectLock(t, f).Skills["changelog"]; e == nil || !slices.Equal(e.RequiredBy, []string{"notes", "release"}) || !e.Dependency {
				t.Errorf("changelog's entry = %+v; want a dependency required by notes and release", e)
			}
		})
	}
}

// TestRequiresPolicy checks that a requirement is held to the policy as
// a source named is: one the policy refuses fails the Add before
// anything is read or changed, naming the chain that asked for it.
func TestRequiresPolicy(t *testing.T) {
	needGit(t)
	f := newFixture(t)
	evil := gitSkill(t, t.TempDir(), "x", nil) + "#ref=main"
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md":     requiringMD("app", "../release"),
		"release/SKILL.md": requiringMD("release", evil),
	})
	real, err := filepath.EvalSymlinks(f.sources)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"local:"+filepath.ToSlash(real)+"/**\"]\n")
	in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "claude-code")})
	var denied *policy.DeniedError
	if !errors.Is(err, trust.ErrRefused) || !errors.As(err, &denied) || denied.Rule != "sources.allow" || !strings.HasPrefix(err.Error(), "app -> release -> "+evil+": ") {
		t.Fatalf("Add(app) = %v; want the requirement refused by sources.allow, naming app -> release -> %s", err, evil)
	}
	assertNothingInstalled(t, f)
}

// TestRequiresNoRequires checks AddRequest.NoRequires: only the skill
// named is installed, its requirements recorded unanswered, or answered
// by a skill installed from that source.
func TestRequiresNoRequires(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md": requiringMD("app", "../b", "../c"),
		"b/SKILL.md":   requiringMD("b"),
		"c/SKILL.md":   requiringMD("c", "../b"),
	})
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "b")}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "codex"), NoRequires: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Skill != "app" {
			t.Errorf("Add(app, NoRequires) changed %+v; want app alone", c)
		}
	}
	want := map[string]reqSummary{
		"app": {Requires: []lockRequirement{{Source: "../b", Skill: "b"}, {Source: "../c"}}},
		"b":   {RequiredBy: []string{"app"}},
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	// A requirement a skill named with it answers is answered so.
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app"), filepath.Join(f.sources, "c")}, Agents: agentsOf(t, "codex"), NoRequires: true}); err != nil {
		t.Fatal(err)
	}
	want["app"] = reqSummary{Requires: []lockRequirement{{Source: "../b", Skill: "b"}, {Source: "../c", Skill: "c"}}}
	want["b"] = reqSummary{RequiredBy: []string{"app", "c"}}
	want["c"] = reqSummary{Requires: []lockRequirement{{Source: "../b", Skill: "b"}}, RequiredBy: []string{"app"}}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock after Add(app, c) (-want +got):\n%s", diff)
	}
}

// TestRequiresLimits checks that a chain deeper than MaxRequireDepth is
// refused, naming it, before anything changes.
func TestRequiresLimits(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{}
	for i := 0; i <= MaxRequireDepth+1; i++ {
		files[fmt.Sprintf("s%d/SKILL.md", i)] = requiringMD(fmt.Sprintf("s%d", i), fmt.Sprintf("../s%d", i+1))
	}
	files[fmt.Sprintf("s%d/SKILL.md", MaxRequireDepth+2)] = requiringMD(fmt.Sprintf("s%d", MaxRequireDepth+2))
	writeFiles(t, f.sources, files)
	in := f.installer(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "s0")}, Agents: agentsOf(t, "codex")})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), fmt.Sprintf("a chain of requirements longer than %d", MaxRequireDepth)) || !strings.HasPrefix(err.Error(), "s0 -> s1 -> ") {
		t.Fatalf("Add(a chain of %d) = %v; want it refused", MaxRequireDepth+2, err)
	}
	assertNothingInstalled(t, f)
	// A chain of exactly MaxRequireDepth requirements installs.
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "s2")}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatalf("Add(a chain of %d) = %v", MaxRequireDepth, err)
	}
	if n := len(projectLock(t, f).Skills); n != MaxRequireDepth+1 {
		t.Errorf("installed %d skills; want %d", n, MaxRequireDepth+1)
	}
}

// TestRequiresOCI checks the requirements of an OCI artifact: ToolHive's
// dev.toolhive.skills.requires annotation (HOST/REPO:TAG) is followed as
// oci://HOST/REPO:TAG, beside the SKILL.md's metadata.requires.
func TestRequiresOCI(t *testing.T) {
	o := newOCIFixture(t)
	o.push(t, "skills/semver", "v2.1.0", "semver", "")
	o.push(t, "skills/style", "v1.0.0", "style", "")
	ocireg.PushToolHive(t, o.Host, "skills/tool", "v1.0.0", ocireg.ToolHiveSkill{
		Name: "tool", Description: "the tool skill", Version: "1.0.0",
		Requires: []string{o.Host + "/skills/semver:v2.1.0"},
		Files:    map[string]string{"SKILL.md": requiringMD("tool", "oci://"+o.Host+"/skills/style:^1")},
	})
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	src := "oci://" + o.Host + "/skills/tool:v1.0.0"
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(%s) = %v", src, err)
	}
	want := map[string]reqSummary{
		"tool": {Requires: []lockRequirement{
			{Source: "oci://" + o.Host + "/skills/style:^1", Skill: "style"},
			{Source: "oci://" + o.Host + "/skills/semver:v2.1.0", Skill: "semver"},
		}},
		"style":  {RequiredBy: []string{"tool"}, Dependency: true},
		"semver": {RequiredBy: []string{"tool"}, Dependency: true},
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	// A published skill requires published sources: not a folder, nor a
	// repository, of the machine that installs it.
	for _, req := range []string{"../x", "/etc", "git+file:///srv/private"} {
		ref := o.Push(t, "skills/local", "v1", "local", requiringMD("local", req))
		_, err := in.Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "claude-code")})
		if !errors.Is(err, ErrInvalidSource) || !strings.HasPrefix(err.Error(), "local -> "+req+": ") || !strings.Contains(err.Error(), "a published skill requires published sources") {
			t.Errorf("Add(an OCI skill requiring %s) = %v; want it refused", req, err)
		}
	}
}

// TestRequiresUpdate checks that Update re-resolves the requirements of
// a skill it moves: a new version that requires a new skill installs it
// as a dependency, and records the requirement.
func TestRequiresUpdate(t *testing.T) {
	needGit(t)
	f := newFixture(t)
	repos := t.TempDir()
	extra := gitSkill(t, repos, "extra", nil) + "#ref=main"
	app := gitSkill(t, repos, "app", nil) + "#ref=main"
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{app}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if e := projectLock(t, f).Skills["app"]; e.Requires != nil {
		t.Fatalf("app's requirements before = %+v; want none", e.Requires)
	}
	gitRepo(t, filepath.Join(repos, "app"), map[string]string{"SKILL.md": requiringMD("app", extra)})
	ups, _, err := in.Update(t.Context(), UpdateRequest{DryRun: true})
	if err != nil || len(ups) != 1 || !ups[0].Updated() {
		t.Fatalf("Update(DryRun) = %+v, %v; want app updated", ups, err)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "extra")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run installed extra (%v)", err)
	}
	_, changes, err := in.Update(t.Context(), UpdateRequest{})
	if err != nil {
		t.Fatalf("Update = %v", err)
	}
	want := map[string]reqSummary{
		"app":   {Requires: []lockRequirement{{Source: extra, Skill: "extra"}}},
		"extra": {RequiredBy: []string{"app"}, Dependency: true},
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock after Update (-want +got):\n%s", diff)
	}
	if got := requiredChanges(changes)["extra"]; !slices.Equal(got, []string{"app"}) {
		t.Errorf("extra's change RequiredBy = %v; want [app]", got)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".claude", "skills", "extra", "SKILL.md")); err != nil {
		t.Errorf("extra not installed for claude-code: %v", err)
	}
	// The update moved nothing more: a second one changes nothing.
	if _, changes, err := in.Update(t.Context(), UpdateRequest{}); err != nil || Changed(changes) {
		t.Errorf("second Update = %v, %v; want nothing changed", changes, err)
	}
}

// TestRequiresAudit checks that a required skill the audit refuses
// fails the whole Add, changing nothing: a skill is never installed
// without what it requires.
func TestRequiresAudit(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md":    requiringMD("app", "../helper"),
		"helper/SKILL.md": requiringMD("helper") + malicious,
	})
	in := trustInstaller(t, f, "", trust.NewChecker(nil), Trust{})
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "claude-code")})
	var refused *trust.RefusedError
	if !errors.As(err, &refused) || len(refused.Refusals) != 1 || refused.Refusals[0].Skill != "helper" || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Add(app requiring a refused skill) = %v; want helper refused and nothing changed", err)
	}
	assertNothingInstalled(t, f)
}

// TestRequiresMany checks MaxRequired: a skill requiring MaxRequired
// others (a closure one larger) is refused before anything changes;
// one requiring one fewer installs them all.
func TestRequiresMany(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{}
	var reqs []string
	for i := range MaxRequired {
		files[fmt.Sprintf("s%d/SKILL.md", i)] = requiringMD(fmt.Sprintf("s%d", i))
		reqs = append(reqs, fmt.Sprintf("../s%d", i))
	}
	// metadata.requires lists at most 64: groups of 64 under one skill.
	for g := 0; g < MaxRequired/64; g++ {
		files[fmt.Sprintf("g%d/SKILL.md", g)] = requiringMD(fmt.Sprintf("g%d", g), reqs[g*64:(g+1)*64]...)
	}
	files["all/SKILL.md"] = requiringMD("all", "../g0", "../g1", "../g2", "../g3")
	files["fewer/SKILL.md"] = requiringMD("fewer", "../g0", "../g1", "../g2")
	writeFiles(t, f.sources, files)
	in := f.installer(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "all")}, Agents: agentsOf(t, "codex")})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d skills with what they require", MaxRequired)) {
		t.Fatalf("Add(a closure of %d) = %v; want it refused", MaxRequired+5, err)
	}
	assertNothingInstalled(t, f)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "fewer")}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatalf("Add(a closure of %d) = %v", 3*64+4, err)
	}
	if n := len(projectLock(t, f).Skills); n != 3*64+4 {
		t.Errorf("installed %d skills; want %d", n, 3*64+4)
	}
}

// TestRequiresEscapedKey checks that metadata.requires is read however
// YAML spells the key: a quoted key with an escape is the same key.
func TestRequiresEscapedKey(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, f.sources, map[string]string{
		"app/SKILL.md": "---\nname: app\ndescription: the app skill\nmetadata:\n  \"\\x72equire\\u0073\": \"../b\"\n---\n# app\n",
		"b/SKILL.md":   requiringMD("b"),
	})
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "app")}, Agents: agentsOf(t, "codex")}); err != nil {
		t.Fatal(err)
	}
	if e := projectLock(t, f).Skills["b"]; e == nil || !e.Dependency {
		t.Errorf("b = %+v; want it installed as app's requirement", e)
	}
}

// TestRequiresSigners checks that the signers the user requires of OCI
// sources are required of a requirement too: an unsigned requirement of
// a signed skill is refused, naming the chain, and nothing changes.
func TestRequiresSigners(t *testing.T) {
	o := newOCIFixture(t)
	key := newTestKey(t)
	dep := "oci://" + o.Host + "/skills/semver:v1.0.0"
	o.push(t, "skills/semver", "v1.0.0", "semver", "")
	ref := o.Push(t, "skills/tool", "v1.0.0", "tool", requiringMD("tool", dep))
	o.Sign(t, ref, key.Private)
	f := newFixture(t)
	in := trustInstaller(t, f, "", requiring(key.Requirement()), Trust{})
	src := "oci://" + o.Host + "/skills/tool:v1.0.0"
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, trust.ErrRefused) || !strings.HasPrefix(err.Error(), "tool -> "+dep+": ") || !strings.Contains(err.Error(), key.ID) {
		t.Fatalf("Add(%s) = %v; want its unsigned requirement refused, naming tool -> %s and the key", src, err, dep)
	}
	assertNothingInstalled(t, f)
	// Signed, it installs.
	o.Sign(t, o.Push(t, "skills/semver", "v1.0.0", "semver", skillMD("semver")), key.Private)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(%s) with a signed requirement = %v", src, err)
	}
	if e := projectLock(t, f).Skills["semver"]; e == nil || e.Signer == nil || !e.Dependency {
		t.Errorf("semver = %+v; want a dependency with its signer recorded", e)
	}
}
