package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestTrustClonedLockCommitSignerChecked checks Trust rule 3 against a
// cloned lock file: one that names a repository whose commits the policy
// requires signed, a made-up pin and commit_signer, and the digest of
// other content the user's skill cache holds (a skill of the attacker's
// the user once tried elsewhere) does not get that content installed
// from the cache as the signed repository's: the pin is checked, and
// refused.
func TestTrustClonedLockCommitSignerChecked(t *testing.T) {
	good, base := commitSigning(t)
	evil := filepath.Join(base, "evil", "fun")
	gitRepo(t, evil, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha") + "EVIL\n"})
	gitsigtest.Commit(t, evil, nil, gitsigtest.Unsigned, "evil")
	acme := filepath.Join(base, "acme", "tools")
	gitRepo(t, acme, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	gitsigtest.Commit(t, acme, nil, gitsigtest.Unsigned, "unsigned")
	cache := t.TempDir()
	// Earlier, elsewhere, without a policy: the user tries the
	// attacker's skill, which the shared skill cache keeps.
	f := newFixture(t)
	evilSrc := "git+file://" + filepath.ToSlash(evil) + "#path=skills/alpha"
	if _, err := trustInstaller(t, f, cache, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{evilSrc}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	// The cloned project's lock file: acme's repository, whose commits
	// the user's policy requires signed, with the attacker's digest.
	e := lock.Skills["alpha"]
	e.Source = strings.Replace(e.Source, filepath.ToSlash(evil), filepath.ToSlash(acme), 1)
	e.CommitSigner = "release@example.org"
	g := newFixture(t)
	os.MkdirAll(filepath.Join(g.env.Project, ".agents"), 0o755)
	if err := lock.write(filepath.Join(g.env.Project, ".agents", lockName)); err != nil {
		t.Fatal(err)
	}
	p := commitsPolicy(t, acme, good.AllowedSigners)
	_, err = trustInstaller(t, g, cache, trust.NewChecker(p), Trust{}).Sync(t.Context(), SyncRequest{})
	data, _ := os.ReadFile(filepath.Join(g.env.Project, ".agents", "skills", "alpha", "SKILL.md"))
	if strings.Contains(string(data), "EVIL") {
		t.Errorf("Sync (err %v) installed the attacker's cached content as %s, whose commits must be signed, unchecked", err, e.Source)
	}
	if !errors.Is(err, trust.ErrRefused) {
		t.Errorf("Sync = %v; want trust.ErrRefused: the recorded pin is no commit signed by a key the policy names", err)
	}
}

// commitSigning is what a test of signed commits needs: git without the
// user's configuration, a signer, and a folder at its real path (links
// resolved) for the repositories.
func commitSigning(t *testing.T) (*gitsigtest.Signer, string) {
	t.Helper()
	gitsigtest.Require(t, "git", "ssh-keygen")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	good := gitsigtest.NewSigner(t, "release@example.org")
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return good, base
}

// commitsPolicy is a policy that requires the commits of the git
// repositories beside repo signed by a key the allowed-signers file names.
func commitsPolicy(t *testing.T, repo, allowedSigners string) *policy.Policy {
	t.Helper()
	return parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"git:"+filepath.ToSlash(filepath.Dir(repo))+"/*\"]\n    commits: {allowed_signers: "+allowedSigners+"}\n")
}

// TestTrustVerdictOfflineSync checks that a sync takes a skill whose
// commit this machine verified from the skill cache, with the
// repository gone, recording who signed it; and that once the policy's
// allowed signers change, the cache's verdict no longer does: the
// commit is checked again, which needs the repository.
func TestTrustVerdictOfflineSync(t *testing.T) {
	good, base := commitSigning(t)
	repo := filepath.Join(base, "acme", "tools")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	gitsigtest.Commit(t, repo, good, gitsigtest.SSH, "signed")
	signers := filepath.Join(t.TempDir(), "allowed_signers")
	data, err := os.ReadFile(good.AllowedSigners)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(signers, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := commitsPolicy(t, repo, signers)
	cache := t.TempDir()
	f := newFixture(t)
	src := "git+file://" + filepath.ToSlash(repo) + "#path=skills/alpha"
	if _, err := trustInstaller(t, f, cache, trust.NewChecker(p), Trust{}).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(%s) of a signed commit = %v", src, err)
	}
	if err := os.RemoveAll(repo); err != nil {
		t.Fatal(err)
	}
	canonical := filepath.Join(f.env.Project, ".agents", "skills", "alpha")
	os.RemoveAll(canonical)
	if _, err := trustInstaller(t, f, cache, trust.NewChecker(p), Trust{}).Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
		t.Fatalf("Sync with the repository gone, of a commit verified before = %v", err)
	}
	if _, err := os.Stat(filepath.Join(canonical, "SKILL.md")); err != nil {
		t.Errorf("the sync did not install alpha from the skill cache: %v", err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	if e := lock.Skills["alpha"]; e == nil || !strings.Contains(e.CommitSigner, good.Principal) {
		t.Errorf("the lock file records %+v for alpha; want the commit signer %s", e, good.Principal)
	}
	// The allowed signers change: the verdict was given under others.
	if err := os.WriteFile(signers, append(data, "other@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2n0j3yYFFmb9G6mh2U7EpyOFQmJk3cdmrrUdpqJYNq\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(canonical)
	if _, err := trustInstaller(t, f, cache, trust.NewChecker(p), Trust{}).Sync(t.Context(), SyncRequest{}); err == nil {
		t.Errorf("Sync under changed allowed signers with the repository gone = nil; want the commit checked again, which cannot be")
	}
}

// TestTrustClonedLockOCIDigest checks Trust rules 2 and 4 against a
// cloned lock file: one that names a signed OCI source at its signed
// pin, with the digest of other content the user's skill cache holds,
// does not get that content installed as the signed source's (the
// signature verified is the pin's, not the cached content's).
func TestTrustClonedLockOCIDigest(t *testing.T) {
	o := newOCIFixture(t)
	key := newTestKey(t)
	ref := o.push(t, "acme/review", "1", "review", "")
	o.Sign(t, ref, key.Private)
	evilRef := o.push(t, "evil/review", "1", "review", "EVIL\n")
	cache := t.TempDir()
	agents := agentsOf(t, "claude-code")
	// Earlier, elsewhere, without a signer: the user tries the
	// attacker's skill, which the shared skill cache keeps.
	e := newFixture(t)
	if _, err := trustInstaller(t, e, cache, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{evilRef}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) = %v", evilRef, err)
	}
	evilLock, err := readLock(filepath.Join(e.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	// The attacker's own checkout: acme's signed skill, its lock entry
	// then given the digest of the attacker's content.
	a := newFixture(t)
	if _, err := trustInstaller(t, a, "", requiring(key.Requirement()), Trust{}).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agents}); err != nil {
		t.Fatalf("Add(%s) = %v", ref, err)
	}
	lock, err := readLock(filepath.Join(a.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	lock.Skills["review"].Digest = evilLock.Skills["review"].Digest
	v := newFixture(t)
	os.MkdirAll(filepath.Join(v.env.Project, ".agents"), 0o755)
	if err := lock.write(filepath.Join(v.env.Project, ".agents", lockName)); err != nil {
		t.Fatal(err)
	}
	_, err = trustInstaller(t, v, cache, requiring(key.Requirement()), Trust{}).Sync(t.Context(), SyncRequest{})
	data, _ := os.ReadFile(filepath.Join(v.env.Project, ".agents", "skills", "review", "SKILL.md"))
	if strings.Contains(string(data), "EVIL") {
		t.Errorf("Sync (err %v) installed the attacker's cached content as %s, signed by the key required", err, ref)
	}
	if err == nil {
		t.Errorf("Sync of a lock file whose digest is not the signed pin's content = nil; want it refused")
	}
}

// TestTrustVerdictAfterUpdate checks that an update to a signed OCI
// source's new pin, whose content Outdated put in the skill cache (so
// the update reads it from there), leaves the cache's verdict on it: a
// sync may take it from the cache.
func TestTrustVerdictAfterUpdate(t *testing.T) {
	o := newOCIFixture(t)
	key := newTestKey(t)
	o.Sign(t, o.push(t, "acme/review", "1", "review", ""), key.Private)
	f := newFixture(t)
	root := t.TempDir()
	tr, c := Trust{}, requiring(key.Requirement())
	ref := "oci://" + o.Host + "/acme/review:1"
	if _, err := trustInstaller(t, f, root, c, tr).Add(t.Context(), AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatalf("Add(%s) = %v", ref, err)
	}
	o.Sign(t, o.push(t, "acme/review", "1", "review", "version two\n"), key.Private)
	if _, err := trustInstaller(t, f, root, c, tr).Outdated(t.Context()); err != nil {
		t.Fatalf("Outdated = %v", err)
	}
	if _, _, err := trustInstaller(t, f, root, c, tr).Update(t.Context(), UpdateRequest{}); err != nil {
		t.Fatalf("Update = %v", err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	e := lock.Skills["review"]
	in := trustInstaller(t, f, root, c, tr)
	st, err := in.checkRecorded(e.Source, e.Pin, []string{"review"}, lock)
	if err != nil {
		t.Fatal(err)
	}
	if !st.cachedOK([]string{"review"}, lock) {
		t.Errorf("the skill cache holds no verdict on review at %s (%s) after the update", e.Pin, e.Digest)
	}
}

// TestTrustVerdictRead checks that a verdict is used only as written
// for exactly its source, pin, digest and keys: one whose file names
// another digest, one larger than maxVerdict, or one that is not JSON
// is not.
func TestTrustVerdictRead(t *testing.T) {
	f := newFixture(t)
	root := t.TempDir()
	in := trustInstaller(t, f, root, nil, Trust{})
	st := &sourceTrust{in: in}
	st.ps.Kind, st.ps.Location = "git", "/srv/acme/tools"
	const pin, digest = "0123456789abcdef0123456789abcdef01234567", "ab12"
	c := &candidate{pin: pin, trust: st}
	st.verifiedPin = pin
	in.rememberVerdict(c, digest)
	if _, ok := in.recalledVerdict(st, pin, digest, ""); !ok {
		t.Fatalf("the verdict written is not read back")
	}
	if _, ok := in.recalledVerdict(st, pin, "cd34", ""); ok {
		t.Errorf("a verdict on %s is used for other content", digest)
	}
	if _, ok := in.recalledVerdict(st, pin, digest, "sha256:00"); ok {
		t.Errorf("a verdict under no keys is used under others")
	}
	file := filepath.Join(root, pinsDir, verdictKey(st.verdictSource(), pin, digest, ""))
	sealedOf := func(v verdict) string {
		b, err := seal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, data := range map[string]string{
		"another digest": sealedOf(verdict{Source: "git:/srv/acme/tools", Pin: pin, Digest: "cd34"}),
		"too large":      sealedOf(verdict{Source: "git:/srv/acme/tools", Pin: pin, Digest: digest, Signer: strings.Repeat("x", maxVerdict)}),
		"no seal":        `{"source":"git:/srv/acme/tools","pin":"` + pin + `","digest":"ab12"}`,
		"not JSON":       "{",
	} {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := in.recalledVerdict(st, pin, digest, ""); ok {
			t.Errorf("a verdict file with %s is used", name)
		}
	}
	// A source verified at another pin leaves no verdict on c.
	os.Remove(file)
	st.verifiedPin = "fedcba9876543210fedcba9876543210fedcba98"
	in.rememberVerdict(c, digest)
	if _, ok := in.recalledVerdict(st, pin, digest, ""); ok {
		t.Errorf("a verdict was written for a pin not verified")
	}
	// Under a commits rule, a verdict names the keys and the signer.
	signers := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(signers, []byte("a@example.org ssh-ed25519 AAAA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st.commits = []policy.CommitRule{{AllowedSigners: signers}}
	keys, ok := st.commitKeys()
	if !ok || keys == "" {
		t.Fatalf("commitKeys = %q, %v", keys, ok)
	}
	st.verifiedPin, st.verifiedKeys = pin, keys
	in.rememberVerdict(c, digest)
	if _, ok := in.recalledVerdict(st, pin, digest, keys); ok {
		t.Errorf("a verdict on a commit was written without its signer")
	}
	st.commitSigner = "a@example.org"
	in.rememberVerdict(c, digest)
	if v, ok := in.recalledVerdict(st, pin, digest, keys); !ok || v.Signer != "a@example.org" {
		t.Errorf("the verdict on a signed commit = %+v, %v", v, ok)
	}
	if err := os.WriteFile(signers, []byte("b@example.org ssh-ed25519 BBBB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if now, ok := st.commitKeys(); !ok || now == keys {
		t.Errorf("commitKeys of a changed allowed-signers file = %q, %v; want other than %q", now, ok, keys)
	}
	os.Remove(signers)
	if _, ok := st.commitKeys(); ok {
		t.Errorf("commitKeys of a missing allowed-signers file gives keys")
	}
}
