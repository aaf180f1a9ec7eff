package install

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// archiveExtension reports whether a URL's path p ends as an archive's
// name, which makes the URL an archive to download whatever its host
// (rule 13).
func archiveExtension(p string) bool {
	p = strings.ToLower(p)
	for _, ext := range []string{".zip", ".skill", ".tar", ".tgz", ".tar.gz"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// hostedSource reads an https URL other than github.com's as a
// repository on a git host (rule 13): a GitHub Enterprise Server's
// (package github, rule 15), else a git host's page or git address
// (package git, rules 17 to 21). All three are nil for a URL that is an
// archive to download: one whose path ends in an archive's extension,
// pinned with #sha256=, or of none of those forms. An address that has
// the mark of a repository's (a path ending in .git, a GitLab /-/tree/,
// a Gitea /src/branch/, /src/tag/ or /src/commit/) but cannot be read
// (a password in it, a bad ref) is an error, not a download.
func hostedSource(text string) (*github.Source, *git.Source, error) {
	u, err := url.Parse(text)
	if err != nil || u.Scheme != "https" || archiveExtension(u.Path) || strings.HasPrefix(u.Fragment, "sha256=") {
		return nil, nil, nil
	}
	if s, err := github.Parse(text); err == nil && s.Host != "" {
		return &s, nil, nil
	}
	s, err := git.ParseWeb(text)
	switch {
	case err == nil:
		return nil, &s, nil
	case strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), ".git"), strings.Contains(u.Path, "/-/tree/"),
		strings.Contains(u.Path, "/src/branch/"), strings.Contains(u.Path, "/src/tag/"), strings.Contains(u.Path, "/src/commit/"):
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return nil, nil, nil
}

// isHostedRepo reports whether text is an https URL of a repository on
// a git host other than github.com (rule 13), readable or not.
func isHostedRepo(text string) bool {
	gh, g, err := hostedSource(text)
	return gh != nil || g != nil || err != nil
}

// hostedRemote returns the repository text names on a git host (rule
// 13), read as GitHub and git sources typed in their own syntax are.
func (in *Installer) hostedRemote(text string) (source.Remote, error) {
	gh, g, err := hostedSource(text)
	switch {
	case err != nil:
		return nil, err
	case gh != nil:
		return github.NewRemote(*gh, github.WithHTTPClient(watchedClient(in.http))), nil
	}
	return git.NewRemote(*g, git.WithStallTimeout(in.timeout), git.WithCache(in.cache), in.gitRedirects(*g)), nil
}

// hostedPolicySource completes s, the policy's view of a repository on
// a git host (# Trust, rule 1): kind "git" at HOST/PATH (a GitHub
// Enterprise repository too, so that a github: pattern, meant for
// github.com, never matches it), pinned when the ref is a commit.
func hostedPolicySource(s policy.Source, text string) (policy.Source, error) {
	gh, g, err := hostedSource(text)
	if err != nil {
		return s, err
	}
	if gh != nil {
		s.Kind, s.Location = gh.PolicyLocation()
		s.Pinned = s.Pinned || gitsyntax.IsCommit(strings.ToLower(gh.Ref))
		return s, nil
	}
	return gitPolicySource(s, text, *g)
}

// gitPolicySource completes s, the policy's view of the git source src
// typed as text: kind "git" at the location policy.GitLocation gives,
// pinned when the ref is a commit.
func gitPolicySource(s policy.Source, text string, src git.Source) (policy.Source, error) {
	loc, ok := policy.GitLocation(src.URL)
	if !ok {
		return s, dotSegmentError(text)
	}
	s.Kind, s.Location = "git", loc
	s.Pinned = s.Pinned || gitsyntax.IsCommit(src.Ref)
	return s, nil
}
