package main

import (
	"bytes"
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
			src := filepath.Join(t.TempDir(), "kit")
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
