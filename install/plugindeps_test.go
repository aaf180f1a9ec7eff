package install

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

// dependingMarketplace is a marketplace of plugins a -> b -> c: a's
// plugin.json depends on b, b's marketplace entry on c at ^1, and c is
// version 1.2.0; entries replace files of it.
func dependingMarketplace(entries map[string]string) map[string]string {
	files := map[string]string{
		".claude-plugin/marketplace.json": `{"name": "acme", "plugins": [
			{"name": "a", "source": "./plugins/a"},
			{"name": "b", "source": "./plugins/b", "dependencies": [{"name": "c", "version": "^1"}]},
			{"name": "c", "source": "./plugins/c", "version": "1.2.0"},
			{"name": "d", "source": "./plugins/d"}]}`,
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": ["b"]}`,
		"plugins/a/skills/a1/SKILL.md":         skillMD("a1"),
		"plugins/b/skills/b1/SKILL.md":         skillMD("b1"),
		"plugins/c/skills/c1/SKILL.md":         skillMD("c1"),
		"plugins/c/skills/c2/SKILL.md":         skillMD("c2"),
		"plugins/d/skills/d1/SKILL.md":         skillMD("d1"),
	}
	for k, v := range entries {
		files[k] = v
	}
	return files
}

// gitMarket makes a git repository of dependingMarketplace(nil) and
// returns its folder, its source at main, and what Add of plugin a from
// it records: a1 -> b1 -> c1 and c2, each requirement written as the
// source with the skill's folder (at).
func gitMarket(t *testing.T) (dir, src string, at func(string) string, want map[string]reqSummary) {
	t.Helper()
	needGit(t)
	dir = filepath.Join(t.TempDir(), "market")
	gitRepo(t, dir, dependingMarketplace(nil))
	src = "git+file://" + filepath.ToSlash(dir) + "#ref=main"
	at = func(p string) string { return src + "&path=" + p }
	want = map[string]reqSummary{
		"a1": {Requires: []lockRequirement{{Source: at("plugins/b/skills/b1"), Skill: "b1"}}},
		"b1": {Requires: []lockRequirement{{Source: at("plugins/c/skills/c1"), Skill: "c1"}, {Source: at("plugins/c/skills/c2"), Skill: "c2"}},
			RequiredBy: []string{"a1"}, Dependency: true},
		"c1": {RequiredBy: []string{"b1"}, Dependency: true},
		"c2": {RequiredBy: []string{"b1"}, Dependency: true},
	}
	return dir, src, at, want
}

