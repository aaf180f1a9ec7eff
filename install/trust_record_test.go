package install

import (
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
