package trust_test

import (
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/skilltest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// The skills and agents of these tests, shared with the root package's.
var (
	skillMD  = skilltest.SkillMD
	skillDir = skilltest.Dir
	newAgent = skilltest.NewAgent
	keys     = skilltest.Keys
)

// withPolicy is the option of an agent that enforces p, with a private
// cache.
func withPolicy(t testing.TB, p *policy.Policy, opts ...trust.Option) adaptor.Option {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	return adaptor.WithSkillMaterializer(trust.NewMaterializer(m, trust.NewChecker(p, opts...)))
}
