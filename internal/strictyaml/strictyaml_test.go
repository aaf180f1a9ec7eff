package strictyaml

import (
	"strings"
	"testing"
)

func TestDocument(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       string // the root's first key, "" for no document
		err        string
	}{
		{"a mapping", "a: 1\n", "a", ""},
		{"empty", "", "", ""},
		{"comments alone", "# nothing\n", "", ""},
		{"rule 1: two documents", "a: 1\n---\nb: 2\n", "", "f.yaml: more than one YAML document; the file is one"},
		{"rule 2: an anchor", "a: &x 1\n", "", "f.yaml:1: YAML anchors and aliases"},
		{"rule 2: an anchor, deep", "a: 1\nb:\n  - c: [1, 2]\n  - d: &y 3\n", "", "f.yaml:4: YAML anchors and aliases"},
		{"rule 2: an alias", "a: &x 1\nb: *x\n", "", "f.yaml:1: YAML anchors and aliases"},
		{"rule 3: syntax", "a: [\n", "", "f.yaml:"},
		{"rule 3: a tab", "a:\n\t- 1\n", "", "f.yaml:2: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := Document([]byte(tc.data), "f.yaml", "the file")
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("Document(%q) = %v, want an error starting %q", tc.data, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Document(%q) = %v", tc.data, err)
			}
			switch {
			case tc.want == "" && root != nil:
				t.Errorf("Document(%q) = %v, want nil", tc.data, root)
			case tc.want != "" && (root == nil || len(root.Content) == 0 || root.Content[0].Value != tc.want):
				t.Errorf("Document(%q) = %v, want a mapping with key %q", tc.data, root, tc.want)
			}
		})
	}
}
