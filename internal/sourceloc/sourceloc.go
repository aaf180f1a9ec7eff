// Package sourceloc makes the locations of sources canonical, and
// resolves paths on the local disk to their real paths: package source
// (# Canonical locations), rules 9 to 15, whose CanonicalLocation and
// CanonicalPattern are its public face; the rules named below are those.
// The packages of the module that make an origin (source/git,
// source/github, source/oci, policy, install, trust) call the functions
// for one kind here. An error wraps [ErrInvalid], which is
// source.ErrInvalid. Its messages show a source's URL as package
// internal/redact does, which every package that shows a source or
// records it calls for that.
package sourceloc

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/agentadaptor/agentadaptor/internal/loopback"
	"github.com/agentadaptor/agentadaptor/internal/redact"
)

// ErrInvalid is source.ErrInvalid: a location that cannot be made
// canonical.
var ErrInvalid = errors.New("invalid source")

// isGlob reports whether a pattern's element holds a wildcard.
func isGlob(e string) bool { return strings.ContainsAny(e, "*?[") }

// Canonical is source.CanonicalLocation (source.CanonicalPattern when
// pattern) of a location of kind.
func Canonical(kind, location string, pattern bool) (string, string, error) {
	var out string
	var err error
	switch kind {
	case "oci":
		host, repo, _ := strings.Cut(location, "/")
		var h string
		if h, err = patternHost(host, ociHost, pattern); err == nil {
			repo, err = cleanPath(repo, pathRules{fold: true, pattern: pattern})
		}
		if err == nil && !pattern && strings.Trim(repo, "abcdefghijklmnopqrstuvwxyz0123456789._-/") != "" {
			err = fmt.Errorf("the repository %q may hold only lower-case letters, digits, '.', '_', '-' and '/'", repo)
		}
		out = h + "/" + repo
		if repo == "" {
			out = h
		}
	case "git":
		var k string
		if k, out, err = gitNotation(location, pattern); err == nil {
			return k, out, nil
		}
	case "github":
		var k string
		if k, out, err = githubNotation(location, pattern); err == nil {
			return k, out, nil
		}
	case "url":
		if pattern {
			out, err = urlPattern(location)
		} else {
			out, err = urlLocation(location)
		}
	default:
		return kind, location, nil
	}
	if err != nil {
		return "", "", fmt.Errorf("%s location %q: %w: %w", kind, location, ErrInvalid, err)
	}
	return kind, out, nil
}

// patternHost is canon of host; in a pattern (rule 14), a host with a
// wildcard is only lower-cased, and an IPv6 address's brackets are
// escaped, as [ opens a class there.
func patternHost(host string, canon func(string) (string, error), pattern bool) (string, error) {
	if pattern && strings.HasPrefix(host, "[") {
		if h, err := canon(host); err == nil {
			return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(h), nil
		}
	}
	if pattern && isGlob(host) {
		return strings.ToLower(host), nil
	}
	return canon(host)
}

// OCILocation returns the canonical location of the OCI repository repo
// of the registry at host (HOST or HOST:PORT) (rule 10): the canonical
// host, a slash and the repository in lower case.
func OCILocation(host, repo string) (string, error) {
	_, out, err := Canonical("oci", host+"/"+repo, false)
	return out, err
}

// ociHost is host canonical for a registry: one on loopback is spoken
// to over plain HTTP (port 80), any other over HTTPS (port 443).
func ociHost(host string) (string, error) {
	port := "443"
	if loopback.Host(host) { // as package source/oci decides to speak plain HTTP
		port = "80"
	}
	return CanonicalHost(host, port)
}

// gitDefaultPorts are the default ports of git's schemes (rule 11): a
// git location has no scheme, so each is dropped whatever the scheme.
var gitDefaultPorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418"}

// GitLocation returns the canonical kind and location of the git
// repository at raw, a URL of scheme https, http, ssh, git or file (rule
// 11): kind "git" at the canonical host and the cleaned path, without
// scheme, user, trailing slash or .git suffix, or for a file URL the
// absolute path alone; a repository on github.com is kind "github" at
// OWNER/REPO, the location of [GitHubLocation].
func GitLocation(raw string) (kind, location string, err error) {
	kind, out, err := gitLocation(raw)
	if err != nil {
		return "", "", fmt.Errorf("git repository %q: %w: %w", redact.URL(raw), ErrInvalid, err)
	}
	return kind, out, nil
}

