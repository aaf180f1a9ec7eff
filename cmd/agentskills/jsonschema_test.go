package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// checkLine checks one line of `run --json` against the documented
// schema (runSchema): a JSON object whose type is known, with every
// field that is always present and no other field. It returns the line.
func checkLine(line string) (map[string]any, error) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(line), &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	typ, _ := obj["type"].(string)
	for _, l := range runSchema() {
		if l.Type != typ {
			continue
		}
		known := map[string]bool{}
		for _, f := range l.fields() {
			known[f.Name] = true
			if _, ok := obj[f.Name]; f.Required && !ok {
				return obj, fmt.Errorf("a %s line without %q", typ, f.Name)
			}
		}
		for k := range obj {
			if !known[k] {
				return obj, fmt.Errorf("a %s line with the field %q, which the schema does not have", typ, k)
			}
		}
		return obj, nil
	}
	return obj, fmt.Errorf("type %q is not in the schema", typ)
}

// checkOutput checks the whole --json output of a run: every line is in
// the schema; a run that succeeded (code 0) ends with its result and has
// no error line; one that failed ends with the only error line, whose
// exit_code is code. It returns the lines.
func checkOutput(t *testing.T, out string, code int) []map[string]any {
	t.Helper()
	var lines []map[string]any
	errorLines := 0
	for l := range strings.Lines(out) {
		obj, err := checkLine(strings.TrimSuffix(l, "\n"))
		if err != nil {
			t.Errorf("line %q: %v", l, err)
		}
		if obj["type"] == "error" {
			errorLines++
		}
		lines = append(lines, obj)
	}
	if len(lines) == 0 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("output %q, want lines", out)
	}
	last := lines[len(lines)-1]
	switch {
	case code == 0 && (last["type"] != "result" || errorLines != 0):
		t.Errorf("output of a run that succeeded ends with %v, has %d error lines; want the result and none", last, errorLines)
	case code != 0 && (last["type"] != "error" || errorLines != 1):
		t.Errorf("output of a failed run ends with %v, has %d error lines; want one, last", last, errorLines)
	case code != 0 && last["exit_code"] != float64(code):
		t.Errorf("error line %v, want exit_code %d", last, code)
	}
	return lines
}

