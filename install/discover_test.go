package install

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/skill"
)

// layouts are the ways published repositories keep skills (rule 12),
// each as the files of a repository and the skill folders discovery
// must find in it.
var layouts = []struct {
	name  string
	files map[string]string
	want  []string
}{
	{
		name:  "skills at the root and one level down",
		files: map[string]string{"SKILL.md": skillMD("root"), "tools/review/SKILL.md": skillMD("review")},
		want:  []string{"."}, // tools/review is a file of the root's skill (rule 12)
	},
	{
		name: "skills/*",
		files: map[string]string{
			"README.md":                skillMD("not-a-skill"),
			"skills/pdf/SKILL.md":      skillMD("pdf"),
			"skills/xlsx/SKILL.md":     skillMD("xlsx"),
			"skills/xlsx/scripts/x.py": "print()",
		},
		want: []string{"skills/pdf", "skills/xlsx"},
	},
	{
		name: "skills/.curated/* and skills/.system/* and skills/.experimental/*",
		files: map[string]string{
			"skills/.curated/gh-fix-ci/SKILL.md":     skillMD("gh-fix-ci"),
			"skills/.curated/notion/SKILL.md":        skillMD("notion"),
			"skills/.system/skill-creator/SKILL.md":  skillMD("skill-creator"),
			"skills/.experimental/preview/SKILL.md":  skillMD("preview"),
			"skills/.curated/notion/references/a.md": "a",
		},
		want: []string{"skills/.curated/gh-fix-ci", "skills/.curated/notion", "skills/.experimental/preview", "skills/.system/skill-creator"},
	},
	{
		name: "agents' folders",
		files: map[string]string{
			".agents/skills/a/SKILL.md": skillMD("a"),
			".claude/skills/b/SKILL.md": skillMD("b"),
			".github/skills/c/SKILL.md": skillMD("c"),
			".cursor/skills/d/SKILL.md": skillMD("d"),
		},
		want: []string{".agents/skills/a", ".claude/skills/b", ".cursor/skills/d", ".github/skills/c"},
	},
	{
		name: "plugins/*/skills/* listed by marketplace.json",
		files: map[string]string{
			".claude-plugin/marketplace.json":               `{"name":"m","plugins":[{"name":"one","source":"./plugins/one"},{"name":"two","source":"./plugins/two"},{"name":"far","source":{"source":"github","repo":"o/r"}}]}`,
			"plugins/one/.claude-plugin/plugin.json":        `{"name":"one"}`,
			"plugins/one/skills/audit/SKILL.md":             skillMD("audit"),
			"plugins/one/skills/audit/resources/fix.md":     "fix",
			"plugins/two/skills/fuzz/SKILL.md":              skillMD("fuzz"),
			"plugins/two/skills/semgrep/SKILL.md":           skillMD("semgrep"),
			"plugins/two/commands/run.md":                   "run",
			"plugins/two/skills/semgrep/rules/x/y/z/a.yaml": "a",
		},
		want: []string{"plugins/one/skills/audit", "plugins/two/skills/fuzz", "plugins/two/skills/semgrep"},
	},
	{
		name: "terraform/*/skills/* listed by marketplace.json",
		files: map[string]string{
			".claude-plugin/marketplace.json":                                    `{"name":"hc","plugins":[{"name":"gen","source":"./terraform/code-generation"},{"name":"mod","source":"./terraform/module-generation"},{"name":"pk","source":"./packer/builders"}]}`,
			"terraform/code-generation/skills/terraform-style-guide/SKILL.md":    skillMD("terraform-style-guide"),
			"terraform/code-generation/skills/terraform-test/SKILL.md":           skillMD("terraform-test"),
			"terraform/module-generation/skills/refactor-module/SKILL.md":        skillMD("refactor-module"),
			"packer/builders/skills/aws-ami-builder/SKILL.md":                    skillMD("aws-ami-builder"),
			"terraform/module-generation/skills/refactor-module/references/r.md": "r",
		},
		want: []string{"packer/builders/skills/aws-ami-builder", "terraform/code-generation/skills/terraform-style-guide", "terraform/code-generation/skills/terraform-test", "terraform/module-generation/skills/refactor-module"},
	},
	{
		name: "terraform/*/skills/* without a manifest",
		files: map[string]string{
			"terraform/code-generation/skills/terraform-style-guide/SKILL.md": skillMD("terraform-style-guide"),
			"terraform/provider-development/skills/new-resource/SKILL.md":     skillMD("new-resource"),
		},
		want: []string{"terraform/code-generation/skills/terraform-style-guide", "terraform/provider-development/skills/new-resource"},
	},
	{
		name: "skill paths listed by a marketplace entry, with pluginRoot, deeper than the search",
		files: map[string]string{
			".claude-plugin/marketplace.json": `{"name":"m","metadata":{"pluginRoot":"./a/b/c/d"},"plugins":[
				{"name":"docs","source":"./","skills":["./skills/xlsx","./vendor-skills/pptx"]},
				{"name":"deep","source":"e","skills":"./more"},
				{"name":"escape","source":"./","skills":["../outside","/etc","a\\b"]},
				{"name":"up","source":"../elsewhere"}]}`,
			"skills/xlsx/SKILL.md":              skillMD("xlsx"),
			"vendor-skills/pptx/SKILL.md":       skillMD("pptx"),
			"a/b/c/d/e/skills/f/SKILL.md":       skillMD("f"),
			"a/b/c/d/e/more/g/SKILL.md":         skillMD("g"),
			"a/b/c/d/e/unlisted/x/y/SKILL.md":   skillMD("too-deep"),
			"a/b/c/d/e/skills/f/scripts/run.sh": "run",
		},
		want: []string{"a/b/c/d/e/more/g", "a/b/c/d/e/skills/f", "skills/xlsx", "vendor-skills/pptx"},
	},
	{
		name: "plugin.json at the root lists a folder of skills",
		files: map[string]string{
			".claude-plugin/plugin.json":  `{"name":"p","skills":["./x/y/z/w/v/custom"]}`,
			"x/y/z/w/v/custom/h/SKILL.md": skillMD("h"),
			"skills/i/SKILL.md":           skillMD("i"),
		},
		want: []string{"skills/i", "x/y/z/w/v/custom/h"},
	},
	{
		name: "the search goes five levels down",
		files: map[string]string{
			"a/b/c/d/e/SKILL.md":    skillMD("five"),
			"a/b/c/d/e2/f/SKILL.md": skillMD("six"),
		},
		want: []string{"a/b/c/d/e"},
	},
	{
		name: "skills nested in skills",
		files: map[string]string{
			"skills/pdf/SKILL.md":                skillMD("pdf"),
			"skills/pdf/forms/SKILL.md":          skillMD("pdf-forms"),
			"skills/pdf/tools/ocr/SKILL.md":      skillMD("pdf-ocr"),
			"skills/pdf/a/b/c/d/deep/SKILL.md":   skillMD("deep"),
			"skills/pdf/a/b/c/d/e/f/SKILL.md":    skillMD("deeper"),
			"skills/pdf/node_modules/x/SKILL.md": skillMD("dependency"),
		},
		want: []string{"skills/pdf"}, // the others are its files (rule 12)
	},
	{
		name: "version control, dependencies and build output are not searched",
		files: map[string]string{
			"skills/ok/SKILL.md":            skillMD("ok"),
			".git/x/SKILL.md":               skillMD("git"),
			"node_modules/pkg/SKILL.md":     skillMD("npm"),
			"web/node_modules/pkg/SKILL.md": skillMD("npm2"),
			"dist/ok/SKILL.md":              skillMD("dist"),
			"tools/__pycache__/x/SKILL.md":  skillMD("pyc"),
			".venv/lib/x/SKILL.md":          skillMD("venv"),
			"docs/SKILL.md/README":          "a folder named SKILL.md",
		},
		want: []string{"skills/ok"},
	},
}

