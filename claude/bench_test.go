package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillSet returns n inline skills, each with a SKILL.md only.
func skillSet(n int) []skill.Skill {
	var out []skill.Skill
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		out = append(out, skill.Inline(name, fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\nDo %s.\n", name, name, name)))
	}
	return out
}

// resolve200 materializes 200 skills into root as the root package does
// and returns them as a driver sees them.
func resolve200(b *testing.B, root string) driver.ResolvedSkills {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root))
	var dirs []string
	for _, s := range skillSet(200) {
		dir, err := m.Materialize(b.Context(), s)
		if err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return resolved(b, dirs...)
}

// BenchmarkMount200Warm is the per-run cost of a mount that exists: the
// check that it holds exactly the set's links.
func BenchmarkMount200Warm(b *testing.B) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	if _, err := mountNow(root, rs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := mountNow(root, rs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMount200Cold builds a new mount of 200 skills each time.
func BenchmarkMount200Cold(b *testing.B) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(filepath.Join(root, "mounts"))
		b.StartTimer()
		if _, err := mountNow(root, rs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShadowCheck200 is the check for user and project skills of the
// same names, when there are none.
func BenchmarkShadowCheck200(b *testing.B) {
	root := cachetest.Root(b)
	rs := resolve200(b, root)
	m, err := mountNow(root, rs)
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(b.TempDir(), "a", "b", "c")
	os.MkdirAll(ws, 0o755)
	for b.Loop() {
		if err := checkShadows(b.Context(), rs, m, ws, filepath.Join(b.TempDir(), "skills")); err != nil {
			b.Fatal(err)
		}
	}
}
