package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cursortest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// toolPrompt is the prompt of a tool test: "TOUCH:PATH" asks the stand-in
// model for one shell call touching PATH, then an answer; "LOOP:PATH" for
// that call at every turn.
var toolPrompt = regexp.MustCompile(`(TOUCH|LOOP):(\S+)`)

// shellCall returns the stand-in's reply to a request whose prompt is p
// and whether it reports a tool's outcome: call(command) for a shell call,
// text for the answer.
func shellCall[R any](p string, toolDone bool, call func(command string) R, text func(string) R) R {
	m := toolPrompt.FindStringSubmatch(p)
	if m == nil || toolDone && m[1] == "TOUCH" {
		return text("done")
	}
	return call("touch " + m[2])
}

// toolCase is one run of an agent with flags and what it must do with
// the shell call the model makes.
type toolCase struct {
	name    string
	flags   []string
	loop    bool // the model calls the tool at every turn
	created bool // the file is created
	code    int
	warns   bool   // stderr warns of a bypass
	errs    string // in stderr
}

// runToolCases runs each case against the rig and checks the file the
// model's shell call touches.
func runToolCases(t *testing.T, r *runRig, agent string, cases []toolCase) {
	t.Helper()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(r.workspace, fmt.Sprintf("touched-%d", i))
			kind := "TOUCH"
			if tc.loop {
				kind = "LOOP"
			}
			args := append([]string{"run", "-a", agent}, tc.flags...)
			code, out, errs := r.process(t, runCtx(t), append(args, "--", kind+":"+target)...)
			_, statErr := os.Stat(target)
			if code != tc.code || (statErr == nil) != tc.created {
				t.Errorf("run %q = %d (stdout %q, stderr %q), file created %v; want %d, created %v", tc.flags, code, out, errs, statErr == nil, tc.code, tc.created)
			}
			if warned := strings.Contains(errs, "may now run any command without asking"); warned != tc.warns {
				t.Errorf("run %q stderr = %q; warning of a bypass %v, want %v", tc.flags, errs, warned, tc.warns)
			}
			if !strings.Contains(errs, tc.errs) {
				t.Errorf("run %q stderr = %q, want it to say %q", tc.flags, errs, tc.errs)
			}
		})
	}
}

// TestRunToolsClaude checks run's tool flags against the real Claude
// Code: without them its Bash tool does not run; a bypass mode, the
// bypass flag or the tool allowed lets it; a tool disallowed never runs;
// --max-turns stops the run; --agent-arg reaches the agent.
func TestRunToolsClaude(t *testing.T) {
	t.Parallel()
	r := newRunRig(t, func(req *modeltest.Request) modeltest.Reply {
		_, done := req.ToolResult()
		return shellCall(req.Prompt(), done, func(c string) modeltest.Reply {
			return modeltest.ToolUse("Bash", map[string]string{"command": c, "description": "touch a file"})
		}, modeltest.Text)
	})
	runToolCases(t, r, "claude-code", []toolCase{
		{name: "no flags"},
		{name: "bypass mode", flags: []string{"--permission-mode", "bypassPermissions"}, created: true, warns: true},
		{name: "skip permissions", flags: []string{"--skip-permissions"}, created: true, warns: true},
		{name: "allowed tool", flags: []string{"--allowed-tools", "Bash(touch *)"}, created: true},
		{name: "disallowed tool", flags: []string{"--skip-permissions", "--disallowed-tools", "Bash"}, warns: true},
		{name: "max turns", flags: []string{"--skip-permissions", "--max-turns", "2"}, loop: true, created: true, warns: true, code: 1, errs: "claude-code failed: Reached maximum number of turns (2)"},
	})

	code, _, errs := r.process(t, runCtx(t), "run", "-a", "claude-code", "--agent-arg=--append-system-prompt=PASS-THROUGH-MARK", "hello")
	reqs := r.server.MessageRequests()
	if code != 0 || len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1].System, "PASS-THROUGH-MARK") {
		t.Errorf("run --agent-arg=--append-system-prompt=... = %d, %q; the model's system prompt does not hold it", code, errs)
	}
}

// TestRunToolsQwen checks run's tool flags against the real Qwen Code.
func TestRunToolsQwen(t *testing.T) {
	t.Parallel()
	cli := modeltest.QwenCLI(t)
	s := modeltest.NewChat(t, func(req *modeltest.ChatRequest) modeltest.ChatReply {
		_, done := req.ToolResult()
		return shellCall(req.Prompt(), done, func(c string) modeltest.ChatReply {
			return modeltest.ChatToolUse("run_shell_command", map[string]string{"command": c})
		}, modeltest.ChatText)
	})
	env, home := s.QwenEnv(t)
	r := rigFor(t, cli, env, home)
	// The pass-through rides on the first run, which has no other flag.
	runToolCases(t, r, "qwen-code", []toolCase{
		{name: "no flags", flags: []string{"--agent-arg=--append-system-prompt=PASS-THROUGH-MARK"}},
		{name: "skip permissions", flags: []string{"--skip-permissions"}, created: true, warns: true},
		// Qwen Code's default mode declines a command that writes files
		// even when its tool is allowed, and auto-edit alone does not run
		// the shell: the two together do.
		{name: "auto-edit", flags: []string{"--permission-mode", "auto-edit"}},
		{name: "allowed tool", flags: []string{"--permission-mode", "auto-edit", "--allowed-tools", "run_shell_command"}, created: true},
		{name: "disallowed tool", flags: []string{"--skip-permissions", "--disallowed-tools", "run_shell_command"}, warns: true},
		{name: "max turns", flags: []string{"--skip-permissions", "--max-turns", "2"}, loop: true, created: true, warns: true, code: 1},
	})
	if !slices.ContainsFunc(s.MainRequests(), func(r *modeltest.ChatRequest) bool { return strings.Contains(r.System(), "PASS-THROUGH-MARK") }) {
		t.Errorf("run --agent-arg=--append-system-prompt=...: the model's system prompt does not hold it")
	}
}

