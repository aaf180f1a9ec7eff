package install

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/sigstoretest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/trust"
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
	o.Sign(t, ref, k1.Private)
	f := newFixture(t)
	agents := agentsOf(t, "claude-code")
	if _, err := trustInstaller(t, f, "", requiring(k1.Requirement()), Trust{}).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) = %v", ref, err)
	}
	o.Sign(t, ref, k2.Private)
	accept := Trust{AcceptSigners: []string{k2.ID}}
	changes, err := trustInstaller(t, f, "", requiring(k2.Requirement()), accept).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agents})
	if err != nil {
		t.Fatalf("Add(%s) accepting %s = %v", ref, k2.ID, err)
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
	if got == nil || got.Signer != "key "+k2.ID || got.PreviousSigner != "key "+k1.ID {
		t.Errorf("Add accepting a new signer of the same pin: canonical change %+v, want Signer key %s, PreviousSigner key %s", got, k2.ID, k1.ID)
	}
	if s := lockedSigner(t, f, "review"); s == nil || s.KeyID != k2.ID {
		t.Errorf("the lock file records %+v, want %s", s, k2.ID)
	}
	changes, err = trustInstaller(t, f, "", nil, accept).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agents})
	if err != nil || Changed(changes) {
		t.Errorf("Add again = %+v, %v; want no change", changes, err)
	}
}

