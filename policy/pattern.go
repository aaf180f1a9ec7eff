package policy

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
)

// kinds are the kinds of source a pattern names (rule 3).
var kinds = []source.Kind{source.GitHub, source.Git, source.OCI, source.URL, source.Local}

const kindList = "github, git, oci, url, local"

// maxElements bounds a pattern's elements, so that matching stays cheap
// whatever a file says.
const maxElements = 64

func knownKind(k source.Kind) bool { return slices.Contains(kinds, k) }

// pattern is one KIND:LOCATION pattern of a policy file (rule 3).
type pattern struct {
	text  string      // as written
	kind  source.Kind // github, git, oci, url, local
	elems []string    // the location's elements
	line  int
}

// parsePattern reads text written at line of a policy file in folder dir
// (rule 3); home replaces a leading ~ of a local pattern.
func parsePattern(text string, line int, dir, home string) (pattern, error) {
	k, loc, ok := strings.Cut(text, ":")
	kind := source.Kind(k)
	if !ok || !knownKind(kind) {
		return pattern{}, errors.New("pattern " + quote(text) + " is not KIND:LOCATION with KIND one of " + kindList + " (as github:acme/* or oci:ghcr.io/acme/*)")
	}
	if loc == "" {
		return pattern{}, errors.New("pattern " + quote(text) + " names no location after " + k + ":")
	}
	if kind == source.Local {
		switch {
		case loc == "~" || strings.HasPrefix(loc, "~/"):
			if home == "" {
				return pattern{}, errors.New("pattern " + quote(text) + " starts with ~ but there is no home folder; write an absolute path")
			}
			loc = filepath.Join(home, loc[1:])
		case !filepath.IsAbs(loc) && !strings.HasPrefix(loc, "/"):
			loc = filepath.Join(dir, loc)
		}
		loc = filepath.ToSlash(filepath.Clean(loc))
	}
	elems := split(kind, loc)
	if len(elems) > maxElements {
		return pattern{}, errors.New("pattern " + quote(text) + " has more than 64 elements")
	}
	for _, e := range elems {
		if e == "**" {
			continue
		}
		if strings.Contains(e, "**") {
			return pattern{}, errors.New("pattern " + quote(text) + ": ** must be a whole element (acme/** not acme**)")
		}
		if _, err := path.Match(e, ""); err != nil {
			return pattern{}, errors.New("pattern " + quote(text) + ": element " + quote(e) + " is not a valid pattern (unclosed [ or a trailing \\)")
		}
	}
	if kind == source.GitHub && len(elems) < 2 && !slices.Contains(elems, "**") {
		return pattern{}, errors.New("pattern " + quote(text) + " names no repository: write github:" + loc + "/* for every repository of " + loc)
	}
	// Rule 15: the pattern's location is made canonical as a source's is.
	kind, canon, err := source.CanonicalPattern(kind, loc)
	if err != nil {
		return pattern{}, errors.New("pattern " + quote(text) + ": " + err.Error())
	}
	elems = split(kind, canon)
	if kind == source.Local || kind == source.Git && strings.HasPrefix(loc, "/") {
		// Rule 3: a path on the local disk is resolved as a source's is.
		if elems, err = realPattern(kind, loc); err != nil {
			return pattern{}, errors.New("pattern " + quote(text) + ": " + err.Error())
		}
		if len(elems) > maxElements {
			return pattern{}, errors.New("pattern " + quote(text) + " has more than 64 elements once its links are resolved")
		}
	}
	return pattern{text: text, kind: kind, elems: elems, line: line}, nil
}

// canonical returns the pattern as KIND:LOCATION with its location
// canonical, as it is matched (rule 15).
func (p pattern) canonical() string {
	return string(p.kind) + ":" + strings.Join(p.elems, "/")
}

