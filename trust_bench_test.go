package adaptor_test

import (
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
)

// BenchmarkResolve200WarmPolicy is BenchmarkResolve200Warm with a policy
// enforced: the audit of every tree is remembered by its content digest,
// so a warm run adds a check of each skill's origin and a lookup of its
// findings, not an audit.
func BenchmarkResolve200WarmPolicy(b *testing.B) {
	refs := mixedSkills(b)
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(b)))
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(refs...), adaptor.WithPolicy(new(policy.Policy)))
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
