package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun checks the exit codes and streams of run in process; the scripts
// in testdata/script check the real binary's output in full.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	writeSkill(t, dir, "bad", "---\nname: Bad\ndescription: A bad skill.\n---\n")
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")

	tests := []struct {
		name      string
		args      []string
		code      int
		out, errs string // substrings of stdout and stderr
		quietOut  bool
		quietErrs bool
	}{
		{name: "valid", args: []string{"validate", good}, code: 0, out: "Valid skill: " + good, quietErrs: true},
		{name: "invalid", args: []string{"validate", bad}, code: 1, errs: "Skill name 'Bad' must be lowercase", quietOut: true},
		{name: "json", args: []string{"validate", "--json", good, bad}, code: 1, out: `"valid": false`, quietErrs: true},
		{name: "properties", args: []string{"read-properties", good}, code: 0, out: `"name": "good"`, quietErrs: true},
		{name: "prompt", args: []string{"prompt", good}, code: 0, out: "<location>\n" + filepath.Join(good, "SKILL.md") + "\n", quietErrs: true},
		{name: "help", args: []string{"validate", "--help"}, code: 0, out: "Examples:", quietErrs: true},
		{name: "no command", args: nil, code: 0, out: "Available Commands:", quietErrs: true},
		{name: "unknown command", args: []string{"nope"}, code: 2, errs: `unknown command "nope"`, quietOut: true},
		{name: "unknown flag", args: []string{"prompt", "-x", good}, code: 2, errs: "unknown shorthand flag", quietOut: true},
		{name: "missing path", args: []string{"read-properties"}, code: 2, errs: "agentskills read-properties: missing PATH (see 'agentskills read-properties --help')\n", quietOut: true},
		{name: "prompt without path", args: []string{"prompt"}, code: 2, errs: "agentskills prompt: missing PATH (see 'agentskills prompt --help')\n", quietOut: true},
		{name: "too many paths", args: []string{"read-properties", good, bad}, code: 2, errs: "agentskills read-properties: too many arguments: want 1 PATH, got 2 (see 'agentskills read-properties --help')\n", quietOut: true},
		{name: "flag of another command", args: []string{"read-properties", "--json", good}, code: 2, errs: "agentskills read-properties: unknown flag: --json (see 'agentskills read-properties --help')\n", quietOut: true},
		{name: "no such path", args: []string{"prompt", filepath.Join(dir, "nope")}, code: 2, errs: "does not exist", quietOut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tt.args, code, tt.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.out) || tt.quietOut && stdout.Len() > 0 {
				t.Errorf("run(%q) stdout = %q, want it to hold %q", tt.args, stdout.String(), tt.out)
			}
			if !strings.Contains(stderr.String(), tt.errs) || tt.quietErrs && stderr.Len() > 0 {
				t.Errorf("run(%q) stderr = %q, want it to hold %q", tt.args, stderr.String(), tt.errs)
			}
			if tt.code == exitUsage && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("run(%q) stderr = %q, want one line", tt.args, stderr.String())
			}
		})
	}
}

// TestRunCanceled checks that a canceled context (Ctrl-C) stops validate
// with status 130, as it stops every command, and says why.
func TestRunCanceled(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"validate", filepath.Join(dir, "good")}, strings.NewReader(""), &stdout, &stderr)
	if code != exitInterrupted || !strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("run(canceled) = %d, stderr %q; want %d and the context's error", code, stderr.String(), exitInterrupted)
	}
}

func writeSkill(t *testing.T, root, name, content string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
