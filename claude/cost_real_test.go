package claude_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRealCostOfAResumedRun runs Claude Code twice in one session: the
// second run's total_cost_usd is the session's total, both runs'. The
// result reports each run's own cost, like its usage, and the session's
// total apart.
func TestRealCostOfAResumedRun(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.Always(modeltest.Text("noted")))
	review := skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))
	agent := r.agent(t, r.config(), adaptor.WithSkills(review))
	th := agent.Thread("pr-1", adaptor.ResumeOnly())
	var runs []*adaptor.Result
	for _, prompt := range []string{"first", "second", "third"} {
		res, err := th.Run(clitest.RunCtx(t), prompt)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, res)
	}
	show := func(v *float64) string {
		if v == nil {
			return "nil"
		}
		return fmt.Sprint(*v)
	}
	var total float64
	for i, res := range runs {
		if res.SessionID != runs[0].SessionID {
			t.Fatalf("run %d has session %s, want %s resumed", i+1, res.SessionID, runs[0].SessionID)
		}
		if res.CostUSD == nil || *res.CostUSD <= 0 || res.SessionCostUSD == nil || res.Usage == nil {
			t.Fatalf("run %d: CostUSD %s, SessionCostUSD %s, Usage %+v; want all", i+1, show(res.CostUSD), show(res.SessionCostUSD), res.Usage)
		}
		// Each call of the stand-in costs the same: every run costs what
		// the first did, and uses as many tokens.
		if math.Abs(*res.CostUSD-*runs[0].CostUSD) > 1e-9 || *res.Usage != *runs[0].Usage {
			t.Errorf("run %d: CostUSD %s, Usage %+v; want the first run's %s, %+v", i+1, show(res.CostUSD), res.Usage, show(runs[0].CostUSD), runs[0].Usage)
		}
		total += *res.CostUSD
		if math.Abs(*res.SessionCostUSD-total) > 1e-9 {
			t.Errorf("run %d: SessionCostUSD %s, want %v, the runs' costs so far", i+1, show(res.SessionCostUSD), total)
		}
	}
}

// TestRealWithResumeChecksTheSession resumes a session with WithResume:
// with the session's skills it goes on; with another skill it is refused
// before Claude Code starts.
func TestRealWithResumeChecksTheSession(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.Always(modeltest.Text("noted")))
	review := skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))
	agent := r.agent(t, r.config(), adaptor.WithSkills(review))
	first, err := agent.Run(clitest.RunCtx(t), "first")
	if err != nil {
		t.Fatal(err)
	}
	again, err := agent.Run(clitest.RunCtx(t), "second", adaptor.WithResume(first.SessionID))
	if err != nil || again.SessionID != first.SessionID {
		t.Fatalf("resume with the same skills = %+v, %v; want session %s", again, err, first.SessionID)
	}
	before := len(r.server.Requests())
	_, err = agent.Run(clitest.RunCtx(t), "third", adaptor.WithResume(first.SessionID),
		adaptor.WithSkills(skill.Inline("extra", cachetest.SkillMD("extra", "More.", "E"))))
	if !errors.Is(err, adaptor.ErrThreadChanged) {
		t.Fatalf("resume with another skill = %v, want ErrThreadChanged", err)
	}
	if n := len(r.server.Requests()); n != before {
		t.Errorf("the refused resume reached the model (%d requests, want %d)", n, before)
	}
}
