package git_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// signedRepo is a repository of signed commits, each on a branch of its
// own so that a server gives it by id, with the identities that signed
// them.
type signedRepo struct {
	url          string // git+file URL of the repository
	alice, bob   *gitsigtest.Signer
	commits      map[string]string // case → commit
	dir          string
	allowedAlice string
}

func newSignedRepo(t *testing.T) *signedRepo {
	t.Helper()
	hermetic(t)
	r := &signedRepo{
		alice:   gitsigtest.NewSigner(t, "alice@example.com"),
		bob:     gitsigtest.NewSigner(t, "bob@example.com"),
		commits: map[string]string{},
		dir:     filepath.Join(t.TempDir(), "repo"),
	}
	gitsigtest.Git(t, filepath.Dir(r.dir), nil, "init", "--quiet", "--initial-branch=main", r.dir)
	add := func(name, commit string) {
		r.commits[name] = commit
		gitsigtest.Git(t, r.dir, nil, "branch", name, commit)
	}
	add("unsigned", gitsigtest.Commit(t, r.dir, nil, gitsigtest.Unsigned, "unsigned"))
	add("ssh-alice", gitsigtest.Commit(t, r.dir, r.alice, gitsigtest.SSH, "ssh alice"))
	add("ssh-bob", gitsigtest.Commit(t, r.dir, r.bob, gitsigtest.SSH, "ssh bob"))
	add("gpg-alice", gitsigtest.Commit(t, r.dir, r.alice, gitsigtest.GPG, "gpg alice"))
	add("gpg-bob", gitsigtest.Commit(t, r.dir, r.bob, gitsigtest.GPG, "gpg bob"))
	for _, kind := range []string{"ssh", "gpg"} {
		for _, what := range []string{"message", "signature"} {
			add(kind+"-changed-"+what, gitsigtest.Changed(t, r.dir, r.commits[kind+"-alice"], what))
		}
	}
	r.url = "git+file://" + filepath.ToSlash(r.dir)
	return r
}

// Rules 14 to 16: a commit is accepted when signed by a key the allowed
// signers file or the keyring names, and refused, with
// source.ErrCommitSignature and what was found, when unsigned, signed
// by another key, or changed after signing.
func TestVerifyCommit(t *testing.T) {
	r := newSignedRepo(t)
	alice, bob := r.alice, r.bob
	sshAlice := "alice@example.com (SSH ED25519 key " + alice.SSHFingerprint + ")"
	gpgAlice := "alice <alice@example.com> (GPG key " + alice.GPGFingerprint + ")"
	both := source.CommitKeys{AllowedSigners: alice.AllowedSigners, GPGKeyring: alice.GPGKeyring}
	missing := filepath.Join(t.TempDir(), "nothing")
	tests := []struct {
		name    string
		commit  string
		keys    source.CommitKeys
		want    string   // the signer, when accepted
		wantErr []string // what the refusal says
	}{
		{name: "ssh by a named key", commit: "ssh-alice", keys: source.CommitKeys{AllowedSigners: alice.AllowedSigners}, want: sshAlice},
		{name: "ssh with a keyring too", commit: "ssh-alice", keys: both, want: sshAlice},
		{name: "gpg by a key of the keyring", commit: "gpg-alice", keys: source.CommitKeys{GPGKeyring: alice.GPGKeyring}, want: gpgAlice},
		{name: "gpg with an allowed signers file too", commit: "gpg-alice", keys: both, want: gpgAlice},
		{name: "unsigned", commit: "unsigned", keys: both, wantErr: []string{"not signed", "git commit -S"}},
		{name: "ssh by another key", commit: "ssh-bob", keys: both, wantErr: []string{"signed by SSH ED25519 key " + bob.SSHFingerprint, "does not name", alice.AllowedSigners}},
		{name: "gpg by another key", commit: "gpg-bob", keys: both, wantErr: []string{"signed by GPG key " + bob.GPGFingerprint, "does not hold", alice.GPGKeyring}},
		{name: "gpg without a keyring", commit: "gpg-alice", keys: source.CommitKeys{AllowedSigners: alice.AllowedSigners}, wantErr: []string{"signed by GPG key " + alice.GPGFingerprint, "no GPG keyring", "policy"}},
		{name: "ssh text changed", commit: "ssh-changed-message", keys: both, wantErr: []string{"SSH signature does not verify", "changed after signing"}},
		{name: "ssh signature changed", commit: "ssh-changed-signature", keys: both, wantErr: []string{"SSH signature does not verify"}},
		{name: "gpg text changed", commit: "gpg-changed-message", keys: both, wantErr: []string{"GPG signature by", "does not verify", "changed after signing"}},
		{name: "gpg signature changed", commit: "gpg-changed-signature", keys: both, wantErr: []string{"GPG signature", "does not verify"}},
		{name: "no allowed signers file anywhere", commit: "ssh-alice", keys: source.CommitKeys{GPGKeyring: alice.GPGKeyring}, wantErr: []string{"no allowed signers file", "gpg.ssh.allowedSignersFile"}},
		{name: "a missing allowed signers file", commit: "ssh-alice", keys: source.CommitKeys{AllowedSigners: missing}, wantErr: []string{missing, "check the path"}},
		{name: "a missing keyring", commit: "gpg-alice", keys: source.CommitKeys{GPGKeyring: missing}, wantErr: []string{"GPG keyring", missing}},
		{name: "a keyring that holds no key", commit: "gpg-alice", keys: source.CommitKeys{GPGKeyring: alice.AllowedSigners}, wantErr: []string{"holds no key", "gpg --export"}},
	}
	tmp := t.TempDir()
	c := newClient(t, git.WithTempDir(tmp))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commit := r.commits[tt.commit]
			src, err := git.Parse(r.url + "#ref=" + tt.commit)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.VerifyCommit(t.Context(), git.Pin{Source: src, Commit: commit}, tt.keys)
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("VerifyCommit(%s) = %q, %v, want %q", tt.commit, got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, source.ErrCommitSignature) {
				t.Fatalf("VerifyCommit(%s) = %q, %v, want an error wrapping source.ErrCommitSignature", tt.commit, got, err)
			}
			for _, want := range append(tt.wantErr, commit) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("VerifyCommit(%s) error %q does not say %q", tt.commit, err, want)
				}
			}
		})
	}
	emptyTemp(t, tmp)
}

