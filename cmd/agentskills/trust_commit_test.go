package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
)

// TestAddRefusedCommitIsAPolicyError checks add's error line for a
// commit the policy requires signed, unsigned or signed by a key the
// rule does not name: exit 1 with code "policy", as run's for the same
// refusal, the message naming the rule, and nothing installed.
func TestAddRefusedCommitIsAPolicyError(t *testing.T) {
	gitsigtest.Require(t, "git", "ssh-keygen")
	good := gitsigtest.NewSigner(t, "release@example.org")
	other := gitsigtest.NewSigner(t, "mallory@example.org")
	repo := t.TempDir()
	gitsigtest.Git(t, repo, nil, "init", "-q", "-b", "main")
	writeSkill(t, filepath.Join(repo, "skills"), "alpha", "---\nname: alpha\ndescription: The alpha skill.\n---\n")
	gitsigtest.Git(t, repo, nil, "add", "-A")
	commits := map[string]string{
		"unsigned":    gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, "unsigned"),
		"another key": gitsigtest.Commit(t, repo, other, gitsigtest.SSH, "by another key"),
	}
	policyText := "version: 1\nsigners:\n  - sources: [\"git:**\"]\n    commits: {allowed_signers: " + good.AllowedSigners + "}\n"
	for _, name := range []string{"unsigned", "another key"} {
		t.Run(name, func(t *testing.T) {
			project := trustProject(t, policyText)
			src := "git+file://" + filepath.ToSlash(repo) + "#ref=" + commits[name] + "&path=skills/alpha"
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"add", src, "-a", "claude-code", "--json"}, strings.NewReader(""), &stdout, &stderr)
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			var last errorLine
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); code != exitFailed || err != nil || last.Code != codePolicy || !strings.Contains(last.Message, "signers[1]") {
				t.Errorf("add --json of a commit %s = %d, last line %q (%v); want 1 and an error line of code %q naming signers[1]", name, code, lines[len(lines)-1], err, codePolicy)
			}
			if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "alpha")); !os.IsNotExist(err) {
				t.Errorf("a refused add installed alpha (%v)", err)
			}
		})
	}
}
