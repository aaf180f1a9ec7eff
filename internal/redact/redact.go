// Package redact removes the secrets a source's URL may hold from what
// messages show and lock files record. It is apart from package
// sourceloc, which makes locations canonical with IDNA's tables, so
// that the SDK redacts without linking them.
package redact

import (
	"net/url"
	"strings"
)

// URL returns raw, a source's text, without the secrets the user
// information of a URL may hold: what messages show of a source and a
// lock file records. It is the one place the module removes
// credentials from a source's URL; every package shows a URL through it.
//
//   - A URL with user information loses it: https://user:secret@host/x
//     and https://TOKEN@host/x (where hosts take a token) become
//     https://host/x, and so does a git+https URL.
//   - An ssh URL (ssh://, git+ssh://) keeps its user name and loses only
//     a password ([KeepsUser]): the name is the account on the server
//     (git@), no secret, and the address does not work without it. No
//     caller needs it removed (the other callers show http(s) URLs), so
//     this takes no parameter.
//   - A query is kept, as a URL's location keeps it (package source, rule 13): it is part
//     of the address a policy matches, and a host that takes a token in
//     one is not a source the module knows to redact.
//   - A text with "://" that does not parse as a URL loses everything up
//     to its last "@": that may take more than the user information,
//     never less.
//   - Any other text (a path, OWNER/REPO@REF, a URL without user
//     information) is returned as it is, not rewritten.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, rest, ok := strings.Cut(raw, "://")
		if at := strings.LastIndex(rest, "@"); ok && at >= 0 {
			return scheme + "://" + rest[at+1:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	if KeepsUser(u) {
		u.User = url.User(u.User.Username())
	} else {
		u.User = nil
	}
	return u.String()
}

// KeepsUser reports whether [URL] keeps u's user name: that of an ssh
// URL (ssh://, git+ssh://) that names one.
func KeepsUser(u *url.URL) bool {
	return (u.Scheme == "ssh" || u.Scheme == "git+ssh") && u.User != nil && u.User.Username() != ""
}
