package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRunAgentCopilot runs the real GitHub Copilot CLI: the same flags,
// output and exit codes as for Claude Code, a resume, and refusals of
// the flags it has no counterpart for.
func TestRunAgentCopilot(t *testing.T) {
	t.Parallel()
	cli := modeltest.CopilotCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatIfPrompt("AGAIN-MARK",
		modeltest.ChatAlways(modeltest.ChatText("again done")),
		modeltest.ChatAlways(modeltest.ChatText("copilot answer"))))
	env, home := s.CopilotEnv(t)
	r := rigFor(t, cli, env, home)
	for _, name := range []string{"alpha", "beta"} {
		writeSkill(t, r.skills, name, fmt.Sprintf("---\nname: %s\ndescription: The %s skill CDESC-%s.\n---\nBody.\n", name, name, name))
	}

	code, out, errs := r.process(t, runCtx(t), "run", "--agent", "github-copilot", "--skill", filepath.Join(r.skills, "alpha"), "--allowed-tools", "write", "--json", "hello")
	if code != 0 {
		t.Fatalf("run = %d; stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, last map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	session, _ := last["session_id"].(string)
	if first["type"] != "init" || first["session_id"] != session || last["type"] != "result" || last["text"] != "copilot answer" || session == "" {
		t.Fatalf("first line %v, last line %v; want the init, then the result, of one session", first, last)
	}

	main := s.MainRequests()
	if len(main) == 0 || !strings.Contains(main[0].System(), "CDESC-alpha") || strings.Contains(main[0].System(), "CDESC-beta") {
		t.Errorf("the model was not shown alpha alone")
	}

	code, out, errs = r.process(t, runCtx(t), "run", "-a", "github-copilot", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "AGAIN-MARK")
	if code != 0 || out != "again done\n" {
		t.Errorf("resume = %d, %q, stderr %q", code, out, errs)
	}
	if want := "github-copilot started, session " + session; !strings.Contains(errs, want) || !strings.Contains(errs, "--resume "+session+" -- PROMPT") {
		t.Errorf("resume's stderr %q, want it to say %q and how to resume it", errs, want)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"permission mode", []string{"--permission-mode", "plan"}, "GitHub Copilot CLI has no permission modes; allow tools by name with --allowed-tools"},
		{"max turns", []string{"--max-turns", "2"}, "Copilot CLI has no turn limit"},
		{"allow-all as an agent arg", []string{"--agent-arg=--allow-all-tools"}, "use --skip-permissions"},
		{"deny-tool as an agent arg", []string{"--agent-arg=--deny-tool=x"}, "use --disallowed-tools"},
		{"resume not a UUID", []string{"--resume", "--share=x"}, "UUID"},
	} {
		code, _, errs := r.process(t, runCtx(t), append(append([]string{"run", "-a", "github-copilot"}, tt.args...), "hi")...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("run with %s = %d, %q; want 2 saying %q", tt.name, code, errs, tt.want)
		}
	}
}
