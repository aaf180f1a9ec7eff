package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRunProviderSetup runs the real Qwen Code without OPENAI_MODEL: run
// refuses it before the start, exits 1 and says what to set; with --json
// the error line has the code check.
func TestRunProviderSetup(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("unused")))
	env, home := s.QwenEnv(t)
	r := rigFor(t, cli, process.MergeEnv(env, []string{"OPENAI_MODEL="}), home)
	const want = "OPENAI_API_KEY and OPENAI_BASE_URL set without OPENAI_MODEL"
	code, out, errs := r.process(t, runCtx(t), "run", "--agent", "qwen-code", "hello")
	if code != 1 || out != "" || !strings.Contains(errs, "agentskills run: qwen: agent is not set up to reach a model: ") || !strings.Contains(errs, want) {
		t.Errorf("run = %d, %q, stderr %q; want 1 saying %q", code, out, errs, want)
	}
	code, out, _ = r.process(t, runCtx(t), "run", "--agent", "qwen-code", "--json", "hello")
	var line struct{ Type, Code, Message string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &line); err != nil || code != 1 || line.Type != "error" || line.Code != "check" || !strings.Contains(line.Message, want) {
		t.Errorf("run --json = %d, %q; want 1 and an error line of code check saying %q", code, out, want)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the refused runs sent %d requests", n)
	}
}
