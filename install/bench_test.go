package install

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
)

// BenchmarkAdd200 installs 200 one-file skills from a folder into a fresh
// project for claude-code (links) and codex (the canonical copy), as
// bench/installcmp does, with the default checker.
func BenchmarkAdd200(b *testing.B) {
	base := b.TempDir()
	src := filepath.Join(base, "skills")
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		os.MkdirAll(filepath.Join(src, name), 0o755)
		md := fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs.\n---\n# %s\n\nStep one, step two.\n", name, i, name)
		os.WriteFile(filepath.Join(src, name, "SKILL.md"), []byte(md), 0o644)
	}
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache")))
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, fmt.Sprintf("p%d", i)), Getenv: func(string) string { return "" }}
		os.MkdirAll(env.Project, 0o755)
		in := New(env, WithCache(c), WithLockDir(filepath.Join(base, "locks")))
		b.StartTimer()
		if _, err := in.Add(b.Context(), Request{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
			b.Fatal(err)
		}
	}
}
