package install

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wants is what the lock file records of one skill's requirements: the
// skills it requires (a name, or "?SOURCE" for a requirement no skill
// answers), and whether it is a dependency.
type wants struct {
	requires   []string
	dependency bool
}

// installedWith installs a skill folder for each name (for claude-code,
// linked, and codex, which reads the canonical copy), then records in
// the lock file what set says of each, as an add that resolves
// requirements would: the requirement's source is
// github:acme/skills/NAME@^1.
func installedWith(t *testing.T, set map[string]wants, extra ...string) (*fixture, *Installer) {
	t.Helper()
	f := newFixture(t)
	var srcs []string
	for _, name := range slices.Sorted(maps.Keys(set)) {
		srcs = append(srcs, f.writeSkill(t, name, name, ""))
	}
	for _, name := range extra {
		srcs = append(srcs, f.writeSkill(t, name, name, ""))
	}
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: srcs, Agents: agentsOf(t, "claude-code", "codex")}); err != nil {
		t.Fatal(err)
	}
	setRequirements(t, f, set)
	return f, in
}

// setRequirements writes into the project's lock file the requirements
// and dependency marks set names; required_by is derived on writing.
func setRequirements(t *testing.T, f *fixture, set map[string]wants) {
	t.Helper()
	path := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range set {
		e := lock.Skills[name]
		if e == nil {
			t.Fatalf("%s is not installed", name)
		}
		e.Requires = nil
		for _, r := range w.requires {
			if missing, ok := strings.CutPrefix(r, "?"); ok {
				e.Requires = append(e.Requires, lockRequirement{Source: missing})
				continue
			}
			e.Requires = append(e.Requires, lockRequirement{Source: "github:acme/skills/" + r + "@^1", Skill: r})
		}
		e.Dependency = w.dependency
	}
	if err := lock.write(path); err != nil {
		t.Fatal(err)
	}
}

// recorded is the names the project's lock file records, sorted, with
// the required_by it wrote for each.
func recorded(t *testing.T, f *fixture) map[string][]string {
	t.Helper()
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for name, e := range lock.Skills {
		out[name] = e.RequiredBy
	}
	return out
}

// removedFor is, for each skill a removal's changes name, its reasons,
// one for each change (the canonical copy's and each agent's).
func removedFor(changes []Change) map[string][]string {
	out := map[string][]string{}
	for _, c := range changes {
		if c.Action == ActionRemoved {
			out[c.Skill] = append(out[c.Skill], c.Reason)
		}
	}
	return out
}

