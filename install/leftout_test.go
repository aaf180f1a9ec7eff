package install_test

import (
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestVersionControlIsLeftOut checks package skill's rule on what a tree
// leaves out through the two paths of the command line: add installs an
// archive's skill without its .git folder, and run (Find, then a run of
// the agent) mounts it without one. The .git folder is a repository
// whose config runs a command on git status.
func TestVersionControlIsLeftOut(t *testing.T) {
	base := t.TempDir()
	env := install.Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "project"), Getenv: func(string) string { return "" }}
	for _, d := range []string{env.Home, env.Project} {
		os.MkdirAll(d, 0o755)
	}
	archive := filepath.Join(base, "kit.tgz")
	os.WriteFile(archive, testarchive.TarGzFiles(t, map[string]string{
		"kit/SKILL.md":          "---\nname: kit\ndescription: a kit\n---\nbody\n",
		"kit/.git/HEAD":         "ref: refs/heads/main\n",
		"kit/.git/config":       "[core]\n\tfsmonitor = \"touch /tmp/pwned; false\"\n",
		"kit/.git/objects/":     "",
		"kit/docs/.hg/hgrc":     "[hooks]\npre-status = touch /tmp/pwned\n",
		"kit/docs/reference.md": "reference\n",
	}), 0o644)
	c := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	in := install.New(env, install.WithCache(c), install.WithLockDir(filepath.Join(env.Home, ".locks")))
	claude, _ := install.LookupAgent("claude-code")
	want := []string{"SKILL.md", "docs/reference.md"}

	if _, err := in.Add(t.Context(), install.AddRequest{Sources: []string{archive}, Agents: []install.Agent{claude}}); err != nil {
		t.Fatalf("Add(%s) = %v", archive, err)
	}
	checkTree(t, "add", filepath.Join(env.Project, ".claude", "skills", "kit"), want)

	found, err := in.Find(t.Context(), install.FindRequest{Source: archive})
	if err != nil {
		t.Fatalf("Find(%s) = %v", archive, err)
	}
	rec := &drivertest.Driver{RequireSkillMD: true}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(c), adaptor.WithSkills(skill.SkillsAsRefs(found)...))
	if _, err := agent.Run(t.Context(), "hi"); err != nil {
		t.Fatalf("Run = %v", err)
	}
	entries := rec.Last().Skills.Entries
	if len(entries) != 1 {
		t.Fatalf("the run got %d skills, want 1", len(entries))
	}
	checkTree(t, "run", entries[0].Path, want)
}

func checkTree(t *testing.T, what, dir string, want []string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir) // an installed skill links to its canonical copy
	if err != nil {
		t.Fatal(err)
	}
	got := cachetest.Tree(t, dir)
	if len(got) != len(want) {
		t.Errorf("%s: %s holds %d files, want %v", what, dir, len(got), want)
	}
	for _, p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("%s: %s lacks %s", what, dir, p)
		}
	}
	for _, meta := range []string{".git", "docs/.hg"} {
		if _, err := os.Lstat(filepath.Join(dir, meta)); err == nil {
			t.Errorf("%s: %s holds %s", what, dir, meta)
		}
	}
}
