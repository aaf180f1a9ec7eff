// Package source is what the packages that fetch published skills share
// (source/github, source/git, source/oci, and any other): the errors they
// classify failures with, [Parse], which tells what kind of source a text
// names, [Remote], the one shape in which package install and the
// agentskills command use any of them, and [Origin], where a source comes
// from as a trust policy matches it.
//
// # Origins
//
// The origin of a source is a fact about the source: each kind's package
// gives the origin of what it parses (oci.Reference.Origin,
// git.Source.Origin, github.Source.Origin), and the skill sources it
// builds carry theirs ([OriginSource]) and their pin ([PinnedSource]),
// with what checks the pin's signatures ([CommitVerifier], [Signed]).
// [OriginOf] gives the origin of any skill source, and [ParseOrigin]
// reads one in a policy's notation, KIND:LOCATION. Package policy matches
// origins and parses none; package trust checks them.
//
// # Errors
//
// One set of sentinels serves every source package, as oras-go's errdef
// serves every content store: test for them with [errors.Is], whichever
// package the error came from. A package wraps them with its own detail
// and adds no sentinel of its own for an idea listed here.
//
//  1. [ErrInvalid]: text that is not a source of the package's syntax, an
//     option that is not usable, or a pin that is not one.
//  2. [ErrNotFound]: a repository, ref, commit, tag, digest or folder the
//     host does not have, or hides from the caller.
//  3. [ErrAuthRequired]: the host wants credentials that are missing, or
//     refused the ones given.
//  4. [ErrRateLimited]: the host refused a request for a rate limit.
//  5. [ErrStalled]: a transfer received nothing for its stall timeout and
//     was stopped.
//  6. [ErrNotPinned]: a reference without the pin a call needs.
//  7. [ErrNoSkill]: content that does not hold one skill where the source's
//     format says it must.
//  8. [ErrNotServer]: a host that does not answer as a server of the
//     source's kind does (an OCI host that is no registry).
//  9. [ErrRedirected]: a server that redirects the source somewhere the
//     package does not follow (another host), or the caller's check of
//     the redirect refused.
//  10. [ErrIntegrity]: content that does not match the digest or the
//     signature that names it: a download whose digest differs from the
//     one its index, URL or manifest gives, a blob that does not match
//     its descriptor, a stored tree that changed. It is never a network
//     failure to retry: something altered the content.
//
// The limits of an archive are skill's errors ([skill.ErrArchiveLimit]
// and the others), which the source packages return as they are.
//
// # The prefix rule
//
// An error of a source package reads SUBJECT: SENTINEL: DETAIL. SUBJECT
// names what the call was about as the package sees it (the source as
// typed, the repository and the ref or pin, the reference) and the kind
// of source where the sentinel alone would not tell it, and never holds
// a credential; SENTINEL is the sentinel's own text ("not found",
// "invalid source"); DETAIL says what was
// found and what to do, in the words of the library (its options and
// environment variables, never a command's flags). Context is added once:
// the exported call adds its subject, and a caller adds only what it
// knows beyond it (package install: the source as recorded). A command
// line tool adds its flags to the message itself, as agentskills does.
//
// Package install keeps its own, coarser classes for a whole request
// (install.ErrInvalidSource: a source that cannot be installed, whatever
// the reason; install.ErrSourceUnavailable: one that could not be read
// now), into which it sorts these.
//
// # The shape of a source
//
// A [Remote] is a source bound to a reference: [Remote.Resolve] turns the
// reference into a pin (a commit, a manifest digest) once and explicitly,
// [Remote.Open] reads the content at a pin as an archive, and
// [Remote.Close] releases what one kept for the other. github.NewRemote,
// git.NewRemote and oci.NewRemote make one. This package is small and
// imports only package skill (and IDNA's tables, the digest type of
// go-digest, and internal packages of git's syntax and of canonical
// locations), so that any package may use it; it holds no state.
//
// # Canonical locations
//
// One repository can be written many ways (ghcr.io, GHCR.IO:443,
// ghcr.io:0443); a trust policy must see one location for all of them,
// or a rule written for one spelling is skipped for another.
// [CanonicalLocation] and [CanonicalPattern], and the module's own code
// behind them, are the one place that makes a location canonical: the
// installer, the SDK's origins (Origin of source/oci, source/git and
// source/github) and package policy (sources and patterns alike) all
// use it. A location that cannot be made canonical is an error
// wrapping [ErrInvalid], never a location matched as written.
//
//  9. A host is in lower case, converted by IDNA's
//     lookup profile (UTS #46, non-transitional, as Go's HTTP client
//     does) to ASCII, punycode for a name that is not ASCII
//     (bücher.example is xn--bcher-kva.example), without a trailing dot.
//     Its port is decimal digits read as a number (0443 is 443) from 1
//     to 65535, and dropped when it is the scheme's default. An IP
//     address is written as Go writes it ([0:0::1] is [::1]). Refused:
//     user information (user@host), an empty port (host:), a port with
//     a sign, other characters or out of range, an IPv6 zone, an IPv4
//     address written as IPv6, a name IDNA refuses or with characters
//     other than letters, digits, "-" and "." (an underscore), an empty
//     label, and a name whose last label is a number (127.1, 0x7f.1,
//     2130706433), which some programs read as an IPv4 address.
//  10. oci: HOST/REPOSITORY, the host by rule 9 with the
//     default port 443 (80 on loopback, which is spoken to over plain
//     HTTP), the repository in lower case with doubled slashes
//     collapsed. A "." or ".." element (also percent-encoded) and any
//     character the OCI grammar does not allow are refused.
//  11. git (from git's URL, or HOST/PATH as [CanonicalLocation]
//     reads it): HOST/PATH without scheme or user, the host by rule 9
//     with each of git's default ports dropped (443, 80, 22, 9418: a git
//     location has no scheme to tell them apart); the path with doubled
//     slashes collapsed, the trailing slash and one .git suffix (or a
//     last element .git) dropped, and in lower case on the hosts that
//     ignore its case (github.com, gitlab.com, codeberg.org,
//     bitbucket.org, gitea.com), where case is folded first, so that
//     .GIT is dropped too (Tools.GIT is tools). A file URL (no host, or
//     localhost) is /PATH alone. A repository on github.com (or
//     www.github.com), whatever its scheme, port or case, is kind
//     "github" at OWNER/REPO (rule 12), the location github:OWNER/REPO
//     has, so that one repository has one kind and location; its path
//     must then be OWNER/REPO. Refused: a "." or ".." element (also
//     percent-encoded), a backslash, an encoded slash (%2F, %5C), a
//     query or fragment, a control character, no path, a scheme other
//     than https, http, ssh, git and file, a file URL with another host,
//     a path on github.com that is not OWNER/REPO.
//  12. github: OWNER/REPO in lower case for
//     github.com, a .git suffix dropped after the case is folded; a
//     location with more or fewer elements (acme/tools/skills, acme) is
//     refused, as no repository has it. A GitHub repository on another
//     host (an Enterprise Server, or the one GITHUB_API_URL names) is
//     kind "git" at HOST/OWNER/REPO, the location its git+https address
//     has; a github location written HOST/OWNER/REPO (its first element
//     holds a "." or a ":", or is localhost) is read so.
//  13. url: the URL with scheme and host by rule 9
//     (default ports 443 and 80), without user information or fragment,
//     with a path, "/" at least, before the query, and every "/" of the
//     query written %2F: no query text becomes or joins a host or path
//     element (https://evil.example?.acme.corp/x is
//     https://evil.example/?.acme.corp%2Fx). A "." or ".." segment, a
//     backslash or an encoded slash in the path is refused.
//  14. A policy's pattern ([CanonicalPattern]) is made canonical as a
//     location of its kind, element by element, except that an element
//     with a wildcard (*, ?, [) is kept as written (in lower case where
//     case is ignored), a host with one is only lower-cased, an IPv6
//     host's brackets are escaped, and the path may be empty. A git
//     pattern's last element loses a .git suffix, wildcard or not (no
//     location ends in .git: team/*.git is team/*); a git pattern on
//     github.com is a github pattern (git:github.com/acme/* is
//     github:acme/*); a url pattern has a "/" after its host. A github
//     pattern (a git pattern on github.com too) names at least two
//     elements unless one is **, and at most two besides **, after its
//     host: acme/tools/** may match an OWNER/REPO, acme/tools/skills/*
//     none, and is refused.
//  15. A path on the local disk, of a file URL or a local folder, is its real path: the longest leading
//     part of it that exists is replaced by its real path
//     ([filepath.EvalSymlinks]) and the rest kept, so that a repository
//     or folder named through a link (/proc/self/root/srv/repos/x, a
//     link to /srv/repos) has the location of the folder that is read
//     (/srv/repos/x). A file URL's .git suffix is dropped after. A
//     policy's git pattern for the local disk (git:/...) and its local
//     pattern are resolved alike when the policy is read: the longest leading run of elements without a
//     wildcard that exists is replaced by its real path, the rest kept,
//     so that git:/srv/repos/acme/* where /srv is a link (as macOS's
//     /tmp and /var are) matches the repositories the sources resolve
//     to. [CanonicalLocation] and [CanonicalPattern] do not resolve: a
//     caller that reads the disk resolves before it matches.
//
// # Source text
//
// [Parse] is the one place that reads a source as a user types it (on
// the command line, in an SDK program, in a lock file) and tells its
// [Kind]; the kind's package then reads [Spec.Text] in its own syntax
// (source/github, source/git, source/oci, source/webindex: their rules),
// and package install and the agentskills command act on the kind. The
// first rule that fits decides:
//
//  16. oci://HOST/REPO:TAG or oci://HOST/REPO@sha256:DIGEST is [OCI].
//  17. git+https://, git+ssh://, git+file://... (any git+ text,
//     #ref=REF&path=PATH after it) is [Git].
//  18. [GitHubPrefix] then OWNER/REPO[/PATH][@REF] is [GitHub], whatever
//     exists on disk.
//  19. An http(s) URL is read as the first of these that fits:
//     (1) on github.com, https, without user, query or fragment, and of
//     a repository's form (/OWNER/REPO or /OWNER/REPO/tree/REF[/PATH]):
//     [GitHub]; any other github.com address is an archive [URL];
//     (2) an archive [URL] when its path ends in .zip, .skill, .tar, .tgz
//     or .tar.gz (any case) or it has #sha256=HEX ([Spec.SHA256]);
//     (3) over https, of a repository's form on another host: [GitHub]
//     for a GitHub Enterprise Server's /OWNER/REPO/tree/REF[/PATH], or
//     /OWNER/REPO on the host $GH_HOST names (package source/github,
//     rules 15 and 16); [Git] for a path ending in .git, GitLab's
//     /-/tree/, Gitea's and Forgejo's /src/branch/, /src/tag/ and
//     /src/commit/, Bitbucket's /src/REF on bitbucket.org, and a
//     repository's own page on gitlab.com, codeberg.org, gitea.com or
//     bitbucket.org (package source/git, rules 17 to 22). Text of such a
//     form that its package cannot read is refused by it, never
//     downloaded. The host is never asked what it is.
//  20. An http(s) URL whose path is empty or ends in "/", or ends in
//     /.well-known/agent-skills/index.json, is a [WebIndex] (package
//     source/webindex).
//  21. Any other http(s) URL is an archive [URL]; a fragment other than
//     #sha256= and 64 hex digits is an error. Any other text is [Local]:
//     a path, except OWNER/REPO[/PATH][@REF] (an owner and a repository
//     of letters, digits, '.', '-' and '_', not starting like a path with
//     ".", "/", "\" or "~"), which is [GitHub] with [Spec.Bare] set: it
//     names the GitHub repository only when no file or folder of that
//     name exists, which the caller, knowing the folder it is relative
//     to, checks (package install, rule 13, also refuses one whose OWNER
//     exists as a mistyped path).
//
// Parse reads no disk and no network, and redacts a password from its
// errors. Its table test and fuzz target are in parse_test.go.
//
// What holds on Linux holds on macOS and Windows: nothing here depends on
// the system but rule 15, which reads the file system where it is, and
// rule 21, where a path with a volume name (C:\skills) is a path.
package source

