package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestGitSkillsMovedIntoCache adds skills of a git source whose folders
// nest (a skill named in another's folder) beside one that does not: the
// one that does not is moved from the extraction into the skill cache,
// the nested ones are copied, and each canonical copy and cached tree
// holds its skill's files, whichever way it went. Nothing of the
// extraction is left in the cache's staging area.
func TestGitSkillsMovedIntoCache(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo, map[string]string{
		"README.md":                    "# skills\n",
		"skills/outer/SKILL.md":        skillMD("outer"),
		"skills/outer/inner/SKILL.md":  skillMD("inner"),
		"skills/plain/SKILL.md":        skillMD("plain"),
		"skills/plain/scripts/run.sh":  "#!/bin/sh\necho plain\n",
		"skills/plain/references/a.md": "notes\n",
		"skills/other/SKILL.md":        skillMD("other"),
		"skills/other/references/b.md": "more notes\n",
	})
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
	root := cachetest.Root(t)
	in := f.remoteInstaller(t, root)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"),
		Skills: []string{"outer", "skills/outer/inner", "plain", "other"}}); err != nil {
		t.Fatal(err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	c := skill.NewCache(skill.WithSkillCacheRoot(root))
	for name, want := range map[string][]string{
		"outer": {"SKILL.md", "inner/SKILL.md"},
		"inner": {"SKILL.md"},
		"plain": {"SKILL.md", "references/a.md", "scripts/run.sh"},
		"other": {"SKILL.md", "references/b.md"},
	} {
		e := lock.Skills[name]
		if e == nil {
			t.Errorf("%s is not in the lock file", name)
			continue
		}
		canonical := filepath.Join(f.env.Project, ".agents", "skills", name)
		if got := treeFileList(t, canonical); !slices.Equal(got, want) {
			t.Errorf("canonical copy of %s holds %q, want %q", name, got, want)
		}
		if d, err := skill.ContentDigest(t.Context(), canonical); err != nil || d != e.Digest {
			t.Errorf("ContentDigest(canonical copy of %s) = %s, %v; the lock file records %s", name, d, err, e.Digest)
		}
		dir, ok := skillcache.Lookup(t.Context(), c, e.Digest, name)
		if !ok {
			t.Errorf("the skill cache holds no intact tree of %s (%s)", name, e.Digest)
			continue
		}
		if got := treeFileList(t, dir); !slices.Equal(got, want) {
			t.Errorf("cached tree of %s holds %q, want %q", name, got, want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".tmp")); len(entries) != 0 {
		t.Errorf("the add left %d entries in the cache's staging area", len(entries))
	}
}

// treeFileList lists the regular files under dir, slash-separated, sorted.
func treeFileList(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGitSourceFindsWhatItsFolderHolds lists the skills of repositories
// over git, whose archive is extracted into the skill cache with only
// what discovery reads (a tar, listed first), and from their checkout, a
// folder read whole: both find the same skills, with the same plugins
// and nesting, whatever the files beside the skills (a marketplace, a
// plugin folder the marketplace leaves out, a skill nested in another,
// a root with one folder and files outside it).
func TestGitSourceFindsWhatItsFolderHolds(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	for name, files := range map[string]map[string]string{
		"marketplace": withFiles(officialMarketplace, map[string]string{
			"README.md":                       "# plugins\n",
			"docs/guide.md":                   "a guide\n",
			"plugins/hookify/src/main.go":     "package main\n",
			"plugins/receipts/README.md":      "receipts\n",
			"external_plugins/discord/go.mod": "module discord\n",
		}),
		"nested and deep": {
			"docs/a.md":                         "a\n",
			"skills/outer/SKILL.md":             skillMD("outer"),
			"skills/outer/inner/SKILL.md":       skillMD("inner"),
			"tools/x/skills/beta/SKILL.md":      skillMD("beta"),
			"tools/x/skills/beta/scripts/go.sh": "#!/bin/sh\n",
			"a/b/c/d/e/f/deep/SKILL.md":         skillMD("deep"),
		},
		"one folder at the root": {
			"kit/skills/alpha/SKILL.md": skillMD("alpha"),
			"kit/docs/readme.md":        "docs\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			repo := filepath.Join(t.TempDir(), "repo")
			gitRepo(t, repo, files)
			in := f.remoteInstaller(t, cachetest.Root(t))
			overGit, err := in.Contents(t.Context(), FindRequest{Source: "git+file://" + filepath.ToSlash(repo) + "#ref=main"})
			if err != nil {
				t.Fatal(err)
			}
			inFolder, err := in.Contents(t.Context(), FindRequest{Source: repo})
			if err != nil {
				t.Fatal(err)
			}
			strip := func(ss []SourceSkill) []SourceSkill {
				out := slices.Clone(ss)
				for i := range out {
					out[i].Source = ""
				}
				return out
			}
			if diff := cmp.Diff(strip(inFolder), strip(overGit)); diff != "" {
				t.Errorf("Contents over git differs from the folder's (-folder +git):\n%s", diff)
			}
		})
	}
}