// TestSchemaChecker checks the checker itself on lines that break each
// rule.
func TestSchemaChecker(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"type":"text","text":"hi"}`, true},
		{`{"type":"error","code":"input","message":"m","exit_code":2}`, true},
		{`{"type":"result","text":"x","is_error":false,"exit_code":0,"skills":[]}`, true},
		{`{"type":"text"}`, false},                       // a required field missing
		{`{"type":"text","text":"hi","extra":1}`, false}, // an unknown field
		{`{"type":"nope"}`, false},                       // an unknown type
		{`{"text":"hi"}`, false},                         // no type
		{`{"type":"error","message":"m"}`, false},        // an error line without code
		{`[1]`, false}, // not an object
		{`{"type":"result","text":"","exit_code":0,"skills":[]}`, false}, // is_error is always present
	}
	for _, tt := range tests {
		if _, err := checkLine(tt.line); (err == nil) != tt.ok {
			t.Errorf("checkLine(%s) = %v, want ok %v", tt.line, err, tt.ok)
		}
	}
}

// TestJSONFailures runs commands with --json that fail before any agent
// starts: each prints exactly one line on stdout, the error line, with the
// code and exit code of the failure.
func TestJSONFailures(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", filepath.Join(home, "cache"))
	t.Setenv("PATH", t.TempDir()) // no agent CLI
	project := t.TempDir()
	t.Chdir(project)
	skills := t.TempDir()
	writeSkill(t, skills, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	writeSkill(t, skills, "bad", "---\nname: Bad\ndescription: A bad skill.\n---\n")
	good, bad, missing := filepath.Join(skills, "good"), filepath.Join(skills, "bad"), filepath.Join(skills, "missing")
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		kind string // the error line's code
		more bool   // data comes before the error line
	}{
		{"run: missing skill source", []string{"run", "--json", "-a", "claude-code", "-s", missing, "hi"}, 2, codeInput, false},
		{"run: unknown agent", []string{"run", "--json", "-a", "nope", "hi"}, 2, codeUsage, false},
		{"run: missing prompt", []string{"run", "--json", "-a", "claude-code"}, 2, codeUsage, false},
		{"run: unknown flag after --json", []string{"run", "--json", "--nope", "hi"}, 2, codeUsage, false},
		{"run: bad session id", []string{"run", "--json", "-a", "claude-code", "--resume", "not-a-uuid", "hi"}, 2, codeInput, false},
		{"run: missing workspace", []string{"run", "--json", "-a", "claude-code", "-w", missing, "hi"}, 2, codeInput, false},
		{"run: missing CLI", []string{"run", "--json", "-a", "claude-code", "hi"}, 1, codeAgent, false},
		{"run: negative run timeout", []string{"run", "--json", "-a", "claude-code", "--run-timeout", "-1s", "hi"}, 2, codeUsage, false},
		{"add: missing source", []string{"add", missing, "--json"}, 2, codeInput, false},
		{"add --list: missing skill", []string{"add", good, "--list", "-s", "nope", "--json"}, 2, codeInput, false},
		{"remove: not installed", []string{"remove", "nope", "--json"}, 2, codeInput, false},
		{"list: unknown agent", []string{"list", "--json", "-a", "nope"}, 2, codeInput, false},
		{"validate: invalid skill", []string{"validate", "--json", good, bad}, 1, codeCheck, true},
		{"validate: missing path", []string{"validate", "--json", missing}, 2, codeUsage, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("run(%q) = %d, want %d; stderr %q", tt.args, code, tt.code, stderr.String())
			}
			out := stdout.String()
			i := strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")
			data, last := out[:i+1], out[i+1:]
			if (data != "") != tt.more {
				t.Errorf("run(%q) stdout %q; want data before the error line: %v", tt.args, out, tt.more)
			}
			obj, err := checkLine(strings.TrimSuffix(last, "\n"))
			if err != nil || obj["type"] != "error" || obj["code"] != tt.kind || obj["exit_code"] != float64(tt.code) || obj["message"] == "" {
				t.Errorf("run(%q) last line %q (%v), want an error line of code %q, exit_code %d", tt.args, last, err, tt.kind, tt.code)
			}
			if strings.Count(out, `"type":"error"`) != 1 {
				t.Errorf("run(%q) stdout %q, want one error line", tt.args, out)
			}
		})
	}
}

// TestErrorCode checks the code of the error line for each kind of
// failure, and that it names the session a failed run had.
func TestErrorCode(t *testing.T) {
	const id = "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"shadowed", &driver.ShadowError{Name: "a"}, codeCheck},
		{"nested skills", &driver.NestedSkillsError{Agent: "Claude Code", Workspace: "/w", Folders: []string{"/w/pkg/.claude/skills"}}, codeCheck},
		{"not mounted", &driver.NotMountedError{Missing: []string{"a"}}, codeCheck},
		{"resume with other skills", &adaptor.ThreadChangedError{SessionID: id}, codeCheck},
		{"invalid skills", reported("1 of 2 skills are invalid"), codeCheck},
		{"provider set-up", fmt.Errorf("gemini: %w: set it", driver.ErrProviderSetup), codeCheck},
		{"provider set-up the agent refused", fmt.Errorf("qwen: %w: set it: %w", driver.ErrProviderSetup, &driver.AgentError{Message: "No auth type is selected"}), codeCheck},
		{"codex provider", &codex.ProviderError{BaseURL: "http://x"}, codeCheck},
		{"agent error", &driver.AgentError{Message: "no"}, codeAgent},
		{"missing CLI", &driver.ProcessError{Command: "claude", ExitCode: -1, Err: errors.New("not found")}, codeAgent},
		{"rejected session", fmt.Errorf("session %s: %w", id, driver.ErrResumeRejected), codeAgent},
		{"no result", driver.ErrNoResult, codeAgent},
		{"bad input", inputError{errors.New("x")}, codeInput},
		{"bad usage", usageErrorf("x"), codeUsage},
		{"download", failure{errors.New("x")}, codeFailed},
		{"refused by the audit", &trust.RefusedError{Refusals: []trust.Refusal{{Skill: "evil", Source: "/src", Reason: "the audit found download-exec"}}}, codePolicy},
		{"integrity", fmt.Errorf("download x: %w: SHA-256 differs", source.ErrIntegrity), codeIntegrity},
		{"timeout", &runTimedOutError{err: context.DeadlineExceeded}, codeTimeout},
		{"interrupted", fmt.Errorf("%w: %w", errInterrupted, context.Canceled), codeInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			s := newStreams(strings.NewReader(""), &stdout, &stderr)
			cmd := newRunCmd(s)
			if err := cmd.Flags().Set("json", "true"); err != nil {
				t.Fatal(err)
			}
			// As a run's RunE returns it.
			err := runE(func(*cobra.Command, []string) error { return &sessionError{id: id, err: tt.err} })(cmd, nil)
			code := s.exitCode(cmd, err)
			s.jsonError(cmd, err, code)
			obj, cerr := checkLine(strings.TrimSuffix(stdout.String(), "\n"))
			if cerr != nil || obj["code"] != tt.code || obj["session_id"] != id || obj["exit_code"] != float64(code) {
				t.Errorf("error line for %v = %s (%v), want code %q, the session and exit code %d", tt.err, stdout.String(), cerr, tt.code, code)
			}
		})
	}
}
