package github_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// commitAnswer is what the stand-in answers for one commit of
// GET /repos/{owner}/{repo}/git/commits/{sha}: GitHub's verification
// object, always claiming a verified signature, which must not matter.
type commitAnswer struct {
	payload, signature string // "" answers null
}

// serveCommits makes f answer the git commits endpoint from answers.
func serveCommits(f *fakeGitHub, answers map[string]commitAnswer) {
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		rest, ok := strings.CutPrefix(r.URL.Path, "/repos/owner/repo/git/commits/")
		if !ok {
			return false
		}
		a, ok := answers[rest]
		if !ok {
			apiError(w, http.StatusNotFound, "Not Found")
			return true
		}
		null := func(s string) *string {
			if s == "" {
				return nil
			}
			return &s
		}
		reason := "valid"
		if a.signature == "" {
			reason = "unsigned"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"sha": rest,
			"verification": map[string]any{
				"verified": true, "reason": reason,
				"signature": null(a.signature), "payload": null(a.payload),
			},
		})
		return true
	}
}

// Rule 14: a commit GitHub's API gives is rebuilt, checked against its id
// and verified with the system git: accepted when signed by a named key,
// refused when unsigned, signed by another key, with a changed text or
// signature, whatever GitHub's own verified flag says.
func TestVerifyCommit(t *testing.T) {
	gitsigtest.Require(t, "git")
	alice := gitsigtest.NewSigner(t, "alice@example.com")
	bob := gitsigtest.NewSigner(t, "bob@example.com")
	dir := filepath.Join(t.TempDir(), "repo")
	gitsigtest.Git(t, filepath.Dir(dir), nil, "init", "--quiet", dir)
	commits := map[string]string{}
	answers := map[string]commitAnswer{}
	add := func(name, commit string) {
		commits[name] = commit
		payload, sig := gitsigtest.Split(gitsigtest.Git(t, dir, nil, "cat-file", "commit", commit) + "\n")
		answers[commit] = commitAnswer{payload: payload, signature: sig}
	}
	add("unsigned", gitsigtest.Commit(t, dir, nil, gitsigtest.Unsigned, "unsigned"))
	add("ssh-alice", gitsigtest.Commit(t, dir, alice, gitsigtest.SSH, "ssh alice"))
	add("ssh-bob", gitsigtest.Commit(t, dir, bob, gitsigtest.SSH, "ssh bob"))
	add("gpg-alice", gitsigtest.Commit(t, dir, alice, gitsigtest.GPG, "gpg alice"))
	add("gpg-bob", gitsigtest.Commit(t, dir, bob, gitsigtest.GPG, "gpg bob"))
	add("ssh-bad-signature", gitsigtest.Changed(t, dir, commits["ssh-alice"], "signature"))
	add("gpg-bad-signature", gitsigtest.Changed(t, dir, commits["gpg-alice"], "signature"))
	// A commit with an encoding header, signed, then its gpgsig header
	// moved up between committer and encoding: the signature still
	// verifies, and only that placement gives its id.
	gitsigtest.Git(t, dir, nil, "-c", "i18n.commitEncoding=ISO-8859-1", "-c", "gpg.format=ssh", "-c", "user.signingkey="+alice.SSHKey, "commit", "--quiet", "--allow-empty", "-S", "-m", "encoded")
	add("ssh-encoded", gitsigtest.Git(t, dir, nil, "rev-parse", "HEAD"))
	encoded := gitsigtest.Git(t, dir, nil, "cat-file", "commit", "HEAD") + "\n"
	payload, sig := gitsigtest.Split(encoded)
	header, body, _ := strings.Cut(payload, "\n\n")
	before, after, ok := strings.Cut(header, "\nencoding ")
	if !ok {
		t.Fatalf("commit has no encoding header:\n%s", encoded)
	}
	moved := gitsigtest.Join(before+"\n\n", sig)
	moved = strings.TrimSuffix(moved, "\n\n") + "\nencoding " + after + "\n\n" + body
	add("ssh-moved", gitsigtest.Git(t, dir, nil, "hash-object", "-t", "commit", "-w", "--stdin", "<", moved))

	// Answers that are not the commit they claim to be.
	changedText := answers[commits["ssh-alice"]]
	changedText.payload = strings.Replace(changedText.payload, "ssh alice", "ssh alice, changed", 1)
	answers[strings.Repeat("1", 40)] = changedText
	commits["ssh-changed-text"] = strings.Repeat("1", 40)
	changedSig := answers[commits["ssh-alice"]]
	changedSig.signature = answers[commits["ssh-bad-signature"]].signature
	answers[strings.Repeat("2", 40)] = changedSig
	commits["ssh-changed-signature"] = strings.Repeat("2", 40)
	answers[strings.Repeat("3", 40)] = commitAnswer{payload: answers[commits["ssh-alice"]].payload, signature: answers[commits["ssh-alice"]].signature}
	commits["ssh-other-id"] = strings.Repeat("3", 40)

	f := newFake(t)
	f.repos["owner/repo"] = true
	serveCommits(f, answers)
	c, err := github.New(github.WithAPIURL(f.api.URL), github.WithToken(""))
	if err != nil {
		t.Fatal(err)
	}
	keys := source.CommitKeys{AllowedSigners: alice.AllowedSigners, GPGKeyring: alice.GPGKeyring}
	sshAlice := "alice@example.com (SSH ED25519 key " + alice.SSHFingerprint + ")"
	tests := []struct {
		name    string
		want    string
		wantErr []string
	}{
		{name: "ssh-alice", want: sshAlice},
		{name: "gpg-alice", want: "alice <alice@example.com> (GPG key " + alice.GPGFingerprint + ")"},
		{name: "ssh-encoded", want: sshAlice},
		{name: "ssh-moved", want: sshAlice},
		{name: "unsigned", wantErr: []string{"not signed"}},
		{name: "ssh-bob", wantErr: []string{"signed by SSH ED25519 key " + bob.SSHFingerprint, "does not name"}},
		{name: "gpg-bob", wantErr: []string{"signed by GPG key " + bob.GPGFingerprint, "does not hold"}},
		{name: "ssh-bad-signature", wantErr: []string{"SSH signature does not verify"}},
		{name: "gpg-bad-signature", wantErr: []string{"GPG signature", "does not verify"}},
		{name: "ssh-changed-text", wantErr: []string{"hashes to another id"}},
		{name: "ssh-changed-signature", wantErr: []string{"hashes to another id"}},
		{name: "ssh-other-id", wantErr: []string{"hashes to another id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commit := commits[tt.name]
			src, err := github.Parse("owner/repo@" + commit)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.VerifyCommit(t.Context(), github.Pin{Source: src, Commit: commit}, keys)
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("VerifyCommit(%s) = %q, %v, want %q", tt.name, got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, source.ErrCommitSignature) {
				t.Fatalf("VerifyCommit(%s) = %q, %v, want an error wrapping source.ErrCommitSignature", tt.name, got, err)
			}
			for _, want := range append(tt.wantErr, commit, "owner/repo") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("VerifyCommit(%s) error %q does not say %q", tt.name, err, want)
				}
			}
		})
	}

	// The Remote is the source.CommitVerifier install uses.
	var remote source.Remote = github.NewRemote(github.Source{Owner: "owner", Repo: "repo"}, github.WithAPIURL(f.api.URL), github.WithToken(""))
	verifier, ok := remote.(source.CommitVerifier)
	if !ok {
		t.Fatal("a GitHub Remote is not a source.CommitVerifier")
	}
	if got, err := verifier.VerifyCommit(t.Context(), commits["ssh-alice"], keys); err != nil || got != sshAlice {
		t.Errorf("Remote.VerifyCommit(ssh-alice) = %q, %v, want %q", got, err, sshAlice)
	}
	if _, err := verifier.VerifyCommit(t.Context(), strings.Repeat("4", 40), keys); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Remote.VerifyCommit(unknown commit) = %v, want source.ErrNotFound", err)
	}
	for _, r := range f.seen() {
		if r.Path != "/repos/owner/repo" && !strings.HasPrefix(r.Path, "/repos/owner/repo/git/commits/") {
			t.Errorf("VerifyCommit asked for %s, want only the git commits endpoint", r.Path)
		}
	}
}
