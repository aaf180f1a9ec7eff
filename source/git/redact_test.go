package git_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestCredentialsNotInErrors puts a token as the user of an http URL
// and makes every step that names the repository fail: no error shows
// the token, whether it comes from this package or from git's own
// messages, which name the URL too (rule 13).
func TestCredentialsNotInErrors(t *testing.T) {
	hermetic(t)
	const token = "ghp_SECRETTOKEN123"
	r := newRepo(t)
	open := httpServer(t, r, "", nil)
	locked := httpServer(t, r, "wanted-token", nil)
	big := bigRepo(t, 2<<20)
	bigSrv := httpServer(t, big, "", nil)
	withToken := func(base string) string {
		return strings.Replace(base, "http://", "http://"+token+"@", 1)
	}
	tests := []struct {
		name string
		do   func(ctx context.Context, c *git.Client) error
		says string // what the error must still say
	}{
		{"no such repository", func(ctx context.Context, c *git.Client) error {
			_, err := c.Resolve(ctx, git.Source{URL: withToken(open.URL) + "/nope.git"})
			return err
		}, open.URL + "/nope.git"},
		{"no such ref", func(ctx context.Context, c *git.Client) error {
			_, err := c.Resolve(ctx, git.Source{URL: withToken(open.URL) + "/skills.git", Ref: "nope"})
			return err
		}, "ref nope of " + open.URL},
		{"no such folder", func(ctx context.Context, c *git.Client) error {
			_, _, err := c.Fetch(ctx, git.Source{URL: withToken(open.URL) + "/skills.git", Path: "nope"})
			return err
		}, open.URL + "/skills.git"},
		{"no such commit", func(ctx context.Context, c *git.Client) error {
			_, err := c.Opener(git.Pin{Source: git.Source{URL: withToken(open.URL) + "/skills.git"}, Commit: strings.Repeat("1", 40)})(ctx)
			return err
		}, "of " + open.URL},
		{"not a commit id", func(ctx context.Context, c *git.Client) error {
			_, err := c.Opener(git.Pin{Source: git.Source{URL: withToken(open.URL) + "/skills.git"}, Commit: "main"})(ctx)
			return err
		}, open.URL},
		{"a refused credential", func(ctx context.Context, c *git.Client) error {
			_, err := c.Resolve(ctx, git.Source{URL: withToken(locked.URL) + "/skills.git"})
			return err
		}, locked.URL},
		{"a source that does not check", func(ctx context.Context, c *git.Client) error {
			_, err := c.Resolve(ctx, git.Source{URL: withToken(open.URL) + "/skills.git?x=1"})
			return err
		}, "query"},
		{"a source that does not parse", func(ctx context.Context, c *git.Client) error {
			_, err := git.Parse("git+" + withToken(open.URL) + "/skills.git#branch=main")
			return err
		}, "git+" + open.URL},
		{"a stall", func(ctx context.Context, c *git.Client) error {
			_, err := c.Resolve(ctx, git.Source{URL: withToken(silentServer(t)) + "/skills.git"})
			return err
		}, "http://127.0.0.1:"},
		{"a fetch over the limit", func(ctx context.Context, c *git.Client) error {
			_, err := c.Resolve(ctx, git.Source{URL: withToken(bigSrv.URL) + "/skills.git"})
			return err
		}, bigSrv.URL},
	}
	cache, _ := materializer(t, skill.WithMaxArchiveSize(1<<20))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, git.WithStallTimeout(time.Second), git.WithCache(cache))
			err := tt.do(t.Context(), c)
			if err == nil {
				t.Fatal("no error, want one")
			}
			if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "ghp_") {
				t.Errorf("error = %q, which shows the token", err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error = %q, want it to say %q", err, tt.says)
			}
			t.Logf("error: %v", err)
		})
	}
}

// TestSSHUserShown checks that messages keep an ssh URL's user, which
// names the account on the server, and git's messages lose a password
// all the same.
func TestSSHUserShown(t *testing.T) {
	hermetic(t)
	t.Setenv("GIT_SSH_COMMAND", "echo 'fatal: no route to ssh://git@git.example.com/team/skills.git' >&2; exit 128")
	c := newClient(t)
	_, err := c.Resolve(t.Context(), git.Source{URL: "ssh://git@git.example.com/team/skills.git"})
	if err == nil || !strings.Contains(err.Error(), "of ssh://git@git.example.com/team/skills.git") {
		t.Errorf("Resolve over ssh = %v, want it to name ssh://git@git.example.com/team/skills.git", err)
	}
}