func gitLocation(raw string) (string, string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("not a URL: write SCHEME://HOST/PATH")
	case u.Opaque != "":
		return "", "", fmt.Errorf("not a URL: write SCHEME://HOST/PATH")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", "", fmt.Errorf("a repository's URL has no query and no fragment")
	}
	if strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") || strings.Contains(strings.ToLower(u.EscapedPath()), "%5c") {
		return "", "", fmt.Errorf("the path holds an encoded slash or backslash (%%2F, %%5C): write / instead")
	}
	switch scheme := strings.ToLower(u.Scheme); scheme {
	case "file":
		if h := strings.ToLower(u.Host); h != "" && h != "localhost" {
			return "", "", fmt.Errorf("a file URL has no host: write file:///absolute/path")
		}
		p, err := cleanPath(u.Path, pathRules{git: true})
		if err != nil {
			return "", "", err
		}
		return "git", "/" + p, nil
	case "https", "http", "ssh", "git":
		if u.Host == "" {
			return "", "", fmt.Errorf("the URL has no host")
		}
		h, err := gitHost(u.Host)
		if err != nil {
			return "", "", err
		}
		p, err := cleanPath(u.Path, pathRules{git: true, fold: caseless(h)})
		if err != nil {
			return "", "", err
		}
		return hostedGit(h, p, false)
	default:
		return "", "", fmt.Errorf("the scheme %q is not one of git's: https, http, ssh, git, file", u.Scheme)
	}
}

// gitHost is host canonical for git, every default port dropped.
func gitHost(host string) (string, error) {
	h, err := CanonicalHost(host, "")
	if err != nil {
		return "", err
	}
	if name, port, err := net.SplitHostPort(h); err == nil {
		for _, p := range gitDefaultPorts {
			if port == p {
				return bracket(name), nil
			}
		}
	}
	return h, nil
}

// gitNotation reads a git location as a policy writes it: HOST/PATH, or
// /PATH for a repository on the local disk; one on github.com is kind
// "github" at OWNER/REPO.
func gitNotation(loc string, pattern bool) (string, string, error) {
	if strings.HasPrefix(loc, "/") {
		p, err := cleanPath(loc, pathRules{git: true, pattern: pattern})
		if err != nil {
			return "", "", err
		}
		return "git", "/" + p, nil
	}
	host, p, _ := strings.Cut(loc, "/")
	h, err := patternHost(host, gitHost, pattern)
	if err != nil {
		return "", "", err
	}
	if p, err = cleanPath(p, pathRules{git: true, fold: caseless(h), pattern: pattern}); err != nil {
		return "", "", err
	}
	return hostedGit(h, p, pattern)
}

// hostedGit is the kind and location of the git repository (or pattern)
// at path p of the canonical host h: kind "github" at OWNER/REPO on
// github.com (rule 11), whose path must then be one ([githubPath]) with
// an owner that is no host (isHostElement), else kind "git" at
// HOST/PATH.
func hostedGit(h, p string, pattern bool) (string, string, error) {
	if githubCom(h) {
		if owner, _, _ := strings.Cut(p, "/"); isHostElement(owner) {
			return "", "", fmt.Errorf("%q is not a GitHub owner (one holds no '.' or ':')", owner)
		}
		if err := githubPath(p, pattern); err != nil {
			return "", "", err
		}
		return "github", p, nil
	}
	if p == "" {
		return "git", h, nil
	}
	return "git", h + "/" + p, nil
}

// githubCom reports whether the canonical host h is github.com's.
func githubCom(h string) bool { return h == "github.com" || h == "www.github.com" }

// githubPath checks the cleaned path of a GitHub repository, or of a
// pattern for one (rule 12): a location is OWNER/REPO; a pattern names at
// most two elements besides **, and at least two unless it has a **, so
// that it can match an OWNER/REPO.
func githubPath(p string, pattern bool) error {
	elems := strings.Split(p, "/")
	if p == "" {
		elems = nil
	}
	named := 0
	for _, e := range elems {
		if e != "**" {
			named++
		}
	}
	switch {
	case !pattern && len(elems) != 2:
		return fmt.Errorf("a GitHub repository's location is OWNER/REPO, not %q: a folder in it is not part of its location", p)
	case pattern && named > 2:
		return fmt.Errorf("a GitHub repository's location is OWNER/REPO, so %q matches none: write OWNER/REPO, as %q, without a folder in the repository", p, strings.Join(elems[:2], "/"))
	case pattern && named < 2 && !slices.Contains(elems, "**"):
		return fmt.Errorf("a github pattern names OWNER/REPO, or HOST/OWNER/REPO for another GitHub host than github.com")
	}
	return nil
}

// caselessHosts are the git hosts whose repository paths ignore case
// (rule 11).
var caselessHosts = map[string]bool{"github.com": true, "www.github.com": true, "gitlab.com": true, "codeberg.org": true, "bitbucket.org": true, "gitea.com": true}

