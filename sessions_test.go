package adaptor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestWithResumeChecksRecordedSessions checks that WithResume follows the
// rule of "Thread compatibility": a session the agent's store knows is
// resumed only with its skills and workspace, whether a plain run or a
// thread started it; a session it does not know is not checked.
func TestWithResumeChecksRecordedSessions(t *testing.T) {
	review := skill.Inline("review", skillMD("review"))
	extra := skill.Inline("extra", skillMD("extra"))
	tests := []struct {
		name      string
		skills    []skill.Ref
		workspace string
		refused   string // what the error says; "" when the run resumes
	}{
		{"same skills and workspace", []skill.Ref{review}, "", ""},
		{"a skill added", []skill.Ref{review, extra}, "", "skills added: extra"},
		{"a skill changed", []skill.Ref{skill.Inline("review", skillMD("review")+"More.\n")}, "", "skills changed: review"},
		{"a skill removed", nil, "", "skills removed: review"},
		{"another workspace", []skill.Ref{review}, t.TempDir(), "workspace was"},
	}
	for _, started := range []string{"Agent.Run", "Thread.Run"} {
		for _, tt := range tests {
			t.Run(started+"/"+tt.name, func(t *testing.T) {
				agent, s, _ := threadAgent(t, nil)
				var first *adaptor.Result
				var err error
				if started == "Agent.Run" {
					first, err = agent.Run(t.Context(), "one", adaptor.WithSkills(review))
				} else {
					first, err = agent.Thread("chat").Run(t.Context(), "one", adaptor.WithSkills(review))
				}
				if err != nil {
					t.Fatal(err)
				}
				opts := []adaptor.CallOption{adaptor.WithResume(first.SessionID), adaptor.WithSkills(tt.skills...)}
				if tt.workspace != "" {
					opts = append(opts, adaptor.WithWorkspace(tt.workspace))
				}
				res, err := agent.Run(t.Context(), "two", opts...)
				if tt.refused == "" {
					if err != nil || res.SessionID != first.SessionID || s.resumes[len(s.resumes)-1] != first.SessionID {
						t.Fatalf("resume with the session's skills = %+v, %v; want session %s resumed", res, err, first.SessionID)
					}
					return
				}
				var changed *adaptor.ThreadChangedError
				if !errors.Is(err, adaptor.ErrThreadChanged) || !errors.As(err, &changed) || changed.SessionID != first.SessionID || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("resume = %v, want a *ThreadChangedError for %s saying %q", err, first.SessionID, tt.refused)
				}
				if len(s.resumes) != 1 {
					t.Errorf("the driver ran %d times, want once: the refused resume must not reach it", len(s.resumes))
				}
			})
		}
	}
}

// TestWithResumeOfAnUnknownSession checks the documented exception: a
// session the agent's store has no record of (started elsewhere, or by
// an agent with another store) is resumed without a check.
func TestWithResumeOfAnUnknownSession(t *testing.T) {
	rec := &drivertest.Driver{Handler: func(_ context.Context, req *driver.Request) (*driver.Result, error) {
		return &driver.Result{Text: "continued", SessionID: req.Resume}, nil
	}}
	agent := adaptor.New(rec)
	res, err := agent.Run(t.Context(), "x", adaptor.WithResume("from-elsewhere"), adaptor.WithSkills(skill.Inline("extra", skillMD("extra"))))
	if err != nil || rec.Last().Resume != "from-elsewhere" {
		t.Fatalf("resume of a session the store does not know = %+v, %v; want it passed to the driver", res, err)
	}
	// Once run, it is known: the next resume is checked.
	if _, err := agent.Run(t.Context(), "y", adaptor.WithResume("from-elsewhere")); !errors.Is(err, adaptor.ErrThreadChanged) {
		t.Errorf("resume without the skill of the last run = %v, want ErrThreadChanged", err)
	}
}

// TestSessionOfAFailedRunIsRecorded checks that a run the agent ended
// with an error, whose session can be resumed, records that session too.
func TestSessionOfAFailedRunIsRecorded(t *testing.T) {
	rec := &drivertest.Driver{Err: &driver.AgentError{Subtype: "error_max_turns", Message: "too many turns", Result: &driver.Result{SessionID: "s1"}}}
	agent := adaptor.New(rec)
	if _, err := agent.Run(t.Context(), "x"); !errors.Is(err, driver.ErrAgentFailed) {
		t.Fatalf("Run = %v, want the agent's error", err)
	}
	if _, err := agent.Run(t.Context(), "y", adaptor.WithResume("s1"), adaptor.WithSkills(skill.Inline("extra", skillMD("extra")))); !errors.Is(err, adaptor.ErrThreadChanged) {
		t.Errorf("resume of the failed run's session with another skill = %v, want ErrThreadChanged", err)
	}
}

// TestThreadKeysOfSessionsRefused checks that a thread key cannot be
// taken for a session's record.
func TestThreadKeysOfSessionsRefused(t *testing.T) {
	agent, rec := newAgent(t)
	_, err := agent.Thread(adaptor.SessionKey("s1")).Run(t.Context(), "x")
	if err == nil || !strings.Contains(err.Error(), `"session:"`) || rec.Calls() != 0 {
		t.Errorf("Thread(SessionKey(s1)).Run = %v, want a refusal before the driver", err)
	}
}

// TestCostsOfARun checks that a run's own cost and its session's reach
// the result.
func TestCostsOfARun(t *testing.T) {
	run, session := 0.25, 1.5
	agent := adaptor.New(&drivertest.Driver{Result: &driver.Result{Text: "ok", CostUSD: &run, SessionCostUSD: &session}})
	res, err := agent.Run(t.Context(), "x")
	if err != nil || res.CostUSD == nil || *res.CostUSD != run || res.SessionCostUSD == nil || *res.SessionCostUSD != session {
		t.Errorf("Run = %+v, %v; want CostUSD %v and SessionCostUSD %v", res, err, run, session)
	}
}
