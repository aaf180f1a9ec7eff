package source

import (
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Origin is where a source comes from, as a trust policy matches it
// (package policy) and its messages name it: a fact about the source,
// which the skill sources of the remote sources give for what they read
// (the SkillSource of packages source/git, source/github and source/oci,
// an [OriginSource] each), [OriginOf] gives for any skill source, and
// package install gives for every source it takes.
type Origin struct {
	// Kind is [GitHub], [Git], [OCI], [URL] (an archive's http(s) URL),
	// [Local] (a folder, SKILL.md or archive file), [Inline] (an SDK
	// skill with no location: embedded, inline, catalogue), or [Unknown]
	// (an SDK skill that comes from somewhere but does not say where: an
	// archive without an origin). A web index ([WebIndex]) is of kind
	// [URL], at its index's address.
	Kind Kind
	// Location is where it is, canonical (rules 9 to 15;
	// [CanonicalLocation] makes it): github "owner/repo"; git "host/path"
	// (no scheme, user, default port or .git suffix; "/path" for a file
	// URL, its real path; "host/owner/repo" for a GitHub
	// repository on another host than github.com); oci "host/repo"; url
	// the URL without credentials or fragment, with a path before its
	// query and the query's slashes as %2F; local an absolute, cleaned
	// path, its real path. A policy makes a location canonical again
	// before matching it, so a caller may give any spelling of it, and
	// its kind too: a git location on github.com is kind github. It does
	// not read the disk: a caller resolves a path's links first (rule
	// 15), as package install and the SDK's origins do, or a path
	// through a link is matched as written.
	Location string
	// Pinned reports whether the source names an immutable version: a
	// commit, a manifest digest, a URL's #sha256=.
	Pinned bool
	// Display is the source as the user named it, for messages.
	Display string
}

// String is how messages name o: its Display, else KIND:LOCATION, else
// its kind.
func (o Origin) String() string {
	if o.Display != "" {
		return o.Display
	}
	if o.Location == "" {
		return string(o.Kind)
	}
	return string(o.Kind) + ":" + o.Location
}

// originKinds are the kinds [ParseOrigin] reads, as a trust policy's
// patterns name them.
var originKinds = []Kind{GitHub, Git, OCI, URL, Local}

// ParseOrigin reads an origin in a trust policy's notation, KIND:LOCATION
// (github:acme/tools, oci:ghcr.io/acme/skills, git:git.acme.corp/skills,
// url:https://skills.acme.corp/kit.tgz, local:/home/me/skills/review),
// the form `agentskills policy check` takes beside the sources add
// takes. The location is made canonical ([CanonicalLocation]; a github
// location on another host than github.com is of kind git, and a git
// location on github.com of kind github); one that cannot be is an error
// wrapping [ErrInvalid]. A relative local path is made absolute against
// the working folder; a local path, and a git location on the local disk
// (git:/srv/repos/x), is its real path, links resolved (rule 15). The
// origin is not pinned, and its Display is text.
func ParseOrigin(text string) (Origin, error) {
	k, loc, ok := strings.Cut(text, ":")
	kind := Kind(k)
	if !ok || !slices.Contains(originKinds, kind) || loc == "" {
		return Origin{}, fmt.Errorf("source %q: write KIND:LOCATION, KIND one of github, git, oci, url, local (as github:acme/tools or oci:ghcr.io/acme/skills)", text)
	}
	if kind == Local {
		abs, err := filepath.Abs(loc)
		if err != nil {
			return Origin{}, fmt.Errorf("source %q: %w", text, err)
		}
		return Origin{Kind: kind, Location: filepath.ToSlash(sourceloc.RealPath(abs)), Display: text}, nil
	}
	canonKind, canon, err := CanonicalLocation(kind, loc)
	if err == nil && canonKind == Git && strings.HasPrefix(loc, "/") {
		// The written path is checked first, so that no ".." is resolved away.
		canonKind, canon, err = CanonicalLocation(kind, filepath.ToSlash(sourceloc.RealPath(filepath.FromSlash(loc))))
	}
	if err != nil {
		return Origin{}, fmt.Errorf("source %q: %w", text, err)
	}
	return Origin{Kind: canonKind, Location: canon, Display: text}, nil
}

// URLOrigin returns the origin of text, an http(s) URL read as it is:
// an archive's ([URL]) or a web index's ([WebIndex], at its index's
// address, which package source/webindex's IndexURL gives for what a
// user types). Its kind is [URL], its location canonical (rule 13:
// without user information or fragment), it is pinned when its
// #sha256= fragment pins a SHA-256 ([Spec.SHA256]), and its Display is
// text without user information. Another kind of text, or a URL that
// cannot be made canonical, is an error wrapping [ErrInvalid]. Like
// [Parse], it reads neither the disk nor the network.
func URLOrigin(text string) (Origin, error) {
	spec, err := Parse(text)
	if err != nil {
		return Origin{}, err
	}
	if spec.Kind != URL && spec.Kind != WebIndex {
		return Origin{}, fmt.Errorf("source %s: %w: it is %s, not an archive's or a web index's URL", redact.URL(text), ErrInvalid, spec.Kind)
	}
	u, err := url.Parse(text)
	if err != nil {
		return Origin{}, fmt.Errorf("source %s: %w: %w", redact.URL(text), ErrInvalid, err)
	}
	u.Fragment, u.RawFragment = "", ""
	loc, err := sourceloc.URLLocation(u.String())
	if err != nil {
		return Origin{}, err
	}
	return Origin{Kind: URL, Location: loc, Pinned: spec.SHA256 != "", Display: redact.URL(text)}, nil
}

// OriginSource is implemented by a skill source that says where it comes
// from, as a trust policy sees it: the SkillSource of packages
// source/oci, source/git and source/github is one. [OriginOf] reads it.
type OriginSource interface {
	skill.Source
	// Origin returns where the source comes from.
	Origin() Origin
}

// PinnedSource is implemented by a skill source read from a published
// source at a pin (a commit, a manifest digest): the SkillSource of
// packages source/oci, source/git and source/github is one. A trust
// checker verifies that pin: its commit's signature with the source's
// [CommitVerifier], its Sigstore signatures with its [Signed].
type PinnedSource interface {
	skill.Source
	// Pin returns the pin the skill was read at.
	Pin() string
}

// OriginOf returns where src comes from as a trust policy sees it: src's
// own [OriginSource.Origin], else a [Local] folder for a source with a
// SkillPath method (absolute, at its real path with links resolved as
// rule 15 says, not pinned), else kind [Inline] for a source with no
// location (an InlineSkillMD or SkillFS method: skill.Inline, skill.FS),
// else kind [Unknown]: an archive or a source of another type that comes
// from somewhere it does not say.
func OriginOf(src skill.Source) Origin {
	if o, ok := src.(OriginSource); ok {
		return o.Origin()
	}
	if p, ok := src.(interface{ SkillPath() string }); ok {
		loc, err := filepath.Abs(p.SkillPath())
		if err != nil {
			loc = filepath.Clean(p.SkillPath())
		}
		return Origin{Kind: Local, Location: sourceloc.RealPath(loc), Display: p.SkillPath()}
	}
	switch src.(type) {
	case interface{ InlineSkillMD() string }, interface {
		SkillFS() (fs.FS, string)
	}:
		return Origin{Kind: Inline}
	}
	if a, ok := src.(interface {
		SkillArchive() (skill.Opener, string, string, string)
	}); ok {
		display := "an archive without an origin"
		if _, _, _, fp := a.SkillArchive(); fp != "" {
			display += " (fingerprint " + fp + ")"
		}
		return Origin{Kind: Unknown, Display: display}
	}
	return Origin{Kind: Unknown, Display: fmt.Sprintf("a %T source without an origin", src)}
}

// The canonical locations of rules 9 to 14. A trust policy matches every
// rule against a source's canonical location, so that one repository has
// one location however it is written; a spelling that cannot be made
// canonical is refused, never matched as it is written.

// CanonicalLocation returns the canonical kind and location of a
// source's location as a trust policy writes it after KIND: for kinds
// "oci", "git", "github" and "url" (ghcr.io/acme/skills,
// git.example.org/team/skills, acme/tools, https://example.org/kit.tgz),
// by rules 9 to 14; the kind changes only for a github location on
// another host than github.com, which is kind "git" (rule 12), and for a
// git location on github.com, which is kind "github" (rule 11). Any other
// kind's location is returned as it is. An error wraps [ErrInvalid] and
// says why the location cannot be made canonical and what to write.
func CanonicalLocation(kind Kind, location string) (Kind, string, error) {
	k, loc, err := sourceloc.Canonical(string(kind), location, false)
	return Kind(k), loc, err
}

// CanonicalPattern is [CanonicalLocation] of a trust policy's pattern
// (rule 14): its elements are made canonical as a location's are, except
// that an element with a wildcard (*, ?, [) is left as it is (lower-cased
// where case is ignored; a git pattern's last element loses .git all the
// same), a host with one is only lower-cased, and the path may be empty.
// A github pattern, or a git one on github.com (kind "github" then), that
// could match no OWNER/REPO is an error.
func CanonicalPattern(kind Kind, location string) (Kind, string, error) {
	k, loc, err := sourceloc.Canonical(string(kind), location, true)
	return Kind(k), loc, err
}
