package skillmd_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

func TestParseFields(t *testing.T) {
	src := `---
name: "  pdf-tools  "
description: >
  Reads PDF files.
license: Apache-2.0
compatibility: Needs poppler
allowed-tools:
  - Read
  - Bash(pdftotext:*)
metadata:
  author: me
  version: 1.0
  tags:
    - a
    - b
user-invocable: false
retries: 3
---

# PDF tools

Use pdftotext.
`
	s, err := skillmd.Parse([]byte(src), skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		t.Fatal(err)
	}
	want := &skillmd.Skill{
		Name:          "pdf-tools",
		Description:   "Reads PDF files.",
		License:       "Apache-2.0",
		Compatibility: "Needs poppler",
		AllowedTools:  "Read Bash(pdftotext:*)",
		Metadata:      map[string]string{"author": "me", "version": "1.0", "tags": "['a', 'b']"},
		Extra:         map[string]any{"user-invocable": false, "retries": 3},
		Body:          "# PDF tools\n\nUse pdftotext.",
		Mode:          skillmd.Lenient,
		Problems:      []skillmd.Problem{{Field: "metadata", Message: "Field 'metadata' should be a map of strings to strings", Warning: true}},
	}
	if diff := cmp.Diff(want, s, cmpopts.IgnoreUnexported(skillmd.Skill{})); diff != "" {
		t.Errorf("Parse() (-want +got):\n%s", diff)
	}
}

func TestParseExtraTypes(t *testing.T) {
	s, err := skillmd.Parse([]byte("---\nname: a\ndescription: d\nwhen: 2024-01-02\nratio: 0.5\nnothing: ~\nlist: [1, x]\nmap: {k: true}\n---\n"), skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"when":    time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC),
		"ratio":   0.5,
		"nothing": nil,
		"list":    []any{1, "x"},
		"map":     map[string]any{"k": true},
	}
	if diff := cmp.Diff(want, s.Extra); diff != "" {
		t.Errorf("Parse().Extra (-want +got):\n%s", diff)
	}
}

func TestParseFailures(t *testing.T) {
	tests := []struct {
		name string
		src  string
		err  error
		msg  string
	}{
		{"not UTF-8", "---\nname: \xff\n---\n", skillmd.ErrNoSkillFile, "SKILL.md is not valid UTF-8"},
		{"no front matter", "", skillmd.ErrFrontMatter, "SKILL.md must start with YAML frontmatter (---)"},
		{"not closed", "---\nname: a\n", skillmd.ErrFrontMatter, "SKILL.md frontmatter not properly closed with ---"},
		{"not a mapping", "---\nhello\n---\n", skillmd.ErrFrontMatter, "SKILL.md frontmatter must be a YAML mapping"},
		{"bad YAML", "---\n\tname: a\n---\n", skillmd.ErrFrontMatter, "Invalid YAML in frontmatter: line 2: found character that cannot start any token"},
		{"complex key", "---\n? - a\n: b\n---\n", skillmd.ErrFrontMatter, "Invalid YAML in frontmatter: line 2: a key must be a plain value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := skillmd.Parse([]byte(tt.src))
			var e *skillmd.Error
			if !errors.As(err, &e) || !errors.Is(err, tt.err) {
				t.Fatalf("Parse(%q) = %v, %v; want an *Error wrapping %v", tt.src, s, err, tt.err)
			}
			if len(e.Problems) != 1 || e.Problems[0].Message != tt.msg {
				t.Errorf("Parse(%q) problems = %v, want %q", tt.src, e.Problems, tt.msg)
			}
		})
	}
}

