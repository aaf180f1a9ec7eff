package qwen

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// resolve200 materializes 200 skills into root as the root package does
// and returns them as a driver sees them.
func resolve200(b *testing.B, root string) driver.ResolvedSkills {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root))
	var rs driver.ResolvedSkills
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		dir, err := m.Materialize(b.Context(), skill.Inline(name, fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\nDo %s.\n", name, name, name)))
		if err != nil {
			b.Fatal(err)
		}
		digest, err := skill.ContentDigest(b.Context(), dir)
		if err != nil {
			b.Fatal(err)
		}
		rs.Entries = append(rs.Entries, driver.ResolvedSkill{Key: name, RuntimeName: name, Path: dir, Digest: digest})
		rs.Fingerprint += digest[:8]
	}
	return rs
}

// BenchmarkMount200Warm is the per-run cost of a mount that exists (the
// check that it holds exactly the set's links) and of the run's
// system-defaults file.
func BenchmarkMount200Warm(b *testing.B) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	env := []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + filepath.Join(b.TempDir(), "none.json")}
	run := func() {
		dir, release, err := mount(context.Background(), root, rs)
		if err != nil {
			b.Fatal(err)
		}
		_, _, remove, err := writeDefaults(env, "linux", dir)
		if err != nil {
			b.Fatal(err)
		}
		remove()
		release()
	}
	run()
	for b.Loop() {
		run()
	}
}

// BenchmarkMount1Warm is BenchmarkMount200Warm for a set of one skill.
func BenchmarkMount1Warm(b *testing.B) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	rs.Entries = rs.Entries[:1]
	env := []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + filepath.Join(b.TempDir(), "none.json")}
	dir, release, err := mount(context.Background(), root, rs)
	if err != nil {
		b.Fatal(err)
	}
	release()
	for b.Loop() {
		dir, release, err = mount(context.Background(), root, rs)
		if err != nil {
			b.Fatal(err)
		}
		_, _, remove, err := writeDefaults(env, "linux", dir)
		if err != nil {
			b.Fatal(err)
		}
		remove()
		release()
	}
}
