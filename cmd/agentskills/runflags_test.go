package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// stubRig is a hermetic home for run with a stand-in agent program that
// records that it ran and says nothing: for what is refused before the
// agent starts, and for the errors a run user gets.
type stubRig struct {
	home, stub, ran string
}

func newStubRig(t *testing.T) *stubRig {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in agent is a shell script")
	}
	r := &stubRig{home: t.TempDir()}
	r.ran = filepath.Join(r.home, "ran")
	r.stub = filepath.Join(r.home, "bin", "agent")
	if err := os.MkdirAll(filepath.Dir(r.stub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.stub, []byte("#!/bin/sh\necho \"$@\" > '"+r.ran+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", r.home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(r.home, ".local", "state"))
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", filepath.Join(r.home, ".cache", "skills"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	for _, v := range []string{"CLAUDE_CODE", "CODEX", "GEMINI_CLI", "QWEN_CODE"} {
		t.Setenv("AGENTSKILLS_"+v+"_COMMAND", "")
	}
	t.Chdir(r.home)
	return r
}

func (r *stubRig) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

// started reports whether the stand-in agent ran, and forgets it.
func (r *stubRig) started() bool {
	_, err := os.Stat(r.ran)
	os.Remove(r.ran)
	return err == nil
}

// TestRunFlagsRefused checks that a flag an agent has no counterpart
// for, a mode it does not have and an --agent-arg that could inject are
// bad usage, refused before the agent starts, saying what to do.
func TestRunFlagsRefused(t *testing.T) {
	r := newStubRig(t)
	type refusal struct {
		name  string
		args  []string
		wants []string // in stderr
	}
	tests := []refusal{
		{"codex allowed tools", []string{"-a", "codex", "--allowed-tools", "shell"},
			[]string{"--allowed-tools: Codex has no tool lists", "for claude-code, gemini-cli, qwen-code", "--permission-mode read-only, workspace-write or danger-full-access, or --skip-permissions"}},
		{"codex disallowed tools", []string{"-a", "codex", "--disallowed-tools", "shell"}, []string{"--disallowed-tools: Codex has no tool lists"}},
		{"codex max turns", []string{"-a", "codex", "--max-turns", "3"}, []string{"Codex has no turn limit", "for claude-code, qwen-code"}},
		{"gemini max turns", []string{"-a", "gemini-cli", "--max-turns", "3"}, []string{"Gemini CLI has no turn limit", "model.maxSessionTurns"}},
		{"negative max turns", []string{"-a", "claude-code", "--max-turns", "-1"}, []string{"--max-turns -1 is negative"}},
		{"unknown mode", []string{"-a", "claude-code", "--permission-mode", "yolo"}, []string{`--permission-mode "yolo": Claude Code's modes are acceptEdits, auto, bypassPermissions`}},
		{"codex mode", []string{"-a", "codex", "--permission-mode", "plan"}, []string{"Codex's modes are read-only, workspace-write, danger-full-access"}},
		{"bypass and a mode", []string{"-a", "qwen-code", "--skip-permissions", "--permission-mode", "plan"}, []string{"--skip-permissions is --permission-mode yolo for Qwen Code"}},
	}
	for agent, own := range map[string][]string{
		"claude-code": {"--output-format=text", "--resume=5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "--print"},
		"codex":       {"--json", "--skip-git-repo-check"},
		"gemini-cli":  {"--output-format=text", "--resume=latest", "--prompt=x"},
		"qwen-code":   {"--output-format=text", "--resume=5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "--input-format=text"},
		"opencode":    {"--format=default", "--session=ses_0123456789abcdefABCDEFGHIJ", "--dir=/", "--file=/etc/passwd"},
	} {
		for _, arg := range own {
			name, _, _ := strings.Cut(arg, "=")
			tests = append(tests, refusal{agent + " " + arg, []string{"-a", agent, "--agent-arg=" + arg}, []string{"agentskills run controls " + name + " itself"}})
		}
		for _, tt := range []struct{ arg, want string }{
			{"-p", "one long option"},
			{"-o=text", "one long option"},
			{"--", `"--" ends the options`},
			{"value", "one long option"},
			{"--model=x", "--model is what --model sets; use --model"},
			{"--x=a\x00b", "NUL"},
			{"--Model=x", "lowercase"},
		} {
			tests = append(tests, refusal{agent + " " + tt.arg, []string{"-a", agent, "--agent-arg=" + tt.arg}, []string{"--agent-arg", tt.want}})
		}
	}
	tests = append(tests,
		refusal{"claude permission mode", []string{"-a", "claude-code", "--agent-arg=--permission-mode=plan"}, []string{"use --permission-mode"}},
		refusal{"codex sandbox", []string{"-a", "codex", "--agent-arg=--sandbox=read-only"}, []string{"use --permission-mode"}},
		refusal{"codex working folder", []string{"-a", "codex", "--agent-arg=--cd=/"}, []string{"controls --cd itself"}},
		refusal{"gemini negation", []string{"-a", "gemini-cli", "--agent-arg=--no-skip-trust"}, []string{"controls --skip-trust itself"}},
		refusal{"gemini policy", []string{"-a", "gemini-cli", "--agent-arg=--policy=/p.toml"}, []string{"controls --policy itself"}},
		refusal{"qwen yolo", []string{"-a", "qwen-code", "--agent-arg=--yolo"}, []string{"use --permission-mode"}},
		refusal{"qwen turns", []string{"-a", "qwen-code", "--agent-arg=--max-session-turns=2"}, []string{"use --max-turns"}},
		refusal{"claude mount", []string{"-a", "claude-code", "--agent-arg=--add-dir=/"}, []string{"controls --add-dir itself"}},
		refusal{"opencode auto", []string{"-a", "opencode", "--agent-arg=--auto"}, []string{"use --skip-permissions"}},
		refusal{"opencode agent", []string{"-a", "opencode", "--agent-arg=--agent=plan"}, []string{"use --permission-mode"}},
		refusal{"opencode tools", []string{"-a", "opencode", "--allowed-tools", "bash"}, []string{"--allowed-tools: OpenCode has no tool lists", "permission of its config"}},
		refusal{"opencode turns", []string{"-a", "opencode", "--max-turns", "3"}, []string{"OpenCode has no turn limit", "steps"}},
		refusal{"opencode mode", []string{"-a", "opencode", "--permission-mode", "yolo"}, []string{"OpenCode's modes are build, plan"}},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--agent-command", r.stub}, tt.args...)
			code, out, errs := r.run(t, append(args, "hello")...)
			if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
				t.Errorf("run %q = %d, stdout %q, stderr %q; want %d and one line", tt.args, code, out, errs, exitUsage)
			}
			for _, w := range tt.wants {
				if !strings.Contains(errs, w) {
					t.Errorf("run %q stderr = %q, want it to say %q", tt.args, errs, w)
				}
			}
			if r.started() {
				t.Errorf("run %q started the agent", tt.args)
			}
		})
	}
}

