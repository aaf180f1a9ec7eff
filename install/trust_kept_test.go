package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/trust"
)

// audits records the files the audit of an Installer opens
// (Installer.auditing).
type audits struct {
	mu     sync.Mutex
	opened []string
}

func watchAudits(in *Installer) *audits {
	a := new(audits)
	in.auditing = func(name string) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.opened = append(a.opened, name)
	}
	return a
}

// take returns what was opened since the last take.
func (a *audits) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.opened
	a.opened = nil
	return out
}

// TestTrustKeptReportsNoAudit checks Trust rule 5's kept reports: after
// an Add, a Verify with CheckTrust, a CheckTrust alone, a frozen Sync, a
// Sync and an Update with nothing to do, each in a new Installer on the
// same skill cache (a new process), audit nothing: each reads the report
// kept for the content digest it computed. On an empty cache the same
// checks audit every skill.
func TestTrustKeptReportsNoAudit(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"one", "two", "three"} {
		f.writeSkill(t, "kit/"+name, name, "")
	}
	kit := filepath.Join(f.sources, "kit")
	root := cachetest.Root(t)
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{kit}, Agents: agentsOf(t, "claude-code", "codex")}); err != nil {
		t.Fatalf("Add(%s) = %v", kit, err)
	}

	steps := []struct {
		name string
		run  func(in *Installer) error
	}{
		{"Verify and CheckTrust", func(in *Installer) error {
			bad, err := in.Verify(t.Context())
			if err == nil && len(bad) > 0 {
				t.Errorf("Verify() = %v, want nothing that differs", bad)
			}
			if err != nil {
				return err
			}
			// The stat record holds what Verify read, for CheckTrust
			// (rule 16).
			if in.stamps.folders[in.canonicalPath("one")] == nil {
				t.Errorf("Verify left no stat record of %s for CheckTrust", in.canonicalPath("one"))
			}
			return checked(t.Context(), in)
		}},
		{"CheckTrust alone", func(in *Installer) error { return checked(t.Context(), in) }},
		{"frozen Sync", func(in *Installer) error {
			_, err := in.Sync(t.Context(), SyncRequest{Frozen: true})
			return err
		}},
		{"Sync", func(in *Installer) error {
			_, err := in.Sync(t.Context(), SyncRequest{})
			return err
		}},
		{"Update", func(in *Installer) error {
			_, _, err := in.Update(t.Context(), UpdateRequest{})
			return err
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			in := trustInstaller(t, f, root, nil, Trust{})
			a := watchAudits(in)
			if err := st.run(in); err != nil {
				t.Fatalf("%s = %v", st.name, err)
			}
			if opened := a.take(); len(opened) > 0 {
				t.Errorf("%s audited %q; want every report read from the skill cache", st.name, opened)
			}
		})
		t.Run(st.name+" on an empty cache", func(t *testing.T) {
			in := trustInstaller(t, f, cachetest.Root(t), nil, Trust{})
			a := watchAudits(in)
			if err := st.run(in); err != nil {
				t.Fatalf("%s = %v", st.name, err)
			}
			if opened := a.take(); !slices.Contains(opened, "SKILL.md") {
				t.Errorf("%s on an empty cache audited %q; want every skill audited", st.name, opened)
			}
		})
	}
}

// checked is CheckTrust, failing on a refusal.
func checked(ctx context.Context, in *Installer) error {
	refusals, err := in.CheckTrust(ctx, CheckTrustRequest{})
	if err == nil && len(refusals) > 0 {
		return errors.New("refused: " + refusals[0].Reason)
	}
	return err
}

// TestTrustKeptReportNotFromLockFile checks that a report is kept and
// read by the digest of the tree itself, never by the digest a lock file
// names: a project whose lock file came from elsewhere, naming the
// digest of a clean skill whose report the cache keeps, while its source
// and its installed copy hold malicious content, is audited and refused
// by Sync and CheckTrust, and the clean skill's kept report is not
// changed by it.
func TestTrustKeptReportNotFromLockFile(t *testing.T) {
	root := cachetest.Root(t)
	agents := agentsOf(t, "claude-code")
	clean := newFixture(t)
	clean.writeSkill(t, "kit/x", "x", "")
	if _, err := trustInstaller(t, clean, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(clean.sources, "kit")}, Agents: agents}); err != nil {
		t.Fatalf("Add(clean) = %v", err)
	}

	// The other project has the clean project's lock file, word for
	// word, and malicious content in its source and its installed copy.
	other := newFixture(t)
	other.writeSkill(t, "kit/x", "x", malicious)
	lockData, err := os.ReadFile(filepath.Join(clean.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	canonical := filepath.Join(other.env.Project, ".agents", "skills", "x")
	if err := os.MkdirAll(canonical, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other.env.Project, ".agents", lockName), lockData, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(canonical, "SKILL.md"), []byte(skillMD("x")+malicious), 0o644); err != nil {
		t.Fatal(err)
	}

	in := trustInstaller(t, other, root, nil, Trust{})
	a := watchAudits(in)
	_, err = in.Sync(t.Context(), SyncRequest{Frozen: true})
	var refused *trust.RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("frozen Sync of the malicious source under a lock file from elsewhere = %v, want a *trust.RefusedError", err)
	}
	if opened := a.take(); !slices.Contains(opened, "SKILL.md") {
		t.Errorf("frozen Sync audited %q, want the source's SKILL.md audited", opened)
	}
	refusals, err := in.CheckTrust(t.Context(), CheckTrustRequest{})
	if err != nil || len(refusals) != 1 || refusals[0].Skill != "x" || len(refusals[0].Findings) == 0 {
		t.Fatalf("CheckTrust() = %+v, %v; want x refused by its audit", refusals, err)
	}
	if opened := a.take(); !slices.Contains(opened, "SKILL.md") {
		t.Errorf("CheckTrust audited %q, want the installed copy's SKILL.md audited", opened)
	}

	// The clean project still reads its clean report, auditing nothing.
	in = trustInstaller(t, clean, root, nil, Trust{})
	a = watchAudits(in)
	if err := checked(t.Context(), in); err != nil {
		t.Fatalf("CheckTrust() of the clean project = %v", err)
	}
	if opened := a.take(); len(opened) > 0 {
		t.Errorf("CheckTrust of the clean project audited %q; want its kept report read", opened)
	}
}
