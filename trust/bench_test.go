package trust_test

import (
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/skilltest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// BenchmarkResolve200WarmPolicy is BenchmarkResolve200Warm with a policy
// enforced: the audit of every tree is remembered by its content digest,
// and the set as clean (# Kept reports, rule 8), so a warm run adds a
// check of each skill's origin, not a lookup of its findings or an
// audit.
func BenchmarkResolve200WarmPolicy(b *testing.B) {
	refs := skilltest.Mixed(b)
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(b)))
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(trust.NewMaterializer(m, trust.NewChecker(new(policy.Policy)))), adaptor.WithSkills(refs...))
	if _, err := agent.Inspect(b.Context()); err != nil {
		b.Fatal(err)
	}
	cachetest.Settle()
	if _, err := agent.Inspect(b.Context()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := agent.Inspect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveColdPolicy resolves 200 skills (50 each of inline,
// fs.FS, tar.gz and folder, three files each) into an empty cache with a
// policy enforced, as a first run does: every tree is written and
// audited, none was kept.
func BenchmarkResolveColdPolicy(b *testing.B) {
	refs := skilltest.Mixed(b)
	for b.Loop() {
		m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(b)))
		agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(trust.NewMaterializer(m, trust.NewChecker(new(policy.Policy)))), adaptor.WithSkills(refs...))
		if _, err := agent.Inspect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
