//go:build unix

package install

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestKeptReportsOnlyUnderASafeCacheRoot checks that a skill cache root
// every user may write, in which the cache itself looks up no tree, is
// not trusted for kept audit reports either (package trust, # Kept
// reports, rule 3): another user plants a clean report for the digest
// of a malicious local skill, and an Add of it still audits it and
// refuses it.
func TestKeptReportsOnlyUnderASafeCacheRoot(t *testing.T) {
	root := cachetest.Root(t)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	dir := f.writeSkill(t, "kit/x", "x", malicious)
	d, err := skill.ContentDigest(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("audit report\x00" + audit.RulesVersion + "\x00" + d))
	if err := os.MkdirAll(filepath.Join(root, ".audit"), 0o777); err != nil {
		t.Fatal(err)
	}
	planted := `{"format":"agentadaptor audit report v1","rules":"` + audit.RulesVersion + `","digest":"` + d + `","findings":null}`
	if err := os.WriteFile(filepath.Join(root, ".audit", hex.EncodeToString(sum[:])+".json"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	in := trustInstaller(t, f, root, nil, Trust{})
	a := watchAudits(in)
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "claude-code")})
	var refused *trust.RefusedError
	if !errors.As(err, &refused) {
		t.Errorf("Add(malicious) with a planted report in a cache root every user may write = %v (audit opened %q); want a *trust.RefusedError", err, a.take())
	}
}
