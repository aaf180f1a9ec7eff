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
	benchMountWarm(b, 200)
}

// BenchmarkMount1Warm is BenchmarkMount200Warm for a set of one skill.
func BenchmarkMount1Warm(b *testing.B) {
	benchMountWarm(b, 1)
}

func benchMountWarm(b *testing.B, n int) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	rs.Entries = rs.Entries[:n]
	env := []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + filepath.Join(b.TempDir(), "none.json")}
	run := func() {
		_, _, _, release, err := mount(context.Background(), root, rs, env, "linux", false)
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
	run()
	for b.Loop() {
		run()
	}
}

// BenchmarkShadowCheck200 is the check for user and project skills under
// the names of 200 mounted ones, when there are none: the user's and the
// project's settings read, and Qwen Code's skill folders listed.
func BenchmarkShadowCheck200(b *testing.B) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	home, ws := b.TempDir(), b.TempDir()
	env := []string{"HOME=" + home, "QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + filepath.Join(b.TempDir(), "none.json")}
	dir, _, listed, release, err := mount(context.Background(), root, rs, env, "linux", false)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	for b.Loop() {
		named, err := settingsDirs(env, ws)
		if err != nil {
			b.Fatal(err)
		}
		if err := checkShadows(b.Context(), rs, dir, otherSkillsDirs(env, ws, append(listed, named...))); err != nil {
			b.Fatal(err)
		}
	}
}
