package skillmd

import (
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// PropertiesJSON returns the front matter as JSON, byte for byte as the
// reference's read-properties prints it (without the final newline): an
// object indented by two spaces with name and description (trimmed), then
// license, compatibility and allowed-tools when present, then metadata
// when it is not empty; scalars are strings, metadata values are their
// text, and every character outside printable ASCII is written as \uXXXX,
// as Python's json.dumps writes it.
//
// Like read-properties it needs no more than a name and a description: it
// fails with an [*Error] wrapping [ErrRule] when either is missing or
// is not a non-empty string, whatever else the skill breaks.
func (s *Skill) PropertiesJSON() ([]byte, error) {
	if err := s.requireProperties(); err != nil {
		return nil, err
	}
	budget := maxValueNodes
	obj := &pyMap{}
	obj.add("name", s.Name)
	obj.add("description", s.Description)
	for _, k := range []string{"license", "compatibility", "allowed-tools"} {
		if v, ok := s.fields[k]; ok {
			obj.add(k, toPy(v, &budget))
		}
	}
	if v, ok := s.fields["metadata"]; ok {
		var meta any
		if s.Metadata != nil {
			m := &pyMap{}
			for _, k := range s.metaKeys {
				m.add(k, s.Metadata[k])
			}
			meta = m
		} else {
			meta = toPy(v, &budget)
		}
		if truthy(meta) {
			obj.add("metadata", meta)
		}
	}
	var b strings.Builder
	writeJSON(&b, obj, "")
	return []byte(b.String()), nil
}

// requireProperties applies the checks of the reference's read-properties,
// in its order.
func (s *Skill) requireProperties() error {
	fail := func(field, msg string) error {
		return &Error{Path: s.given, Problems: []Problem{{Field: field, Message: msg}}, Err: ErrRule}
	}
	if _, ok := s.fields["name"]; !ok && !s.nameFromDir {
		return fail("name", "Missing required field in frontmatter: name")
	}
	if _, ok := s.fields["description"]; !ok {
		return fail("description", "Missing required field in frontmatter: description")
	}
	if t, ok := text(s.fields["name"]); !s.nameFromDir && (!ok || trimSpace(t) == "") {
		return fail("name", "Field 'name' must be a non-empty string")
	}
	if t, ok := text(s.fields["description"]); !ok || trimSpace(t) == "" {
		return fail("description", "Field 'description' must be a non-empty string")
	}
	return nil
}

// maxValueNodes bounds the nodes visited when a skill's values are
// converted (once when it is parsed, once for each PropertiesJSON), so
// that aliases (lenient mode) cannot make a small file expand without end.
const maxValueNodes = 10_000

// pyMap is a Python dict: keys in insertion order.
type pyMap struct {
	keys []string
	vals map[string]any
}

func (m *pyMap) add(k string, v any) {
	if m.vals == nil {
		m.vals = make(map[string]any)
	}
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

// toPy converts a node to what StrictYAML gives Python: a string, a []any
// or a *pyMap. Past the budget, values become "".
func toPy(n *yaml.Node, budget *int) any {
	n = deref(n)
	if *budget--; *budget < 0 {
		return ""
	}
	switch n.Kind {
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, toPy(c, budget))
		}
		return l
	case yaml.MappingNode:
		m := &pyMap{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m.add(pyStr(n.Content[i], budget), toPy(n.Content[i+1], budget))
		}
		return m
	}
	return n.Value
}

// truthy is Python's truth of a converted value.
func truthy(v any) bool {
	switch v := v.(type) {
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case *pyMap:
		return len(v.keys) > 0
	}
	return false
}

// pyStr is Python's str of a converted node: a scalar's text, or the repr
// of a list or dict.
func pyStr(n *yaml.Node, budget *int) string {
	v := toPy(n, budget)
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// writeRepr writes Python's repr of a converted value.
func writeRepr(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		writeReprString(b, v)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x)
		}
		b.WriteByte(']')
	case *pyMap:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeReprString(b, k)
			b.WriteString(": ")
			writeRepr(b, v.vals[k])
		}
		b.WriteByte('}')
	}
}

// writeReprString writes Python's repr of a str.
func writeReprString(b *strings.Builder, s string) {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
}

// writeJSON writes a converted value as Python's json.dumps(v, indent=2)
// does, with ensure_ascii.
func writeJSON(b *strings.Builder, v any, indent string) {
	inner := indent + "  "
	switch v := v.(type) {
	case string:
		writeJSONString(b, v)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			writeJSON(b, x, inner)
		}
		b.WriteString("\n" + indent + "]")
	case *pyMap:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			writeJSONString(b, k)
			b.WriteString(": ")
			writeJSON(b, v.vals[k], inner)
		}
		b.WriteString("\n" + indent + "}")
	}
}

// writeJSONString writes a JSON string with every character outside
// printable ASCII escaped, as Python's json module does by default.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= 0x20 && r <= 0x7e:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}

// toAny converts a node to the Go value YAML gives it, for Skill.Extra.
// Past the budget, values become nil.
func toAny(n *yaml.Node, budget *int) any {
	n = deref(n)
	if *budget--; *budget < 0 {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, toAny(c, budget))
		}
		return l
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[pyStr(n.Content[i], budget)] = toAny(n.Content[i+1], budget)
		}
		return m
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return v
}
