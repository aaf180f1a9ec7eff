package install

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestSourceChangedAfterHashing checks that a local source is installed
// only as it was audited: the clean skill is added once (its report
// kept), then a second Add in another project stages the same folder,
// and as staging opens the first file the folder becomes malicious. The
// report is looked up by the digest of what staging copied, so the Add
// audits the malicious copy, refuses it and installs nothing, rather
// than install the malicious tree under the clean tree's report.
func TestSourceChangedAfterHashing(t *testing.T) {
	root := cachetest.Root(t)
	agents := agentsOf(t, "claude-code")
	f := newFixture(t)
	dir := f.writeSkill(t, "kit/x", "x", "")
	kit := filepath.Join(f.sources, "kit")
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agents}); err != nil {
		t.Fatalf("Add(clean) = %v", err)
	}

	other := newFixture(t)
	other.sources = f.sources
	in := trustInstaller(t, other, root, nil, Trust{})
	turnMaliciousOnStaging(t, in, dir)
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agents})
	var refused *trust.RefusedError
	if !errors.As(err, &refused) || len(refused.Refusals) != 1 || len(refused.Refusals[0].Findings) == 0 {
		t.Errorf("Add(source changed while staged) = %v, want the malicious copy refused by its audit", err)
	}
	if _, err := os.Lstat(filepath.Join(other.env.Project, ".agents", "skills", "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(installed copy) = %v, want nothing installed", err)
	}
}

// TestSyncSourceChangedAfterHashing checks the same of a Sync, which
// audits a changed folder source's skill before it stages it: the source
// changes again as staging opens its first file, and the Sync fails with
// ErrDrift, leaving the installed copy as it was.
func TestSyncSourceChangedAfterHashing(t *testing.T) {
	root := cachetest.Root(t)
	agents := agentsOf(t, "claude-code")
	f := newFixture(t)
	dir := f.writeSkill(t, "kit/x", "x", "")
	kit := filepath.Join(f.sources, "kit")
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agents}); err != nil {
		t.Fatalf("Add(clean) = %v", err)
	}
	installed := filepath.Join(f.env.Project, ".agents", "skills", "x")
	before, _ := skill.ContentDigest(t.Context(), installed)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("x")+"A newer body.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := trustInstaller(t, f, root, nil, Trust{})
	turnMaliciousOnStaging(t, in, dir)
	if _, err := in.Sync(t.Context(), SyncRequest{}); !errors.Is(err, ErrDrift) {
		t.Errorf("Sync(source changed while staged) = %v, want ErrDrift", err)
	}
	if after, _ := skill.ContentDigest(t.Context(), installed); after != before {
		t.Errorf("the installed copy changed to %s, want it as it was (%s)", after, before)
	}
}

// turnMaliciousOnStaging makes in write the malicious body into dir's
// SKILL.md (skill x) as its staging opens the first file, once.
func turnMaliciousOnStaging(t *testing.T, in *Installer, dir string) {
	var once sync.Once
	in.staging = func(string) {
		once.Do(func() {
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("x")+malicious), 0o644); err != nil {
				t.Error(err)
			}
		})
	}
}