// TestDiscoverLayouts finds the skills of each layout in a folder and in a
// repository snapshot whose entries sit in one top folder.
func TestDiscoverLayouts(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			f := newFixture(t)
			in := f.installer(t)
			dir := filepath.Join(f.sources, "repo")
			writeFiles(t, dir, l.files)
			got, err := in.Contents(t.Context(), FindRequest{Source: dir})
			if err != nil {
				t.Fatalf("Contents(folder) = %v", err)
			}
			if diff := cmp.Diff(l.want, paths(got)); diff != "" {
				t.Errorf("Contents(folder) paths (-want +got):\n%s", diff)
			}
			archive := writeSnapshot(t, f.sources, "owner-repo-0a1b2c3", l.files)
			got, err = in.Contents(t.Context(), FindRequest{Source: archive})
			if err != nil {
				t.Fatalf("Contents(archive) = %v", err)
			}
			var want []string
			for _, p := range l.want {
				want = append(want, path.Join("owner-repo-0a1b2c3", p))
			}
			if diff := cmp.Diff(want, paths(got)); diff != "" {
				t.Errorf("Contents(archive) paths (-want +got):\n%s", diff)
			}
		})
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// paths are the folders of the skills of their own, not nested in
// another skill's folder.
func paths(skills []SourceSkill) []string {
	var out []string
	for _, s := range skills {
		if s.Within == "" {
			out = append(out, s.Path)
		}
	}
	return out
}

