package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestFlagHints checks that the command, not the library, names the flag
// that helps with a refusal: --global for a project whose agent folder
// links out of it, and only when it was not given.
func TestFlagHints(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", t.TempDir())
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	project := t.TempDir()
	t.Chdir(project)
	userClaude := filepath.Join(home, ".claude")
	if err := os.MkdirAll(filepath.Join(userClaude, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(userClaude, filepath.Join(project, ".claude")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"add", filepath.Join(src, "good"), "-a", "claude-code"}, strings.NewReader(""), &stdout, &stderr)
	if errs := stderr.String(); code != 1 || !strings.Contains(errs, "outside the project") || !strings.Contains(errs, "agentskills add: --global installs into the user's folders instead") {
		t.Errorf("add through a link out of the project = %d, stderr %q; want 1 and the --global hint", code, errs)
	}
}

// TestAllowRiskHint checks that the --allow-risk hint of an audit
// refusal names the rules of the findings it counts but does not list.
func TestAllowRiskHint(t *testing.T) {
	err := trustHint(&trust.RefusedError{Refusals: []trust.Refusal{{
		Skill: "dense", Source: "kit", Reason: "the audit found ...",
		Findings: []audit.Finding{{Rule: "bidi-control", Severity: audit.High}},
		Omitted:  audit.Omitted{"bidi-control": 99, "zero-width": 100},
	}}})
	h, ok := err.(hinted)
	if !ok || !strings.HasSuffix(h.hint, "--allow-risk bidi-control --allow-risk zero-width") {
		t.Errorf("trustHint = %#v, want a hint allowing bidi-control and zero-width", err)
	}
}
