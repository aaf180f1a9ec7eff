package audit_test

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// TestTreeKeepsNoFileText checks that a tree's report is the reports of
// its files, each audited alone: the audit reads every file of a tree
// into one buffer, and a finding that kept a part of it would read, by
// the end of the tree, the text of a later file.
func TestTreeKeepsNoFileText(t *testing.T) {
	tree := fstest.MapFS{}
	for i, h := range hostileLines {
		// Files of several sizes, a larger one after a smaller one and
		// the other way round, each with the line among ordinary text.
		name := fmt.Sprintf("f%02d%s", i, path.Ext(h.file))
		text := audittext.Ordinary((i%4)*3000, uint64(i)) + "\n" + h.line + "\n" + audittext.Ordinary(100, uint64(i))
		tree[name] = &fstest.MapFile{Data: []byte(text)}
	}
	got, err := audit.Tree(tree)
	if err != nil {
		t.Fatal(err)
	}
	var want []audit.Finding
	for name, f := range tree {
		r, err := audit.Tree(fstest.MapFS{name: f})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r.Findings...)
	}
	// In the report's order: by file, line, rule and excerpt.
	slices.SortFunc(want, func(a, b audit.Finding) int {
		ka := fmt.Sprintf("%s\x00%09d\x00%s\x00%s", a.File, a.Line, a.Rule, a.Excerpt)
		kb := fmt.Sprintf("%s\x00%09d\x00%s\x00%s", b.File, b.Line, b.Rule, b.Excerpt)
		return strings.Compare(ka, kb)
	})
	if len(want) < len(hostileLines) {
		t.Fatalf("the files alone have %d findings, want one of each file at least", len(want))
	}
	if diff := cmp.Diff(want, got.Findings); diff != "" || len(got.Omitted) > 0 {
		t.Errorf("Tree's findings differ from its files' audited alone (-alone +tree):\n%s", diff)
	}
}
