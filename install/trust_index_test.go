package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestSyncKeptReportIndex checks a no-op sync against the index of the
// empty kept reports that the trust checker keeps (package trust, "Kept
// reports", rule 7), which a sync saves at its end: once settled, the
// skills are audited from their reports alone; a report tampered with to
// hold a finding refuses its skill, a report removed has its skill
// audited again, a skill whose report has findings that a lax policy let
// through is refused once the policy is tightened, and on another boot
// everything is read again.
func TestSyncKeptReportIndex(t *testing.T) {
	if bootid.ID() == "" {
		t.Skip("no boot id here: no record is kept")
	}
	f := newFixture(t)
	for _, name := range []string{"one", "two"} {
		f.writeSkill(t, "kit/"+name, name, "")
	}
	kit := filepath.Join(f.sources, "kit")
	writeFiles(t, filepath.Join(kit, "evil"), map[string]string{"SKILL.md": skillMD("evil") + malicious})
	root := cachetest.Root(t)
	lax := parsePolicy(t, t.TempDir(), "version: 1\naudit:\n  fail_on: critical\n")
	installer := func(p *policy.Policy) (*Installer, *[]string) {
		in := trustInstaller(t, f, root, trust.NewChecker(p), Trust{})
		var audited []string
		in.auditing = func(name string) { audited = append(audited, name) }
		return in, &audited
	}
	in, _ := installer(lax)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(%s) = %v", kit, err)
	}
	sync := func(p *policy.Policy) ([]string, error) {
		in, audited := installer(p)
		_, err := in.Sync(t.Context(), SyncRequest{})
		return *audited, err
	}
	for range 2 { // the first sync records, the second settles
		cachetest.Settle()
		if _, err := sync(lax); err != nil {
			t.Fatalf("Sync() = %v", err)
		}
	}
	if audited, err := sync(lax); err != nil || len(audited) > 0 {
		t.Fatalf("Sync() = %v, audited %q; want nothing audited", err, audited)
	}

	// Tightened: evil's report has a finding, which now refuses it.
	_, err := sync(nil)
	var refused *trust.RefusedError
	if !errors.As(err, &refused) || len(refused.Refusals) != 1 || refused.Refusals[0].Skill != "evil" {
		t.Errorf("Sync() under the default policy = %v; want evil refused, and evil alone", err)
	}

	// A finding planted in one's kept report: one is refused too.
	reports := keptReports(t, root)
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	one, two, evil := lock.Skills["one"].Digest, lock.Skills["two"].Digest, lock.Skills["evil"].Digest
	b, err := os.ReadFile(reports[evil])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reports[one], []byte(strings.Replace(string(b), evil, one, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = sync(nil)
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(fmt.Sprint(err), "skill one from") || !strings.Contains(fmt.Sprint(err), "skill evil from") {
		t.Errorf("Sync() after a finding was planted in one's report = %v; want evil and one refused", err)
	}

	// The reports removed: the skills are audited again, and pass.
	for _, d := range []string{one, two} {
		if err := os.Remove(reports[d]); err != nil {
			t.Fatal(err)
		}
	}
	audited, err := sync(lax)
	if err != nil || len(audited) != 4 {
		t.Errorf("Sync() after the reports were removed = %v, audited %q; want one and two audited, two files each", err, audited)
	}

	// Another boot: the records are none; everything is read, and the
	// sync passes.
	defer bootid.SetForTest("another-boot")()
	in, _ = installer(lax)
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil || in.stamps.read.Load() == 0 {
		t.Errorf("Sync() on another boot = %v, read %d folders; want every folder read", err, in.stamps.read.Load())
	}
}

// keptReports returns the files of the audit reports kept under root,
// by the digest each is of.
func keptReports(t *testing.T, root string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, ".audit"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		p := filepath.Join(root, ".audit", e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var k struct{ Digest string }
		if err := json.Unmarshal(b, &k); err != nil {
			t.Fatal(err)
		}
		out[k.Digest] = p
	}
	return out
}
