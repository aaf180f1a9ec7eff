package github

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// The environment variables of GitHub Enterprise Server, in the GitHub
// CLI's order of precedence (rules 16 and 16).
const (
	envHost             = "GH_HOST"
	envEnterpriseToken  = "GH_ENTERPRISE_TOKEN"
	envEnterpriseToken2 = "GITHUB_ENTERPRISE_TOKEN"
)

// WithHost makes the client one of the GitHub Enterprise Server at host
// (HOST or HOST:PORT): its API address is https://HOST/api/v3 (for a
// HOST.ghe.com, https://api.HOST) unless [WithAPIURL] gives one, and its
// token is [WithToken], else, when $GH_HOST names host,
// $GH_ENTERPRISE_TOKEN, else $GITHUB_ENTERPRISE_TOKEN (rule 17); GITHUB_API_URL, GITHUB_TOKEN and
// GH_TOKEN are not read. Such a client reads only sources of that host
// (Source.Host). "github.com" means the default. Default: github.com, or
// the API of GITHUB_API_URL.
func WithHost(host string) Option {
	return func(c *config) { c.host = host }
}

// EnterpriseAPIURL returns the API address of the GitHub Enterprise
// Server at host (rule 16): https://HOST/api/v3, or https://api.HOST for
// a host under ghe.com.
func EnterpriseAPIURL(host string) string {
	if strings.HasSuffix(strings.ToLower(hostname(host)), ".ghe.com") {
		return "https://api." + host
	}
	return "https://" + host + "/api/v3"
}

// hostname is host without its port.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// checkHost applies rule 16 to a host: a DNS name or an IP address, with
// an optional port, that is neither github.com's nor a known git host
// that is not GitHub. It returns the host in lower case, "" for
// github.com.
func checkHost(host string) (string, error) {
	host = strings.ToLower(host)
	name := hostname(host)
	switch {
	case host == "" || host == "github.com" || host == "www.github.com":
		return "", nil
	case strings.HasSuffix(name, ".github.com") || name == "github.com":
		return "", fmt.Errorf("%s is GitHub's own: write https://github.com/OWNER/REPO", host)
	case git.KnownHost(name):
		return "", fmt.Errorf("%s is not GitHub: only https://github.com and GitHub Enterprise Server addresses are read; read its repositories with package git (git.ParseWeb)", host)
	}
	u, err := url.Parse("https://" + host)
	if err != nil || u.Host != host || u.User != nil || u.Path != "" || name == "" {
		return "", fmt.Errorf("the host %q is not a host name", host)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':' || r == '[' || r == ']'
		if !ok {
			return "", fmt.Errorf("the host %q may hold only letters, digits, '.', '-' and a port", host)
		}
	}
	return host, nil
}

// enterpriseHost reads the host of a web address as rule 16 says: "" for
// github.com, the Enterprise host in lower case, or an error. tree is
// whether the address is a /tree/ page.
func enterpriseHost(u *url.URL, tree bool) (string, error) {
	host, err := checkHost(u.Host)
	if err != nil || host == "" || tree {
		return host, err
	}
	if gh, _ := checkHost(os.Getenv(envHost)); gh != host {
		return "", fmt.Errorf("%s is not known to be a GitHub Enterprise Server: give a /tree/REF/PATH address, or set %s=%s", host, envHost, host)
	}
	return host, nil
}

// enterpriseToken is the token of an Enterprise host from the
// environment, and where it came from (rule 17).
func enterpriseToken() (token, from string) {
	for _, env := range []string{envEnterpriseToken, envEnterpriseToken2} {
		if t := os.Getenv(env); t != "" {
			return t, env
		}
	}
	return "", ""
}

// serves reports whether the client reads src: a source of an
// Enterprise host needs a client of that host ([WithHost]), and one of
// github.com a client without a host, so that a token never reaches
// another host than its own (rule 17).
func (c *Client) serves(src Source) error {
	if strings.EqualFold(src.Host, c.host) {
		return nil
	}
	want := "github.New(github.WithHost(" + fmt.Sprintf("%q", src.Host) + "))"
	if src.Host == "" {
		want = "github.New() without WithHost"
	}
	return invalid(src.String(), fmt.Errorf("the client is for %s: read it with a client made by %s, or with NewRemote", c.hostName(), want))
}

