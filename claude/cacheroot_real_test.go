package claude_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealMountUnderTheAgentsCache: the mount of a run sits under the
// root of the cache the Agent materialized its skills in, whatever the
// driver's own CacheRoot, unset (its default is elsewhere) or another
// folder.
func TestRealMountUnderTheAgentsCache(t *testing.T) {
	elsewhere := cachetest.Root(t)
	t.Setenv(skill.SkillCacheRootEnv, elsewhere)
	for name, configured := range map[string]string{"unset": "", "another folder": cachetest.Root(t)} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, modeltest.Always(modeltest.Text("done")))
			c := r.config()
			c.CacheRoot = configured
			agent := clitest.NewAgent(claude.Driver(c), r.cache, r.workspace,
				adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
			if _, err := agent.Run(clitest.RunCtx(t), "hello"); err != nil {
				t.Fatal(err)
			}
			if mounts := r.mounts(t); len(mounts) != 1 {
				t.Errorf("mounts under the Agent's cache %s = %v, want one", r.cache, mounts)
			}
			for _, other := range []string{elsewhere, configured} {
				if other == "" {
					continue
				}
				if _, err := os.Stat(filepath.Join(other, "mounts")); err == nil {
					t.Errorf("a mount was made under %s, not the Agent's cache %s", other, r.cache)
				}
			}
		})
	}
}

// wrappedCache is a host's materializer around the cache that forwards
// its Root, as adaptor.WithSkillMaterializer asks.
type wrappedCache struct{ cache *skill.Cache }

func (w wrappedCache) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	return w.cache.Materialize(ctx, s)
}

func (w wrappedCache) Root() string { return w.cache.Root() }

// TestRealMountUnderAWrappedCache: a materializer that wraps the cache
// keeps the run's mount under the skills' own root, not under the
// driver's default root.
func TestRealMountUnderAWrappedCache(t *testing.T) {
	elsewhere := cachetest.Root(t)
	t.Setenv(skill.SkillCacheRootEnv, elsewhere)
	r := newRig(t, modeltest.Always(modeltest.Text("done")))
	c := r.config()
	c.CacheRoot = ""
	agent := clitest.NewAgent(claude.Driver(c), r.cache, r.workspace,
		adaptor.WithSkillMaterializer(wrappedCache{skill.NewCache(skill.WithSkillCacheRoot(r.cache))}),
		adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	if _, err := agent.Run(clitest.RunCtx(t), "hello"); err != nil {
		t.Fatal(err)
	}
	if mounts := r.mounts(t); len(mounts) != 1 {
		t.Errorf("mounts under the wrapped cache's root %s = %v, want one", r.cache, mounts)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "mounts")); err == nil {
		t.Errorf("a mount was made under the default root %s, not the wrapped cache's %s", elsewhere, r.cache)
	}
}

// mounts lists the claude folders under the rig's cache root, staging and
// leases left out.
func (r *rig) mounts(t *testing.T) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(filepath.Join(r.cache, "mounts", "claude"))
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") {
			out = append(out, filepath.Join(r.cache, "mounts", "claude", e.Name()))
		}
	}
	return out
}
