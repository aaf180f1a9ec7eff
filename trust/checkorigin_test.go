package trust_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// countingMaterializer counts the skills it is asked to materialize.
type countingMaterializer struct{ n atomic.Int32 }

func (c *countingMaterializer) Materialize(context.Context, skill.Skill) (string, error) {
	c.n.Add(1)
	return "", errors.New("not materialized in this test")
}

// Rule 2: CheckOrigin is the policy's check of a skill's origin alone:
// it refuses what Materialize would refuse first, names the skill, and
// neither materializes nor reads anything.
func TestCheckOrigin(t *testing.T) {
	p := mustPolicy(t, "version: 1\nsources:\n  allow: [\"github:acme/**\"]\n")
	next := &countingMaterializer{}
	m := trust.NewMaterializer(next, trust.NewChecker(p))
	if _, ok := any(m).(skill.OriginChecker); !ok {
		t.Fatal("*trust.Materializer is not a skill.OriginChecker")
	}
	err := m.CheckOrigin(skill.Dir(t.TempDir()))
	var re *trust.RefusedError
	if !errors.Is(err, trust.ErrRefused) || !errors.As(err, &re) || len(re.Refusals) != 1 || re.Refusals[0].Rule.Name != "sources.allow" || re.Refusals[0].Key == "" {
		t.Errorf("CheckOrigin(a folder) = %v; want a refusal by sources.allow naming the skill", err)
	}
	if err := m.CheckOrigin(skill.Skill{Key: "Not_A_Runtime.Name", Source: skill.PathSource{Path: t.TempDir()}}); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("CheckOrigin(a key that is no runtime name) = %v; want the policy's refusal", err)
	}
	if n := next.n.Load(); n != 0 {
		t.Errorf("CheckOrigin materialized %d skills", n)
	}
	if err := trust.NewMaterializer(next, nil).CheckOrigin(skill.Dir(t.TempDir())); err != nil {
		t.Errorf("CheckOrigin with the zero policy = %v; want nil", err)
	}
}
