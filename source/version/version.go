// Package version reads version ranges in published sources' references
// (OWNER/REPO@^1.2, git+URL#ref=~1.2, oci://HOST/REPO:^1.2) and picks,
// from a repository's or a registry's tags, the one a range admits.
// Parsing and matching are github.com/Masterminds/semver/v3's, the
// constraint rules npm and Helm users know; this package decides which
// text is a range and which tags are versions.
//
//	r, err := version.ParseRange("^1.2")
//	tag, err := r.Pick([]string{"v1.1.0", "v1.2.0", "v1.4.2", "v2.0.0", "main"}) // "v1.4.2"
//
// # Rules
//
//  1. A reference is a range when it holds one of "^", "~", "*", "<",
//     ">", "=", "|", "," or a space: ^1.2, ~1.2, 1.*, >=1.0 <2, =1.2.3,
//     1.2 - 1.4, ^1 || ^2 ([IsRange]). Everything else keeps meaning a
//     ref or a tag as written: v1.2.3 and 1.2.3 name that tag, and 1.x or
//     8.x-2.x name a branch (many projects have such branches), so a range
//     of a major version is written ^1, ~1 or 1.*, and of a minor one
//     ~1.2 or 1.2.*. Git refs and OCI tags cannot hold "^", "~", "*" or a
//     space; "<", ">", "=", "|" and "," are refused in a reference read as
//     a range, so a ref holding them cannot be named.
//  2. A range is read by semver.NewConstraint ([ParseRange]): at most 512
//     bytes and 32 groups joined by "||". Text that is not a range there
//     fails with [source.ErrInvalid], naming the range and saying what to
//     write.
//  3. A tag is a version when, without one leading "v", it is a full
//     semantic version: MAJOR.MINOR.PATCH with an optional -PRERELEASE and
//     +BUILD, no leading zeros, each number below 2^64 ([IsVersion]).
//     v1.2.3, 1.2.3 and v2.0.0-rc.1 are versions; v1, v1.2, release-1.2.3,
//     1.02.3 and latest are not, and are ignored, so a moving major tag
//     (v1, as GitHub Actions publish) is never picked.
//  4. A range admits pre-releases only when it names one, as semver's
//     constraints say: ^1.2 admits no pre-release, ^1.2.0-rc.1 admits
//     1.2.0-rc.2 and 1.3.0-beta.1 (and every release from 1.2.0 to
//     before 2.0.0). Build metadata is ignored in comparisons.
//  5. [Range.Pick] returns the highest tag the range admits. Tags of equal
//     precedence (v1.2.3 and 1.2.3, or two builds) give the one first in
//     byte order, so the pick does not depend on the listing's order.
//     When none is admitted it fails with [source.ErrNotFound], naming the
//     range, the number of version tags and the highest three.
//  6. [Latest] returns the highest version tag that is not a pre-release,
//     or the highest pre-release when every version tag is one; with no
//     version tag it fails with [source.ErrNotFound].
//  7. A listing holds at most [MaxTags] tags; a source with more fails
//     with [source.ErrInvalid] and says to name a tag or a commit instead.
//
// Nothing here reads the network or the file system; the functions are
// safe for concurrent use, and hold on macOS and Windows as on Linux.
package version

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/agentadaptor/agentadaptor/source"
)

// MaxTags is the most tags a listing may hold (rule 7). Sources stop
// listing past it.
const MaxTags = 20000

// rangeChars are the characters that make a reference a range (rule 1).
const rangeChars = "^~*<>=|, "

// IsRange reports whether the reference text is written as a range
// (rule 1). It does not check that the range is valid: [ParseRange] does.
func IsRange(text string) bool {
	return strings.ContainsAny(text, rangeChars)
}

// Range is a parsed version range. It is safe for concurrent use.
type Range struct {
	text string
	c    *semver.Constraints
}

// ParseRange reads text as a range (rule 2). It fails with
// [source.ErrInvalid].
func ParseRange(text string) (*Range, error) {
	c, err := constraints(text)
	if err != nil {
		return nil, fmt.Errorf("version range %.80q: %w: %w", text, source.ErrInvalid, err)
	}
	return &Range{text: text, c: c}, nil
}

// CheckRange returns why text is not a range (rule 2), or nil: the
// detail of [ParseRange]'s error, without the range or a sentinel, for a
// caller that wraps it in its own.
func CheckRange(text string) error {
	_, err := constraints(text)
	return err
}

// CheckRef returns why a source's reference is not valid, or nil: a
// reference written as a range ([IsRange]) is checked as one (rule 2),
// any other with checkRef, the source's own rules for a ref or a tag. An
// invalid range fails with checkRef's error and why it is no range when
// checkRef refuses the text too, else with the reference and why it is
// no range. Packages source/git and source/github check refs with it.
func CheckRef(ref string, checkRef func(string) error) error {
	if !IsRange(ref) {
		return checkRef(ref)
	}
	rerr := CheckRange(ref)
	if rerr == nil {
		return nil
	}
	if err := checkRef(ref); err != nil {
		return fmt.Errorf("%w; read as a version range, %w", err, rerr)
	}
	return fmt.Errorf("ref %.80q: %w", ref, rerr)
}

