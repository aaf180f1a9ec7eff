//go:build unix

package trust_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestKeptReportsOnlyUnderASafeCacheRoot checks rule 3 of "Kept
// reports": reports are read and kept only under a root the skill cache
// would use. Under a root, or a .audit folder, that another user may
// write, or a .audit that is a link, a clean report another user
// planted for a malicious tree's digest is not read (the tree is
// audited and refused), and no report is kept.
func TestKeptReportsOnlyUnderASafeCacheRoot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, root, kept string) // kept is root/.audit, made 0700
	}{
		{"root every user may write", func(t *testing.T, root, _ string) { chmod(t, root, 0o777) }},
		{"root its group may write", func(t *testing.T, root, _ string) { chmod(t, root, 0o770) }},
		{".audit every user may write", func(t *testing.T, _, kept string) { chmod(t, kept, 0o777) }},
		{".audit a link", func(t *testing.T, _, kept string) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(kept, other); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, kept); err != nil {
				t.Fatal(err)
			}
		}},
		{"an ancestor every user may write", func(t *testing.T, root, _ string) { chmod(t, filepath.Dir(root), 0o777) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "cache")
			kept := filepath.Join(root, ".audit")
			if err := os.MkdirAll(kept, 0o700); err != nil {
				t.Fatal(err)
			}
			// Another user plants a clean report for their skill's digest.
			sum := sha256.Sum256([]byte("audit report\x00" + audit.RulesVersion + "\x00" + digestA))
			planted := `{"format":"agentadaptor audit report v1","rules":"` + audit.RulesVersion + `","digest":"` + digestA + `","findings":null}`
			write(t, filepath.Join(kept, hex.EncodeToString(sum[:])+".json"), planted)
			tc.prepare(t, root, kept)

			fsys, opened := tree(maliciousMD)
			c := trust.NewChecker(nil, trust.RememberReports(root))
			refusing, _, err := c.AuditContent(fsys, digestA, "helper", helperOrigin)
			if err != nil {
				t.Fatal(err)
			}
			if len(refusing.Findings) == 0 || opened.Load() == 0 {
				t.Errorf("AuditContent(malicious) = %d refusing findings, %d files opened; want the planted report ignored and the tree audited and refused", len(refusing.Findings), opened.Load())
			}
			if _, _, err := c.AuditContent(fsys, digestB, "helper", helperOrigin); err != nil {
				t.Fatal(err)
			}
			sum = sha256.Sum256([]byte("audit report\x00" + audit.RulesVersion + "\x00" + digestB))
			if _, err := os.Lstat(filepath.Join(kept, hex.EncodeToString(sum[:])+".json")); err == nil {
				t.Errorf("a report of digest B was kept under the unsafe root")
			}
		})
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
