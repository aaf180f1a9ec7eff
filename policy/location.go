package policy

import (
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
)

// GitLocation returns a git repository's URL as a [source.Origin] writes it:
// its canonical kind and location ([sourceloc.GitLocation]: kind "git" at
// the host and cleaned path, without scheme, user, default port,
// trailing slash or .git suffix; kind "github" at OWNER/REPO for a
// repository on github.com, rule 15). ok is false when the URL cannot be made canonical,
// among others when its path (percent-decoded) has a "." or ".."
// segment: a pattern such as host/allowed/** must not match
// host/allowed/../evil, which git and servers read as host/evil, so such
// a URL cannot be checked against a policy.
func GitLocation(raw string) (kind, loc string, ok bool) {
	kind, loc, err := sourceloc.GitLocation(raw)
	return kind, loc, err == nil
}

// HasDotSegment reports whether the (percent-decoded) path p has a "."
// or ".." segment, between slashes or backslashes.
func HasDotSegment(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
