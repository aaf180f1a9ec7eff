package install

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestSourceChangedAfterHashing checks that a local source is installed
// only as it was audited: the clean skill is added once (its report
// kept), then a second Add in another project hashes the same clean
// folder, finds the kept report without opening a file, and as staging
// opens the first file the folder becomes malicious. The Add fails with
// ErrDrift and installs nothing, rather than install the malicious tree
// under the clean tree's report.
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
	var once sync.Once
	in.staging = func(string) {
		once.Do(func() {
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("x")+malicious), 0o644); err != nil {
				t.Error(err)
			}
		})
	}
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agents})
	if !errors.Is(err, ErrDrift) {
		t.Errorf("Add(source changed while staged) = %v, want ErrDrift", err)
	}
	if _, err := os.Lstat(filepath.Join(other.env.Project, ".agents", "skills", "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(installed copy) = %v, want nothing installed", err)
	}
}