// TestRemoveRefusesARequiredSkill checks rule 17: a skill that
// installed skills require is not removed, and nothing changes, with
// ErrRequired naming every skill that requires it; forced, it goes, the
// others stay, and Verify reports their requirements as unmet.
func TestRemoveRefusesARequiredSkill(t *testing.T) {
	f, in := installedWith(t, map[string]wants{
		"release":   {requires: []string{"changelog"}},
		"notes":     {requires: []string{"changelog"}},
		"changelog": {dependency: true},
	})
	ctx := t.Context()
	before, tree := lockBytes(t, f), treeSnapshot(t, f.env.Project)
	_, err := in.Remove(ctx, RemoveRequest{Names: []string{"changelog"}, Force: true})
	if !errors.Is(err, ErrRequired) {
		t.Fatalf("Remove(changelog) = %v, want ErrRequired", err)
	}
	if want := `skill "changelog": is required by installed skills: notes, release; remove those first`; !strings.Contains(err.Error(), want) {
		t.Errorf("Remove(changelog) = %q, want it to say %q", err, want)
	}
	if !bytes.Equal(lockBytes(t, f), before) {
		t.Errorf("a refused removal changed the lock file")
	}
	if diff := cmp.Diff(tree, treeSnapshot(t, f.env.Project)); diff != "" {
		t.Errorf("a refused removal changed the project (-before +after):\n%s", diff)
	}
	// Removing it with one of those that require it is refused too,
	// naming the one that stays.
	_, err = in.Remove(ctx, RemoveRequest{Names: []string{"changelog", "notes"}})
	if !errors.Is(err, ErrRequired) || !strings.Contains(err.Error(), "installed skills: release;") {
		t.Fatalf("Remove(changelog, notes) = %v, want ErrRequired naming release alone", err)
	}
	// Forced.
	changes, err := in.Remove(ctx, RemoveRequest{Names: []string{"changelog"}, Required: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := removedFor(changes); len(got) != 1 || len(got["changelog"]) != 3 || got["changelog"][0] != "" {
		t.Errorf("forced Remove(changelog) removed %v, want changelog's three places, named", got)
	}
	for _, c := range changes {
		if want := map[bool][]string{true: {"notes", "release"}}[c.Agent == ""]; !slices.Equal(c.RequiredBy, want) {
			t.Errorf("forced Remove(changelog): %s's change names %v as requiring it, want %v", c.Agent, c.RequiredBy, want)
		}
	}
	if _, err := os.Lstat(f.canonicalOf("changelog")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forced removal left the canonical copy: %v", err)
	}
	if diff := cmp.Diff(map[string][]string{"notes": nil, "release": nil}, recorded(t, f)); diff != "" {
		t.Errorf("lock after the forced removal (-want +got):\n%s", diff)
	}
	bad, err := in.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Status{
		{Skill: "notes", Path: f.canonicalOf("notes"), State: StateUnmet, Requirement: "github:acme/skills/changelog@^1"},
		{Skill: "release", Path: f.canonicalOf("release"), State: StateUnmet, Requirement: "github:acme/skills/changelog@^1"},
	}
	if diff := cmp.Diff(want, bad); diff != "" {
		t.Errorf("Verify after the forced removal (-want +got):\n%s", diff)
	}
	// Added again, the requirements it answers are met again: the lock
	// file names the skill that answers each.
	if _, err := in.Add(ctx, AddRequest{Sources: []string{filepath.Join(f.sources, "changelog")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify with changelog added again = %+v, %v", bad, err)
	}
}

// TestRemoveTakesDependenciesNothingNeeds checks rule 17's cascade: the
// dependencies that only the skills removed needed go with them, each
// reported "no longer required"; those something else needs, and those
// the user named, stay.
func TestRemoveTakesDependenciesNothingNeeds(t *testing.T) {
	tests := []struct {
		name   string
		set    map[string]wants
		remove []string
		gone   []string // the skills removed, besides those named
		kept   map[string][]string
	}{{
		name: "chain of three",
		set: map[string]wants{
			"a": {requires: []string{"b"}},
			"b": {requires: []string{"c"}, dependency: true},
			"c": {dependency: true},
		},
		remove: []string{"a"},
		gone:   []string{"b", "c"},
		kept:   map[string][]string{"other": nil},
	}, {
		name: "one side of two that share",
		set: map[string]wants{
			"x":      {requires: []string{"shared"}},
			"y":      {requires: []string{"shared"}},
			"shared": {requires: []string{"deep"}, dependency: true},
			"deep":   {dependency: true},
		},
		remove: []string{"x"},
		kept:   map[string][]string{"y": nil, "shared": {"y"}, "deep": {"shared"}, "other": nil},
	}, {
		name: "both sides of two that share",
		set: map[string]wants{
			"x":      {requires: []string{"shared"}},
			"y":      {requires: []string{"shared"}},
			"shared": {dependency: true},
		},
		remove: []string{"x", "y"},
		gone:   []string{"shared"},
		kept:   map[string][]string{"other": nil},
	}, {
		name: "diamond",
		set: map[string]wants{
			"top":   {requires: []string{"left", "right"}},
			"left":  {requires: []string{"base"}, dependency: true},
			"right": {requires: []string{"base"}, dependency: true},
			"base":  {dependency: true},
		},
		remove: []string{"top"},
		gone:   []string{"base", "left", "right"},
		kept:   map[string][]string{"other": nil},
	}, {
		name: "a dependency the user also named",
		set: map[string]wants{
			"a": {requires: []string{"b"}},
			"b": {requires: []string{"c"}},
			"c": {dependency: true},
		},
		remove: []string{"a"},
		kept:   map[string][]string{"b": nil, "c": {"b"}, "other": nil},
	}, {
		name: "dependencies that require each other",
		set: map[string]wants{
			"top": {requires: []string{"p"}},
			"p":   {requires: []string{"q"}, dependency: true},
			"q":   {requires: []string{"p"}, dependency: true},
		},
		remove: []string{"top"},
		gone:   []string{"p", "q"},
		kept:   map[string][]string{"other": nil},
	}, {
		name: "a dependency nothing needed before",
		set: map[string]wants{
			"a":     {requires: []string{"b"}},
			"b":     {dependency: true},
			"stray": {dependency: true},
		},
		remove: []string{"a"},
		gone:   []string{"b"},
		kept:   map[string][]string{"stray": nil, "other": nil},
	}, {
		name: "a requirement no skill answers",
		set: map[string]wants{
			"a": {requires: []string{"?oci://ghcr.io/acme/semver:^2", "b"}},
			"b": {dependency: true},
		},
		remove: []string{"a"},
		gone:   []string{"b"},
		kept:   map[string][]string{"other": nil},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, in := installedWith(t, tt.set, "other")
			changes, err := in.Remove(t.Context(), RemoveRequest{Names: tt.remove})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{}
			for _, n := range tt.remove {
				want[n] = []string{"", "", ""} // claude-code, codex, the canonical copy
			}
			for _, n := range tt.gone {
				want[n] = []string{"no longer required", "no longer required", "no longer required"}
			}
			if diff := cmp.Diff(want, removedFor(changes)); diff != "" {
				t.Errorf("Remove(%v) removed (-want +got):\n%s", tt.remove, diff)
			}
			for n := range want {
				if _, err := os.Lstat(f.canonicalOf(n)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s removed, but its canonical copy is still there: %v", n, err)
				}
				if _, err := os.Lstat(filepath.Join(f.env.Project, ".claude", "skills", n)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s removed, but its link is still there: %v", n, err)
				}
			}
			if diff := cmp.Diff(tt.kept, recorded(t, f)); diff != "" {
				t.Errorf("lock after Remove(%v) (-want +got):\n%s", tt.remove, diff)
			}
			for n := range tt.kept {
				if _, err := os.Stat(filepath.Join(f.canonicalOf(n), "SKILL.md")); err != nil {
					t.Errorf("%s kept, but: %v", n, err)
				}
			}
		})
	}
}

// TestRemovedDependencyIsHeldToRule7 checks that a dependency a removal
// would take, edited since it was installed, stops the removal as a
// skill named would (ErrModified, nothing changed), and that forced it
// goes to a backup.
func TestRemovedDependencyIsHeldToRule7(t *testing.T) {
	f, in := installedWith(t, map[string]wants{
		"a": {requires: []string{"b"}},
		"b": {dependency: true},
	})
	ctx := t.Context()
	os.WriteFile(filepath.Join(f.canonicalOf("b"), "notes.md"), []byte("mine"), 0o644)
	before := lockBytes(t, f)
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"a"}}); !errors.Is(err, ErrModified) || !strings.Contains(err.Error(), f.canonicalOf("b")) {
		t.Fatalf("Remove(a) with b edited = %v, want ErrModified naming b", err)
	}
	if !bytes.Equal(lockBytes(t, f), before) {
		t.Errorf("a refused removal changed the lock file")
	}
	if _, err := os.Stat(filepath.Join(f.canonicalOf("a"), "SKILL.md")); err != nil {
		t.Errorf("a refused removal removed a: %v", err)
	}
	changes, err := in.Remove(ctx, RemoveRequest{Names: []string{"a"}, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(changes, func(c Change) bool { return c.Skill == "b" && c.Agent == "" })
	if i < 0 || changes[i].Backup == "" || changes[i].Reason != "no longer required" {
		t.Fatalf("forced Remove(a) = %+v, want b's canonical copy removed to a backup, no longer required", changes)
	}
	if got := readFile(t, filepath.Join(changes[i].Backup, "notes.md")); got != "mine" {
		t.Errorf("backup notes.md = %q", got)
	}
}

// TestRemoveForSomeAgentsKeepsRequirements checks that requirements are
// between the skills of a scope: a removal that leaves a required skill
// installed for another agent is not refused, and one that takes a
// skill's last agent takes its dependencies, from every agent.
func TestRemoveForSomeAgentsKeepsRequirements(t *testing.T) {
	f, in := installedWith(t, map[string]wants{
		"a": {requires: []string{"b"}},
		"b": {dependency: true},
	})
	ctx := t.Context()
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"b"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Remove(b) for claude-code alone = %v", err)
	}
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"a"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"a": nil, "b": {"a"}}, recorded(t, f)); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	changes, err := in.Remove(ctx, RemoveRequest{Names: []string{"a"}, Agents: agentsOf(t, "codex")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"a": {"", ""}, "b": {"no longer required", "no longer required"}}, removedFor(changes)); diff != "" {
		t.Errorf("Remove(a) for its last agent removed (-want +got):\n%s", diff)
	}
	if got := recorded(t, f); len(got) != 0 {
		t.Errorf("lock still records %v", got)
	}
}