// TestAddFindsDeepLayouts installs what the layouts of the issue's
// repositories hold: before rule 12, nothing was found in them.
func TestAddFindsDeepLayouts(t *testing.T) {
	for _, l := range layouts {
		if !strings.Contains(l.name, "/*") {
			continue
		}
		t.Run(l.name, func(t *testing.T) {
			f := newFixture(t)
			dir := filepath.Join(f.sources, "repo")
			writeFiles(t, dir, l.files)
			changes, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agentsOf(t, "codex")})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range changes {
				if c.Agent == "" && c.Action == ActionInstalled {
					names = append(names, c.Skill)
				}
			}
			var want []string
			for _, p := range l.want {
				want = append(want, path.Base(p))
			}
			slices.Sort(names)
			slices.Sort(want)
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("installed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverDoesNotFollowLinks(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{"skills/a/SKILL.md": skillMD("a")})
	writeFiles(t, f.sources, map[string]string{"outside/b/SKILL.md": skillMD("b")})
	// .claude/skills links to the repository's own skills folder, as many
	// repositories do; another link leads out of the repository.
	os.MkdirAll(filepath.Join(repo, ".claude"), 0o755)
	if err := os.Symlink("../skills", filepath.Join(repo, ".claude", "skills")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(filepath.Join(f.sources, "outside"), filepath.Join(repo, "more"))
	writeFiles(t, repo, map[string]string{".claude-plugin/marketplace.json": `{"plugins":[{"source":"./more"}],"metadata":{}}`})
	got, err := f.installer(t).Contents(t.Context(), FindRequest{Source: repo})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"skills/a"}, paths(got)); diff != "" {
		t.Errorf("Contents paths (-want +got):\n%s", diff)
	}
}

func TestDiscoverManifestLimits(t *testing.T) {
	huge := `{"plugins":[{"source":"./p"}],"pad":"` + strings.Repeat("x", maxManifestSize) + `"}`
	for name, tt := range map[string]struct {
		manifest string
		want     []string
	}{
		"valid":         {`{"plugins":[{"source":"./p"}]}`, []string{"p/skills/s"}},
		"with a BOM":    {"\xef\xbb\xbf" + `{"plugins":[{"source":"./p"}]}`, []string{"p/skills/s"}},
		"not JSON":      {`{"plugins":[`, nil},
		"over 1 MiB":    {huge, nil},
		"source a list": {`{"plugins":[{"source":["./p"]}]}`, nil},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{
				".claude-plugin/marketplace.json": {Data: []byte(tt.manifest)},
				"p/x/y/z/w/v/skills/s/SKILL.md":   {Data: []byte(skillMD("too-deep"))},
			}
			// The plugin's skills folder lies deeper than the search goes,
			// so only the manifest can find it.
			fsys[".claude-plugin/marketplace.json"] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(tt.manifest, "./p", "./p/x/y/z/w/v"))}
			found, err := discover(t.Context(), fsys, defaultMaxSearch)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				got = append(got, f.dir)
			}
			var want []string
			for _, p := range tt.want {
				want = append(want, strings.Replace(p, "p/", "p/x/y/z/w/v/", 1))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("discover (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverSearchLimit(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	for _, d := range []string{"a/b", "c/d", "e"} {
		os.MkdirAll(filepath.Join(repo, d), 0o755)
	}
	writeFiles(t, repo, map[string]string{"e/SKILL.md": skillMD("e")})
	in := f.installer(t)
	in.maxSearch = 5 // ., a, a/b, c, c/d: e is the sixth
	if _, err := in.Contents(t.Context(), FindRequest{Source: repo}); !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "more than 5 folders") {
		t.Errorf("Contents of a source with more folders than the limit = %v, want ErrInvalidSource naming the limit", err)
	}
	in.maxSearch = 6
	if got, err := in.Contents(t.Context(), FindRequest{Source: repo}); err != nil || len(got) != 1 {
		t.Errorf("Contents of a source at the limit = %v, %v, want its skill", got, err)
	}
}