import (
	"context"
	"errors"
	"io"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
)

// The errors of every source package (rules 1 to 8).
var (
	// ErrInvalid reports text that is not a source, an option that is not
	// usable, or a pin that is not one (rule 1).
	ErrInvalid = sourceloc.ErrInvalid
	// ErrNotFound reports a repository, ref, commit, tag, digest or folder
	// the host does not have or hides (rule 2).
	ErrNotFound = errors.New("not found")
	// ErrAuthRequired reports credentials that are missing or refused
	// (rule 3).
	ErrAuthRequired = errors.New("authentication required")
	// ErrRateLimited reports a request refused for a rate limit (rule 4).
	ErrRateLimited = errors.New("rate limit exceeded")
	// ErrStalled reports a transfer that received nothing for its stall
	// timeout (rule 5).
	ErrStalled = errors.New("stalled")
	// ErrNotPinned reports a reference without a pin where one is needed
	// (rule 6).
	ErrNotPinned = errors.New("not pinned")
	// ErrNoSkill reports content that does not hold the one skill it
	// must (rule 7).
	ErrNoSkill = errors.New("no skill")
	// ErrNotServer reports a host that does not answer as a server of the
	// source's kind does (rule 8).
	ErrNotServer = errors.New("wrong kind of server")
	// ErrRedirected reports a redirect that is not followed (rule 9).
	ErrRedirected = errors.New("redirect refused")
	// ErrIntegrity reports content that does not match the digest or
	// signature that names it (rule 10).
	ErrIntegrity = errors.New("integrity check failed")
)