// TestRunAgentCommand checks how run names the agent's program and what
// it says when the program is missing: CLI things, not the SDK's field.
func TestRunAgentCommand(t *testing.T) {
	r := newStubRig(t)
	missing := filepath.Join(r.home, "no", "claude")
	code, _, errs := r.run(t, "run", "-a", "claude-code", "--agent-command", missing, "hello")
	for _, w := range []string{"claude-code: the program " + `"` + missing + `"` + " was not found", "install it (npm i -g @anthropic-ai/claude-code) or pass --agent-command PATH or set AGENTSKILLS_CLAUDE_CODE_COMMAND"} {
		if code != exitFailed || !strings.Contains(errs, w) {
			t.Errorf("run with a missing --agent-command = %d, %q; want %d saying %q", code, errs, exitFailed, w)
		}
	}
	if strings.Contains(errs, "Config.Command") {
		t.Errorf("run with a missing program names the SDK's field: %q", errs)
	}

	t.Setenv("AGENTSKILLS_CODEX_COMMAND", missing)
	code, _, errs = r.run(t, "run", "-a", "codex", "hello")
	if code != exitFailed || !strings.Contains(errs, "install it (npm i -g @openai/codex) or pass --agent-command PATH or set AGENTSKILLS_CODEX_COMMAND") {
		t.Errorf("run with a missing $AGENTSKILLS_CODEX_COMMAND = %d, %q", code, errs)
	}

	for _, agent := range []string{"claude-code", "gemini-cli", "qwen-code", "opencode"} {
		env := "AGENTSKILLS_" + strings.ToUpper(strings.ReplaceAll(agent, "-", "_")) + "_COMMAND"
		t.Setenv(env, r.stub)
		code, _, errs = r.run(t, "run", "-a", agent, "hello")
		if !r.started() {
			t.Errorf("run -a %s with %s set = %d, %q; the program it names did not run", agent, env, code, errs)
		}
		// The flag wins over the variable.
		code, _, errs = r.run(t, "run", "-a", agent, "--agent-command", missing, "hello")
		if r.started() || !strings.Contains(errs, "was not found") {
			t.Errorf("run -a %s with --agent-command and %s = %d, %q; want the flag's program", agent, env, code, errs)
		}
		t.Setenv(env, "")
	}

	// A relative path is the current folder's, though the agent works in
	// another.
	ws := t.TempDir()
	code, _, errs = r.run(t, "run", "-a", "claude-code", "-w", ws, "--agent-command", filepath.Join(".", "bin", "agent"), "hello")
	if !r.started() {
		t.Errorf("run with a relative --agent-command = %d, %q; the program did not run", code, errs)
	}
}

