package install

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestTrustRecordedRisksUserPolicy checks policy rule 16 as Trust rule 5
// applies it: a lock file committed with allowed_risks for the project's
// own flagged skill (its author ran add --allow-risk) does not lift a
// refusal that the user's own policy file makes, in a sync of a fresh
// clone; without a user's file the record stands, and the user's
// audit.accept, or the rule named now, lets it through.
func TestTrustRecordedRisksUserPolicy(t *testing.T) {
	rules := []string{"prerequisite-install", "download-exec"}
	a := newFixture(t)
	writeFiles(t, filepath.Join(a.env.Project, "skills", "evil"), map[string]string{"SKILL.md": skillMD("evil") + malicious})
	if _, err := trustInstaller(t, a, "", trust.NewChecker(nil, trust.AllowRisks(rules...)), Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(a.env.Project, "skills", "evil")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add with AllowRisks = %v", err)
	}
	lock, err := os.ReadFile(filepath.Join(a.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	clone := func(t *testing.T) *fixture {
		v := newFixture(t)
		writeFiles(t, v.env.Project, map[string]string{"skills/evil/SKILL.md": skillMD("evil") + malicious, ".agents/" + lockName: string(lock)})
		return v
	}
	installed := func(v *fixture) bool {
		_, err := os.Stat(filepath.Join(v.env.Project, ".claude", "skills", "evil"))
		return err == nil
	}
	cases := []struct {
		name    string
		policy  string // the user's file; "" for none
		allow   []string
		refused bool
	}{
		{name: "no user's file", refused: false},
		{name: "user's file refuses at medium", policy: "version: 1\naudit:\n  fail_on: medium\n", refused: true},
		{name: "user's file at the default threshold", policy: "version: 1\n", refused: true},
		{name: "user's file accepts", policy: "version: 1\naudit:\n  accept:\n    - {rule: prerequisite-install, skill: evil, reason: ours}\n", refused: false},
		{name: "rule named now", policy: "version: 1\naudit:\n  fail_on: medium\n", allow: rules, refused: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := clone(t)
			var p *policy.Policy
			if tc.policy != "" {
				p = parsePolicy(t, t.TempDir(), tc.policy)
			}
			c := trust.NewChecker(p, trust.AllowRisks(tc.allow...))
			_, err := trustInstaller(t, v, "", c, Trust{}).Sync(t.Context(), SyncRequest{})
			if tc.refused {
				if !errors.Is(err, trust.ErrRefused) || installed(v) {
					t.Errorf("Sync of a cloned lock file whose allowed_risks name its flagged skill = %v (installed: %v); want trust.ErrRefused and nothing installed, as the user's file refuses it", err, installed(v))
				}
				return
			}
			if err != nil || !installed(v) {
				t.Errorf("Sync = %v (installed: %v); want the skill installed", err, installed(v))
			}
			refusals, err := trustInstaller(t, v, "", c, Trust{}).CheckTrust(t.Context(), CheckTrustRequest{})
			if err != nil || len(refusals) != 0 {
				t.Errorf("CheckTrust after the sync = %v, %v; want no refusal", refusals, err)
			}
		})
	}
}
