package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRunAgentGemini runs the real Gemini CLI: the same flags, output and
// exit codes as for Claude Code, in a workspace the user has not trusted
// (the run trusts it).
func TestRunAgentGemini(t *testing.T) {
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, modeltest.GeminiIfPrompt("again",
		modeltest.GeminiAlways(modeltest.GeminiText("again done")),
		modeltest.GeminiAlways(modeltest.GeminiText("gemini answer"))))
	env, home := s.GeminiEnv(t)
	r := rigFor(t, cli, env, home)
	writeSkill(t, r.skills, "alpha", "---\nname: alpha\ndescription: The alpha skill DESC-alpha.\n---\nBody.\n")

	code, out, errs := r.process(t, runCtx(t), "run", "--agent", "gemini-cli", "--skill", filepath.Join(r.skills, "alpha"), "--json", "hello")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	session, _ := last["session_id"].(string)
	if last["type"] != "result" || last["text"] != "gemini answer" || session == "" {
		t.Fatalf("last line = %v, want the result with a session", last)
	}
	turns := s.TurnRequests()
	if len(turns) == 0 || !strings.Contains(turns[0].System, "DESC-alpha") {
		t.Errorf("the model was not shown the alpha skill")
	}
	code, out, errs = r.process(t, runCtx(t), "run", "-a", "gemini-cli", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "again")
	if code != 0 || out != "again done\n" {
		t.Errorf("resume = %d, %q, stderr %q", code, out, errs)
	}
	if got := fmt.Sprint(s.TurnRequests()[len(s.TurnRequests())-1].Contents); !strings.Contains(got, "hello") {
		t.Errorf("the resumed turn does not replay the first: %s", got)
	}
}
