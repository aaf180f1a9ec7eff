package codex_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealHomeUnderTheAgentsCache: the managed home of a run sits under
// the root of the cache the Agent materialized its skills in, whatever
// the driver's own CacheRoot, unset (its default is elsewhere) or another
// folder.
func TestRealHomeUnderTheAgentsCache(t *testing.T) {
	elsewhere := cachetest.Root(t)
	t.Setenv(skill.SkillCacheRootEnv, elsewhere)
	for name, configured := range map[string]string{"unset": "", "another folder": cachetest.Root(t)} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("done")))
			c := r.config()
			c.CacheRoot = configured
			agent := clitest.NewAgent(codex.Driver(c), r.cache, r.workspace,
				adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
			if _, err := agent.Run(clitest.RunCtx(t), "hello"); err != nil {
				t.Fatal(err)
			}
			if homes := r.homes(t); len(homes) != 1 {
				t.Errorf("homes under the Agent's cache %s = %v, want one", r.cache, homes)
			}
			for _, other := range []string{elsewhere, configured} {
				if other == "" {
					continue
				}
				if _, err := os.Stat(filepath.Join(other, "homes")); err == nil {
					t.Errorf("a home was made under %s, not the Agent's cache %s", other, r.cache)
				}
			}
		})
	}
}

// homes lists the codex folders under the rig's cache root, staging and
// leases left out.
func (r *rig) homes(t *testing.T) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(filepath.Join(r.cache, "homes", "codex"))
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") {
			out = append(out, filepath.Join(r.cache, "homes", "codex", e.Name()))
		}
	}
	return out
}
