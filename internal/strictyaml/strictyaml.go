// Package strictyaml reads the small YAML files a user writes by hand
// (the trust policy, the search configuration) strictly, so that a typo
// is an error rather than a setting silently ignored:
//
//  1. The file holds one YAML document; a second one is refused.
//  2. Anchors and aliases (&name, *name) are refused anywhere: each value
//     is written out.
//  3. A syntax error names the file and the line, as FILE:LINE.
//
// The caller checks the keys and values of the document it gets back,
// and wraps the errors with its own sentinel. Nothing here depends on the
// system.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Document returns the root node of data, the content of the file name
// (rules 1 to 3), and nil for a file that holds no document (empty, or
// comments alone). what names the file in messages ("a policy file").
func Document(data []byte, name, what string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxError(name, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more than one YAML document; %s is one", name, what)
	}
	if n := alias(&doc); n != nil {
		return nil, fmt.Errorf("%s:%d: YAML anchors and aliases (&name, *name) are not allowed in %s; write each value out", name, n.Line, what)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// alias returns the first node that is an alias or has an anchor.
func alias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return n
	}
	for _, c := range n.Content {
		if a := alias(c); a != nil {
			return a
		}
	}
	return nil
}

// yamlLine is how the YAML library places a syntax error.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError says where the YAML of file name is broken, as FILE:LINE.
func syntaxError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", name, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "yaml: "))
}
