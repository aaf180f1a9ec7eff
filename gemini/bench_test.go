package gemini

import (
	"fmt"
	"os"
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
	var dirs []string
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		dir, err := m.Materialize(b.Context(), skill.Inline(name, cachetest.SkillMD(name, "the "+name+" skill", "Do "+name+".")))
		if err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return resolved(dirs...)
}

// benchHome prepares the overlay home of rs under root for a user home
// with settings and a tmp folder, and releases it.
func benchHome(b *testing.B, root, user string, rs driver.ResolvedSkills) {
	_, release, err := home(b.Context(), root, rs, user, true)
	if err != nil {
		b.Fatal(err)
	}
	release()
}

func userHome(b *testing.B) string {
	user := b.TempDir()
	os.MkdirAll(filepath.Join(user, ".gemini", "tmp"), 0o755)
	os.WriteFile(filepath.Join(user, ".gemini", "settings.json"), []byte("{}"), 0o600)
	return user
}

// BenchmarkHome200Warm is the per-run cost of an overlay home that
// exists: its links brought up to date with the user's entries and the
// set's 200 skills.
func BenchmarkHome200Warm(b *testing.B) {
	root, user := cachetest.Root(b), userHome(b)
	rs := resolve200(b, root)
	benchHome(b, root, user, rs)
	for b.Loop() {
		benchHome(b, root, user, rs)
	}
}

// BenchmarkHome200Cold builds a new overlay home of 200 skills each time.
func BenchmarkHome200Cold(b *testing.B) {
	root, user := cachetest.Root(b), userHome(b)
	rs := resolve200(b, root)
	for b.Loop() {
		b.StopTimer()
		cachetest.Writable(filepath.Join(root, "homes"))
		os.RemoveAll(filepath.Join(root, "homes"))
		b.StartTimer()
		benchHome(b, root, user, rs)
	}
}

// BenchmarkShadowCheck200 is the check for user and workspace skills
// under the names of 200 mounted ones, when there are none: Gemini CLI's
// skill folders listed.
func BenchmarkShadowCheck200(b *testing.B) {
	root, user := cachetest.Root(b), userHome(b)
	rs := resolve200(b, root)
	dirs := otherSkillsDirs(b.TempDir(), user)
	for b.Loop() {
		if err := checkShadows(b.Context(), rs, dirs); err != nil {
			b.Fatal(err)
		}
	}
}
