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
func BenchmarkAdd200(b *testing.B) { benchmarkAdd(b, 200) }

// BenchmarkAdd2000 is BenchmarkAdd200 with 2,000 skills.
func BenchmarkAdd2000(b *testing.B) { benchmarkAdd(b, 2000) }

// BenchmarkAdd10000 is BenchmarkAdd200 with 10,000 skills.
func BenchmarkAdd10000(b *testing.B) { benchmarkAdd(b, 10000) }

// benchmarkAdd installs n one-file skills from a folder into a fresh
// project for claude-code and codex on each round.
func benchmarkAdd(b *testing.B, n int) {
	base := b.TempDir()
	src := benchSkills(b, base, n)
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache")))
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, fmt.Sprintf("p%d", i)), Getenv: func(string) string { return "" }}
		os.MkdirAll(env.Project, 0o755)
		in := New(env, WithCache(c), WithLockDir(filepath.Join(base, "locks")))
		b.StartTimer()
		if _, err := in.Add(b.Context(), AddRequest{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(env.Project)
		b.StartTimer()
	}
}

// benchSkills makes n one-file skills under base/skills, as
// bench/installcmp does, and returns that folder.
func benchSkills(b *testing.B, base string, n int) string {
	b.Helper()
	src := filepath.Join(base, "skills")
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		if err := os.MkdirAll(filepath.Join(src, name), 0o755); err != nil {
			b.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs.\n---\n# %s\n\nStep one, step two.\n", name, i, name)
		if err := os.WriteFile(filepath.Join(src, name, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return src
}

// BenchmarkOps10000 times List, Verify and a Sync with nothing to do of
// 10,000 skills installed for claude-code and codex, as bench/installcmp
// -ops does through the command.
func BenchmarkOps10000(b *testing.B) {
	base := b.TempDir()
	src := benchSkills(b, base, 10000)
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "p"), Getenv: func(string) string { return "" }}
	os.MkdirAll(env.Project, 0o755)
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache")))
	in := New(env, WithCache(c), WithLockDir(filepath.Join(base, "locks")))
	if _, err := in.Add(b.Context(), AddRequest{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
		b.Fatal(err)
	}
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			if _, err := in.List(b.Context(), ListRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if bad, err := in.Verify(b.Context()); err != nil || len(bad) > 0 {
				b.Fatal(bad, err)
			}
		}
	})
	b.Run("sync", func(b *testing.B) {
		for b.Loop() {
			ch, err := in.Sync(b.Context(), SyncRequest{})
			if err != nil || Changed(ch) {
				b.Fatal(err)
			}
		}
	})
}