// TestTrustAllowRisksRecorded checks Trust rule 5's record: an Add with
// trust.AllowRisks records the rules its skill needed with the content
// digest; a frozen Sync, CheckTrust and an Update of unchanged content
// allow them again without being told and keep the record; other content
// with the same finding is refused; content without the finding drops
// the record; a lock file without the record (an older one) refuses.
func TestTrustAllowRisksRecorded(t *testing.T) {
	f := newFixture(t)
	dir := f.writeSkill(t, "evil", "evil", malicious)
	agents := agentsOf(t, "claude-code")
	plain := trustInstaller(t, f, "", nil, Trust{})
	if _, err := plain.Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agents}); !errors.Is(err, trust.ErrRefused) {
		t.Fatalf("Add of a flagged skill = %v, want trust.ErrRefused", err)
	}
	allow := trustInstaller(t, f, "", trust.NewChecker(nil, trust.AllowRisks("prerequisite-install", "secret-read")), Trust{})
	if _, err := allow.Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agents}); err != nil {
		t.Fatalf("Add with AllowRisks = %v", err)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	e := lock.Skills["evil"]
	if e.AllowedRisks == nil || e.AllowedRisks.Digest != e.Digest || !slices.Equal(e.AllowedRisks.Rules, []string{"prerequisite-install"}) {
		t.Fatalf("the lock file records %+v, want the rule prerequisite-install (not secret-read, which nothing needed) for digest %s", e.AllowedRisks, e.Digest)
	}
	if refused, err := plain.CheckTrust(t.Context(), CheckTrustRequest{}); err != nil || len(refused) != 0 {
		t.Errorf("CheckTrust = %+v, %v; want nothing refused", refused, err)
	}
	risks, err := plain.RecordedRisks(t.Context())
	if err != nil || risks["evil"].Digest != e.Digest {
		t.Errorf("RecordedRisks() = %v, %v; want evil's record", risks, err)
	}
	st, err := plain.List(t.Context(), ListRequest{Agents: agents})
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
	if _, err := plain.Sync(t.Context(), SyncRequest{}); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("Sync of other content with the same finding = %v, want trust.ErrRefused", err)
	}
	if _, _, err := plain.Update(t.Context(), UpdateRequest{}); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("Update to other content with the same finding = %v, want trust.ErrRefused", err)
	}
	if _, err := plain.Add(t.Context(), AddRequest{Sources: []string{dir}, Agents: agents}); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("Add of other content with the same finding = %v, want trust.ErrRefused", err)
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
	if refused, err := plain.CheckTrust(t.Context(), CheckTrustRequest{}); err != nil || len(refused) != 1 {
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

// noPublicRoot makes a fetch of Sigstore's public-good trusted root fail
// at once: its TUF cache folder is a file. It returns that file.
func noPublicRoot(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // os.UserCacheDir on Linux,
	t.Setenv("HOME", t.TempDir())           // macOS
	t.Setenv("LocalAppData", t.TempDir())   // and Windows
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	tuf := filepath.Join(dir, "agent-adaptor", "sigstore-tuf")
	os.MkdirAll(filepath.Dir(tuf), 0o755)
	if err := os.WriteFile(tuf, []byte("no public root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tuf
}

// keylessSigned pushes a skill to o and signs it keyless with a private
// Sigstore; it returns the pinned reference and the Sigstore's
// trusted_root.json.
func keylessSigned(t *testing.T, o *ociFixture, repo string) (string, []byte) {
	t.Helper()
	ref := o.push(t, repo, "1", "review", "")
	sg := sigstoretest.New(t)
	sigstoretest.Attach(t, ref, sg.Bundle(t, releaseIdentity, actionsIssuer, digest.Digest(ref[strings.LastIndex(ref, "@")+1:])))
	return ref, sg.TrustedRoot(t)
}

// The keyless signer of these tests.
const (
	releaseIdentity = "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1"
	actionsIssuer   = "https://token.actions.githubusercontent.com"
)

// TestTrustKeylessRootRecorded checks Trust rule 4 for a keyless signer
// verified against a private trusted root: the lock file records the
// root's digest and its file (relative to the project when inside it, as
// a policy's root in .agents is, else absolute), and a frozen Sync and
// CheckTrust without requirements verify against that file, offline and
// without Sigstore's public root; a root file that changed, and a
// recorded path that leads out of the project, are refused.
func TestTrustKeylessRootRecorded(t *testing.T) {
	tuf := noPublicRoot(t)
	o := newOCIFixture(t)
	ref, rootJSON := keylessSigned(t, o, "acme/review")
	f := newFixture(t)
	agents := agentsOf(t, "claude-code")
	outside := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(outside, rootJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := cachetest.Root(t)
	req := signature.Requirement{Identity: releaseIdentity, Issuer: actionsIssuer, TrustedRoot: rootJSON, TrustedRootFile: outside}
	if _, err := trustInstaller(t, f, cache, requiring(req), Trust{}).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) keyless with a private root = %v", ref, err)
	}
	s := lockedSigner(t, f, "review")
	if s == nil || s.Identity != releaseIdentity || s.TrustedRoot == nil || s.TrustedRoot.Path != outside || s.TrustedRoot.Digest != digest.FromBytes(rootJSON).String() {
		t.Fatalf("the lock file records %+v; want the identity and the root %s at %s", s, digest.FromBytes(rootJSON), outside)
	}

	o.Close()
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "review"))
	in := trustInstaller(t, f, cache, nil, Trust{})
	if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync offline = %v", err)
	}
	if refused, err := in.CheckTrust(t.Context(), CheckTrustRequest{}); err != nil || len(refused) != 0 {
		t.Errorf("CheckTrust offline = %+v, %v; want nothing refused", refused, err)
	}
	if fi, err := os.Stat(tuf); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Sigstore's public root was fetched (%v)", err)
	}

	os.WriteFile(outside, append(rootJSON, '\n'), 0o644)
	refused, err := in.CheckTrust(t.Context(), CheckTrustRequest{})
	if err != nil || len(refused) != 1 || !strings.Contains(refused[0].Reason, "has changed") || !strings.Contains(refused[0].Reason, outside) {
		t.Errorf("CheckTrust with the root file changed = %+v, %v; want review refused, naming %s", refused, err, outside)
	}

	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	lock.Skills["review"].Signer.TrustedRoot.Path = "../" + filepath.Base(filepath.Dir(outside)) + "/trusted_root.json"
	lock.write(lockPath)
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "review"))
	if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); !errors.Is(err, ErrInvalidLock) {
		t.Errorf("frozen Sync of a recorded root path out of the project = %v, want ErrInvalidLock", err)
	}
}