func TestParseDir(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good/SKILL.md", "---\nname: good\ndescription: d\n---\nbody\n")
	write("lower/skill.md", "---\nname: lower\ndescription: d\n---\n")
	write("empty/README.md", "")
	write("file.txt", "")
	write("big/SKILL.md", "---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", skillmd.MaxFileSize))
	if err := os.MkdirAll(filepath.Join(root, "dir", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}

	s, err := skillmd.ParseDir(filepath.Join(root, "good"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir != filepath.Join(root, "good") || s.Path != filepath.Join(root, "good", "SKILL.md") || s.Body != "body" {
		t.Errorf("ParseDir(good) = Dir %q, Path %q, Body %q", s.Dir, s.Path, s.Body)
	}
	if s, err := skillmd.ParseDir(filepath.Join(root, "lower")); err != nil || filepath.Base(s.Path) != "skill.md" {
		t.Errorf("ParseDir(lower) = %v, %v; want skill.md read", s, err)
	}

	tests := []struct {
		dir  string
		errs []error
		msg  string
	}{
		{"missing", []error{fs.ErrNotExist}, "Path does not exist: " + filepath.Join(root, "missing")},
		{"file.txt", []error{skillmd.ErrNoSkillFile}, "Not a directory: " + filepath.Join(root, "file.txt")},
		{"empty", []error{skillmd.ErrNoSkillFile, fs.ErrNotExist}, "Missing required file: SKILL.md"},
		{"dir", []error{skillmd.ErrNoSkillFile}, "Not a regular file: " + filepath.Join(root, "dir", "SKILL.md")},
		{"big", []error{skillmd.ErrNoSkillFile}, "SKILL.md is larger than 16777216 bytes"},
	}
	for _, tt := range tests {
		dir := filepath.Join(root, tt.dir)
		_, err := skillmd.ParseDir(dir)
		var e *skillmd.Error
		if !errors.As(err, &e) {
			t.Fatalf("ParseDir(%q) = %v, want an *Error", tt.dir, err)
		}
		for _, want := range tt.errs {
			if !errors.Is(err, want) {
				t.Errorf("ParseDir(%q) = %v, want it to wrap %v", tt.dir, err, want)
			}
		}
		if e.Path != dir || len(e.Problems) != 1 || e.Problems[0].Message != tt.msg {
			t.Errorf("ParseDir(%q) = %+v, want path %q and problem %q", tt.dir, e, dir, tt.msg)
		}
		if err := skillmd.Validate(dir); err == nil || err.Error() != e.Error() {
			t.Errorf("Validate(%q) = %v, want %v", tt.dir, err, e)
		}
	}
	if _, err := skillmd.ParseDir(filepath.Join(root, "file.txt")); errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ParseDir(file.txt) = %v, want it not to wrap fs.ErrNotExist", err)
	}
}

func TestValidateError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skill")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: Other\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := skillmd.Validate(dir)
	var e *skillmd.Error
	if !errors.As(err, &e) || !errors.Is(err, skillmd.ErrRule) {
		t.Fatalf("Validate() = %v, want an *Error wrapping ErrRule", err)
	}
	want := dir + ": skill name 'Other' must be lowercase; directory name 'skill' must match skill name 'Other'"
	if err.Error() != want {
		t.Errorf("Validate().Error() = %q, want %q", err.Error(), want)
	}
	if got := []string{e.Problems[0].Field, e.Problems[1].Field}; got[0] != "name" || got[1] != "name" {
		t.Errorf("problem fields = %q, want name, name", got)
	}
	if err := skillmd.Validate(dir, skillmd.WithMode(skillmd.Lenient)); err == nil {
		t.Error("Validate(Lenient) = nil, want the lowercase rule to fail")
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *skillmd.Error
		want string
	}{
		{&skillmd.Error{Problems: []skillmd.Problem{{Message: "SKILL.md must start with YAML frontmatter (---)"}}, Err: skillmd.ErrFrontMatter},
			"SKILL.md must start with YAML frontmatter (---)"},
		{&skillmd.Error{Path: "x", Problems: []skillmd.Problem{{Message: "Invalid YAML in frontmatter: line 2: oops"}}, Err: skillmd.ErrFrontMatter},
			"x: invalid YAML in frontmatter: line 2: oops"},
		{&skillmd.Error{Path: "x", Err: skillmd.ErrRule}, "x: front matter breaks a rule"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestWithDirName(t *testing.T) {
	src := []byte("---\nname: a\ndescription: d\n---\n")
	if s, err := skillmd.Parse(src); err != nil || s.Validate() != nil {
		t.Errorf("Parse without a folder = %v, %v; want valid", s, err)
	}
	s, err := skillmd.Parse(src, skillmd.WithDirName("b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); !errors.Is(err, skillmd.ErrRule) {
		t.Errorf("Parse(WithDirName(b)).Validate() = %v, want ErrRule", err)
	}
}

func TestModeString(t *testing.T) {
	if skillmd.Strict.String() != "strict" || skillmd.Lenient.String() != "lenient" {
		t.Errorf("Mode strings = %q, %q", skillmd.Strict, skillmd.Lenient)
	}
}

// TestAliasesBounded checks that aliases cannot make a small file expand
// without end in lenient mode.
func TestAliasesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: a\ndescription: d\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("metadata:\n  k: *l8\nlicense: *l8\n---\n")
	// Work is measured as bytes allocated, which a loaded machine does not
	// change: expanding the aliases would take gigabytes.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := skillmd.Parse([]byte(b.String()), skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		t.Fatal(err)
	}
	js, err := s.PropertiesJSON()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; len(js) > 1<<20 || len(s.Metadata["k"]) > 1<<20 || n > 64<<20 {
		t.Errorf("10^9 aliased nodes gave %d bytes of JSON and %d of metadata, allocating %d bytes", len(js), len(s.Metadata["k"]), n)
	}
}
