package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// complete returns the completions run's __complete gives for args, the
// last one the word being completed, and the directive line.
func complete(t *testing.T, args ...string) (values []string, directive string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), append([]string{"__complete"}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("run(__complete %q) = %d, stderr %q", args, code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		value, _, _ := strings.Cut(l, "\t")
		values = append(values, value)
	}
	return values, lines[len(lines)-1]
}

// TestCompletion checks the values the shell completion offers beyond
// commands and flags: agent ids, installed skill names and audit rules.
func TestCompletion(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "review", "---\nname: review\ndescription: Reviews.\n---\n")
	writeSkill(t, src, "release-notes", "---\nname: release-notes\ndescription: Notes.\n---\n")
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"add", src, "-a", "codex", "-q"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("add = %d, stderr %q", code, stderr.String())
	}
	writeSkill(t, filepath.Join(".claude", "skills"), "theirs", "---\nname: theirs\ndescription: Not ours.\n---\n")

	tests := []struct {
		name      string
		args      []string
		want      []string
		directive string
	}{
		{"remove names", []string{"remove", ""}, []string{"release-notes", "review"}, ":4"},
		{"rm names", []string{"rm", "rev"}, []string{"review"}, ":4"},
		{"remove leaves out given names", []string{"remove", "review", ""}, []string{"release-notes"}, ":4"},
		{"update names", []string{"update", "re"}, []string{"release-notes", "review"}, ":4"},
		{"audit names and files", []string{"audit", "re"}, []string{"release-notes", "review"}, ":0"},
		{"global scope", []string{"remove", "--global", ""}, nil, ":4"},
		{"add agents", []string{"add", "--agent", "cod"}, []string{"codebuddy", "codex"}, ":6"},
		{"add agents after a comma", []string{"add", "-a", "codex,claude"}, []string{"codex,claude-code"}, ":6"},
		{"agents not repeated", []string{"remove", "--agent", "codex,code"}, []string{"codex,codebuddy"}, ":6"},
		{"run agents", []string{"run", "--agent", ""}, []string{"claude-code", "codex", "gemini-cli", "qwen-code", "github-copilot", "cursor", "opencode"}, ":4"},
		{"audit rules", []string{"add", "--allow-risk", "download-"}, []string{"download-exec"}, ":4"},
		{"audit rules of sync", []string{"sync", "--allow-risk", "download-e"}, []string{"download-exec"}, ":4"},
		{"severities", []string{"audit", "--fail-on", ""}, []string{"info", "low", "medium", "high", "critical"}, ":4"},
		{"installers to import from", []string{"import", "--from", ""}, []string{"auto", "npm", "gh"}, ":4"},
		{"formats to push", []string{"push", "--format", ""}, []string{"image", "artifact"}, ":4"},
		{"what run emits", []string{"run", "--emit", ""}, []string{"kubernetes", "agent-sandbox"}, ":4"},
		{"what eval emits", []string{"eval", "--emit", ""}, []string{"kubernetes"}, ":4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := complete(t, tt.args...)
			if !slices.Equal(got, tt.want) || directive != tt.directive {
				t.Errorf("complete(%q) = %q, %s; want %q, %s", tt.args, got, directive, tt.want, tt.directive)
			}
		})
	}
}