// TestTrustKeylessPolicyRoot checks that a trusted root a policy names is
// recorded relative to the project (the policy's folder is .agents), and
// used from there once the policy no longer names it.
func TestTrustKeylessPolicyRoot(t *testing.T) {
	noPublicRoot(t)
	o := newOCIFixture(t)
	ref, rootJSON := keylessSigned(t, o, "acme/review")
	f := newFixture(t)
	dir := filepath.Join(f.env.Project, ".agents")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "acme-root.json"), rootJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	p := parsePolicy(t, dir, "version: 1\nsigners:\n  - sources: [\"oci:"+o.Host+"/acme/*\"]\n    identity: "+releaseIdentity+"\n    issuer: "+actionsIssuer+"\n    trusted_root: acme-root.json\n")
	cache := cachetest.Root(t)
	if _, err := trustInstaller(t, f, cache, trust.NewChecker(p), Trust{}).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(%s) under a policy naming a private root = %v", ref, err)
	}
	if s := lockedSigner(t, f, "review"); s == nil || s.TrustedRoot == nil || s.TrustedRoot.Path != ".agents/acme-root.json" {
		t.Fatalf("the lock file records %+v; want the root at .agents/acme-root.json", s)
	}
	o.Close()
	if refused, err := trustInstaller(t, f, cache, nil, Trust{}).CheckTrust(t.Context(), CheckTrustRequest{}); err != nil || len(refused) != 0 {
		t.Errorf("CheckTrust offline without the policy = %+v, %v; want nothing refused", refused, err)
	}
}

// TestLockRootRead checks what a lock file's record of a trusted root may
// name (Trust rule 4): a file under the scope's root or an absolute one,
// of at most policy.MaxFileSize bytes, with the digest recorded.
func TestLockRootRead(t *testing.T) {
	root := t.TempDir()
	good := []byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`)
	big := make([]byte, policy.MaxFileSize+1)
	os.WriteFile(filepath.Join(root, "root.json"), good, 0o644)
	os.WriteFile(filepath.Join(root, "big.json"), big, 0o644)
	outside := filepath.Join(t.TempDir(), "root.json")
	os.WriteFile(outside, good, 0o644)
	tests := []struct {
		name string
		r    lockRoot
		is   error // nil: read
	}{
		{"relative", lockRoot{Digest: rootDigest(good), Path: "root.json"}, nil},
		{"absolute", lockRoot{Digest: rootDigest(good), Path: outside}, nil},
		{"no path", lockRoot{Digest: rootDigest(good)}, signature.ErrRequirement},
		{"out of the root", lockRoot{Digest: rootDigest(good), Path: "../" + filepath.Base(filepath.Dir(outside)) + "/root.json"}, ErrInvalidLock},
		{"missing", lockRoot{Digest: rootDigest(good), Path: "nope.json"}, signature.ErrRequirement},
		{"another digest", lockRoot{Digest: rootDigest(append(good, ' ')), Path: "root.json"}, signature.ErrRequirement},
		{"over the limit", lockRoot{Digest: rootDigest(big), Path: "big.json"}, signature.ErrRequirement},
		{"a folder", lockRoot{Digest: rootDigest(good), Path: "."}, signature.ErrRequirement},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, _, err := tt.r.read(root, SettingTrustedRoot)
			if tt.is == nil {
				if err != nil || string(data) != string(good) {
					t.Errorf("read(%+v) = %q, %v; want the root", tt.r, data, err)
				}
				return
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("read(%+v) = %v, want %v", tt.r, err, tt.is)
			}
		})
	}
}
