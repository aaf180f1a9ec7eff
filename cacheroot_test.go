package adaptor_test

import (
	"context"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// materializerFunc is a materializer that is not a cache.
type materializerFunc func(ctx context.Context, s skill.Skill) (string, error)

func (f materializerFunc) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	return f(ctx, s)
}

// wrappedCache is a materializer of a host's that wraps a cache and
// forwards its Root, as the Agent's doc asks.
type wrappedCache struct{ cache *skill.Cache }

func (w wrappedCache) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	return w.cache.Materialize(ctx, s)
}

func (w wrappedCache) Root() string { return w.cache.Root() }

// TestRequestCarriesTheCacheRoot: the request names the root of the
// cache the skills were materialized in, so a driver keeps its folders
// there, also when a host's materializer wraps the cache; a
// materializer that is no cache leaves it to the driver.
func TestRequestCarriesTheCacheRoot(t *testing.T) {
	root := cachetest.Root(t)
	env := cachetest.Root(t)
	t.Setenv(skill.SkillCacheRootEnv, env)
	dir := skillDir(t, "review")
	tests := []struct {
		name string
		opts []adaptor.Option
		want string
	}{
		{name: "cache with a root", opts: []adaptor.Option{adaptor.WithSkillMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)))}, want: root},
		{name: "default materializer", want: env},
		{name: "wrapped cache", opts: []adaptor.Option{adaptor.WithSkillMaterializer(wrappedCache{skill.NewCache(skill.WithSkillCacheRoot(root))})}, want: root},
		{name: "other materializer", opts: []adaptor.Option{adaptor.WithSkillMaterializer(materializerFunc(func(context.Context, skill.Skill) (string, error) {
			return dir, nil
		}))}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &drivertest.Driver{}
			agent := adaptor.New(rec, append(tt.opts, adaptor.WithSkills(skill.Inline("tone", skillMD("tone"))))...)
			if _, err := agent.Run(t.Context(), "hello"); err != nil {
				t.Fatal(err)
			}
			got := rec.Last().CacheRoot
			if tt.want != "" {
				if abs, err := filepath.Abs(tt.want); err == nil {
					tt.want = abs
				}
			}
			if got != tt.want {
				t.Errorf("Request.CacheRoot = %q, want %q", got, tt.want)
			}
		})
	}
}
