package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cursortest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRunAgentCursor runs the stand-in for Cursor's CLI (Cursor's own is
// not installable here): the same flags, output and exit codes as for
// the other agents, --skip-permissions as --force, and a resume.
func TestRunAgentCursor(t *testing.T) {
	bin := cursortest.Build(t)
	s := modeltest.NewChat(t, modeltest.ChatIfPrompt("AGAIN-MARK",
		modeltest.ChatAlways(modeltest.ChatText("again done")),
		modeltest.ChatAlways(modeltest.ChatText("cursor answer"))))
	env, home := cursortest.Env(t, bin, s)
	r := rigFor(t, filepath.Join(bin, "agent"), env, home)
	for _, name := range []string{"alpha", "beta"} {
		writeSkill(t, r.skills, name, fmt.Sprintf("---\nname: %s\ndescription: The %s skill CDESC-%s.\n---\nBody.\n", name, name, name))
	}

	code, out, errs := r.inProcess(t, runCtx(t), "run", "--agent", "cursor", "--skip-permissions", "--skill", filepath.Join(r.skills, "alpha"), "--json", "hello")
	if code != 0 || !strings.Contains(errs, "Cursor CLI may now run any command without asking (--skip-permissions)") {
		t.Fatalf("run = %d; stderr %q; want 0 and the bypass warning", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, last map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	session, _ := last["session_id"].(string)
	if first["type"] != "init" || last["type"] != "result" || last["text"] != "cursor answer" || session == "" {
		t.Fatalf("first line %v, last line %v; want init, then the result with a session", first, last)
	}
	main := s.MainRequests()
	if len(main) == 0 || !strings.Contains(main[0].System(), "CDESC-alpha") || strings.Contains(main[0].System(), "CDESC-beta") {
		t.Errorf("the model was not shown alpha alone")
	}
	if len(main) == 0 || !strings.Contains(main[0].System(), "Permission mode: force.") {
		t.Errorf("--skip-permissions did not pass --force")
	}

	code, out, errs = r.inProcess(t, runCtx(t), "run", "-a", "cursor", "-s", filepath.Join(r.skills, "alpha"), "--resume", session, "AGAIN-MARK")
	if code != 0 || out != "again done\n" {
		t.Errorf("resume = %d, %q, stderr %q", code, out, errs)
	}
	code, _, errs = r.inProcess(t, runCtx(t), "run", "-a", "cursor", "--resume", "--standin-touch=x", "again")
	if code != 2 {
		t.Errorf("resume with an id that is not a UUID = %d, %q; want 2", code, errs)
	}
}

// TestRunCursorRefused checks what run refuses for Cursor before the
// agent starts: flags it has no counterpart for, a mode it lacks, and
// --agent-arg options the driver sets.
func TestRunCursorRefused(t *testing.T) {
	r := newStubRig(t)
	t.Setenv("AGENTSKILLS_CURSOR_COMMAND", "")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"allowed tools", []string{"--allowed-tools", "shell"}, "--allowed-tools: Cursor CLI has no tool lists"},
		{"max turns", []string{"--max-turns", "3"}, "Cursor CLI has no turn limit"},
		{"mode", []string{"--permission-mode", "plan"}, `--permission-mode "plan": Cursor CLI's modes are force`},
		{"force", []string{"--agent-arg=--force"}, "--force is what --skip-permissions sets; use --skip-permissions"},
		{"model", []string{"--agent-arg=--model=x"}, "use --model"},
		{"workspace", []string{"--agent-arg=--workspace=/"}, "agentskills run controls --workspace itself"},
		{"format", []string{"--agent-arg=--output-format=text"}, "agentskills run controls --output-format itself"},
		{"resume", []string{"--agent-arg=--resume=5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"}, "agentskills run controls --resume itself"},
		{"short", []string{"--agent-arg=-f"}, "one long option"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "-a", "cursor", "--agent-command", r.stub}, tt.args...)
			code, out, errs := r.run(t, append(args, "hello")...)
			if code != exitUsage || out != "" || !strings.Contains(errs, tt.want) {
				t.Errorf("run %q = %d, %q, stderr %q; want %d saying %q", tt.args, code, out, errs, exitUsage, tt.want)
			}
			if r.started() {
				t.Errorf("run %q started the agent", tt.args)
			}
		})
	}
}