// TestPluginDependenciesGit checks rule 12's plugin dependencies in a
// marketplace read from a git repository: Add of plugin a installs the
// skills of b and c as dependencies, each requirement written as the
// marketplace's source with the skill's folder at the same reference,
// and removing a's skill removes them (rule 18).
func TestPluginDependenciesGit(t *testing.T) {
	_, src, _, want := gitMarket(t)
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Plugins: []string{"a"}})
	if err != nil {
		t.Fatalf("Add(--plugin a) = %v", err)
	}
	if diff := cmp.Diff([]string{"a1", "b1", "c1", "c2"}, installedNames(changes)); diff != "" {
		t.Errorf("Add(--plugin a) installed (-want +got):\n%s", diff)
	}
	lock := projectLock(t, f)
	if diff := cmp.Diff(want, summarize(lock)); diff != "" {
		t.Errorf("lock after Add(--plugin a) (-want +got):\n%s", diff)
	}
	for name, e := range lock.Skills {
		if e.Source != src {
			t.Errorf("%s recorded from %s, want the marketplace %s", name, e.Source, src)
		}
	}
	// Adding again changes nothing: the installed skills answer.
	changes, err = in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Plugins: []string{"a"}})
	if err != nil || Changed(changes) {
		t.Errorf("second Add(--plugin a) = %v, %v; want nothing changed", changes, err)
	}
	changes, err = in.Remove(t.Context(), RemoveRequest{Names: []string{"a1"}})
	if err != nil {
		t.Fatalf("Remove(a1) = %v", err)
	}
	var removed []string
	for _, c := range changes {
		if c.Agent == "" && c.Action == ActionRemoved {
			removed = append(removed, c.Skill)
			if c.Skill != "a1" && c.Reason != "no longer required" {
				t.Errorf("%s removed with reason %q", c.Skill, c.Reason)
			}
		}
	}
	slices.Sort(removed)
	if diff := cmp.Diff([]string{"a1", "b1", "c1", "c2"}, removed); diff != "" {
		t.Errorf("Remove(a1) removed (-want +got):\n%s", diff)
	}
	if n := len(projectLock(t, f).Skills); n != 0 {
		t.Errorf("lock after Remove(a1) holds %d skills", n)
	}
	// Every plugin: the source's memo (a re-add's skills from the skill
	// cache) keeps what the plugins' dependencies make of each skill.
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(every plugin) = %v", err)
	}
	lock = projectLock(t, f)
	cands, ok := in.recalledSource(t.Context(), src, lock.Skills["a1"].Pin)
	if !ok {
		t.Fatal("no memo of the marketplace after adding all its skills")
	}
	needs := map[string][]string{}
	for _, c := range cands {
		needs[path.Base(c.subpath)] = c.needs
	}
	wantNeeds := map[string][]string{"a1": {"plugins/b/skills/b1"}, "b1": {"plugins/c/skills/c1", "plugins/c/skills/c2"}, "c1": nil, "c2": nil, "d1": nil}
	if diff := cmp.Diff(wantNeeds, needs); diff != "" {
		t.Errorf("the memo's needs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want["a1"], summarize(lock)["a1"]); diff != "" {
		t.Errorf("a1 after Add(every plugin) (-want +got):\n%s", diff)
	}
}

