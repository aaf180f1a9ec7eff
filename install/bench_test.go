package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkTrustOps300 times, with the trust checks on (the zero
// policy, as agentskills runs them), List, Verify with CheckTrust (as
// agentskills verify), and a frozen and a plain Sync with nothing to do
// of 300 skills installed for claude-code and codex, each reading the
// audit reports the skill cache keeps; and, for comparison, Verify with
// CheckTrust on a skill cache that keeps none (every tree audited, as
// before reports were kept).
func BenchmarkTrustOps300(b *testing.B) {
	base := b.TempDir()
	src := benchSkills(b, base, 300)
	writeInstructions(b, src)
	agents := []Agent{}
	for _, id := range []string{"claude-code", "codex"} {
		a, _ := LookupAgent(id)
		agents = append(agents, a)
	}
	env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "p"), Getenv: func(string) string { return "" }}
	os.MkdirAll(env.Project, 0o755)
	installer := func(root string) *Installer {
		c := skill.NewCache(skill.WithSkillCacheRoot(root))
		return New(env, WithCache(c), WithLockDir(filepath.Join(base, "locks")), WithTrust(nil, Trust{}))
	}
	root := filepath.Join(base, "cache")
	if _, err := installer(root).Add(b.Context(), AddRequest{Sources: []string{src}, Agents: agents}); err != nil {
		b.Fatal(err)
	}
	verify := func(b *testing.B, in *Installer) {
		if bad, err := in.Verify(b.Context()); err != nil || len(bad) > 0 {
			b.Fatal(bad, err)
		}
		if refused, err := in.CheckTrust(b.Context(), CheckTrustRequest{Rehash: true}); err != nil || len(refused) > 0 {
			b.Fatal(refused, err)
		}
	}
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			if _, err := installer(root).List(b.Context(), ListRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			verify(b, installer(root))
		}
	})
	b.Run("verify-nothing-kept", func(b *testing.B) {
		for b.Loop() {
			empty, err := os.MkdirTemp(base, "empty-cache-")
			if err != nil {
				b.Fatal(err)
			}
			verify(b, installer(empty))
		}
	})
	for _, frozen := range []bool{true, false} {
		b.Run(map[bool]string{true: "sync-frozen", false: "sync"}[frozen], func(b *testing.B) {
			for b.Loop() {
				ch, err := installer(root).Sync(b.Context(), SyncRequest{Frozen: frozen})
				if err != nil || Changed(ch) {
					b.Fatal(err)
				}
			}
		})
	}
}

// writeInstructions gives each skill under src a SKILL.md of some 4 KiB
// of ordinary instructions and a script, the size of a published
// skill's, for the audit to read.
func writeInstructions(b *testing.B, src string) {
	b.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		var md strings.Builder
		fmt.Fprintf(&md, "---\nname: %s\ndescription: benchmark skill %s. Use when measuring checks.\n---\n# %s\n\n", name, name, name)
		for i := 0; md.Len() < 4<<10; i++ {
			fmt.Fprintf(&md, "%d. Read the project's README and the files under `src/`; run `go test ./...` and fix what fails before you commit.\n", i+1)
		}
		script := "#!/bin/sh\nset -eu\n# Fetch the fixtures and check them.\ncurl -fsSL -o fixtures.json https://example.org/fixtures.json\njq '.items | length' fixtures.json\n"
		os.MkdirAll(filepath.Join(src, name, "scripts"), 0o755)
		if err := os.WriteFile(filepath.Join(src, name, "SKILL.md"), []byte(md.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name, "scripts", "check.sh"), []byte(script), 0o755); err != nil {
			b.Fatal(err)
		}
	}
}
