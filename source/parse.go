package source

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/gitsyntax"
	"github.com/agentadaptor/agentadaptor/internal/redact"
)

// Kind is the kind of source a text names (rules 16 to 21), and of an
// [Origin].
type Kind string

// The kinds of source [Parse] tells apart.
const (
	// Local is a path on this machine: a folder, a SKILL.md file or an
	// archive file.
	Local Kind = "local"
	// GitHub is a repository on GitHub, or on a GitHub Enterprise Server,
	// read by package source/github.
	GitHub Kind = "github"
	// Git is a repository of any git host, read through the system git by
	// package source/git.
	Git Kind = "git"
	// OCI is an artifact of an OCI registry, read by package source/oci.
	OCI Kind = "oci"
	// URL is the http(s) URL of an archive to download.
	URL Kind = "url"
	// WebIndex is a site's Agent Skills discovery index, read by package
	// source/webindex.
	WebIndex Kind = "webindex"
)

// The kinds of an [Origin] that no text names, which [Parse] never
// returns.
const (
	// Inline is an SDK skill with no location: embedded, inline, from a
	// catalogue ([OriginOf]).
	Inline Kind = "inline"
	// Unknown is a skill that comes from somewhere but does not say
	// where (an archive without an origin), or whose location cannot be
	// made canonical: a policy with rules that could apply refuses it.
	Unknown Kind = "unknown"
)

// GitHubPrefix starts a source that is a GitHub repository whatever
// exists on disk: github:OWNER/REPO[/PATH][@REF] (rule 18).
const GitHubPrefix = "github:"

// Spec is a source text as [Parse] reads it: its kind, and the text the
// kind's package reads.
type Spec struct {
	// Kind is the kind of source.
	Kind Kind
	// Text is the source in the syntax of its kind's package: for GitHub,
	// OWNER/REPO[/PATH][@REF] (without [GitHubPrefix]) or a web address,
	// which github.Parse reads; for Git, a git+URL, which git.Parse
	// reads, or a git host's web address, which git.ParseWeb reads; for
	// OCI, what oci.ParseReference reads; for WebIndex, what
	// webindex.IndexURL reads; for URL and Local, the text as given.
	Text string
	// Bare reports a GitHub source written OWNER/REPO[/PATH][@REF]
	// alone, without a prefix or scheme, which is a local path of that
	// name when one exists (rule 21): the caller, which knows the folder
	// the text is relative to, decides.
	Bare bool
	// SHA256 is, for a URL, the SHA-256 its #sha256= fragment pins, in
	// lower-case hex, or "".
	SHA256 string
}

// Parse reads text as a source of skills and tells its kind, by rules 16
// to 21 of the package doc. It reads the text and $GH_HOST alone, never
// the disk or the network: what a Spec names is checked by the kind's
// package when it reads [Spec.Text]. An error wraps [ErrInvalid].
func Parse(text string) (Spec, error) {
	switch {
	case strings.HasPrefix(text, "oci://"): // rule 16
		return Spec{Kind: OCI, Text: text}, nil
	case strings.HasPrefix(text, "git+"): // rule 17
		return Spec{Kind: Git, Text: text}, nil
	case strings.HasPrefix(text, GitHubPrefix): // rule 18
		return Spec{Kind: GitHub, Text: strings.TrimPrefix(text, GitHubPrefix)}, nil
	case strings.HasPrefix(text, "https://"), strings.HasPrefix(text, "http://"):
		return parseWeb(text)
	}
	if text == "" || strings.ContainsAny(text[:1], ".~/\\") || filepath.IsAbs(text) || filepath.VolumeName(text) != "" || !bareGitHub(text) {
		return Spec{Kind: Local, Text: text}, nil // rule 21
	}
	return Spec{Kind: GitHub, Text: text, Bare: true}, nil
}