// TestRunShadowSaysWhatToDo checks that a skill of the user's shadowing
// the run's is reported with what a run user can do about it.
func TestRunShadowSaysWhatToDo(t *testing.T) {
	r := newStubRig(t)
	skills := t.TempDir()
	writeSkill(t, skills, "alpha", "---\nname: alpha\ndescription: Ours.\n---\nOurs.\n")
	writeSkill(t, filepath.Join(r.home, ".claude", "skills"), "alpha", "---\nname: alpha\ndescription: Theirs.\n---\nTheirs.\n")
	code, _, errs := r.run(t, "run", "-a", "claude-code", "--agent-command", r.stub, "-s", filepath.Join(skills, "alpha"), "hello")
	theirs := filepath.Join(r.home, ".claude", "skills", "alpha")
	want := "rename one of them (its folder and the name: in its SKILL.md), or remove " + theirs
	if code != exitFailed || !strings.Contains(errs, want) || strings.Contains(errs, "skill.MetadataRuntimeName") {
		t.Errorf("run with a shadowed skill = %d, %q; want %d saying %q", code, errs, exitFailed, want)
	}
	if r.started() {
		t.Error("run with a shadowed skill started the agent")
	}
}

// TestRunNestedSaysWhatToDo checks that a skills folder below the
// workspace's top that the agent would load beside the run's skills
// refuses the run before the agent starts, naming each folder and
// saying what a run user can do about it.
func TestRunNestedSaysWhatToDo(t *testing.T) {
	r := newStubRig(t)
	skills := t.TempDir()
	writeSkill(t, skills, "alpha", "---\nname: alpha\ndescription: Ours.\n---\nOurs.\n")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(ws, "pkg", ".claude", "skills"), "alpha", "---\nname: alpha\ndescription: Theirs.\n---\nTheirs.\n")
	writeSkill(t, filepath.Join(ws, "examples", "a", ".claude", "skills"), "other", "---\nname: other\ndescription: Theirs.\n---\nTheirs.\n")
	writeSkill(t, filepath.Join(ws, "x\nforged line", ".claude", "skills"), "other", "---\nname: other\ndescription: Theirs.\n---\nTheirs.\n")
	code, _, errs := r.run(t, "run", "-a", "claude-code", "--agent-command", r.stub, "-w", ws, "-s", filepath.Join(skills, "alpha"), "hello")
	for _, want := range []string{
		"the workspace " + ws + " holds skills folders below its top that Claude Code loads",
		"\n  " + filepath.Join("examples", "a", ".claude", "skills") + "\n  " + filepath.Join("pkg", ".claude", "skills") + "\n",
		"\n  " + strconv.Quote(filepath.Join("x\nforged line", ".claude", "skills")) + "\n",
		"move or rename those folders, git-ignore the folders that hold them",
		"--workspace",
	} {
		if code != exitFailed || !strings.Contains(errs, want) {
			t.Errorf("run beside nested skills folders = %d, %q; want %d saying %q", code, errs, exitFailed, want)
		}
	}
	if r.started() {
		t.Error("run beside nested skills folders started the agent")
	}
	// Ignored by git, the folders are no refusal.
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("pkg/\nexamples/\nx*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.run(t, "run", "-a", "claude-code", "--agent-command", r.stub, "-w", ws, "-s", filepath.Join(skills, "alpha"), "hello")
	if !r.started() {
		t.Error("run beside git-ignored nested skills folders did not start the agent")
	}
}

// TestRunHelpNestedBounds checks that run's help states the bounds of the
// search for nested skills folders as the drivers' kit has them.
func TestRunHelpNestedBounds(t *testing.T) {
	long := newRunCmd(newStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})).Long
	for _, want := range []string{
		fmt.Sprintf("at\nmost %d entries", agents.MaxNestedEntries),
		fmt.Sprintf("goes %d folders deep", agents.MaxNestedDepth),
	} {
		if !strings.Contains(long, want) {
			t.Errorf("run's help does not say %q", want)
		}
	}
}