func TestSourceWithoutSkills(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{"a/b/c/d/e/f/SKILL.md": skillMD("six"), "README.md": "hello"})
	_, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex")})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "holds no skill") {
		t.Errorf("Add of a source without skills = %v, want ErrInvalidSource saying it holds none", err)
	}
}

// badSkillMD is a SKILL.md agents refuse: its description is over the
// 1,024 characters the Agent Skills rules allow.
func badSkillMD(name string) string {
	return "---\nname: " + name + "\ndescription: " + strings.Repeat("x", 1100) + "\n---\n"
}

func lenientInstaller(f *fixture) *Installer {
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache")))
	return New(f.env, WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")))
}

// TestUnusableSkillIsSkipped checks rule 4: one skill that cannot be
// installed never blocks the others.
func TestUnusableSkillIsSkipped(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{
		"skills/good/SKILL.md":         skillMD("good"),
		"skills/long/SKILL.md":         badSkillMD("long"),
		"skills/empty/SKILL.md":        "no front matter\n",
		"skills/twin/SKILL.md":         skillMD("twin"),
		".claude/skills/twin/SKILL.md": skillMD("twin") + "Another twin.\n",
	})
	in := lenientInstaller(f)
	ctx := t.Context()

	t.Run("strict refuses and changes nothing", func(t *testing.T) {
		changes, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code"), Strict: true})
		if !errors.Is(err, ErrInvalidSource) || len(changes) != 0 {
			t.Fatalf("Add(Strict) = %v, %v, want ErrInvalidSource and no change", actions(changes), err)
		}
		for _, want := range []string{"skills/long", "1024", "skills/empty", "skills/twin", ".claude/skills/twin", "nothing was changed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Add(Strict) = %v, want it to name %q", err, want)
			}
		}
		if _, err := os.Lstat(filepath.Join(f.env.Project, ".agents")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a refused strict add left .agents: %v", err)
		}
	})

	t.Run("the rest is installed", func(t *testing.T) {
		changes, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code")})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(actions(changes), "good/:canonical:installed") {
			t.Errorf("Add = %v, want good installed", actions(changes))
		}
		skipped := map[string]Change{}
		for _, c := range changes {
			if c.Action == ActionSkipped {
				skipped[c.Path] = c
			}
		}
		for p, want := range map[string]string{
			"skills/long":         "Description exceeds 1024 character limit",
			"skills/empty":        "front",
			"skills/twin":         `another skill is named "twin" too, in ` + f.recorded(repo) + " (.claude/skills/twin)",
			".claude/skills/twin": `another skill is named "twin" too, in ` + f.recorded(repo) + " (skills/twin)",
		} {
			c, ok := skipped[p]
			if !ok || !strings.Contains(c.Reason, want) || c.Source != f.recorded(repo) {
				t.Errorf("skipped %s = %+v, want its source and a reason holding %q", p, c, want)
			}
		}
		if len(skipped) != 4 || !Changed(changes) {
			t.Errorf("Add = %+v, want 4 skipped and good installed", changes)
		}
		for _, name := range []string{"long", "empty", "twin"} {
			if _, err := os.Lstat(filepath.Join(f.env.Project, ".claude", "skills", name)); err == nil {
				t.Errorf("skipped skill %s was installed", name)
			}
		}
		// Again: nothing changes, the skips are reported again.
		changes, err = in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code")})
		if err != nil || Changed(changes) {
			t.Errorf("Add again = %v, %v, want no change", actions(changes), err)
		}
	})

	t.Run("a twin is selected by its folder", func(t *testing.T) {
		changes, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code"), Skills: []string{"skills/twin"}})
		if err != nil || !slices.Contains(actions(changes), "twin/:canonical:installed") {
			t.Fatalf("Add(skills/twin) = %v, %v", actions(changes), err)
		}
		lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
		if err != nil || lock.Skills["twin"] == nil || lock.Skills["twin"].Subpath != "skills/twin" {
			t.Errorf("lock = %+v, %v, want twin recorded at skills/twin", lock, err)
		}
		// Sync finds it by its recorded folder, although a twin sits beside it.
		os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
		if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
			t.Errorf("Sync of a skill with a twin in its source = %v", err)
		}
	})

	t.Run("nothing left fails", func(t *testing.T) {
		_, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code"), Skills: []string{"long", "empty"}})
		if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "no skill is left to install") || !strings.Contains(err.Error(), "1024") {
			t.Errorf("Add of unusable skills only = %v, want ErrInvalidSource with their problems", err)
		}
	})

	t.Run("sync does not skip", func(t *testing.T) {
		writeFiles(t, repo, map[string]string{"skills/good/SKILL.md": badSkillMD("good")})
		_, err := in.Sync(ctx, SyncRequest{})
		if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "skills/good") {
			t.Errorf("Sync of a recorded skill that became unusable = %v, want ErrInvalidSource naming it", err)
		}
		if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "good", "SKILL.md")); got != skillMD("good") {
			t.Errorf("a failed sync changed good: %q", got)
		}
	})
}

