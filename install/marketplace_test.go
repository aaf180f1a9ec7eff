package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

// officialMarketplace is the shape of anthropics/claude-plugins-official:
// plugins under plugins/ and external_plugins/, listed by the marketplace
// with a folder source, one listed plugin without a plugin.json, plugins
// published elsewhere, and example-plugin, which the marketplace leaves
// out on purpose.
var officialMarketplace = map[string]string{
	".claude-plugin/marketplace.json": `{"name":"claude-plugins-official","plugins":[
		{"name":"hookify","source":"./plugins/hookify"},
		{"name":"receipts","source":"./plugins/receipts"},
		{"name":"discord","source":"./external_plugins/discord"},
		{"name":"far","source":{"source":"url","url":"https://example.org/far.git"}},
		{"name":"sub","source":{"source":"git-subdir","url":"https://example.org/x.git","path":"plugins/sub"}}]}`,
	"plugins/hookify/.claude-plugin/plugin.json":             `{"name":"hookify"}`,
	"plugins/hookify/skills/writing-rules/SKILL.md":          skillMD("writing-rules"),
	"plugins/receipts/skills/receipts/SKILL.md":              skillMD("receipts"),
	"external_plugins/discord/.claude-plugin/plugin.json":    `{"name":"discord"}`,
	"external_plugins/discord/skills/access/SKILL.md":        skillMD("access"),
	"plugins/example-plugin/.claude-plugin/plugin.json":      `{"name":"example-plugin"}`,
	"plugins/example-plugin/skills/example-skill/SKILL.md":   skillMD("example-skill"),
	"plugins/example-plugin/skills/example-command/SKILL.md": skillMD("example-command"),
}

