package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRunAgentQwen runs the real Qwen Code: the same flags, output and
// exit codes as for Claude Code, and a resume in the same workspace.
func TestRunAgentQwen(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatIfPrompt("AGAIN-MARK",
		modeltest.ChatAlways(modeltest.ChatText("again done")),
		modeltest.ChatAlways(modeltest.ChatText("qwen answer"))))
	env, home := s.QwenEnv(t)
	r := rigFor(t, cli, env, home)
	for _, name := range []string{"alpha", "beta"} {
		writeSkill(t, r.skills, name, fmt.Sprintf("---\nname: %s\ndescription: The %s skill QDESC-%s.\n---\nBody.\n", name, name, name))
	}

	code, out, errs := r.process(t, runCtx(t), "run", "--agent", "qwen-code", "--skill", filepath.Join(r.skills, "alpha"), "--json", "hello")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, last map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	session, _ := last["session_id"].(string)
	if first["type"] != "init" || last["type"] != "result" || last["text"] != "qwen answer" || session == "" {
		t.Fatalf("first line %v, last line %v; want init, then the result with a session", first, last)
	}
	main := s.MainRequests()
	if len(main) == 0 || !strings.Contains(main[0].Prompt(), "QDESC-alpha") || strings.Contains(main[0].Prompt(), "QDESC-beta") {
		t.Errorf("the model was not shown alpha alone")
	}

	code, out, errs = r.process(t, runCtx(t), "run", "-a", "qwen-code", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "AGAIN-MARK")
	if code != 0 || out != "again done\n" {
		t.Errorf("resume = %d, %q, stderr %q", code, out, errs)
	}
	code, _, errs = r.process(t, runCtx(t), "run", "-a", "qwen-code", "-s", r.skills, "--resume", session, "AGAIN-MARK")
	if code != 1 || !strings.Contains(errs, "skills added: beta") {
		t.Errorf("resume with another set = %d, %q; want 1 naming beta", code, errs)
	}
	code, _, errs = r.process(t, runCtx(t), "run", "-a", "qwen-code", "--resume", "--mcp-config=x", "again")
	if code != 2 {
		t.Errorf("resume with an id that is not a UUID = %d, %q; want 2", code, errs)
	}
}
