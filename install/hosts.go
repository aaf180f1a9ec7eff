package install

import (
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
// (package git, rules 17 to 21). Both are nil for a URL that is an
// archive to download: one whose path ends in an archive's extension,
// pinned with #sha256=, or of none of those forms.
func hostedSource(text string) (*github.Source, *git.Source) {
	u, err := url.Parse(text)
	if err != nil || u.Scheme != "https" || archiveExtension(u.Path) || strings.HasPrefix(u.Fragment, "sha256=") {
		return nil, nil
	}
	if s, err := github.Parse(text); err == nil && s.Host != "" {
		return &s, nil
	}
	if s, err := git.ParseWeb(text); err == nil {
		return nil, &s
	}
	return nil, nil
}

// isHostedRepo reports whether text is an https URL of a repository on
// a git host other than github.com (rule 13).
func isHostedRepo(text string) bool {
	gh, g := hostedSource(text)
	return gh != nil || g != nil
}

// hostedRemote returns the repository text names on a git host (rule
// 13), read as GitHub and git sources typed in their own syntax are.
func (in *Installer) hostedRemote(text string) source.Remote {
	gh, g := hostedSource(text)
	if gh != nil {
		return github.NewRemote(*gh, github.WithHTTPClient(watchedClient(in.http)))
	}
	return git.NewRemote(*g, git.WithStallTimeout(in.timeout), git.WithCache(in.cache))
}

// hostedPolicySource completes s, the policy's view of a repository on
// a git host (# Trust, rule 1): kind "git" at HOST/PATH (a GitHub
// Enterprise repository too, so that a github: pattern, meant for
// github.com, never matches it), pinned when the ref is a commit.
func hostedPolicySource(s policy.Source, text string) (policy.Source, error) {
	gh, g := hostedSource(text)
	if gh != nil {
		s.Kind, s.Location = gh.PolicyLocation()
		s.Pinned = s.Pinned || gitsyntax.IsCommit(strings.ToLower(gh.Ref))
		return s, nil
	}
	loc, ok := policy.GitLocation(g.URL)
	if !ok {
		return s, dotSegmentError(text)
	}
	s.Kind, s.Location = "git", loc
	s.Pinned = s.Pinned || gitsyntax.IsCommit(g.Ref)
	return s, nil
}