// Rule 14: without an allowed signers file in the keys, the user's own
// gpg.ssh.allowedSignersFile is used; the user's GnuPG home is never used
// (a key it holds and trusts is not accepted), and the user's
// gpg.minTrustLevel or gpg.ssh.program do not change what is accepted.
func TestVerifyCommitUserConfiguration(t *testing.T) {
	r := newSignedRepo(t)
	config := filepath.Join(t.TempDir(), "gitconfig")
	text := "[gpg]\n\tminTrustLevel = fully\n\tprogram = /nonexistent/gpg\n[gpg \"ssh\"]\n\tallowedSignersFile = " + filepath.ToSlash(r.alice.AllowedSigners) + "\n\tprogram = /nonexistent/op-ssh-sign\n"
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	// The user's GnuPG home holds bob's key, ultimately trusted.
	t.Setenv("GNUPGHOME", r.bob.GNUPGHome)
	c := newClient(t)
	verify := func(name string, keys source.CommitKeys) (string, error) {
		src, err := git.Parse(r.url + "#ref=" + name)
		if err != nil {
			t.Fatal(err)
		}
		return c.VerifyCommit(t.Context(), git.Pin{Source: src, Commit: r.commits[name]}, keys)
	}
	if got, err := verify("ssh-alice", source.CommitKeys{}); err != nil || !strings.HasPrefix(got, "alice@example.com ") {
		t.Errorf("VerifyCommit(ssh-alice) with the user's allowed signers file = %q, %v, want alice", got, err)
	}
	if got, err := verify("ssh-bob", source.CommitKeys{}); !errors.Is(err, source.ErrCommitSignature) || !strings.Contains(err.Error(), "git's gpg.ssh.allowedSignersFile") {
		t.Errorf("VerifyCommit(ssh-bob) with the user's allowed signers file = %q, %v, want a refusal naming git's gpg.ssh.allowedSignersFile", got, err)
	}
	if got, err := verify("gpg-bob", source.CommitKeys{GPGKeyring: r.alice.GPGKeyring}); !errors.Is(err, source.ErrCommitSignature) {
		t.Errorf("VerifyCommit(gpg-bob) with bob's key in the user's GnuPG home = %q, %v, want a refusal", got, err)
	}
	if got, err := verify("gpg-alice", source.CommitKeys{GPGKeyring: r.alice.GPGKeyring}); err != nil || !strings.HasPrefix(got, "alice <alice@example.com> ") {
		t.Errorf("VerifyCommit(gpg-alice) with gpg.minTrustLevel=fully = %q, %v, want alice", got, err)
	}
}

// Rule 14: a Remote is a source.CommitVerifier that checks the commit
// Resolve pinned.
func TestRemoteVerifyCommit(t *testing.T) {
	r := newSignedRepo(t)
	src, err := git.Parse(r.url + "#ref=ssh-alice")
	if err != nil {
		t.Fatal(err)
	}
	var remote source.Remote = git.NewRemote(src, git.WithTempDir(t.TempDir()))
	defer remote.Close()
	commit, err := remote.Resolve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	verifier, ok := remote.(source.CommitVerifier)
	if !ok {
		t.Fatal("a git Remote is not a source.CommitVerifier")
	}
	got, err := verifier.VerifyCommit(t.Context(), commit, source.CommitKeys{AllowedSigners: r.alice.AllowedSigners})
	if err != nil || !strings.HasPrefix(got, "alice@example.com ") {
		t.Errorf("VerifyCommit(%s) = %q, %v, want alice", commit, got, err)
	}
	if _, err := verifier.VerifyCommit(t.Context(), commit, source.CommitKeys{AllowedSigners: r.bob.AllowedSigners}); !errors.Is(err, source.ErrCommitSignature) {
		t.Errorf("VerifyCommit(%s) with bob's file = %v, want source.ErrCommitSignature", commit, err)
	}
}

// Rule 14: VerifyCommitObject refuses a commit text that does not hash
// to the commit named, and checks one that does.
func TestVerifyCommitObject(t *testing.T) {
	r := newSignedRepo(t)
	c := newClient(t)
	keys := source.CommitKeys{AllowedSigners: r.alice.AllowedSigners}
	object := gitsigtest.Git(t, r.dir, nil, "cat-file", "commit", r.commits["ssh-alice"]) + "\n"
	if got, err := c.VerifyCommitObject(t.Context(), r.commits["ssh-alice"], []byte(object), keys); err != nil || !strings.HasPrefix(got, "alice@example.com ") {
		t.Errorf("VerifyCommitObject(ssh-alice) = %q, %v, want alice", got, err)
	}
	_, err := c.VerifyCommitObject(t.Context(), r.commits["ssh-bob"], []byte(object), keys)
	if !errors.Is(err, source.ErrCommitSignature) || !strings.Contains(err.Error(), "hashes to "+r.commits["ssh-alice"]) {
		t.Errorf("VerifyCommitObject(ssh-bob, alice's text) = %v, want a refusal saying what it hashes to", err)
	}
}
