package install

import (
	"errors"
	"strings"
	"testing"
)

// Rule 17: a sync adding the policy's required changelog ^1 (a skill
// named, not reached by a requirement) while the installed app requires
// changelog ^2 fails naming both sides with their sources: the named
// one's is the policy entry's, never empty.
func TestRequiredConflictNamesNamedSource(t *testing.T) {
	repo := requiredRepo(t)
	base := t.TempDir()
	appSrc := gitSkill(t, base, "app", nil, repo+"#ref=^2&path=skills/changelog")
	f := newFixture(t)
	in0 := f.requiredInstaller(t, "version: 1\n", "")
	ctx := t.Context()
	if _, err := in0.Add(ctx, AddRequest{Sources: []string{appSrc}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+repo+"#ref=^1&path=skills/changelog\n", "")
	_, err := in.Sync(ctx, SyncRequest{})
	if !errors.Is(err, ErrRequirements) {
		t.Fatalf("Sync = %v, want %v", err, ErrRequirements)
	}
	msg := err.Error()
	if strings.Contains(msg, "(,") || !strings.Contains(msg, "changelog (named: "+repo+"#ref=^1&path=skills/changelog, which picks v1.1.0)") {
		t.Errorf("Sync = %v, want the named changelog described with its source", err)
	}
}
