package skillmd

import (
	"fmt"
	"strings"
	"unicode"
)

// Limits of the rules under "Requirements" in the package documentation.
const (
	// RequiresKey is the metadata key that lists a skill's requirements.
	RequiresKey = "requires"
	// MaxRequires is the most requirements one skill may list.
	MaxRequires = 64
	// MaxRequireLength is the most bytes one requirement may have.
	MaxRequireLength = 1024
)

// Requires returns the requirements s lists in metadata.requires, in the
// order written; none when it lists none. An error wraps [ErrRule] and
// names the entry at fault (see "Requirements" in the package
// documentation).
func (s *Skill) Requires() ([]string, error) {
	return ParseRequires(s.Metadata[RequiresKey])
}

// ParseRequires reads a requirements list written as metadata.requires
// is (see [Skill.Requires]), for a list that comes from elsewhere.
func ParseRequires(text string) ([]string, error) {
	fields := strings.FieldsFunc(text, unicode.IsSpace)
	if len(fields) > MaxRequires {
		return nil, fmt.Errorf("%w: metadata.requires lists %d skills; at most %d may be listed (split the skill, or require a skill that requires the rest)", ErrRule, len(fields), MaxRequires)
	}
	for i, f := range fields {
		if len(f) > MaxRequireLength {
			return nil, fmt.Errorf("%w: metadata.requires: entry %d is %d bytes long; at most %d are allowed", ErrRule, i+1, len(f), MaxRequireLength)
		}
		if r := strings.IndexFunc(f, hiddenOrControl); r >= 0 {
			return nil, fmt.Errorf("%w: metadata.requires: entry %d (%q) holds the character %U; write each requirement in visible characters", ErrRule, i+1, f, []rune(f[r:])[0])
		}
		for _, g := range fields[:i] {
			if g == f {
				return nil, fmt.Errorf("%w: metadata.requires lists %q twice; list each requirement once", ErrRule, f)
			}
		}
	}
	if len(fields) == 0 {
		return nil, nil
	}
	return fields, nil
}

// hiddenOrControl reports a control character or an invisible formatting
// one (Unicode's Cf: bidirectional overrides, zero-width spaces).
func hiddenOrControl(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar
}