// realPattern returns the elements of a local or git pattern for the
// local disk, loc (absolute, as written after ~ is expanded), with the
// longest leading run of elements without a wildcard that exists
// replaced by its real path (rule 3; package source, rule 15), then made
// canonical. The real path's elements are matched as they are, a
// wildcard character in one escaped.
func realPattern(kind source.Kind, loc string) ([]string, error) {
	if !filepath.IsAbs(filepath.FromSlash(loc)) {
		_, canon, err := source.CanonicalPattern(kind, loc)
		return split(kind, canon), err // a relative policy file's folder: nothing to resolve
	}
	head, rest := sourceloc.RealPathPattern(filepath.FromSlash(loc))
	head = filepath.ToSlash(head)
	real := strings.Split(strings.TrimSuffix(head, "/"), "/")
	if rest != "" {
		head = strings.TrimSuffix(head, "/") + "/" + rest
	}
	_, canon, err := source.CanonicalPattern(kind, head)
	if err != nil {
		return nil, fmt.Errorf("its real path %s: %w", head, err)
	}
	elems := split(kind, canon)
	for i := 0; i < len(real) && i < len(elems); i++ {
		elems[i] = escapeGlob(elems[i])
	}
	return elems, nil
}

// escapeGlob escapes the characters of e that [path.Match] reads as
// wildcards or escapes, so that e matches itself alone.
func escapeGlob(e string) string {
	var b strings.Builder
	for _, c := range e {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// split returns the elements of location loc of a kind, with the parts
// that match whatever their case lowered (rule 3): a GitHub location
// whole, a git or oci location's host, a URL's scheme and host.
func split(kind source.Kind, loc string) []string {
	if kind == source.Local && loc == "/" {
		return []string{""}
	}
	elems := strings.Split(loc, "/")
	switch kind {
	case source.GitHub:
		for i := range elems {
			elems[i] = strings.ToLower(elems[i])
		}
	case source.Git, source.OCI:
		elems[0] = strings.ToLower(elems[0])
	case source.URL:
		for i := 0; i < len(elems) && i < 3; i++ {
			elems[i] = strings.ToLower(elems[i])
		}
	}
	return elems
}

// matches reports whether s (canonical) is of the pattern's kind and its
// location matches; with fold whatever the case of either (rule 3). A
// git pattern whose host is a wildcard (git:*.com/**, git:**) matches a
// github source too, at its git location github.com/OWNER/REPO: the
// same repository as kind git is kind github (rule 15).
func (p pattern) matches(s source.Origin, fold bool) bool {
	if p.kind == source.Git && s.Kind == source.GitHub && s.Location != "" {
		s.Kind, s.Location = source.Git, "github.com/"+s.Location
	}
	if s.Kind != p.kind || s.Location == "" {
		return false
	}
	loc := s.Location
	if s.Kind == source.Local {
		loc = filepath.ToSlash(filepath.Clean(loc))
	}
	pat, elems := p.elems, split(s.Kind, loc)
	if fold {
		pat, elems = lower(pat), lower(elems)
	}
	return matchElems(pat, elems)
}

// lower returns elems in lower case.
func lower(elems []string) []string {
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = strings.ToLower(e)
	}
	return out
}

// matchElems matches elements against pattern elements, where ** matches
// any number of elements: by dynamic programming, in time proportional to
// the product of their counts whatever the number of **.
func matchElems(pat, elems []string) bool {
	// ok[j]: pat[:i] matches elems[:j], for the current i.
	ok := make([]bool, len(elems)+1)
	ok[0] = true
	for _, pe := range pat {
		next := make([]bool, len(elems)+1)
		for j := 0; j <= len(elems); j++ {
			switch {
			case pe == "**":
				next[j] = ok[j] || (j > 0 && next[j-1])
			case j > 0 && ok[j-1]:
				m, _ := path.Match(pe, elems[j-1])
				next[j] = m
			}
		}
		ok = next
	}
	return ok[len(elems)]
}

func quote(s string) string { return "\"" + s + "\"" }