// TestPluginDependencies checks rule 12's plugin dependencies in a
// marketplace folder: what is installed and recorded, and each refusal,
// before anything changes.
func TestPluginDependencies(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		plugins   []string
		none      bool
		installed []string
		want      map[string]reqSummary
		skipped   string // a skipped change's reason holds it
		err       string // ErrRequirements saying it
	}{
		{name: "a chain", plugins: []string{"a"}, installed: []string{"a1", "b1", "c1", "c2"},
			want: map[string]reqSummary{
				"a1": {Requires: []lockRequirement{{Source: "../../../b/skills/b1", Skill: "b1"}}},
				"b1": {Requires: []lockRequirement{{Source: "../../../c/skills/c1", Skill: "c1"}, {Source: "../../../c/skills/c2", Skill: "c2"}}, RequiredBy: []string{"a1"}, Dependency: true},
				"c1": {RequiredBy: []string{"b1"}, Dependency: true},
				"c2": {RequiredBy: []string{"b1"}, Dependency: true},
			}},
		{name: "every plugin: those named by none are no dependency", installed: []string{"a1", "b1", "c1", "c2", "d1"},
			want: map[string]reqSummary{
				"a1": {Requires: []lockRequirement{{Source: "../../../b/skills/b1", Skill: "b1"}}},
				"b1": {Requires: []lockRequirement{{Source: "../../../c/skills/c1", Skill: "c1"}, {Source: "../../../c/skills/c2", Skill: "c2"}}, RequiredBy: []string{"a1"}},
				"c1": {RequiredBy: []string{"b1"}},
				"c2": {RequiredBy: []string{"b1"}},
				"d1": {},
			}},
		{name: "no requires", plugins: []string{"a"}, none: true, installed: []string{"a1"}, want: map[string]reqSummary{"a1": {}}},
		{name: "a version not admitted", plugins: []string{"a"},
			files: map[string]string{"plugins/c/.claude-plugin/plugin.json": `{"name": "c", "version": "2.0.0"}`,
				".claude-plugin/marketplace.json": `{"name": "acme", "plugins": [{"name": "a", "source": "./plugins/a"},
					{"name": "b", "source": "./plugins/b", "dependencies": [{"name": "c", "version": "^1"}]}, {"name": "c", "source": "./plugins/c"}]}`},
			err: "plugin a -> b -> c: b requires c ^1, and the marketplace holds version 2.0.0 of it"},
		{name: "a cycle", plugins: []string{"a"},
			files: map[string]string{"plugins/c/.claude-plugin/plugin.json": `{"name": "c", "dependencies": ["a"]}`},
			err:   "the plugins' dependencies make a cycle, a -> b -> c -> a"},
		{name: "a plugin depending on itself", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": ["a"]}`},
			err:   "make a cycle, a -> a"},
		{name: "another marketplace's plugin is not followed", plugins: []string{"a"},
			files:     map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": [{"name": "x", "marketplace": "other"}]}`},
			installed: []string{"a1"}, want: map[string]reqSummary{"a1": {}},
			skipped: `plugin a -> x: plugin "x" of the marketplace "other" is not installed: add that marketplace's source to install its skills`},
		{name: "its own marketplace by name is followed", plugins: []string{"a"},
			files:     map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": [{"name": "d", "marketplace": "acme"}]}`},
			installed: []string{"a1", "d1"},
			want: map[string]reqSummary{
				"a1": {Requires: []lockRequirement{{Source: "../../../d/skills/d1", Skill: "d1"}}},
				"d1": {RequiredBy: []string{"a1"}, Dependency: true},
			}},
		{name: "a plugin the marketplace does not list", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": ["zed"]}`},
			err:   `plugin a -> zed: the marketplace lists no plugin "zed"`},
		{name: "a dependency of no known shape", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": ["b", 42]}`},
			err:   `plugin a: dependency 2 of its plugin.json: it is neither a plugin name nor an object`},
		{name: "an object with an unknown key", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": [{"name": "b", "ref": "main"}]}`},
			err:   `plugin a: dependency 1 of its plugin.json: it is neither`},
		{name: "dependencies that are no list", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": "b"}`},
			err:   `plugin a: the dependencies its plugin.json lists are not a list of plugins`},
		{name: "a name that is a path", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": ["../b"]}`},
			err:   `plugin "../b": the name must start with a letter or digit`},
		{name: "a marketplace entry's list", plugins: []string{"a"},
			files: map[string]string{".claude-plugin/marketplace.json": `{"name": "acme", "plugins": [{"name": "a", "source": "./plugins/a", "dependencies": {"b": "^1"}}]}`},
			err:   `plugin a: the dependencies its marketplace entry lists are not a list of plugins`},
		{name: "a version that is no string is not checked", plugins: []string{"a"},
			files: map[string]string{"plugins/c/.claude-plugin/plugin.json": `{"name": "c", "version": 2}`,
				".claude-plugin/marketplace.json": `{"name": "acme", "plugins": [{"name": "a", "source": "./plugins/a", "version": 3},
					{"name": "b", "source": "./plugins/b", "dependencies": [{"name": "c", "version": "^1"}]}, {"name": "c", "source": "./plugins/c"}]}`},
			installed: []string{"a1", "b1", "c1", "c2"},
			want: map[string]reqSummary{
				"a1": {Requires: []lockRequirement{{Source: "../../../b/skills/b1", Skill: "b1"}}},
				"b1": {Requires: []lockRequirement{{Source: "../../../c/skills/c1", Skill: "c1"}, {Source: "../../../c/skills/c2", Skill: "c2"}}, RequiredBy: []string{"a1"}, Dependency: true},
				"c1": {RequiredBy: []string{"b1"}, Dependency: true},
				"c2": {RequiredBy: []string{"b1"}, Dependency: true},
			}},
		{name: "a range that is none", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": [{"name": "b", "version": "^^1"}]}`},
			err:   `plugin "b": the version range "^^1" is not one`},
		{name: "too many dependencies", plugins: []string{"a"},
			files: map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": [` + strings.Repeat(`"b",`, maxPluginDeps) + `"b"]}`},
			err:   `plugin a: its plugin.json lists 65 dependencies, and a plugin lists at most 64`},
		{name: "a refusal is not read with no requires", plugins: []string{"a"}, none: true,
			files:     map[string]string{"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "dependencies": ["b", 42]}`},
			installed: []string{"a1"}, want: map[string]reqSummary{"a1": {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			dir := filepath.Join(f.sources, "market")
			writeFiles(t, dir, dependingMarketplace(tt.files))
			changes, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Plugins: tt.plugins, NoRequires: tt.none})
			if tt.err != "" {
				if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "nothing was changed") {
					t.Fatalf("Add = %v, want ErrRequirements saying %q", err, tt.err)
				}
				if _, err := os.Lstat(filepath.Join(f.env.Project, ".agents")); err == nil {
					t.Error("a refused add made .agents")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.installed, installedNames(changes)); diff != "" {
				t.Errorf("installed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, summarize(projectLock(t, f))); diff != "" {
				t.Errorf("lock (-want +got):\n%s", diff)
			}
			var reasons []string
			for _, c := range changes {
				if c.Action == ActionSkipped {
					reasons = append(reasons, c.Reason)
					if c.Skill != "x" || c.Path != "" {
						t.Errorf("skipped change names %q at %q, want the plugin x", c.Skill, c.Path)
					}
				}
			}
			if tt.skipped != "" && !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, tt.skipped) }) {
				t.Errorf("skipped changes' reasons %q, want one saying %q", reasons, tt.skipped)
			}
			if tt.skipped == "" && len(reasons) > 0 {
				t.Errorf("skipped changes %q, want none", reasons)
			}
		})
	}
}

