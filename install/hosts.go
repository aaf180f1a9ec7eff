package install

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/trust"
)

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
			return fmt.Errorf("%s: %w: the lock file records it from %s, but GITHUB_API_URL names the API of %s; set GITHUB_API_URL to the API of %s (unset for github.com), or add the source again", source, trust.ErrRefused, was, is, was)
		}
	}
	return nil
}
