package policy

import (
	"net/url"
	"strings"
)

// GitLocation returns a git repository's URL as [Source.Location] writes
// it for kind "git": host and path, without scheme, user, trailing slash
// or .git suffix. ok is false when the path (percent-decoded; after the
// colon of an scp-like host:path address) has a "." or ".." segment: a
// pattern such as host/allowed/** must not match host/allowed/../evil,
// which git and servers read as host/evil, so such a URL cannot be
// checked against a policy.
func GitLocation(raw string) (loc string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil {
		p := raw
		if _, after, found := strings.Cut(raw, ":"); found {
			p = after
		}
		return strings.TrimSuffix(raw, ".git"), !HasDotSegment(p)
	}
	return strings.TrimSuffix(strings.TrimSuffix(u.Host+u.Path, "/"), ".git"), !HasDotSegment(u.Path)
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
