package source

import "github.com/agentadaptor/agentadaptor/internal/sourceloc"

// Origin is where a source comes from, as a trust policy matches it
// (package policy) and its messages name it: a fact about the source,
// which the remote sources give for what they read (the TrustedSource of
// packages source/git, source/github and source/oci) and package install
// gives for every source it takes.
type Origin struct {
	// Kind is "github", "git", "oci", "url" (an archive's http(s) URL),
	// "local" (a folder, SKILL.md or archive file), "inline" (an SDK
	// skill with no location: embedded, inline, catalogue), or "unknown"
	// (an SDK skill that comes from somewhere but does not say where: an
	// archive without an origin).
	Kind string
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
		return o.Kind
	}
	return o.Kind + ":" + o.Location
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
func CanonicalLocation(kind, location string) (string, string, error) {
	return sourceloc.Canonical(kind, location, false)
}

// CanonicalPattern is [CanonicalLocation] of a trust policy's pattern
// (rule 14): its elements are made canonical as a location's are, except
// that an element with a wildcard (*, ?, [) is left as it is (lower-cased
// where case is ignored; a git pattern's last element loses .git all the
// same), a host with one is only lower-cased, and the path may be empty.
// A github pattern, or a git one on github.com (kind "github" then), that
// could match no OWNER/REPO is an error.
func CanonicalPattern(kind, location string) (string, string, error) {
	return sourceloc.Canonical(kind, location, true)
}
