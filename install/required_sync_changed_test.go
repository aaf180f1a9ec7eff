package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sync that cannot meet the policy's required skill (it conflicts with
// an installed skill's metadata.requires) repairs what the lock file
// records first: its error may not say "nothing was changed".
func TestSyncRequiredFailingAfterChangesSaysSo(t *testing.T) {
	repo := requiredRepo(t)
	base := t.TempDir()
	appSrc := gitSkill(t, base, "app", nil, repo+"#ref=^2&path=skills/changelog")
	otherSrc := gitSkill(t, base, "other", nil)
	f := newFixture(t)
	in0 := f.requiredInstaller(t, "version: 1\n", "")
	ctx := t.Context()
	if _, err := in0.Add(ctx, AddRequest{Sources: []string{appSrc, otherSrc}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	// A teammate's clone: other's copies are missing.
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "other"))
	os.Remove(filepath.Join(f.env.Project, ".claude", "skills", "other"))
	in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n", "")
	ch, err := in.Sync(ctx, SyncRequest{})
	if err == nil {
		t.Fatal("Sync = nil, want the conflict")
	}
	for _, c := range ch {
		if c.Action != ActionUnchanged {
			t.Logf("change %+v", c)
		}
	}
	if _, serr := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "other")); serr != nil {
		t.Fatalf("Sync did not repair other first: %v", serr)
	}
	if strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("Sync failed saying %q, yet installed other", err)
	}
	if !strings.Contains(err.Error(), "earlier changes stay") {
		t.Errorf("Sync = %v, want it to say its earlier changes stay", err)
	}
}