// caseless reports whether the git host h (canonical) ignores the case
// of repository paths.
func caseless(h string) bool { return caselessHosts[h] }

// GitHubLocation returns the canonical location of the GitHub repository
// owner/repo on host (rule 12): OWNER/REPO in lower case for github.com
// (host "" or github.com), and for any other GitHub host (an Enterprise
// Server, or the API GITHUB_API_URL names) HOST/OWNER/REPO, the location
// of kind "git" its git+https address has (so kind is "git").
func GitHubLocation(host, owner, repo string) (kind, location string, err error) {
	if owner == "" || repo == "" || strings.ContainsAny(owner+repo, "/\\") || isHostElement(owner) {
		return "", "", fmt.Errorf("GitHub repository %q: %w: want OWNER/REPO, an owner holding no '.' or ':' (as GitHub's)", owner+"/"+repo, ErrInvalid)
	}
	repo = strings.ToLower(repo) // case first, so that .GIT is dropped too
	path := strings.ToLower(owner) + "/" + strings.TrimSuffix(repo, ".git")
	if host == "" {
		return "github", path, nil
	}
	h, err := gitHost(host) // kind git: rule 11's ports
	if err != nil {
		return "", "", fmt.Errorf("GitHub host %q: %w: %w", host, ErrInvalid, err)
	}
	if githubCom(h) {
		return "github", path, nil
	}
	return "git", h + "/" + path, nil
}

// githubNotation reads a github location as a policy writes it after
// github: (rule 12): OWNER/REPO for github.com, kind "github"; or
// HOST/OWNER/REPO for another GitHub host, its first element a host name
// (isHostElement), which is kind "git" at the canonical
// HOST/OWNER/REPO. OWNER and REPO are lower-cased, as GitHub ignores
// their case.
func githubNotation(loc string, pattern bool) (string, string, error) {
	first, rest, _ := strings.Cut(loc, "/")
	kind, host := "github", ""
	if isHostElement(first) {
		h, err := patternHost(first, gitHost, pattern) // kind git: rule 11's ports
		if err != nil {
			return "", "", err
		}
		if !githubCom(h) {
			kind, host = "git", h+"/"
		}
	} else {
		rest = loc
	}
	if owner, _, _ := strings.Cut(rest, "/"); kind == "github" && isHostElement(owner) && host == "" && rest != loc {
		return "", "", fmt.Errorf("%q is not a GitHub owner (one holds no '.' or ':')", owner)
	}
	if strings.Contains(rest, "//") || strings.HasPrefix(rest, "/") {
		return "", "", fmt.Errorf("%q has an empty owner or repository's name", rest)
	}
	p, err := cleanPath(rest, pathRules{git: true, fold: true, pattern: pattern})
	if err != nil {
		return "", "", err
	}
	if err := githubPath(p, pattern); err != nil {
		return "", "", err
	}
	return kind, host + p, nil
}

// isHostElement reports whether the first element of a github location
// names a host rather than an owner: GitHub's owners hold neither "."
// nor ":", and none is localhost.
func isHostElement(e string) bool {
	return strings.ContainsAny(e, ".:") || strings.EqualFold(e, "localhost")
}

// URLLocation returns the canonical location of an archive's URL (rule
// 13): scheme and host in lower case, the host canonical and its
// scheme's default port dropped, without user information or fragment,
// with a path (at least "/") and every "/" of its query written %2F. A
// path with a "." or ".." segment, or an encoded slash, is refused.
func URLLocation(raw string) (string, error) {
	out, err := urlLocation(raw)
	if err != nil {
		return "", fmt.Errorf("url %q: %w: %w", redact.URL(raw), ErrInvalid, err)
	}
	return out, nil
}

func urlLocation(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("not a URL")
	}
	if err := canonicalURL(u); err != nil {
		return "", err
	}
	return u.String(), nil
}

// urlPattern is rule 14 for a url pattern: SCHEME://HOST/..., its scheme
// lower-cased, its host canonical unless it holds a wildcard, and a "/"
// after the host as a location has.
func urlPattern(loc string) (string, error) {
	scheme, rest, ok := strings.Cut(loc, "://")
	scheme = strings.ToLower(scheme)
	port := map[string]string{"https": "443", "http": "80"}[scheme]
	if !ok || port == "" {
		return "", fmt.Errorf("a url pattern is an http(s) URL, as url:https://HOST/*")
	}
	host, p, hasPath := strings.Cut(rest, "/")
	h, err := patternHost(host, func(h string) (string, error) { return CanonicalHost(h, port) }, true)
	if err != nil {
		return "", err
	}
	switch {
	case hasPath:
		return scheme + "://" + h + "/" + p, nil
	case h == "**":
		return scheme + "://**", nil // any host and path
	}
	return scheme + "://" + h + "/", nil
}

