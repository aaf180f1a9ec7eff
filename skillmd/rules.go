package skillmd

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"
)

// allowedList is the keys of rule 5 as Python prints a sorted list.
const allowedList = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']"

func isAllowed(key string) bool {
	switch key {
	case "name", "description", "license", "compatibility", "metadata", "allowed-tools":
		return true
	}
	return false
}

// load fills the typed fields from the front matter's mapping. A key given
// twice is a warning (lenient mode only has them; strictCheck refused them
// in strict mode) and the last value wins.
func (s *Skill) load(m *yaml.Node, lenient bool) string {
	s.fields = make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := deref(m.Content[i]), m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return fmt.Sprintf("%sline %d: a key must be a plain value", msgBadYAML, k.Line)
		}
		key := k.Value
		if !lenient && isMergeKey(k) {
			continue // StrictYAML drops a merge key that strictCheck let through
		}
		if _, dup := s.fields[key]; dup {
			if !slices.ContainsFunc(s.Problems, func(p Problem) bool { return p.Field == key && strings.Contains(p.Message, "more than once") }) {
				s.Problems = append(s.Problems, Problem{Field: key, Warning: true,
					Message: fmt.Sprintf("Key '%s' is given more than once; the last value is used", key)})
			}
		} else {
			s.keys = append(s.keys, key)
		}
		s.fields[key] = v
	}
	s.fillTyped()
	return ""
}

// fillTyped sets the typed fields, Metadata and Extra from the front
// matter's values, however they are shaped; check reports the wrong
// shapes.
func (s *Skill) fillTyped() {
	if v, ok := s.fields["name"]; ok {
		t, _ := text(v)
		s.Name = trimSpace(t)
	}
	if v, ok := s.fields["description"]; ok {
		t, _ := text(v)
		s.Description = trimSpace(t)
	}
	if v, ok := s.fields["license"]; ok {
		s.License, _ = text(v)
	}
	if v, ok := s.fields["compatibility"]; ok {
		s.Compatibility, _ = text(v)
	}
	if v, ok := s.fields["allowed-tools"]; ok {
		s.AllowedTools, _ = toolList(v)
	}
	budget := maxValueNodes
	if v, ok := s.fields["metadata"]; ok {
		if v = deref(v); v.Kind == yaml.MappingNode {
			s.Metadata = make(map[string]string, len(v.Content)/2)
			for i := 0; i+1 < len(v.Content); i += 2 {
				key := pyStr(v.Content[i], &budget)
				if _, dup := s.Metadata[key]; !dup {
					s.metaKeys = append(s.metaKeys, key)
				}
				s.Metadata[key] = pyStr(v.Content[i+1], &budget)
			}
		}
	}
	for _, key := range s.keys {
		if !isAllowed(key) {
			if s.Extra == nil {
				s.Extra = make(map[string]any)
			}
			s.Extra[key] = toAny(s.fields[key], &budget)
		}
	}
}

// toolList returns allowed-tools as one string: the text of a scalar, or
// the items of a list of scalars joined with spaces.
func toolList(n *yaml.Node) (string, bool) {
	n = deref(n)
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, true
	case yaml.SequenceNode:
		items := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			t, ok := text(c)
			if !ok {
				return "", false
			}
			items = append(items, t)
		}
		return strings.Join(items, " "), true
	}
	return "", false
}

// check applies rules 5-8, or their lenient forms, and appends the
// problems, in the reference validator's order.
func (s *Skill) check(c config) {
	lenient := c.mode == Lenient
	if !lenient {
		s.checkKeys() // Rule 5.
	}
	s.checkName(c, lenient) // Rule 6.
	s.checkDescription()    // Rule 7.
	s.checkCompatibility()  // Rule 8.
	if lenient {
		s.checkLenientTypes() // Lenient rule 7; strict mode checks neither (rule 9).
	}
}

// addProblem appends a problem; it is a warning when warning is true.
func (s *Skill) addProblem(field string, warning bool, format string, args ...any) {
	s.Problems = append(s.Problems, Problem{Field: field, Message: fmt.Sprintf(format, args...), Warning: warning})
}