// TestPluginDependenciesLimits checks the bounds of rule 12's plugin
// dependencies: a chain longer than MaxRequireDepth is refused naming
// it, and a marketplace whose many plugins each depend on many others is
// read once per plugin, not once per path through them.
func TestPluginDependenciesLimits(t *testing.T) {
	market := func(n int, deps func(i int) []string) map[string]string {
		files := map[string]string{}
		var entries []string
		for i := range n {
			name := fmt.Sprintf("p%d", i)
			entries = append(entries, fmt.Sprintf(`{"name": %q, "source": "./plugins/%s"}`, name, name))
			var ds []string
			for _, d := range deps(i) {
				ds = append(ds, strconv.Quote(d))
			}
			files["plugins/"+name+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q, "dependencies": [%s]}`, name, strings.Join(ds, ","))
			files["plugins/"+name+"/skills/s"+name+"/SKILL.md"] = skillMD("s" + name)
		}
		files[".claude-plugin/marketplace.json"] = `{"name": "m", "plugins": [` + strings.Join(entries, ",") + `]}`
		return files
	}
	t.Run("a chain too long", func(t *testing.T) {
		f := newFixture(t)
		dir := filepath.Join(f.sources, "market")
		writeFiles(t, dir, market(MaxRequireDepth+3, func(i int) []string {
			if i == MaxRequireDepth+2 {
				return nil
			}
			return []string{fmt.Sprintf("p%d", i+1)}
		}))
		_, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Plugins: []string{"p0"}})
		if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), "plugin p0 -> p1 -> ") || !strings.Contains(err.Error(), fmt.Sprintf("a chain of dependencies longer than %d", MaxRequireDepth)) {
			t.Errorf("Add of a chain of %d plugins = %v, want ErrRequirements naming the chain", MaxRequireDepth+3, err)
		}
	})
	t.Run("many paths", func(t *testing.T) {
		// p_i depends on p_{i+1} .. p_{i+12}: exponentially many paths
		// from p0, a closure of 30 skills.
		f := newFixture(t)
		dir := filepath.Join(f.sources, "market")
		const n = 30
		writeFiles(t, dir, market(n, func(i int) []string {
			var out []string
			for j := i + 1; j < n && j <= i+12; j++ {
				out = append(out, fmt.Sprintf("p%d", j))
			}
			return out
		}))
		changes, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Plugins: []string{"p0"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(installedNames(changes)); got != n {
			t.Errorf("installed %d skills, want %d", got, n)
		}
		if e := projectLock(t, f).Skills["sp0"]; len(e.Requires) != 12 || e.Dependency {
			t.Errorf("sp0 recorded %+v, want 12 requirements, no dependency", e)
		}
	})
}

// TestPluginDependenciesArchive checks that a marketplace read from an
// archive, whose skills have no source of their own to require, is
// refused with ErrInvalidSource when a plugin depends on another, and
// installs with --no-requires.
func TestPluginDependenciesArchive(t *testing.T) {
	f := newFixture(t)
	file := filepath.Join(f.sources, "market.tar.gz")
	if err := os.WriteFile(file, testarchive.TarGzFiles(t, dependingMarketplace(nil)), 0o644); err != nil {
		t.Fatal(err)
	}
	in := f.installer(t)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{file}, Agents: agentsOf(t, "codex"), Plugins: []string{"a"}})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "a1 -> b1: ") || !strings.Contains(err.Error(), "a plugin's dependencies are followed in a marketplace read from a folder") {
		t.Errorf("Add(--plugin a) of an archive = %v, want ErrInvalidSource naming a1 -> b1", err)
	}
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{file}, Agents: agentsOf(t, "codex"), Plugins: []string{"a"}, NoRequires: true})
	if err != nil || !slices.Equal(installedNames(changes), []string{"a1"}) {
		t.Errorf("Add(--plugin a --no-requires) of an archive = %v, %v; want a1 installed", installedNames(changes), err)
	}
}

// TestPluginDependenciesUpdate checks that Update keeps and re-resolves
// the requirements plugin dependencies made (rule 12): the marketplace
// moves (a's skill changes, b's plugin gains a dependency on d), and
// Update reads it again at the new commit: a1 and b1 move, and d1 is
// installed as b1's requirement; a requirement of the same repository
// that a SKILL.md declares, then drops, is dropped.
func TestPluginDependenciesUpdate(t *testing.T) {
	dir, src, at, want := gitMarket(t)
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Plugins: []string{"a"}}); err != nil {
		t.Fatalf("Add(--plugin a) = %v", err)
	}
	before := projectLock(t, f)
	if diff := cmp.Diff(want, summarize(before)); diff != "" {
		t.Fatalf("lock after Add(--plugin a) (-want +got):\n%s", diff)
	}
	market := `{"name": "acme", "plugins": [
			{"name": "a", "source": "./plugins/a"},
			{"name": "b", "source": "./plugins/b", "dependencies": [{"name": "c", "version": "^1"}, "d"]},
			{"name": "c", "source": "./plugins/c", "version": "1.2.0"},
			{"name": "d", "source": "./plugins/d"}]}`
	head := gitRepo(t, dir, dependingMarketplace(map[string]string{
		".claude-plugin/marketplace.json": market,
		"plugins/a/skills/a1/SKILL.md":    skillMD("a1") + "\nversion two\n",
	}))
	if ups, changes, err := in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}, DryRun: true}); err != nil || len(ups) != 1 || len(changes) != 0 {
		t.Fatalf("Update(a1, dry run) = %+v, %v, %v", ups, changes, err)
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Fatalf("lock after a dry run (-want +got):\n%s", diff)
	}
	ups, _, err := in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}})
	if err != nil {
		t.Fatalf("Update(a1) = %v", err)
	}
	if len(ups) != 1 || !ups[0].Updated() || ups[0].Pin != head {
		t.Fatalf("Update(a1) = %+v; want a1 moved to %s", ups, head)
	}
	after := projectLock(t, f)
	want["b1"] = reqSummary{Requires: append(want["b1"].Requires, lockRequirement{Source: at("plugins/d/skills/d1"), Skill: "d1"}),
		RequiredBy: []string{"a1"}, Dependency: true}
	want["d1"] = reqSummary{RequiredBy: []string{"b1"}, Dependency: true}
	if diff := cmp.Diff(want, summarize(after)); diff != "" {
		t.Errorf("lock after Update(a1) (-want +got):\n%s", diff)
	}
	for _, name := range []string{"a1", "b1"} {
		if e := after.Skills[name]; e == nil || e.Pin != head {
			t.Errorf("%s after Update(a1): %+v; want it at %s", name, e, head)
		}
	}
	if after.Skills["a1"].Digest == before.Skills["a1"].Digest {
		t.Error("a1's digest did not change with its content")
	}

	// A SKILL.md requirement of the same repository that a new version
	// drops is dropped; the plugin's stays.
	gitRepo(t, dir, dependingMarketplace(map[string]string{
		".claude-plugin/marketplace.json": market,
		"plugins/a/skills/a1/SKILL.md":    "---\nname: a1\ndescription: the a1 skill\nmetadata:\n  requires: " + at("plugins/d/skills/d1") + "\n---\n# a1\n",
	}))
	if _, _, err := in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}}); err != nil {
		t.Fatalf("Update(a1) requiring d1 = %v", err)
	}
	wantA := []lockRequirement{{Source: at("plugins/d/skills/d1"), Skill: "d1"}, {Source: at("plugins/b/skills/b1"), Skill: "b1"}}
	if diff := cmp.Diff(wantA, projectLock(t, f).Skills["a1"].Requires); diff != "" {
		t.Errorf("a1 requiring d1 (-want +got):\n%s", diff)
	}
	gitRepo(t, dir, dependingMarketplace(map[string]string{".claude-plugin/marketplace.json": market, "plugins/a/skills/a1/SKILL.md": skillMD("a1") + "\nversion four\n"}))
	if _, _, err := in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}}); err != nil {
		t.Fatalf("Update(a1) dropping d1 = %v", err)
	}
	lock := projectLock(t, f)
	for _, name := range []string{"a1", "b1"} {
		if diff := cmp.Diff(want[name].Requires, lock.Skills[name].Requires); diff != "" {
			t.Errorf("%s after a1 dropped d1 (-want +got):\n%s", name, diff)
		}
	}

	// A skill of another source that requires b1 reads b1's folder only,
	// at the new commit: b1 moves and keeps what its lock entry records
	// its plugins require.
	head = gitRepo(t, dir, dependingMarketplace(map[string]string{
		".claude-plugin/marketplace.json": market,
		"plugins/a/skills/a1/SKILL.md":    skillMD("a1") + "\nversion four\n",
		"plugins/b/skills/b1/SKILL.md":    skillMD("b1") + "\nversion two\n",
	}))
	x := filepath.Join(t.TempDir(), "x")
	writeFiles(t, x, map[string]string{"SKILL.md": "---\nname: x\ndescription: the x skill\nmetadata:\n  requires: " + at("plugins/b/skills/b1") + "\n---\n# x\n"})
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{x}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(x requiring b1) = %v", err)
	}
	lock = projectLock(t, f)
	if e := lock.Skills["b1"]; e.Pin != head {
		t.Errorf("b1 at %s after Add(x), want %s", e.Pin, head)
	}
	if diff := cmp.Diff(want["b1"].Requires, lock.Skills["b1"].Requires); diff != "" {
		t.Errorf("b1 after Add(x) (-want +got):\n%s", diff)
	}

	// b's plugin drops its dependency on d: updating a1 reads the
	// marketplace again, and b1 no longer requires d1.
	gitRepo(t, dir, dependingMarketplace(map[string]string{"plugins/a/skills/a1/SKILL.md": skillMD("a1") + "\nversion five\n"}))
	if _, _, err := in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}}); err != nil {
		t.Fatalf("Update(a1) after b dropped d = %v", err)
	}
	lock = projectLock(t, f)
	if diff := cmp.Diff(want["b1"].Requires[:2], lock.Skills["b1"].Requires); diff != "" {
		t.Errorf("b1 after b dropped d (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want["a1"].Requires, lock.Skills["a1"].Requires); diff != "" {
		t.Errorf("a1 after b dropped d (-want +got):\n%s", diff)
	}
}

// TestPluginDependenciesUpdateFolder checks Update's plugin requirements
// (rule 12) in a marketplace folder: a's skill changes and b's plugin
// gains a dependency on d; Update(a1) reads the folder again, keeps
// a1's requirement on b1 and installs d1 as b1's; a dependency list
// that is no longer one fails the update, changing nothing.
func TestPluginDependenciesUpdateFolder(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.sources, "market")
	writeFiles(t, dir, dependingMarketplace(nil))
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Plugins: []string{"a"}}); err != nil {
		t.Fatalf("Add(--plugin a) = %v", err)
	}
	writeFiles(t, dir, map[string]string{
		"plugins/a/skills/a1/SKILL.md":         skillMD("a1") + "\nversion two\n",
		"plugins/b/.claude-plugin/plugin.json": `{"name": "b", "dependencies": ["d"]}`,
	})
	if _, _, err := in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}}); err != nil {
		t.Fatalf("Update(a1) = %v", err)
	}
	want := map[string]reqSummary{
		"a1": {Requires: []lockRequirement{{Source: "../../../b/skills/b1", Skill: "b1"}}},
		"b1": {Requires: []lockRequirement{{Source: "../../../c/skills/c1", Skill: "c1"}, {Source: "../../../c/skills/c2", Skill: "c2"}, {Source: "../../../d/skills/d1", Skill: "d1"}},
			RequiredBy: []string{"a1"}, Dependency: true},
		"c1": {RequiredBy: []string{"b1"}, Dependency: true},
		"c2": {RequiredBy: []string{"b1"}, Dependency: true},
		"d1": {RequiredBy: []string{"b1"}, Dependency: true},
	}
	if diff := cmp.Diff(want, summarize(projectLock(t, f))); diff != "" {
		t.Errorf("lock after Update(a1) (-want +got):\n%s", diff)
	}
	// Both moving, a1 and b1 are linked from one read of the folder; b's
	// plugin drops d again, and b1 no longer requires d1.
	writeFiles(t, dir, map[string]string{
		"plugins/a/skills/a1/SKILL.md":         skillMD("a1") + "\nversion three\n",
		"plugins/b/skills/b1/SKILL.md":         skillMD("b1") + "\nversion two\n",
		"plugins/b/.claude-plugin/plugin.json": `{"name": "b"}`,
	})
	ups, _, err := in.Update(t.Context(), UpdateRequest{})
	if err != nil {
		t.Fatalf("Update() = %v", err)
	}
	var moved []string
	for _, u := range ups {
		if u.Updated() {
			moved = append(moved, u.Skill)
		}
	}
	if diff := cmp.Diff([]string{"a1", "b1"}, moved); diff != "" {
		t.Errorf("Update() moved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want["b1"].Requires[:2], projectLock(t, f).Skills["b1"].Requires); diff != "" {
		t.Errorf("b1 after b dropped d (-want +got):\n%s", diff)
	}
	writeFiles(t, dir, map[string]string{
		"plugins/a/skills/a1/SKILL.md":         skillMD("a1") + "\nversion four\n",
		"plugins/b/.claude-plugin/plugin.json": `{"name": "b", "dependencies": ["d", 42]}`,
	})
	want["b1"] = reqSummary{Requires: want["b1"].Requires[:2], RequiredBy: []string{"a1"}, Dependency: true}
	want["d1"] = reqSummary{Dependency: true} // Update leaves a dependency no longer needed (rule 17)
	before := projectLock(t, f)
	_, _, err = in.Update(t.Context(), UpdateRequest{Names: []string{"a1"}})
	if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), "dependency 2 of its plugin.json") {
		t.Fatalf("Update(a1) with a broken dependency list = %v, want ErrRequirements", err)
	}
	after := projectLock(t, f)
	if diff := cmp.Diff(want, summarize(after)); diff != "" {
		t.Errorf("lock after a refused update (-want +got):\n%s", diff)
	}
	if after.Skills["a1"].Digest != before.Skills["a1"].Digest {
		t.Error("a refused update moved a1")
	}
}
