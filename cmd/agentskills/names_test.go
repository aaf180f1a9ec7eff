package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestOtherNames checks what the names other package managers give
// agentskills' commands do: each alias runs its command, each other name
// is an unknown command that suggests one, on one line.
func TestOtherNames(t *testing.T) {
	aliases := []struct{ name, command string }{
		{"install", "add"},
		{"i", "add"},
		{"add", "add"},
		{"uninstall", "remove"},
		{"rm", "remove"},
		{"remove", "remove"},
		{"ls", "list"},
		{"list", "list"},
		{"upgrade", "update"},
		{"update", "update"},
		{"search", "find"},
		{"find", "find"},
	}
	root := newRootCmd(newStreams(strings.NewReader(""), io.Discard, io.Discard))
	for _, tt := range aliases {
		cmd, _, err := root.Find([]string{tt.name})
		if err != nil || cmd.Name() != tt.command {
			t.Errorf("Find(%q) = %v, %v; want the %s command", tt.name, cmd.Name(), err, tt.command)
		}
	}

	suggestions := []struct{ name, errs string }{
		{"check", `agentskills: unknown command "check" for "agentskills"; did you mean outdated? (see 'agentskills --help')`},
		{"ci", `agentskills: unknown command "ci" for "agentskills"; did you mean sync?`},
		{"updat", `unknown command "updat" for "agentskills"; did you mean update?`},
		{"lst", `unknown command "lst" for "agentskills"; did you mean list?`},
		{"instal", `unknown command "instal" for "agentskills"; did you mean add?`},
		{"uninst", `unknown command "uninst" for "agentskills"; did you mean remove?`},
		{"upgrad", `unknown command "upgrad" for "agentskills"; did you mean update?`},
		{"nope", `agentskills: unknown command "nope" for "agentskills" (see 'agentskills --help')`},
		// A short word suggests the few commands one edit away, or that
		// it starts, not every name two edits away.
		{"in", `unknown command "in" for "agentskills"; did you mean add or index?`},
		{"ad", `unknown command "ad" for "agentskills"; did you mean add?`},
		{"x", `agentskills: unknown command "x" for "agentskills" (see`},
	}
	for _, tt := range suggestions {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{tt.name}, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.errs) || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() > 0 {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d and one line holding %q", tt.name, code, stdout.String(), stderr.String(), exitUsage, tt.errs)
		}
	}
}

// TestFewSuggestions checks that a word that starts many commands
// suggests no more than maxSuggestions of them.
func TestFewSuggestions(t *testing.T) {
	for _, word := range []string{"s", "a", "u", "re", "in"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{word}, strings.NewReader(""), &stdout, &stderr)
		if n := strings.Count(stderr.String(), " or ") + 1; code != exitUsage || !strings.Contains(stderr.String(), "did you mean") || n > maxSuggestions {
			t.Errorf("run(%q) = %d, stderr %q; want at most %d suggestions", word, code, stderr.String(), maxSuggestions)
		}
	}
}

// TestInstallWithoutSource checks that install (add) with no SOURCE, which
// npm's install takes for "what the lock file records", fails and names
// sync, changing nothing.
func TestInstallWithoutSource(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, name := range []string{"install", "i", "add"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{name}, strings.NewReader(""), &stdout, &stderr)
		want := "agentskills add: missing SOURCE; 'agentskills sync' installs the skills the lock file records"
		if code != exitUsage || !strings.Contains(stderr.String(), want) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", name, code, stderr.String(), exitUsage, want)
		}
	}
}

// TestAliasesRun checks that an alias runs its command: ls lists, rm
// removes (here, a name that is not installed).
func TestAliasesRun(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"ls"}, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "No skills.") {
		t.Errorf("run(ls) = %d, stdout %q, stderr %q; want 0 and %q", code, stdout.String(), stderr.String(), "No skills.")
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(t.Context(), []string{"rm", "nope"}, strings.NewReader(""), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "agentskills remove: ") {
		t.Errorf("run(rm nope) = %d, stderr %q; want a failure of remove", code, stderr.String())
	}
}