// checkKeys applies rule 5: only the allowed keys.
func (s *Skill) checkKeys() {
	var extra []string
	for _, k := range s.keys {
		if !isAllowed(k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		s.addProblem("", false, "Unexpected fields in frontmatter: %s. Only %s are allowed.", strings.Join(extra, ", "), allowedList)
	}
}

// checkName applies rule 6, or in lenient mode its form that takes a
// missing name from the folder and makes a long name or one that differs
// from the folder's a warning.
func (s *Skill) checkName(c config, lenient bool) {
	v, ok := s.fields["name"]
	if !ok {
		if lenient && c.hasDir {
			s.Name, s.nameFromDir = c.dirName, true
			s.addProblem("name", true, "Missing required field in frontmatter: name; the folder name '%s' is used", c.dirName)
		} else {
			s.addProblem("name", false, "Missing required field in frontmatter: name")
		}
		return
	}
	t, ok := text(v)
	if !ok || trimSpace(t) == "" {
		s.addProblem("name", false, "Field 'name' must be a non-empty string")
		return
	}
	name := norm.NFKC.String(trimSpace(t))
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		s.addProblem("name", lenient, "Skill name '%s' exceeds %d character limit (%d chars)", name, MaxNameLength, n)
	}
	if name != strings.ToLower(name) {
		s.addProblem("name", false, "Skill name '%s' must be lowercase", name)
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		s.addProblem("name", false, "Skill name cannot start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		s.addProblem("name", false, "Skill name cannot contain consecutive hyphens")
	}
	if strings.IndexFunc(name, func(r rune) bool { return !isAlnum(r) && r != '-' }) >= 0 {
		s.addProblem("name", false, "Skill name '%s' contains invalid characters. Only letters, digits, and hyphens are allowed.", name)
	}
	if c.hasDir && norm.NFKC.String(c.dirName) != name {
		s.addProblem("name", lenient, "Directory name '%s' must match skill name '%s'", c.dirName, name)
	}
}

// checkDescription applies rule 7.
func (s *Skill) checkDescription() {
	if v, ok := s.fields["description"]; !ok {
		s.addProblem("description", false, "Missing required field in frontmatter: description")
	} else if t, ok := text(v); !ok || trimSpace(t) == "" {
		s.addProblem("description", false, "Field 'description' must be a non-empty string")
	} else if n := utf8.RuneCountInString(t); n > MaxDescriptionLength {
		s.addProblem("description", false, "Description exceeds %d character limit (%d chars)", MaxDescriptionLength, n)
	}
}

// checkCompatibility applies rule 8.
func (s *Skill) checkCompatibility() {
	if v, ok := s.fields["compatibility"]; ok {
		if t, ok := text(v); !ok {
			s.addProblem("compatibility", false, "Field 'compatibility' must be a string")
		} else if n := utf8.RuneCountInString(t); n > MaxCompatibilityLength {
			s.addProblem("compatibility", false, "Compatibility exceeds %d character limit (%d chars)", MaxCompatibilityLength, n)
		}
	}
}

// checkLenientTypes applies lenient rule 7: warnings for metadata and
// allowed-tools of the wrong shape.
func (s *Skill) checkLenientTypes() {
	if v, ok := s.fields["metadata"]; ok && !isStringMap(v) {
		s.addProblem("metadata", true, "Field 'metadata' should be a map of strings to strings")
	}
	if v, ok := s.fields["allowed-tools"]; ok {
		if _, ok := toolList(v); !ok {
			s.addProblem("allowed-tools", true, "Field 'allowed-tools' should be a string or a list of strings")
		}
	}
}

// isStringMap reports whether n is a mapping of scalars to scalars, or
// empty.
func isStringMap(n *yaml.Node) bool {
	n = deref(n)
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value == ""
	case yaml.MappingNode:
		for _, c := range n.Content {
			if deref(c).Kind != yaml.ScalarNode {
				return false
			}
		}
		return true
	}
	return false
}

// isAlnum is Python's str.isalnum for one character: a letter or a number.
func isAlnum(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isSpace is what Python's str.strip removes: Unicode white space and the
// information separators U+001C-U+001F.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

// trimSpace trims s as Python's str.strip does.
func trimSpace(s string) string {
	return strings.TrimFunc(s, isSpace)
}