// withFiles returns base with the files of more added (or replaced).
func withFiles(base map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// TestMarketplaceInstallsListedPlugins checks rule 12's marketplaces, in
// a folder and in a repository snapshot: the plugins listed, the known
// folders, the root one level down, and nothing of a plugin not listed.
func TestMarketplaceInstallsListedPlugins(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // path: plugins
	}{
		{
			name:  "the official marketplace leaves example-plugin out",
			files: officialMarketplace,
			want: []string{
				"external_plugins/discord/skills/access: discord",
				"plugins/hookify/skills/writing-rules: hookify",
				"plugins/receipts/skills/receipts: receipts",
			},
		},
		{
			name: "skills outside plugins: known folders and the root's sub-folders are kept, deeper ones left out",
			files: withFiles(officialMarketplace, map[string]string{
				"skills/kept/SKILL.md":                       skillMD("kept"),
				".claude/skills/agent/SKILL.md":              skillMD("agent"),
				"top/SKILL.md":                               skillMD("top"),
				"docs/examples/deep/SKILL.md":                skillMD("deep"),
				"skills/unlisted/.claude-plugin/plugin.json": `{"name":"unlisted"}`,
				"skills/unlisted/skills/x/SKILL.md":          skillMD("x"),
			}),
			want: []string{
				".claude/skills/agent: ",
				"external_plugins/discord/skills/access: discord",
				"plugins/hookify/skills/writing-rules: hookify",
				"plugins/receipts/skills/receipts: receipts",
				"skills/kept: ",
				"top: ",
			},
		},
		{
			name: "plugins at the root list their skills (anthropics/skills)",
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"plugins":[
					{"name":"document-skills","source":"./","strict":false,"skills":["./skills/pdf","./skills/xlsx"]},
					{"name":"example-skills","source":"./","skills":["./skills/art"]},
					{"name":"both","source":"./","skills":["./skills/pdf"]}]}`,
				"skills/pdf/SKILL.md":   skillMD("pdf"),
				"skills/xlsx/SKILL.md":  skillMD("xlsx"),
				"skills/art/SKILL.md":   skillMD("art"),
				"skills/other/SKILL.md": skillMD("other"),
			},
			want: []string{"skills/art: example-skills", "skills/other: ", "skills/pdf: document-skills,both", "skills/xlsx: document-skills"},
		},
		{
			name: "a marketplace whose plugins hold nothing is searched whole",
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"plugins":[{"name":"far","source":{"source":"github","repo":"o/r"}}]}`,
				"a/b/c/SKILL.md":                  skillMD("c"),
			},
			want: []string{"a/b/c: "},
		},
		{
			name: "hostile paths in a marketplace are ignored",
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"metadata":{"pluginRoot":"../up"},"plugins":[
					{"name":"up","source":"../outside"},
					{"name":"abs","source":"/etc"},
					{"name":"back","source":"a\\b"},
					{"name":"listed","source":"./p","skills":["../../../etc","/etc","./s/../../../x"]},
					{"name":"rooted","source":"q"}]}`,
				"p/.claude-plugin/plugin.json": `{"name":"p","skills":["../../escape"]}`,
				"p/skills/ok/SKILL.md":         skillMD("ok"),
			},
			want: []string{"p/skills/ok: listed"},
		},
		{
			name: "a manifest that is not JSON is no marketplace",
			files: withFiles(officialMarketplace, map[string]string{
				".claude-plugin/marketplace.json": `{"plugins":[`,
			}),
			want: []string{
				"external_plugins/discord/skills/access: ",
				"plugins/example-plugin/skills/example-command: ",
				"plugins/example-plugin/skills/example-skill: ",
				"plugins/hookify/skills/writing-rules: ",
				"plugins/receipts/skills/receipts: ",
			},
		},
		{
			name: "without a marketplace every plugin folder is searched, and the root's plugin.json names a plugin",
			files: map[string]string{
				".claude-plugin/plugin.json":                        `{"name":"kit"}`,
				"skills/a/SKILL.md":                                 skillMD("a"),
				"plugins/example-plugin/.claude-plugin/plugin.json": `{"name":"example-plugin"}`,
				"plugins/example-plugin/skills/b/SKILL.md":          skillMD("b"),
			},
			want: []string{"plugins/example-plugin/skills/b: ", "skills/a: kit"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			in := f.installer(t)
			dir := filepath.Join(f.sources, "repo")
			writeFiles(t, dir, tt.files)
			got, err := in.Contents(t.Context(), FindRequest{Source: dir})
			if err != nil {
				t.Fatalf("Contents(folder) = %v", err)
			}
			if diff := cmp.Diff(tt.want, pluginPaths(got, "")); diff != "" {
				t.Errorf("Contents(folder) (-want +got):\n%s", diff)
			}
			archive := writeSnapshot(t, f.sources, "o-r-0a1b2c3", tt.files)
			got, err = in.Contents(t.Context(), FindRequest{Source: archive})
			if err != nil {
				t.Fatalf("Contents(archive) = %v", err)
			}
			if diff := cmp.Diff(tt.want, pluginPaths(got, "o-r-0a1b2c3/")); diff != "" {
				t.Errorf("Contents(archive) (-want +got):\n%s", diff)
			}
		})
	}
}

// writeSnapshot writes files as a repository snapshot, every entry under
// the folder top, to dir/repo.tgz, and returns its path.
func writeSnapshot(t *testing.T, dir, top string, files map[string]string) string {
	t.Helper()
	snapshot := map[string]string{}
	for name, content := range files {
		snapshot[top+"/"+name] = content
	}
	archive := filepath.Join(dir, "repo.tgz")
	if err := os.WriteFile(archive, testarchive.TarGzFiles(t, snapshot), 0o644); err != nil {
		t.Fatal(err)
	}
	return archive
}

// pluginPaths describes each skill of its own as "path: plugins", its
// path without prefix.
func pluginPaths(skills []SourceSkill, prefix string) []string {
	var out []string
	for _, s := range skills {
		if s.Within == "" {
			out = append(out, strings.TrimPrefix(s.Path, prefix)+": "+strings.Join(s.Plugins, ","))
		}
	}
	return out
}

// TestAddPlugins checks AddRequest.Plugins: the skills of the plugins named,
// with AddRequest.Skills both, and an unknown name refused listing the
// plugins, before anything changes.
func TestAddPlugins(t *testing.T) {
	tests := []struct {
		name    string
		plugins []string
		skills  []string
		want    []string
		err     string
	}{
		{name: "one plugin", plugins: []string{"hookify"}, want: []string{"writing-rules"}},
		{name: "two plugins", plugins: []string{"hookify", "discord"}, want: []string{"access", "writing-rules"}},
		{name: "a plugin and a skill of it", plugins: []string{"discord", "hookify"}, skills: []string{"access"}, want: []string{"access"}},
		{name: "a plugin listed but left out is unknown", plugins: []string{"example-plugin"},
			err: `holds no skill of a plugin named "example-plugin"; the plugins with skills there: discord, hookify, receipts`},
		{name: "unknown names are listed once", plugins: []string{"nope", "hookify", "nope", "far"},
			err: `holds no skill of a plugin named "nope", "far"; the plugins with skills there: discord, hookify, receipts`},
		{name: "a skill of no plugin named", plugins: []string{"hookify"}, skills: []string{"access"},
			err: "no skill is left to install"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			dir := filepath.Join(f.sources, "repo")
			writeFiles(t, dir, officialMarketplace)
			changes, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Plugins: tt.plugins, Skills: tt.skills})
			if tt.err != "" {
				if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Add(Plugins: %q) = %v, want ErrInvalidSource saying %q", tt.plugins, err, tt.err)
				}
				if _, err := os.Lstat(filepath.Join(f.env.Project, ".agents")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a refused add left .agents: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, installedNames(changes)); diff != "" {
				t.Errorf("Add(Plugins: %q) installed (-want +got):\n%s", tt.plugins, diff)
			}
		})
	}
	t.Run("a source with no plugin", func(t *testing.T) {
		f := newFixture(t)
		dir := f.writeSkill(t, "one", "one", "")
		_, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Plugins: []string{"p"}})
		if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "the plugins with skills there: none") {
			t.Errorf("Add(Plugins) of a source without plugins = %v, want ErrInvalidSource saying there are none", err)
		}
	})
}

// installedNames are the skills whose canonical copy changes installed,
// sorted.
func installedNames(changes []Change) []string {
	var out []string
	for _, c := range changes {
		if c.Agent == "" && c.Action == ActionInstalled {
			out = append(out, c.Skill)
		}
	}
	slices.Sort(out)
	return out
}

// TestNestedSkills checks rule 12's nested skills: a SKILL.md inside
// another skill's folder is a file of that skill, installed with it, and
// a skill of its own only when named.
func TestNestedSkills(t *testing.T) {
	files := map[string]string{
		"skills/scaling/SKILL.md":                       skillMD("scaling"),
		"skills/scaling/latency/SKILL.md":               skillMD("scaling-latency"),
		"skills/scaling/volume/SKILL.md":                skillMD("scaling-volume"),
		"skills/scaling/volume/horizontal/SKILL.md":     skillMD("horizontal"),
		"skills/scaling/volume/horizontal/notes/ref.md": "ref",
		"skills/monitoring/SKILL.md":                    skillMD("monitoring"),
		"skills/monitoring/setup/SKILL.md":              skillMD("monitoring"), // a file named like its parent
		"skills/other/SKILL.md":                         skillMD("other"),
	}
	tests := []struct {
		name   string
		skills []string
		want   []string
		err    string
	}{
		{name: "the parents only", want: []string{"monitoring", "other", "scaling"}},
		{name: "a nested one by name", skills: []string{"scaling-latency"}, want: []string{"scaling-latency"}},
		{name: "a nested one by folder, two levels down", skills: []string{"skills/scaling/volume/horizontal"}, want: []string{"horizontal"}},
		{name: "a nested one and its parent", skills: []string{"scaling", "scaling-volume"}, want: []string{"scaling", "scaling-volume"}},
		{name: "a name both have stands for the skill of its own", skills: []string{"monitoring"}, want: []string{"monitoring"}},
		{name: "the nested one of that name by folder", skills: []string{"skills/monitoring/setup"}, want: []string{"monitoring"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			dir := filepath.Join(f.sources, "repo")
			writeFiles(t, dir, files)
			in := f.installer(t)
			changes, err := in.Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Skills: tt.skills})
			if err != nil {
				t.Fatalf("Add(Skills: %q) = %v", tt.skills, err)
			}
			if diff := cmp.Diff(tt.want, installedNames(changes)); diff != "" {
				t.Errorf("Add(Skills: %q) installed (-want +got):\n%s", tt.skills, diff)
			}
			lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range tt.want {
				if len(tt.skills) == 1 && strings.Contains(tt.skills[0], "/") && lock.Skills[name].Subpath != tt.skills[0] {
					t.Errorf("lock records %s at %q, want %q", name, lock.Skills[name].Subpath, tt.skills[0])
				}
			}
			// What Add installed, Sync restores, nested ones too.
			os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills"))
			if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
				t.Errorf("Sync after Add(Skills: %q) = %v", tt.skills, err)
			}
		})
	}

	t.Run("the parent's copy holds the nested files", func(t *testing.T) {
		f := newFixture(t)
		dir := filepath.Join(f.sources, "repo")
		writeFiles(t, dir, files)
		if _, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex"), Skills: []string{"scaling"}}); err != nil {
			t.Fatal(err)
		}
		got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "scaling", "volume", "horizontal", "SKILL.md"))
		if got != skillMD("horizontal") {
			t.Errorf("the nested SKILL.md in the parent's copy = %q", got)
		}
	})

	t.Run("Contents lists each nested one with its parent", func(t *testing.T) {
		f := newFixture(t)
		dir := filepath.Join(f.sources, "repo")
		writeFiles(t, dir, files)
		got, err := f.installer(t).Contents(t.Context(), FindRequest{Source: dir})
		if err != nil {
			t.Fatal(err)
		}
		var desc []string
		for _, s := range got {
			desc = append(desc, s.Path+" in "+s.Within+" "+s.Problem)
		}
		want := []string{
			"skills/monitoring in  ",
			"skills/monitoring/setup in skills/monitoring ",
			"skills/other in  ",
			"skills/scaling in  ",
			"skills/scaling/latency in skills/scaling ",
			"skills/scaling/volume in skills/scaling ",
			"skills/scaling/volume/horizontal in skills/scaling/volume ",
		}
		if diff := cmp.Diff(want, desc); diff != "" {
			t.Errorf("Contents (-want +got):\n%s", diff)
		}
	})

	t.Run("a skill at the root holds every other", func(t *testing.T) {
		f := newFixture(t)
		dir := filepath.Join(f.sources, "repo")
		writeFiles(t, dir, map[string]string{"SKILL.md": skillMD("root"), "skills/a/SKILL.md": skillMD("a")})
		got, err := f.installer(t).Contents(t.Context(), FindRequest{Source: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[1].Within != "." || paths(got)[0] != "." {
			t.Errorf("Contents = %+v, want the root, and skills/a within it", got)
		}
	})

	t.Run("an archive", func(t *testing.T) {
		f := newFixture(t)
		archive := writeSnapshot(t, f.sources, "o-r-0a1b2c3", files)
		in := f.installer(t)
		changes, err := in.Add(t.Context(), AddRequest{Sources: []string{archive}, Agents: agentsOf(t, "codex")})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"monitoring", "other", "scaling"}, installedNames(changes)); diff != "" {
			t.Errorf("Add(archive) installed (-want +got):\n%s", diff)
		}
		changes, err = in.Add(t.Context(), AddRequest{Sources: []string{archive}, Agents: agentsOf(t, "codex"), Skills: []string{path.Join("o-r-0a1b2c3", "skills/scaling/latency")}})
		if err != nil || !slices.Equal(installedNames(changes), []string{"scaling-latency"}) {
			t.Errorf("Add(archive, a nested folder) = %v, %v, want scaling-latency installed", actions(changes), err)
		}
	})
}

// TestMarketplaceManyPlugins reads a marketplace near the manifest size
// limit: thousands of plugins, most without a folder, each listing
// paths; the skills of the ones present belong to them and no other.
func TestMarketplaceManyPlugins(t *testing.T) {
	var entries []string
	files := map[string]string{}
	for i := range 8000 {
		entries = append(entries, fmt.Sprintf(`{"name":"p%d","source":"./plugins/p%d","skills":["./skills/s%d","./skills/t%d"]}`, i, i, i, i))
		if i%1000 == 0 {
			files[fmt.Sprintf("plugins/p%d/skills/s%d/SKILL.md", i, i)] = skillMD(fmt.Sprintf("s%d", i))
		}
	}
	files[".claude-plugin/marketplace.json"] = `{"plugins":[` + strings.Join(entries, ",") + `]}`
	if n := len(files[".claude-plugin/marketplace.json"]); n > maxManifestSize {
		t.Fatalf("the manifest is %d bytes, over the limit", n)
	}
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	found, err := discover(t.Context(), fsys, defaultMaxSearch)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 8 {
		t.Fatalf("discover found %d skills, want 8", len(found))
	}
	for _, f := range found {
		i := strings.TrimPrefix(path.Base(f.dir), "s")
		if want := []string{"p" + i}; !slices.Equal(f.plugins, want) {
			t.Errorf("%s belongs to %q, want %q", f.dir, f.plugins, want)
		}
	}
}
