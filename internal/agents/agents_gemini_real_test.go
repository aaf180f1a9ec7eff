package agents_test

import (
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealGeminiCLIRow pins Gemini CLI's row: run in a trusted workspace
// (--skip-trust), the CLI lists exactly the skills the row says it reads,
// by the names it says, through links, in the system instruction of the
// main turn.
func TestRealGeminiCLIRow(t *testing.T) {
	r, _ := agents.Lookup("gemini-cli")
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, nil)
	env, _ := s.GeminiEnv(t)
	p := layout(t, r, envOf(env))
	run(t, cli, p.workspace, env, "-o", "stream-json", "--skip-trust", "-m", "modeltest")
	turns := s.TurnRequests()
	if len(turns) == 0 {
		t.Fatal("the stand-in got no turn")
	}
	listed := turns[0].Skills()
	if listed == nil {
		t.Fatalf("no skill listing in the system instruction:\n%s", turns[0].System)
	}
	p.check(t, listed)
}
