package trust_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

func skillMD(name string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: the %s skill\n---\n# %s\n", name, name, name)
}

// skillDir makes a skill folder named name under a new temp folder.
func skillDir(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(name)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newAgent returns an agent on a recording driver, with a private cache.
func newAgent(t testing.TB, opts ...adaptor.Option) (*adaptor.Agent, *drivertest.Driver) {
	rec := &drivertest.Driver{RequireSkillMD: true}
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	return adaptor.New(rec, append([]adaptor.Option{adaptor.WithSkillMaterializer(m)}, opts...)...), rec
}

// withPolicy is the option of an agent that enforces p, with a private
// cache.
func withPolicy(t testing.TB, p *policy.Policy, opts ...trust.Option) adaptor.Option {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	return adaptor.WithSkillMaterializer(trust.NewMaterializer(m, trust.NewChecker(p, opts...)))
}

func keys(rs driver.ResolvedSkills) []string {
	var out []string
	for _, e := range rs.Entries {
		out = append(out, e.Key)
	}
	return out
}
