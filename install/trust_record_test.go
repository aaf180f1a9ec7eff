package install

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/signature"
)

// TestTrustAcceptSignerSamePin checks Trust rule 4 where the content does
// not change: the publisher signs the pin already installed again with a
// new key, and an Add accepting that signer records it and reports the
// change on the canonical copy's Change, so that it is not "nothing
// changed"; an Add of the same again reports no change.
func TestTrustAcceptSignerSamePin(t *testing.T) {
	o := newOCIFixture(t)
	k1, k2 := newTestKey(t), newTestKey(t)
	ref := o.push(t, "acme/review", "1", "review", "")
	o.sign(t, ref, k1.priv)
	f := newFixture(t)
	agents := agentsOf(t, "claude-code")
	if _, err := trustInstaller(t, f, "", Trust{Signers: []signature.Requirement{k1.requirement()}}).Add(t.Context(), Request{Sources: []string{ref}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) = %v", ref, err)
	}
	o.sign(t, ref, k2.priv)
	accept := Trust{Signers: []signature.Requirement{k2.requirement()}, AcceptSigners: []string{k2.id}}
	changes, err := trustInstaller(t, f, "", accept).Add(t.Context(), Request{Sources: []string{ref}, Agents: agents})
	if err != nil {
		t.Fatalf("Add(%s) accepting %s = %v", ref, k2.id, err)
	}
	if !Changed(changes) {
		t.Errorf("Changed(%+v) = false, want true: the recorded signer changed", changes)
	}
	var got *Change
	for i, c := range changes {
		if c.Skill == "review" && c.Agent == "" {
			got = &changes[i]
		}
	}
	if got == nil || got.Signer != "key "+k2.id || got.PreviousSigner != "key "+k1.id {
		t.Errorf("Add accepting a new signer of the same pin: canonical change %+v, want Signer key %s, PreviousSigner key %s", got, k2.id, k1.id)
	}
	if s := lockedSigner(t, f, "review"); s == nil || s.KeyID != k2.id {
		t.Errorf("the lock file records %+v, want %s", s, k2.id)
	}
	changes, err = trustInstaller(t, f, "", accept).Add(t.Context(), Request{Sources: []string{ref}, Agents: agents})
	if err != nil || Changed(changes) {
		t.Errorf("Add again = %+v, %v; want no change", changes, err)
	}
}

// TestTrustAllowRisksRecorded checks Trust rule 5's record: an Add with
// Trust.AllowRisks records the rules its skill needed with the content
// digest; a frozen Sync, CheckTrust and an Update of unchanged content
// allow them again without being told and keep the record; other content
// with the same finding is refused; content without the finding drops
// the record; a lock file without the record (an older one) refuses.
func TestTrustAllowRisksRecorded(t *testing.T) {
	f := newFixture(t)
	dir := f.writeSkill(t, "evil", "evil", malicious)
	agents := agentsOf(t, "claude-code")
	plain := trustInstaller(t, f, "", Trust{})
	if _, err := plain.Add(t.Context(), Request{Sources: []string{dir}, Agents: agents}); !errors.Is(err, ErrRefused) {
		t.Fatalf("Add of a flagged skill = %v, want ErrRefused", err)
	}
	allow := trustInstaller(t, f, "", Trust{AllowRisks: []string{"prerequisite-install", "secret-read"}})
	if _, err := allow.Add(t.Context(), Request{Sources: []string{dir}, Agents: agents}); err != nil {
		t.Fatalf("Add with AllowRisks = %v", err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", LockName)
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	e := lock.Skills["evil"]
	if e.AllowedRisks == nil || e.AllowedRisks.Digest != e.Digest || !slices.Equal(e.AllowedRisks.Rules, []string{"prerequisite-install"}) {
		t.Fatalf("the lock file records %+v, want the rule prerequisite-install (not secret-read, which nothing needed) for digest %s", e.AllowedRisks, e.Digest)
	}
	if refused, err := plain.CheckTrust(t.Context()); err != nil || len(refused) != 0 {
		t.Errorf("CheckTrust = %+v, %v; want nothing refused", refused, err)
	}
	risks, err := plain.RecordedRisks()
	if err != nil || risks["evil"].Digest != e.Digest {
		t.Errorf("RecordedRisks() = %v, %v; want evil's record", risks, err)
	}
	st, err := plain.List(t.Context(), agents)
	if err != nil || len(st) == 0 || st[0].AllowedRisks == nil || st[0].AllowedRisks.Digest != e.Digest {
		t.Errorf("List() = %+v, %v; want evil with its record", st, err)
	}
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "evil"))
	if _, err := plain.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync without AllowRisks = %v", err)
	}
	if _, _, err := plain.Update(t.Context(), UpdateRequest{}); err != nil {
		t.Errorf("Update of unchanged content = %v", err)
	}
	if l, _ := readLock(lockPath); l.Skills["evil"].AllowedRisks == nil {
		t.Errorf("Sync or Update of unchanged content dropped the record")
	}

	// Other content, the same finding.
	before, _ := os.ReadFile(lockPath)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("evil")+malicious+"\nMore.\n"), 0o644)
	if _, err := plain.Sync(t.Context(), SyncRequest{}); !errors.Is(err, ErrRefused) {
		t.Errorf("Sync of other content with the same finding = %v, want ErrRefused", err)
	}
	if _, _, err := plain.Update(t.Context(), UpdateRequest{}); !errors.Is(err, ErrRefused) {
		t.Errorf("Update to other content with the same finding = %v, want ErrRefused", err)
	}
	if _, err := plain.Add(t.Context(), Request{Sources: []string{dir}, Agents: agents}); !errors.Is(err, ErrRefused) {
		t.Errorf("Add of other content with the same finding = %v, want ErrRefused", err)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Errorf("a refused Sync, Update or Add changed the lock file:\n%s\nwas\n%s", after, before)
	}
	// Allowed again: recorded for the new content.
	if _, _, err := allow.Update(t.Context(), UpdateRequest{}); err != nil {
		t.Fatalf("Update with AllowRisks = %v", err)
	}
	l, _ := readLock(lockPath)
	if e := l.Skills["evil"]; e.AllowedRisks == nil || e.AllowedRisks.Digest != e.Digest {
		t.Errorf("after Update with AllowRisks the lock file records %+v for digest %s", e.AllowedRisks, e.Digest)
	}

	// A lock file without the record, as older ones are: refused.
	l.Skills["evil"].AllowedRisks = nil
	if err := l.write(lockPath); err != nil {
		t.Fatal(err)
	}
	if refused, err := plain.CheckTrust(t.Context()); err != nil || len(refused) != 1 {
		t.Errorf("CheckTrust of a lock file without the record = %+v, %v; want evil refused", refused, err)
	}

	// Content without the finding: the record goes.
	l.Skills["evil"].AllowedRisks = &RiskAllowance{Rules: []string{"prerequisite-install"}, Digest: l.Skills["evil"].Digest}
	l.write(lockPath)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("evil")), 0o644)
	if _, err := plain.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatalf("Sync of content without the finding = %v", err)
	}
	if l, _ := readLock(lockPath); l.Skills["evil"].AllowedRisks != nil {
		t.Errorf("the lock file keeps %+v for content without the finding", l.Skills["evil"].AllowedRisks)
	}
}
