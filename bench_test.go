package adaptor_test

import (
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/skilltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// mixedSkills returns 200 skills: 50 each of inline, FS, archive and
// folder, each with a SKILL.md and two reference files.
func mixedSkills(b *testing.B) []skill.Ref { return skilltest.Mixed(b) }

// BenchmarkResolve200Cold resolves 200 mixed skills into an empty cache.
func BenchmarkResolve200Cold(b *testing.B) {
	refs := mixedSkills(b)
	for b.Loop() {
		m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(b)))
		agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(refs...))
		if _, err := agent.Inspect(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve200Warm resolves the same 200 skills again and again,
// as every run after the first does. The cache's trees are first let out
// of the racy window in which lookups re-hash what was just published
// (package cache, rule 4), as they are for any run that starts more than
// 50 ms after the one that published them.
func BenchmarkResolve200Warm(b *testing.B) {
	refs := mixedSkills(b)
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(b)))
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(refs...))
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