// parseWeb reads an http(s) URL (rules 19 and 20).
func parseWeb(text string) (Spec, error) {
	u, err := url.Parse(text)
	if err != nil {
		return Spec{}, fmt.Errorf("source %s: %w: %w", redact.URL(text), ErrInvalid, errors.Unwrap(err))
	}
	elems := strings.Split(strings.Trim(u.Path, "/"), "/")
	plain := u.User == nil && u.RawQuery == "" && !u.ForceQuery && u.Fragment == ""
	https := u.Scheme == "https"
	switch {
	case strings.HasPrefix(text, "https://github.com/"): // rule 19.1
		if plain && len(elems) >= 2 && (len(elems) == 2 || elems[2] == "tree" && len(elems) >= 4) {
			return Spec{Kind: GitHub, Text: text}, nil
		}
	case strings.HasPrefix(text, "http://github.com/"):
	case https && !archiveName(u.Path) && !strings.HasPrefix(u.Fragment, "sha256="): // rule 19.3
		if k := hostedKind(u, elems, plain); k != "" {
			return Spec{Kind: k, Text: text}, nil
		}
	}
	if u.Host != "" && (u.Path == "" || strings.HasSuffix(u.Path, "/") || strings.HasSuffix(u.Path, "/.well-known/agent-skills/index.json")) {
		return Spec{Kind: WebIndex, Text: text}, nil // rule 20
	}
	s := Spec{Kind: URL, Text: text}
	if u.Fragment != "" {
		v, ok := strings.CutPrefix(u.Fragment, "sha256=")
		if !ok || len(v) != 64 || strings.Trim(strings.ToLower(v), "0123456789abcdef") != "" {
			return Spec{}, fmt.Errorf("source %s: %w: the fragment must be #sha256= and 64 hex digits", redact.URL(text), ErrInvalid)
		}
		s.SHA256 = strings.ToLower(v)
	}
	return s, nil
}

// hostedKind returns the kind of a repository's https address on a host
// other than github.com (rule 19.3), or "" when u has none of its forms.
func hostedKind(u *url.URL, elems []string, plain bool) Kind {
	host := strings.ToLower(u.Hostname())
	_, known := gitsyntax.WebHost(host)
	switch {
	case !known && plain && len(elems) >= 4 && elems[2] == "tree":
		return GitHub // an Enterprise Server's /tree/REF[/PATH]
	case !known && plain && len(elems) == 2 && host != "" && strings.EqualFold(u.Host, os.Getenv("GH_HOST")):
		return GitHub // an Enterprise Server that $GH_HOST names
	case strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), ".git"), strings.Contains(u.Path, "/-/tree/"),
		strings.Contains(u.Path, "/src/branch/"), strings.Contains(u.Path, "/src/tag/"), strings.Contains(u.Path, "/src/commit/"),
		host == "bitbucket.org" && len(elems) >= 4 && elems[2] == "src":
		return Git
	case known && gitsyntax.WebPage(host, elems) && !slices.Contains(elems, "-"): // GitLab's /-/ pages other than /-/tree/ are files
		return Git
	}
	return ""
}

// archiveName reports whether a URL's path p ends as an archive's name
// (rule 19.2).
func archiveName(p string) bool {
	p = strings.ToLower(p)
	for _, ext := range []string{".zip", ".skill", ".tar", ".tgz", ".tar.gz"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// bareGitHub reports whether text has the form OWNER/REPO[/PATH][@REF]
// (rule 21): an owner and a repository of GitHub's characters.
func bareGitHub(text string) bool {
	head, _, _ := strings.Cut(text, "@")
	parts := strings.SplitN(head, "/", 3)
	return len(parts) >= 2 && githubName(parts[0]) && githubName(parts[1])
}

// githubName reports whether s can be a GitHub owner or repository:
// letters, digits, '.', '-' and '_', starting with a letter or digit, at
// most 100 bytes.
func githubName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !ok && (i == 0 || (r != '.' && r != '-' && r != '_')) {
			return false
		}
	}
	return true
}
