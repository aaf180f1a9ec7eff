package skillmd

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds what StrictYAML, the reference's YAML reader, refuses
// beyond YAML itself (rule 4): flow collections, anchors, aliases, tags,
// keys given twice, more than one document, merge keys with a scalar, and
// tabs outside quoted text, block text and comments.

// strictCheck refuses what StrictYAML refuses in the node tree.
func strictCheck(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.AliasNode:
		return fmt.Sprintf("line %d: aliases (*%s) are not allowed", n.Line, n.Value)
	case n.Anchor != "":
		return fmt.Sprintf("line %d: anchors (&%s) are not allowed", n.Line, n.Anchor)
	case n.Style&yaml.TaggedStyle != 0:
		return fmt.Sprintf("line %d: tags (%s) are not allowed", n.Line, n.Tag)
	case n.Kind != yaml.ScalarNode && n.Style&yaml.FlowStyle != 0:
		return fmt.Sprintf("line %d: flow collections ({...} and [...]) are not allowed; use block style or quote the value", n.Line)
	}
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return fmt.Sprintf("line %d: a key must be a plain value", k.Line)
			}
			if isMergeKey(k) && !isMergeable(v) {
				return fmt.Sprintf("line %d: a merge key (<<) needs a mapping or a list of mappings", k.Line)
			}
			if seen[k.Value] {
				return fmt.Sprintf("line %d: key %q is given more than once", k.Line, k.Value)
			}
			seen[k.Value] = true
		}
	}
	for _, c := range n.Content {
		if msg := strictCheck(c); msg != "" {
			return msg
		}
	}
	return ""
}

// isMergeKey reports whether k is YAML's merge key, an unquoted <<.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Style == 0 && k.Value == "<<"
}

// isMergeable reports whether v is what a merge key takes. StrictYAML
// then drops the key and merges nothing.
func isMergeable(v *yaml.Node) bool {
	switch v.Kind {
	case yaml.MappingNode:
		return true
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if c.Kind != yaml.MappingNode {
				return false
			}
		}
		return true
	}
	return false
}

// singleDocument reports a second document after a "..." line, which
// StrictYAML refuses and the YAML library would ignore.
func singleDocument(front []byte) string {
	if !bytes.Contains(front, []byte("\n...")) {
		return ""
	}
	dec := yaml.NewDecoder(bytes.NewReader(front))
	var first, second yaml.Node
	if dec.Decode(&first) != nil {
		return ""
	}
	if err := dec.Decode(&second); err == io.EOF {
		return ""
	}
	return "expected a single document in the stream"
}

// strictTabs refuses a tab outside quoted text, the text of a block
// scalar and comments, as StrictYAML's scanner does ("found character
// '\t' that cannot start any token"). root is the parsed front matter, so
// the text is known to be YAML.
func strictTabs(front []byte, root *yaml.Node) string {
	if bytes.IndexByte(front, '\t') < 0 {
		return ""
	}
	lines := strings.Split(string(front), "\n")
	runes := make([][]rune, len(lines))
	for i, l := range lines {
		runes[i] = []rune(l)
	}
	// allowed[i][j] marks the characters where a tab is text.
	allowed := make([][]bool, len(lines))
	for i := range runes {
		allowed[i] = make([]bool, len(runes[i]))
	}
	markScalars(root, runes, allowed)
	for i, line := range runes {
		for j, r := range line {
			if allowed[i][j] {
				continue
			}
			if r == '#' && (j == 0 || line[j-1] == ' ') {
				break // a comment runs to the end of the line
			}
			if r == '\t' {
				// front starts on the file's first line, after "---".
				return fmt.Sprintf("line %d: found character '\\t' that cannot start any token", i+1)
			}
		}
	}
	return ""
}

// markScalars marks the characters of quoted scalars and of block
// scalars' text in allowed.
func markScalars(n *yaml.Node, lines [][]rune, allowed [][]bool) {
	for _, c := range n.Content {
		markScalars(c, lines, allowed)
	}
	if n.Kind != yaml.ScalarNode || n.Line < 1 || n.Line > len(lines) {
		return
	}
	row, col := n.Line-1, n.Column-1
	switch {
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		markQuoted(lines, allowed, row, col)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		markBlock(lines, allowed, row)
	}
}

// markQuoted marks a quoted scalar that opens at lines[row][col].
func markQuoted(lines [][]rune, allowed [][]bool, row, col int) {
	if col < 0 || col >= len(lines[row]) {
		return
	}
	quote := lines[row][col]
	for i, j := row, col+1; i < len(lines); i, j = i+1, 0 {
		for ; j < len(lines[i]); j++ {
			allowed[i][j] = true
			switch r := lines[i][j]; {
			case quote == '"' && r == '\\':
				j++
				if j < len(lines[i]) {
					allowed[i][j] = true
				}
			case r == quote && quote == '\'' && j+1 < len(lines[i]) && lines[i][j+1] == '\'':
				j++
				allowed[i][j] = true
			case r == quote:
				return
			}
		}
	}
}

// markBlock marks the text of a block scalar whose indicator is on line
// row: the following lines indented at least as far as its first line
// that is not blank, after that indentation, and the blank lines among
// them.
func markBlock(lines [][]rune, allowed [][]bool, row int) {
	indent := -1
	for i := row + 1; i < len(lines); i++ {
		spaces := 0
		for spaces < len(lines[i]) && lines[i][spaces] == ' ' {
			spaces++
		}
		if spaces == len(lines[i]) {
			continue // blank
		}
		if indent < 0 {
			indent = spaces
		}
		if spaces < indent || indent == 0 {
			return
		}
		for j := indent; j < len(lines[i]); j++ {
			allowed[i][j] = true
		}
	}
}
