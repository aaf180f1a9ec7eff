package install

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// githubPolicySource completes s, the policy's view of the GitHub source
// spec typed as text (# Trust, rule 1): kind "github" at OWNER/REPO for
// github.com; a GitHub Enterprise repository is kind "git" at HOST/PATH,
// so that a github: pattern, meant for github.com, never matches it.
// Pinned when the ref is a commit.
func githubPolicySource(s source.Origin, text string, spec source.Spec) (source.Origin, error) {
	src, err := github.Parse(spec.Text)
	if err != nil {
		return s, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	if s.Kind, s.Location, err = src.PolicyLocation(); err != nil { // an Enterprise address after github: is its host's (rule 13)
		return s, notCanonical(s, err)
	}
	ref := src.Ref
	if strings.HasPrefix(text, "https://") && !strings.HasPrefix(text, "https://github.com/") {
		ref = strings.ToLower(ref) // an Enterprise Server's web address
	}
	s.Pinned = s.Pinned || gitsyntax.IsCommit(ref)
	return s, nil
}

// gitPolicySource completes s, the policy's view of the git source src
// typed as text: the canonical kind and location sourceloc.RealGitLocation
// gives (kind "git", or "github" for a repository on github.com; a file
// URL at its real path, whatever link names it), pinned when the ref is
// a commit; a URL whose location cannot be made canonical is refused
// (# Trust, rule 1).
func gitPolicySource(s source.Origin, text string, src git.Source) (source.Origin, error) {
	if u, err := url.Parse(src.URL); err == nil && policy.HasDotSegment(u.Path) {
		return s, dotSegmentError(text)
	}
	kind, loc, err := sourceloc.RealGitLocation(src.URL) // a file URL's real path (package source, rule 15)
	if err != nil {
		return s, notCanonical(s, err)
	}
	s.Kind, s.Location = kind, loc
	s.Pinned = s.Pinned || gitsyntax.IsCommit(src.Ref)
	return s, nil
}

// githubHost is the host a GitHub source named without one
// (github:OWNER/REPO, OWNER/REPO), recorded at pin, is read from, as the
// lock file records it: "" for github.com, else the host of the API
// $GITHUB_API_URL names (package github, rules 4 and 16), in canonical
// form. Any other source gives "".
func (in *Installer) githubHost(text, pin string) string {
	if pin == "" {
		return "" // not published: a folder, which OWNER/REPO may also be
	}
	rs, err := in.parseSource(text, false)
	r, ok := rs.(*github.Remote)
	if err != nil || !ok || strings.Count(r.Repository(), "/") != 1 {
		return ""
	}
	host, err := github.APIHost(os.Getenv("GITHUB_API_URL"))
	if err != nil || host == "" {
		return host
	}
	if h, err := sourceloc.CanonicalHost(host, "443"); err == nil {
		return h
	}
	return host
}

// checkHost refuses to read the skills names, recorded from source at
// pin, from another GitHub host than the one the lock file records
// (Trust rule 1): the same OWNER/REPO on another host is another
// repository, which the policy may treat otherwise.
func (in *Installer) checkHost(source, pin string, names []string, lock *lockFile) error {
	now := in.githubHost(source, pin)
	for _, name := range names {
		if e := lock.Skills[name]; e != nil && e.Host != now {
			was, is := "github.com", "github.com"
			if e.Host != "" {
				was = e.Host
			}
			if now != "" {
				is = now
			}
			return fmt.Errorf("%w: %s: the lock file records it from %s, but GITHUB_API_URL names the API of %s; set GITHUB_API_URL to the API of %s (unset for github.com), or add the source again", ErrRefused, source, was, is, was)
		}
	}
	return nil
}