// TestVerifyReportsUnmetRequirements checks rule 17: a requirement no
// installed skill answers, whether none was installed for it or the one
// recorded is gone from the lock file, is reported by Verify.
func TestVerifyReportsUnmetRequirements(t *testing.T) {
	f, in := installedWith(t, map[string]wants{
		"release": {requires: []string{"?github:acme/skills/changelog@^1", "notes", "gone"}},
		"notes":   {dependency: true},
	})
	bad, err := in.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Status{
		{Skill: "release", Path: f.canonicalOf("release"), State: StateUnmet, Requirement: "github:acme/skills/changelog@^1"},
		{Skill: "release", Path: f.canonicalOf("release"), State: StateUnmet, Requirement: "github:acme/skills/gone@^1"},
	}
	if diff := cmp.Diff(want, bad); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}
}

// TestListShowsRequirements checks that List reports, for each skill
// installed, which skills require it and whether it is a dependency,
// and that Outdated sees a dependency as any skill.
func TestListShowsRequirements(t *testing.T) {
	f, in := installedWith(t, map[string]wants{
		"release":   {requires: []string{"changelog"}},
		"notes":     {requires: []string{"changelog"}},
		"changelog": {dependency: true},
	})
	st, err := in.List(t.Context(), ListRequest{Agents: agentsOf(t, "claude-code", "codex")})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		by  []string
		dep bool
	}
	got := map[string]row{}
	for _, s := range st {
		r := row{s.RequiredBy, s.Dependency}
		if prev, ok := got[s.Skill]; ok && !cmp.Equal(prev, r, cmp.AllowUnexported(row{})) {
			t.Errorf("%s reported as %+v for one agent and %+v for another", s.Skill, prev, r)
		}
		got[s.Skill] = r
	}
	want := map[string]row{"changelog": {[]string{"notes", "release"}, true}, "notes": {}, "release": {}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	// Outdated checks a dependency as any other skill.
	os.WriteFile(filepath.Join(f.sources, "changelog", "notes.md"), []byte("new"), 0o644)
	rows, err := in.Outdated(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]OutdatedState{"changelog": OutdatedChanged, "notes": OutdatedCurrent, "release": OutdatedCurrent}, states(rows)); diff != "" {
		t.Errorf("Outdated (-want +got):\n%s", diff)
	}
}