func constraints(text string) (*semver.Constraints, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("the version range is empty (write one such as ^1.2, ~1.2 or >=1.0 <2)")
	}
	if len(text) > semver.MaxConstraintLen {
		return nil, fmt.Errorf("the version range has %d bytes, and a range has at most %d", len(text), semver.MaxConstraintLen)
	}
	if strings.ContainsFunc(text, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return nil, errors.New("the version range holds a control character")
	}
	c, err := semver.NewConstraint(text)
	if err != nil {
		return nil, fmt.Errorf("the version range %.80q is not one: %v (write one such as ^1.2, ~1.2, 1.*, >=1.0 <2 or ^1 || ^2)", text, err)
	}
	return c, nil
}

// String returns the range as written.
func (r *Range) String() string { return r.text }

// Admits reports whether tag is a version (rule 3) the range admits
// (rule 4).
func (r *Range) Admits(tag string) bool {
	v, ok := parse(tag)
	return ok && r.c.Check(v)
}

// Pick returns the highest of tags that the range admits (rules 3 to 5
// and 7).
func (r *Range) Pick(tags []string) (string, error) {
	vs, err := versions(tags)
	if err != nil {
		return "", err
	}
	for _, t := range vs {
		if r.c.Check(t.v) {
			return t.name, nil
		}
	}
	if len(vs) == 0 {
		return "", fmt.Errorf("version range %q: %w: none of the %d tags is a version such as v1.2.3 or 1.2.3 (name a branch, a tag or a commit instead)", r.text, source.ErrNotFound, len(tags))
	}
	return "", fmt.Errorf("version range %q: %w: no tag is admitted among %d version tags (highest: %s); write a range that admits one, or name a tag", r.text, source.ErrNotFound, len(vs), highest(vs))
}

// Tag is a repository's tag and the commit it names (an annotated tag's
// commit, not the tag object), as git and GitHub sources list them.
type Tag struct {
	Name   string
	Commit string
}

// PickTag is [Range.Pick] over tags with their commits.
func (r *Range) PickTag(tags []Tag) (Tag, error) {
	name, err := r.Pick(tagNames(tags))
	if err != nil {
		return Tag{}, err
	}
	return tagNamed(tags, name), nil
}

// LatestTag is [Latest] over tags with their commits.
func LatestTag(tags []Tag) (Tag, error) {
	name, err := Latest(tagNames(tags))
	if err != nil {
		return Tag{}, err
	}
	return tagNamed(tags, name), nil
}

func tagNames(tags []Tag) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = t.Name
	}
	return out
}

func tagNamed(tags []Tag, name string) Tag {
	for _, t := range tags {
		if t.Name == name {
			return t
		}
	}
	return Tag{}
}

// IsVersion reports whether tag is a version (rule 3).
func IsVersion(tag string) bool {
	_, ok := parse(tag)
	return ok
}

// Latest returns the highest version tag, pre-releases only when every
// version tag is one (rules 3, 6 and 7).
func Latest(tags []string) (string, error) {
	vs, err := versions(tags)
	if err != nil {
		return "", err
	}
	if len(vs) == 0 {
		return "", fmt.Errorf("%w: none of the %d tags is a version such as v1.2.3 or 1.2.3", source.ErrNotFound, len(tags))
	}
	for _, t := range vs {
		if t.v.Prerelease() == "" {
			return t.name, nil
		}
	}
	return vs[0].name, nil
}

// Caret returns the range ^MAJOR.MINOR.PATCH of the version tag (its
// pre-release kept): the range that admits tag and the versions after it
// up to the next major one, which an update leaving its range records.
// It fails with [source.ErrInvalid] when tag is not a version.
func Caret(tag string) (string, error) {
	v, ok := parse(tag)
	if !ok {
		return "", fmt.Errorf("tag %q: %w: it is not a version such as v1.2.3", tag, source.ErrInvalid)
	}
	out := fmt.Sprintf("^%d.%d.%d", v.Major(), v.Minor(), v.Patch())
	if p := v.Prerelease(); p != "" {
		out += "-" + p
	}
	return out, nil
}

// Compare compares two version tags by precedence: -1, 0 or +1. A tag
// that is no version sorts before every version; two such tags compare
// as equal.
func Compare(a, b string) int {
	va, oka := parse(a)
	vb, okb := parse(b)
	switch {
	case !oka && !okb:
		return 0
	case !oka:
		return -1
	case !okb:
		return 1
	}
	return va.Compare(vb)
}

// parse reads tag as a version (rule 3).
func parse(tag string) (*semver.Version, bool) {
	v, err := semver.StrictNewVersion(strings.TrimPrefix(tag, "v"))
	return v, err == nil
}

type tagVersion struct {
	name string
	v    *semver.Version
}

// versions returns the version tags of tags, highest first, equal ones
// in byte order (rule 5).
func versions(tags []string) ([]tagVersion, error) {
	if len(tags) > MaxTags {
		return nil, fmt.Errorf("%w: %d tags, more than the %d a version range is picked from (name a tag or a commit instead)", source.ErrInvalid, len(tags), MaxTags)
	}
	var vs []tagVersion
	for _, t := range tags {
		if v, ok := parse(t); ok {
			vs = append(vs, tagVersion{t, v})
		}
	}
	slices.SortFunc(vs, func(a, b tagVersion) int {
		if c := b.v.Compare(a.v); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	return vs, nil
}

// highest names the first three of vs.
func highest(vs []tagVersion) string {
	var names []string
	for _, t := range vs[:min(3, len(vs))] {
		names = append(names, t.name)
	}
	return strings.Join(names, ", ")
}
