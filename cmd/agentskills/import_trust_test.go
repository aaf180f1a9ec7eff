package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportHonoursThePolicy checks that import reads the trust policy
// as add does: a recorded source the project's policy does not allow is
// left out with the refusal, never read or installed, and the command
// exits 1; the audit refuses a skill it flags as it does for add.
func TestImportHonoursThePolicy(t *testing.T) {
	for _, tc := range []struct {
		name, policy, skill, want string
	}{
		{name: "a source the policy does not allow", policy: "version: 1\nsources:\n  allow: [\"github:acme/*\"]\n",
			skill: "---\nname: alpha\ndescription: The alpha skill.\n---\n", want: "sources.allow"},
		{name: "a skill the audit refuses", skill: strings.Replace(evilSkill, "name: evil", "name: alpha", 1), want: "audit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := trustProject(t, tc.policy)
			t.Setenv("XDG_STATE_HOME", "")
			src := filepath.Join(project, "vendor", "kit") // import takes local folders from inside the project only
			writeSkill(t, filepath.Join(src, "skills"), "alpha", tc.skill)
			os.WriteFile(filepath.Join(project, "skills-lock.json"), []byte(`{"version": 1, "skills": {"alpha": {"source": "`+filepath.ToSlash(src)+`", "sourceType": "local"}}}`), 0o644)
			for _, args := range [][]string{{"import", "--dry-run"}, {"import"}} {
				if tc.want == "audit" && len(args) == 2 {
					continue // a dry run resolves refs; it reads no content to audit
				}
				var stdout, stderr bytes.Buffer
				code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
				if code != exitFailed || !strings.Contains(stdout.String(), "left out alpha") || !strings.Contains(stdout.String(), tc.want) {
					t.Errorf("%s = %d, %q, %q; want alpha left out naming %s, exit 1", strings.Join(args, " "), code, stdout.String(), stderr.String(), tc.want)
				}
			}
			if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "alpha")); !os.IsNotExist(err) {
				t.Errorf("import installed alpha (%v)", err)
			}
		})
	}
}

// TestOutdatedRefusedIsAPolicyError checks outdated's error line for a
// skill whose source the trust policy no longer allows: exit 1 with code
// "policy", as add's and sync's refusals have, not "failed".
func TestOutdatedRefusedIsAPolicyError(t *testing.T) {
	project := trustProject(t, "")
	src := t.TempDir()
	writeSkill(t, src, "good", "---\nname: good\ndescription: A good skill.\n---\n")
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"add", filepath.Join(src, "good"), "-a", "codex"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("add = %d: %s", code, stderr.String())
	}
	os.WriteFile(filepath.Join(project, ".agents", "agentskills.policy.yaml"), []byte("version: 1\nsources:\n  allow: [\"github:acme/*\"]\n"), 0o644)
	stdout.Reset()
	code := run(t.Context(), []string{"outdated", "--json"}, strings.NewReader(""), &stdout, &stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var last errorLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); code != exitFailed || err != nil || last.Code != codePolicy || !strings.Contains(last.Message, "sources.allow") {
		t.Errorf("outdated --json of a refused source = %d, last line %q (%v); want 1 and an error line of code %q", code, lines[len(lines)-1], err, codePolicy)
	}
}