func canonicalURL(u *url.URL) error {
	scheme := strings.ToLower(u.Scheme)
	port := map[string]string{"https": "443", "http": "80"}[scheme]
	if port == "" || u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("write an http(s) URL: https://HOST/PATH")
	}
	h, err := CanonicalHost(u.Host, port)
	if err != nil {
		return err
	}
	if HasDotSegment(u.Path) {
		return fmt.Errorf("the path has a '.' or '..' segment: write it without")
	}
	if strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") || strings.Contains(u.Path, "\\") {
		return fmt.Errorf("the path holds a backslash or an encoded slash (%%2F): write / instead")
	}
	u.Scheme, u.Host, u.User, u.Fragment, u.RawFragment = scheme, h, nil, "", ""
	if u.Path == "" {
		u.Path, u.RawPath = "/", "" // so that no query follows the host
	}
	u.RawQuery = strings.ReplaceAll(u.RawQuery, "/", "%2F") // so that the query is one element
	return nil
}

// pathRules say how [cleanPath] cleans a path.
type pathRules struct {
	git     bool // drop a .git suffix (git's own reading)
	fold    bool // lower-case the path
	pattern bool // a pattern's path: may be empty; wildcard elements kept
}

// cleanPath cleans a repository's path (rules 10 and 11): doubled
// slashes collapsed, leading and trailing slashes dropped, for git one
// .git suffix (or a last element .git) dropped, in lower case when
// fold. A "." or ".." segment, a backslash, a control character or an
// empty path is refused.
func cleanPath(p string, r pathRules) (string, error) {
	if strings.Contains(p, "\\") {
		return "", fmt.Errorf("the path %q holds a backslash: write / between elements", p)
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return "", fmt.Errorf("the path %q holds a control character", p)
		}
	}
	var elems []string
	for _, e := range strings.Split(p, "/") {
		if e == "" {
			continue
		}
		if dotSegment(e) {
			return "", fmt.Errorf("the path %q has a %q segment, which git and servers read as another path: write it without", p, e)
		}
		elems = append(elems, e)
	}
	if r.fold {
		for i, e := range elems {
			elems[i] = strings.ToLower(e) // before .git is dropped: Tools.GIT is tools
		}
	}
	// A pattern's last element loses its .git too, wildcard or not: no
	// location ends in .git, so team/*.git is team/*.
	if n := len(elems); r.git && n > 0 {
		if elems[n-1] == ".git" {
			elems = elems[:n-1]
		} else if elems[n-1] = strings.TrimSuffix(elems[n-1], ".git"); elems[n-1] == "" || dotSegment(elems[n-1]) {
			return "", fmt.Errorf("the path %q names no repository, or one whose name without .git is a dot segment", p)
		}
	}
	if len(elems) == 0 && !r.pattern {
		return "", fmt.Errorf("the path %q names no repository", p)
	}
	return strings.Join(elems, "/"), nil
}

// dotSegment reports whether the path element e, percent-decoded, is
// "." or "..", or holds a slash or a backslash.
func dotSegment(e string) bool {
	d, err := url.PathUnescape(e)
	return err == nil && (d == "." || d == ".." || strings.ContainsAny(d, "/\\"))
}

