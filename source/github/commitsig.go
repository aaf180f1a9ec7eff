package github

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

var _ source.CommitVerifier = (*Remote)(nil)

// maxCommitAnswer bounds the API's answer about one commit (rule 14).
const maxCommitAnswer = 16 << 20

// VerifyCommit checks the signature of the source's commit against keys
// (rule 14) and returns who signed it: the [source.CommitVerifier] that
// package install calls when a policy requires signed commits.
func (r *Remote) VerifyCommit(ctx context.Context, commit string, keys source.CommitKeys) (string, error) {
	c, err := New(r.options()...)
	if err != nil {
		return "", err
	}
	return c.VerifyCommit(ctx, Pin{Source: r.src, Commit: commit}, keys)
}

// VerifyCommit rebuilds the pinned commit from the API's answer and
// checks its signature with the system git against keys, as package
// git's Client.VerifyCommitObject does (rule 14). It returns who signed
// the commit; an unsigned commit, a bad signature, a signer keys do not
// name, or an answer that is not the commit is an error wrapping
// [source.ErrCommitSignature].
func (c *Client) VerifyCommit(ctx context.Context, p Pin, keys source.CommitKeys) (string, error) {
	src := p.Source
	if err := src.check(); err != nil {
		return "", invalid(src.String(), err)
	}
	if err := c.serves(src); err != nil {
		return "", err
	}
	if !isCommit(p.Commit) {
		return "", invalid(src.String(), fmt.Errorf("the pin's commit %q is not a full hex commit id (resolve the source first)", p.Commit))
	}
	commit := strings.ToLower(p.Commit)
	object, err := c.commitObject(ctx, src, commit)
	if err != nil {
		return "", err
	}
	// This client sets no git program: its messages advise none.
	g, err := git.New(git.WithSettingNames(map[string]string{git.SettingGit: ""}))
	if err != nil {
		return "", fmt.Errorf("verify commit %s of %s: %w", commit, src.repo(), err)
	}
	signer, err := g.VerifyCommitObject(ctx, commit, object, keys)
	if err != nil {
		return "", fmt.Errorf("GitHub repository %s: %w", src.repo(), err)
	}
	return signer, nil
}

// commitObject asks GitHub for commit and rebuilds its object, the
// signature put back into the signed text where its id says it was.
func (c *Client) commitObject(ctx context.Context, src Source, commit string) ([]byte, error) {
	what := "commit " + commit
	resp, err := c.get(ctx, c.repoURL(src, "git", "commits", commit), "application/vnd.github+json")
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", what, src.repo(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnprocessableEntity || (resp.StatusCode == http.StatusNotFound && c.repoExists(ctx, src)) {
		return nil, fmt.Errorf("%s of %s: %w: no such commit", what, src.repo(), source.ErrNotFound)
	}
	if err := c.status(resp, src, what); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCommitAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %s", what, src.repo(), c.clean(err.Error()))
	}
	if len(data) > maxCommitAnswer {
		return nil, fmt.Errorf("%s of %s: %w: the API's answer is larger than %d bytes", what, src.repo(), source.ErrCommitSignature, maxCommitAnswer)
	}
	var answer struct {
		SHA          string `json:"sha"`
		Verification struct {
			Signature *string `json:"signature"`
			Payload   *string `json:"payload"`
		} `json:"verification"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		return nil, fmt.Errorf("%s of %s: the API answered something that is not a commit (is %s a GitHub API address?): %v", what, src.repo(), c.api.Redacted(), err)
	}
	v := answer.Verification
	if v.Signature == nil || *v.Signature == "" {
		return nil, fmt.Errorf("%s of %s: %w: it is not signed (its publisher signs it with git commit -S; or the policy stops requiring a signer for this source)", what, src.repo(), source.ErrCommitSignature)
	}
	if v.Payload == nil {
		return nil, fmt.Errorf("%s of %s: %w: GitHub gave its signature without the text signed", what, src.repo(), source.ErrCommitSignature)
	}
	object := rebuild(*v.Payload, *v.Signature, commit)
	if object == nil {
		return nil, fmt.Errorf("%s of %s: %w: the signed text and signature GitHub gave do not make the commit (it hashes to another id): they are not the commit's, do not install it", what, src.repo(), source.ErrCommitSignature)
	}
	return object, nil
}

// rebuild returns the commit object that payload signed by signature
// makes, whose id is commit, or nil (rule 14). git puts the gpgsig header
// at the end of the header when it signs; the other places between two
// header lines are tried too, as only the one that gives commit's id is
// taken.
func rebuild(payload, signature, commit string) []byte {
	sig := "gpgsig " + strings.ReplaceAll(strings.TrimSuffix(signature, "\n"), "\n", "\n ") + "\n"
	end := len(payload)
	if i := strings.Index(payload, "\n\n"); i >= 0 {
		end = i + 1
	}
	places := []int{end}
	for i := 0; i < end-1; i++ {
		if payload[i] == '\n' && payload[i+1] != ' ' {
			places = append(places, i+1)
		}
	}
	for _, at := range places {
		object := []byte(payload[:at] + sig + payload[at:])
		if objectID(object, len(commit)) == commit {
			return object
		}
	}
	return nil
}

// objectID is the id git gives a commit object, SHA-1 or, for 64 hex
// digits, SHA-256.
func objectID(object []byte, digits int) string {
	var h hash.Hash = sha1.New()
	if digits == 64 {
		h = sha256.New()
	}
	h.Write([]byte("commit " + strconv.Itoa(len(object)) + "\x00"))
	h.Write(object)
	return hex.EncodeToString(h.Sum(nil))
}