// Remote is a published source bound to one reference, which may move (a
// branch, a tag) and resolves to a pin (a commit, a manifest digest). A
// Remote is for one caller at a time: Resolve may keep what it fetched for
// the Open that follows.
type Remote interface {
	// Repository names where the content lives, whatever the reference
	// names in it: two references of one repository (another branch, tag
	// or pin) give the same name. It holds no credential.
	Repository() string
	// Resolve returns the pin the reference names now. It is the only
	// call that looks the reference up.
	Resolve(ctx context.Context) (string, error)
	// Open returns the content at pin as an archive. With within, a
	// folder of the content, only that folder is needed: a source that
	// can leave the rest out does. When progress is not nil it is given
	// a copy of the bytes as they are received.
	Open(ctx context.Context, pin, within string, progress io.Writer) (*Archive, error)
	// Close releases what Resolve kept for Open and Open did not use. A
	// Remote may be used again after Close.
	Close() error
}

// Versioned is implemented by a [Remote] whose reference may name a
// range of versions (^1.2, ~1.2, >=1.0 <2; which text is a range is
// package source/version's rule 1: v1.2.3 names that tag), resolved
// against the repository's tags (git, GitHub) or the registry's (OCI) by
// semantic versioning: [Remote.Resolve] picks the highest tag the range
// admits (pre-releases only when the range names one) and returns its pin.
type Versioned interface {
	Remote
	// Range is the range the reference names, as written ("^1.2"), or ""
	// when it names no range (a branch, a tag, v1.2.3 too, a commit, a
	// digest).
	Range() string
	// Version is the tag the last Resolve picked for the range ("v1.4.0"),
	// or "" before a Resolve or without a range.
	Version() string
	// Latest returns the highest version tag of the repository, whatever
	// the range, and its pin; ErrNotFound when no tag is a version.
	Latest(ctx context.Context) (tag, pin string, err error)
	// WithRange returns the source as text, in the syntax it was written
	// in, with its reference replaced by the range r
	// (OWNER/REPO@^2.0.0, git+https://...#ref=^2.0.0&path=...,
	// oci://HOST/REPO:^2.0.0): what an update that leaves the range
	// records.
	WithRange(r string) string
}

// Archive is the content of a [Remote] at a pin.
type Archive struct {
	// ReadCloser streams the archive. Its Close releases what the
	// stream used (a temporary repository, a cached file).
	io.ReadCloser
	// Format is the archive's format.
	Format skill.Format
	// Subpath is the folder of the archive that the reference names, ""
	// for its root.
	Subpath string
}