// hostName names the client's host in messages.
func (c *Client) hostName() string {
	if c.host == "" {
		return "github.com"
	}
	return c.host
}

// tokenVars names the environment variables that give the client's
// token, for messages that say how to pass one.
func (c *Client) tokenVars() string {
	if c.host != "" {
		return envEnterpriseToken + " or " + envEnterpriseToken2 + " (with " + envHost + "=" + c.host + ", the one host they are sent to)"
	}
	return "GITHUB_TOKEN or GH_TOKEN"
}

// Origin returns where the source comes from as a trust policy names it
// (rule 16), by [sourceloc.GitHubLocation]: kind [source.GitHub] and
// OWNER/REPO for github.com; for another GitHub host, kind [source.Git]
// and HOST/OWNER/REPO, as its git+https address gives, so that a github:
// pattern, which means github.com, never matches it. The host is
// Source.Host, else the host of the API that $GITHUB_API_URL names
// ([APIHost]; a client without [WithHost] reads the source there). Both
// in lower case: GitHub ignores case. It is pinned when Ref is a full
// commit id in lower-case hex, or in either case for a source on an
// Enterprise host (read from its web address), and its Display is
// [Source.String]. An error wraps [source.ErrInvalid].
func (s Source) Origin() (source.Origin, error) {
	host := s.Host
	if host == "" {
		var err error
		if host, err = APIHost(os.Getenv("GITHUB_API_URL")); err != nil {
			return source.Origin{}, err
		}
	}
	kind, loc, err := sourceloc.GitHubLocation(host, s.Owner, s.Repo)
	if err != nil {
		return source.Origin{}, err
	}
	ref := s.Ref
	if s.Host != "" {
		ref = strings.ToLower(ref)
	}
	return source.Origin{Kind: source.Kind(kind), Location: loc, Pinned: gitsyntax.IsCommit(ref), Display: s.String()}, nil
}

// APIHost returns the host of the GitHub whose API is at api (rule 16):
// "" for github.com (api "" or https://api.github.com), HOST for
// https://api.HOST under ghe.com, else the API address's host (an
// Enterprise Server's https://HOST/api/v3, or a stand-in's). An error
// wraps [source.ErrInvalid].
func APIHost(api string) (string, error) {
	if api == "" {
		return "", nil
	}
	u, err := checkAPI(api)
	if err != nil {
		return "", err
	}
	return apiHost(u), nil
}

// apiHost is APIHost of a checked API address. The host is taken in
// canonical form first (package source (# Canonical locations), rule 9:
// case, a trailing dot, a default or zero-padded port), so that no other
// spelling of
// api.github.com reads as another host, whose repositories github:
// patterns do not name.
func apiHost(u *url.URL) string {
	host := strings.ToLower(u.Host)
	defaultPort := "443"
	if u.Scheme == "http" {
		defaultPort = "80"
	}
	if c, err := sourceloc.CanonicalHost(host, defaultPort); err == nil {
		host = c
	}
	switch name := hostname(host); {
	case name == "api.github.com":
		return ""
	case strings.HasPrefix(name, "api.") && strings.HasSuffix(name, ".ghe.com"):
		return strings.TrimPrefix(host, "api.")
	}
	return host
}

// webString is the String of a source of an Enterprise host: its web
// address, which [Parse] reads back (rule 16). A folder without a ref is
// written at the ref HEAD, the default branch.
func (s Source) webString() string {
	out := "https://" + s.Host + "/" + s.Owner + "/" + s.Repo
	switch {
	case s.Ref != "":
		out += "/tree/" + s.Ref
	case s.Path != "":
		out += "/tree/HEAD"
	}
	if s.Path != "" {
		out += "/" + s.Path
	}
	return out
}
