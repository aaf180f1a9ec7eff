package skillmd_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

func TestRequires(t *testing.T) {
	s, err := skillmd.Parse([]byte("---\nname: release\ndescription: Cut a release.\nmetadata:\n  requires: \"github:acme/skills/changelog@^1  oci://ghcr.io/acme/semver:^2\\n\\t./local\"\n---\nBody\n"), skillmd.WithDirName("release"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Requires()
	want := []string{"github:acme/skills/changelog@^1", "oci://ghcr.io/acme/semver:^2", "./local"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Requires() = %q, %v; want %q", got, err, want)
	}
	for _, none := range []string{"", "   \n"} {
		if got, err := skillmd.ParseRequires(none); err != nil || got != nil {
			t.Errorf("ParseRequires(%q) = %q, %v; want none", none, got, err)
		}
	}
	s.Metadata = nil
	if got, err := s.Requires(); err != nil || got != nil {
		t.Errorf("no metadata: Requires() = %q, %v", got, err)
	}
}

func TestRequiresRefused(t *testing.T) {
	many := strings.Repeat("github:a/b@^1 ", skillmd.MaxRequires) + "github:a/c"
	var distinct []string
	for i := range skillmd.MaxRequires {
		distinct = append(distinct, "github:a/b"+strings.Repeat("x", i))
	}
	for _, tc := range []struct{ text, says string }{
		{many, "lists 65 skills"},
		{"github:a/" + strings.Repeat("b", skillmd.MaxRequireLength), "bytes long"},
		{"github:a/b github:a/\u202eb", "U+202E"},
		{"github:a/b\u200b", "U+200B"},
		{"github:a/\x00b", "U+0000"},
		{"github:a/b github:a/c github:a/b", `"github:a/b" twice`},
	} {
		_, err := skillmd.ParseRequires(tc.text)
		if !errors.Is(err, skillmd.ErrRule) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("ParseRequires(%.40q) = %v; want ErrRule saying %q", tc.text, err, tc.says)
		}
	}
	if got, err := skillmd.ParseRequires(strings.Join(distinct, " ")); err != nil || len(got) != skillmd.MaxRequires {
		t.Errorf("%d distinct entries: %d, %v", skillmd.MaxRequires, len(got), err)
	}
}