// TestRunToolsGemini checks run's tool flags against the real Gemini
// CLI, whose tool lists are rules of the run's policy.
func TestRunToolsGemini(t *testing.T) {
	t.Parallel()
	cli := modeltest.GeminiCLI(t)
	s := modeltest.NewGemini(t, func(req *modeltest.GeminiRequest) modeltest.GeminiReply {
		_, done := req.FunctionResponse()
		return shellCall(req.Prompt(), done, func(c string) modeltest.GeminiReply {
			return modeltest.GeminiFunctionCall("run_shell_command", map[string]string{"command": c})
		}, modeltest.GeminiText)
	})
	env, home := s.GeminiEnv(t)
	r := rigFor(t, cli, env, home)
	runToolCases(t, r, "gemini-cli", []toolCase{
		{name: "no flags"},
		{name: "yolo", flags: []string{"--permission-mode", "yolo"}, created: true, warns: true},
		{name: "skip permissions", flags: []string{"--skip-permissions"}, created: true, warns: true},
		{name: "allowed tool", flags: []string{"--allowed-tools", "run_shell_command"}, created: true},
		{name: "disallowed tool", flags: []string{"--skip-permissions", "--disallowed-tools", "run_shell_command"}, warns: true},
	})

	extra := t.TempDir()
	code, _, errs := r.process(t, runCtx(t), "run", "-a", "gemini-cli", "--agent-arg=--include-directories="+extra, "hello")
	turns := s.TurnRequests()
	if code != 0 || len(turns) == 0 || !strings.Contains(fmt.Sprint(turns[len(turns)-1].Contents), extra) {
		t.Errorf("run --agent-arg=--include-directories=... = %d, %q; the model was not told of the folder", code, errs)
	}
}

// TestRunToolsCodex checks run's tool flags against the real Codex, whose
// permission mode is its sandbox.
func TestRunToolsCodex(t *testing.T) {
	t.Parallel()
	r, s := newCodexRunRig(t, func(req *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		_, done := req.ToolOutput()
		return shellCall(req.Prompt(), done, modeltest.ExecCommand, modeltest.ResponsesText)
	})
	runToolCases(t, r, "codex", []toolCase{
		{name: "read-only", flags: []string{"--permission-mode", "read-only"}},
		{name: "danger-full-access", flags: []string{"--permission-mode", "danger-full-access"}, created: true, warns: true},
		{name: "skip permissions", flags: []string{"--skip-permissions"}, created: true, warns: true},
	})

	code, _, errs := r.process(t, runCtx(t), "run", "-a", "codex", `--agent-arg=--config=developer_instructions="PASS-THROUGH-MARK"`, "hello")
	reqs := s.ResponseRequests()
	if code != 0 || len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1].Developer(), "PASS-THROUGH-MARK") {
		t.Errorf("run --agent-arg=--config=... = %d, %q; the model's instructions do not hold it", code, errs)
	}
}

// TestRunPermissionModesPinned checks run's table of permission modes
// against each agent's --help.
func TestRunPermissionModesPinned(t *testing.T) {
	t.Parallel()
	clis := map[string]func(testing.TB) string{
		"claude-code": modeltest.ClaudeCLI, "codex": modeltest.CodexCLI,
		"gemini-cli": modeltest.GeminiCLI, "qwen-code": modeltest.QwenCLI,
		"cursor":         cursortest.RealCLI,
		"github-copilot": modeltest.CopilotCLI,
		"opencode":       modeltest.OpenCodeCLI,
	}
	for _, a := range runnables() {
		t.Run(a.ID, func(t *testing.T) {
			t.Parallel()
			args := []string{"--help"}
			switch a.ID {
			case "codex":
				args = []string{"exec", "--help"}
			case "opencode":
				// OpenCode's modes are its primary agents; its bypass
				// is the flag --auto, not a mode.
				args = []string{"agent", "list"}
			}
			cmd := exec.Command(clis[a.ID](t), args...)
			// A home of the test's own: nothing of the user's is read or written.
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GEMINI_CLI_NO_RELAUNCH=true", "QWEN_CODE_NO_RELAUNCH=true", "OPENCODE_DISABLE_MODELS_FETCH=1"}
			help, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s --help: %v", a.Program, err)
			}
			for _, m := range a.Modes {
				if !regexp.MustCompile(`\b` + regexp.QuoteMeta(m) + `\b`).Match(help) {
					t.Errorf("%s --help does not name the mode %q", a.Program, m)
				}
			}
			if a.Modes == nil && a.Mode.Instead != "" {
				return // no modes: nothing to pin
			}
			if a.ID != "opencode" && !slices.Contains(a.Modes, a.Bypass) {
				t.Errorf("%s's bypass %q is not one of its modes", a.ID, a.Bypass)
			}
		})
	}
}