// recorded is how the lock file records a source folder of the fixture.
func (f *fixture) recorded(dir string) string {
	rel, _ := filepath.Rel(f.env.Project, dir)
	return filepath.ToSlash(rel)
}

func TestMissingSkillListsWhatIsThere(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  badSkillMD("beta"),
	})
	in := lenientInstaller(f)
	for name, find := range map[string]func(only []string) error{
		"Add": func(only []string) error {
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex"), Skills: only})
			return err
		},
		"Find": func(only []string) error {
			_, err := in.Find(t.Context(), FindRequest{Source: repo, Skills: only})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := find([]string{"alpha", "gamma", "skills/delta"})
			var missing *MissingSkillsError
			if !errors.As(err, &missing) || !errors.Is(err, ErrInvalidSource) {
				t.Fatalf("%s(gamma) = %v, want a MissingSkillsError", name, err)
			}
			if diff := cmp.Diff([]string{"gamma", "skills/delta"}, missing.Missing); diff != "" {
				t.Errorf("Missing (-want +got):\n%s", diff)
			}
			want := []SourceSkill{
				{Source: repo, Name: "alpha", Path: "skills/alpha", Description: "the alpha skill"},
				{Source: repo, Name: "beta", Path: "skills/beta", Description: strings.Repeat("x", 1100),
					Problem: "breaks the Agent Skills specification, though agents load it: Description exceeds 1024 character limit (1100 chars)",
					Spec:    "Description exceeds 1024 character limit (1100 chars)"},
			}
			if diff := cmp.Diff(want, missing.Available); diff != "" {
				t.Errorf("Available (-want +got):\n%s", diff)
			}
			if !strings.Contains(err.Error(), "it holds 2: alpha, beta") {
				t.Errorf("error = %q, want the names it holds", err)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(f.env.Project, ".agents")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused add left .agents: %v", err)
	}
}
