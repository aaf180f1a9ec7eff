package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// BenchmarkAddRepository500 times a cold Add of every skill of a
// 500-skill repository (a fresh skill cache and project each time), as
// bench/repocmp does with the command: over git+file:// (the fetch, the
// reading of the pinned folder and the staging of the skills) and from
// its checkout, a folder.
func BenchmarkAddRepository500(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git:", err)
	}
	base := b.TempDir()
	repo := filepath.Join(base, "repo")
	for i := range 500 {
		name := fmt.Sprintf("skill-%03d", i)
		dir := filepath.Join(repo, "skills", name, "references")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs.\n---\n# %s\n\nStep one, step two.\n", name, i, name)
		os.WriteFile(filepath.Join(repo, "skills", name, "SKILL.md"), []byte(md), 0o644)
		os.WriteFile(filepath.Join(dir, "notes.md"), []byte(strings.Repeat("Notes: what to check, and in which order.\n", 30)), 0o644)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "uploadpack.allowFilter", "true"}, {"add", "-A"}, {"commit", "-q", "-m", "skills"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.org", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v: %s", args[0], err, out)
		}
	}
	b.Run("git", func(b *testing.B) { benchAdd(b, "git+file://"+filepath.ToSlash(repo)+"#ref=main") })
	b.Run("folder", func(b *testing.B) { benchAdd(b, repo) })
}

// benchAdd times cold Adds of src into claude-code and codex, each in a
// new project with a new skill cache.
func benchAdd(b *testing.B, src string) {
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	base := b.TempDir()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, fmt.Sprintf("p%d", i)), Getenv: func(string) string { return "" }}
		os.MkdirAll(env.Project, 0o755)
		c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, fmt.Sprintf("cache%d", i))))
		in := New(env, WithCache(c), WithLockDir(filepath.Join(base, fmt.Sprintf("locks%d", i))))
		b.StartTimer()
		if _, err := in.Add(b.Context(), AddRequest{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
			b.Fatal(err)
		}
	}
}