// HasDotSegment reports whether p (percent-decoded) has a "." or ".." segment between
// slashes or backslashes.
func HasDotSegment(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// maxHostLen bounds a host name, as DNS does.
const maxHostLen = 253

// CanonicalHost returns host (HOST, HOST:PORT, [IPv6] or [IPv6]:PORT) in
// canonical form (rule 9): a name in lower case, converted to ASCII by
// IDNA's lookup profile (punycode for a name that is not ASCII),
// without a trailing dot; an IP address as Go writes it; the port as a
// decimal number without leading zeros, dropped when it is
// defaultPort. An error says why the host cannot be made canonical:
// user information, an empty, signed or non-decimal port or one out of
// 1 to 65535, a name IDNA refuses, a name whose last label is a number
// but that is no IPv4 address (as 127.1 or 0x7f.1, which some programs
// read as addresses), an IPv6 zone.
func CanonicalHost(host, defaultPort string) (string, error) {
	if strings.Contains(host, "@") {
		return "", fmt.Errorf("the host %q holds user information (@): write the host alone", host)
	}
	name, port, err := splitHostPort(host)
	if err != nil {
		return "", err
	}
	if port != "" {
		n, err := parsePort(port)
		if err != nil {
			return "", fmt.Errorf("the host %q: %w", host, err)
		}
		port = strconv.Itoa(n)
		if port == defaultPort {
			port = ""
		}
	}
	if name, err = canonicalName(name); err != nil {
		return "", fmt.Errorf("the host %q: %w", host, err)
	}
	if port == "" {
		return bracket(name), nil
	}
	return net.JoinHostPort(name, port), nil
}

// bracket puts an IPv6 address in brackets.
func bracket(name string) string {
	if strings.Contains(name, ":") {
		return "[" + name + "]"
	}
	return name
}

// splitHostPort splits HOST[:PORT] and [IPv6][:PORT]; port is "" when
// there is none, and an error when a colon is followed by nothing.
func splitHostPort(host string) (name, port string, err error) {
	if rest, ok := strings.CutPrefix(host, "["); ok {
		name, after, ok := strings.Cut(rest, "]")
		if !ok {
			return "", "", fmt.Errorf("the host %q opens a [ it does not close", host)
		}
		if after == "" {
			return "[" + name + "]", "", nil
		}
		port, ok := strings.CutPrefix(after, ":")
		if !ok || port == "" {
			return "", "", fmt.Errorf("the host %q: write [ADDRESS]:PORT", host)
		}
		return "[" + name + "]", port, nil
	}
	switch strings.Count(host, ":") {
	case 0:
		return host, "", nil
	case 1:
		name, port, _ := strings.Cut(host, ":")
		if port == "" {
			return "", "", fmt.Errorf("the host %q has a colon but no port: write the port, or leave out the colon", host)
		}
		return name, port, nil
	}
	return "", "", fmt.Errorf("the host %q has several colons: write an IPv6 address in brackets, [ADDRESS]:PORT", host)
}

// parsePort reads a port: decimal digits only, 1 to 65535.
func parsePort(p string) (int, error) {
	if len(p) > 16 {
		return 0, fmt.Errorf("the port %.16q... is not a port from 1 to 65535", p)
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("the port %q is not a decimal number: write digits only", p)
		}
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("the port %q is not from 1 to 65535", p)
	}
	return n, nil
}

// canonicalName is rule 9 for a host's name, without its port.
func canonicalName(name string) (string, error) {
	if addr, ok := strings.CutPrefix(name, "["); ok {
		addr = strings.TrimSuffix(addr, "]")
		if strings.Contains(addr, "%") {
			return "", fmt.Errorf("an IPv6 zone (%%) names a network interface, not a host: leave it out")
		}
		ip := net.ParseIP(addr)
		if ip == nil || !strings.Contains(addr, ":") {
			return "", fmt.Errorf("%q is not an IPv6 address", addr)
		}
		if ip.To4() != nil {
			return "", fmt.Errorf("%q is an IPv4 address written as IPv6: write %s", addr, ip.To4())
		}
		return ip.String(), nil
	}
	if name == "" {
		return "", fmt.Errorf("no host name")
	}
	if ip := net.ParseIP(name); ip != nil {
		return ip.String(), nil
	}
	if !utf8.ValidString(name) {
		return "", fmt.Errorf("not a host name: it is not UTF-8")
	}
	ascii, err := idna.Lookup.ToASCII(name)
	if err != nil {
		return "", fmt.Errorf("not a host name (%v)", err)
	}
	ascii = strings.TrimSuffix(strings.ToLower(ascii), ".")
	if again, err := idna.Lookup.ToASCII(ascii); err != nil || again != ascii {
		return "", fmt.Errorf("not a host name: IDNA does not read its ASCII form %q back", ascii)
	}
	if ascii == "" || len(ascii) > maxHostLen {
		return "", fmt.Errorf("not a host name")
	}
	for _, r := range ascii {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return "", fmt.Errorf("not a host name: it may hold letters, digits, '-' and '.'")
		}
	}
	labels := strings.Split(ascii, ".")
	for _, l := range labels {
		if l == "" {
			return "", fmt.Errorf("not a host name: an empty label (..)")
		}
	}
	if last := labels[len(labels)-1]; numeric(last) {
		return "", fmt.Errorf("a name ending in a number is read as an IPv4 address by some programs: write the address as four decimal numbers (as 127.0.0.1)")
	}
	return ascii, nil
}

// numeric reports whether a label reads as a number: decimal digits, or
// 0x and hex digits.
func numeric(l string) bool {
	if h, ok := strings.CutPrefix(l, "0x"); ok {
		l = h
		if l == "" {
			return true
		}
		return strings.Trim(l, "0123456789abcdef") == ""
	}
	return strings.Trim(l, "0123456789") == ""
}