// TestRemoveNamedDependencyForSomeAgents checks that a dependency named
// for some of its agents, which the removal leaves needed by nothing,
// goes for every agent, and that what stops it is reported once.
func TestRemoveNamedDependencyForSomeAgents(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{f.writeSkill(t, "a", "a", "")}, Agents: agentsOf(t, "claude-code"), Copy: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Add(ctx, AddRequest{Sources: []string{f.writeSkill(t, "b", "b", "")}, Agents: agentsOf(t, "claude-code", "codex"), Copy: true}); err != nil {
		t.Fatal(err)
	}
	setRequirements(t, f, map[string]wants{"a": {requires: []string{"b"}}, "b": {dependency: true}})
	copied := filepath.Join(f.env.Project, ".claude", "skills", "b")
	os.WriteFile(filepath.Join(copied, "notes.md"), []byte("mine"), 0o644)
	req := RemoveRequest{Names: []string{"a", "b"}, Agents: agentsOf(t, "claude-code")}
	_, err := in.Remove(ctx, req)
	if !errors.Is(err, ErrModified) || strings.Count(err.Error(), copied) != 1 {
		t.Fatalf("Remove(a, b) for claude-code with b's copy edited = %v, want ErrModified naming %s once", err, copied)
	}
	req.Force = true
	changes, err := in.Remove(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"a": {"", ""}, "b": {"", "", ""}}, removedFor(changes)); diff != "" {
		t.Errorf("Remove(a, b) for claude-code removed (-want +got):\n%s", diff)
	}
	if got := recorded(t, f); len(got) != 0 {
		t.Errorf("lock still records %v", got)
	}
}
