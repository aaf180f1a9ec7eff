package trust_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// BenchmarkMaterializeSetWarm materializes a warm set of 200 and 2,000
// inline skills, as every run after the first does: "cache" with the
// skill cache alone, "zero" through a Materializer with the zero policy,
// "policy" through one with a policy that has rules of every kind that
// applies to inline skills (sources, an audit threshold, accepted
// findings) and allowed risks; "fresh" as "policy", with a new cache and
// materializer for each call, as the first run of a new process finds
// the cache of the ones before ("cache-fresh": the skill cache alone,
// new for each call). What "zero" and "policy" cost beyond
// "cache" is the trust engine's part of a warm run.
func BenchmarkMaterializeSetWarm(b *testing.B) {
	for _, kind := range []string{"cache", "zero", "policy", "cache-fresh", "fresh"} {
		for _, n := range []int{200, 2000} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				refs, _ := clitest.NumberedSkills(n)
				skills := make([]skill.Skill, len(refs))
				for i, r := range refs {
					skills[i] = r.(skill.Skill)
				}
				root := cachetest.Root(b)
				p, err := policy.Parse([]byte("version: 1\nsources:\n  allow: [\"github:acme/**\", \"oci:ghcr.io/acme/*\"]\naudit:\n  fail_on: medium\n  accept:\n    - rule: zero-width\n      skill: skill-0001\n      reason: ours\n"), filepath.Join(b.TempDir(), policy.FileName))
				if err != nil {
					b.Fatal(err)
				}
				newMaterializer := func() setMaterializer {
					c := skill.NewCache(skill.WithSkillCacheRoot(root))
					switch kind {
					case "zero":
						return trust.NewMaterializer(c, nil)
					case "policy", "fresh":
						return trust.NewMaterializer(c, trust.NewChecker(p, trust.AllowRisks("download-exec")))
					}
					return c
				}
				m := newMaterializer()
				for range 2 {
					if _, _, err := m.MaterializeSet(b.Context(), skills); err != nil {
						b.Fatal(err)
					}
					cachetest.Settle()
				}
				for b.Loop() {
					if kind == "fresh" || kind == "cache-fresh" {
						m = newMaterializer()
					}
					if _, _, err := m.MaterializeSet(b.Context(), skills); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// setMaterializer materializes a set of skills at once.
type setMaterializer interface {
	MaterializeSet(ctx context.Context, skills []skill.Skill) (dirs, digests []string, err error)
}
