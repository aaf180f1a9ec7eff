// Package gitsyntax checks the parts of a repository source that the git
// and GitHub sources read alike: a ref, as git check-ref-format would, and
// a folder inside the repository.
package gitsyntax

import (
	"fmt"
	"io/fs"
	"strings"
)

// CheckRef applies git check-ref-format's rules to ref, and refuses a ref
// that starts with "-" or "/".
func CheckRef(ref string) error { return checkRef(ref, "-/") }

// CheckFetchRef is CheckRef for a ref handed to git fetch, where a
// leading "+" would mean a forced update: it refuses that too.
func CheckFetchRef(ref string) error { return checkRef(ref, "-/+") }

// checkRef applies check-ref-format's rules and refuses a ref that starts
// with one of the bytes of first.
func checkRef(ref, first string) error {
	bad := func(why string) error { return fmt.Errorf("the ref %q %s", ref, why) }
	switch {
	case ref == "":
		return bad("is empty")
	case HasControl(ref) || strings.ContainsAny(ref, " ~^:?*[\\"):
		return bad("holds a space, a control character or one of ~ ^ : ? * [ \\")
	case strings.Contains(ref, "..") || strings.Contains(ref, "@{") || strings.Contains(ref, "//"):
		return bad(`holds "..", "@{" or "//"`)
	case strings.ContainsAny(ref[:1], first):
		return bad("starts with " + quotedList(first))
	case strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") || strings.HasSuffix(ref, ".lock"):
		return bad(`ends with "/", "." or ".lock"`)
	}
	return nil
}

// quotedList lists the bytes of s, each quoted: "a", "b" or "c".
func quotedList(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case i > 0 && i == len(s)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s[i:i+1])
	}
	return b.String()
}

// CheckPath accepts "" and relative slash-separated paths without empty,
// "." or ".." elements, backslashes, colons or control characters.
func CheckPath(p string) error {
	if p == "" {
		return nil
	}
	if !fs.ValidPath(p) || strings.ContainsAny(p, `\:`) || HasControl(p) {
		return fmt.Errorf("the path %q must be relative and slash-separated, without empty, '.' or '..' elements, backslashes, colons or control characters", p)
	}
	return nil
}

// HasControl reports whether s holds an ASCII control character.
func HasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// IsCommit reports whether s is a full object id in lower-case hex: 40
// digits (SHA-1) or 64 (SHA-256), as a pinned commit is written.
func IsCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// WebHost is the table of the public git hosts whose web addresses are
// read without a form that names a repository (package source/git, rule
// 22): for each, how many path elements a repository's address has (0:
// any number from 2, as GitLab's groups and subgroups). host is in lower
// case, without a port.
func WebHost(host string) (elems int, known bool) {
	switch host {
	case "gitlab.com":
		return 0, true
	case "codeberg.org", "gitea.com", "bitbucket.org":
		return 2, true
	}
	return 0, false
}

// WebPage reports whether elems, a web address's path elements on host,
// are a repository's own page there by [WebHost].
func WebPage(host string, elems []string) bool {
	want, known := WebHost(host)
	return known && (want == 0 && len(elems) >= 2 || len(elems) == want)
}
