package sourceloc

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
)

// The real paths of rule 15. Unlike the rest of this package, these
// functions read the file system: a link is resolved where it is.

// RealPath returns the real path of the absolute path p on the local
// disk (rule 15): p cleaned, with the longest leading part that exists
// replaced by [filepath.EvalSymlinks] of it and the rest kept, so that a
// folder that exists is its real path whatever link it is named
// through. A relative p is returned cleaned.
func RealPath(p string) string {
	head, rest := realHead(p, false)
	return filepath.Join(append([]string{head}, rest...)...)
}

// RealPathPattern is [RealPath] of a policy pattern's path p (rule 15):
// only the leading run of elements without a wildcard (*, ?, [) or an
// escape (\) is resolved, the longest leading part of it that exists.
// It returns head, that part's real path (p's root when none exists),
// and rest, the elements that follow as written, joined with "/" ("" for
// none). A relative p is all rest, cleaned, with head "".
func RealPathPattern(p string) (head, rest string) {
	if !filepath.IsAbs(p) {
		return "", filepath.ToSlash(filepath.Clean(p))
	}
	h, r := realHead(p, true)
	return h, strings.Join(r, "/")
}

// realHead splits the absolute path p into the real path of its longest
// leading part that exists (of elements without a wildcard, for a
// pattern) and the elements after it.
func realHead(p string, pattern bool) (string, []string) {
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) {
		return p, nil
	}
	vol := filepath.VolumeName(p)
	var elems []string
	for _, e := range strings.Split(filepath.ToSlash(p[len(vol):]), "/") {
		if e != "" {
			elems = append(elems, e)
		}
	}
	n := len(elems)
	if pattern {
		for i, e := range elems {
			if strings.ContainsAny(e, `*?[\`) {
				n = i
				break
			}
		}
	}
	root := vol + string(filepath.Separator)
	for k := n; k > 0; k-- {
		if real, err := filepath.EvalSymlinks(root + filepath.Join(elems[:k]...)); err == nil && filepath.IsAbs(real) {
			return real, elems[k:]
		}
	}
	return root, elems
}

// RealGitLocation is [GitLocation] of the git repository at raw, with a
// file URL's path first made its real path ([RealPath], rule 15), so
// that a repository on the local disk has one location whatever link
// names it: git+file:///proc/self/root/srv/repos/x is /srv/repos/x. Its
// .git suffix is dropped after the path is resolved. Any other URL is
// GitLocation's. raw is refused as GitLocation refuses it before it is
// resolved, so no "." or ".." element is read away.
func RealGitLocation(raw string) (kind, location string, err error) {
	kind, location, err = GitLocation(raw)
	if err != nil {
		return "", "", err
	}
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "file") {
		return kind, location, nil
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x is C:/x
	}
	real := filepath.ToSlash(RealPath(filepath.FromSlash(p)))
	if !strings.HasPrefix(real, "/") {
		real = "/" + real
	}
	r := url.URL{Scheme: "file", Path: real}
	if kind, location, err = GitLocation(r.String()); err != nil {
		return "", "", fmt.Errorf("git repository %q, whose real path is %s: %w", redact.URL(raw), real, err)
	}
	return kind, location, nil
}
