package skillmd_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

// A conformance case is a testdata/*.txtar archive:
//
//   - its comment describes the case; a line "transform: crlf", "cr" or
//     "bom" rewrites every file's line endings or adds a byte order mark;
//   - its files form one skill folder (the first path element);
//   - "want" holds the verdict of the reference validator, "valid" or
//     "invalid", then its messages one per line, as recorded from the
//     reference (see testdata/README.md). A message ending in "..." is
//     compared up to the dots: the detail of a YAML error is this
//     package's own;
//   - "properties" holds what the reference's read-properties printed: the
//     JSON, or "Error: " and its message;
//   - "prompt", when the reference's to-prompt succeeded, holds its output
//     with the case's folder written $ROOT;
//   - "lenient", when present, holds the verdict in lenient mode and each
//     problem as "error: message" or "warning: message".
type conformanceCase struct {
	name       string
	transforms []string
	files      []txtar.File
	want       []string
	properties string
	prompt     string
	lenient    []string
}

func loadCases(t testing.TB) []conformanceCase {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var cases []conformanceCase
	for _, path := range paths {
		a, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c := conformanceCase{name: strings.TrimSuffix(filepath.Base(path), ".txtar")}
		for _, line := range strings.Split(string(a.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "transform: "); ok {
				c.transforms = strings.Fields(v)
			}
		}
		for _, f := range a.Files {
			switch f.Name {
			case "want":
				c.want = lines(f.Data)
			case "lenient":
				c.lenient = lines(f.Data)
			case "properties":
				c.properties = string(f.Data)
			case "prompt":
				c.prompt = string(f.Data)
			default:
				c.files = append(c.files, f)
			}
		}
		if len(c.want) == 0 || c.properties == "" || len(c.files) == 0 {
			t.Fatalf("%s: a case needs want and properties sections and at least one file", path)
		}
		cases = append(cases, c)
	}
	return cases
}

func lines(data []byte) []string {
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// content returns a file's bytes after the case's transforms.
func (c conformanceCase) content(f txtar.File) []byte {
	s := string(f.Data)
	for _, tr := range c.transforms {
		switch tr {
		case "nofinalnewline":
			s = strings.TrimSuffix(s, "\n")
		case "crlf":
			s = strings.ReplaceAll(s, "\n", "\r\n")
		case "cr":
			s = strings.ReplaceAll(s, "\n", "\r")
		case "bom":
			s = "\ufeff" + s
		}
	}
	return []byte(s)
}

// materialize writes the case's files under a new folder and returns the
// skill folder.
func (c conformanceCase) materialize(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	top := ""
	for _, f := range c.files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, c.content(f), 0o644); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(f.Name, "/")
		if top != "" && first != top {
			t.Fatalf("files of more than one folder: %s and %s", top, first)
		}
		top = first
	}
	return filepath.Join(root, top)
}

// verdict renders the outcome of Validate as the want section does.
func verdict(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return []string{"valid"}
	}
	var e *skillmd.Error
	if !errors.As(err, &e) {
		t.Fatalf("Validate error = %v, want an *Error", err)
	}
	got := []string{"invalid"}
	for _, p := range e.Problems {
		got = append(got, p.Message)
	}
	return got
}

// lenientVerdict renders the outcome of ParseDir in lenient mode.
func lenientVerdict(t *testing.T, s *skillmd.Skill, err error) []string {
	t.Helper()
	var problems []skillmd.Problem
	if err != nil {
		var e *skillmd.Error
		if !errors.As(err, &e) {
			t.Fatalf("ParseDir error = %v, want an *Error", err)
		}
		problems = e.Problems
	} else {
		problems = s.Problems
	}
	got := []string{"valid"}
	for _, p := range problems {
		if p.Warning {
			got = append(got, "warning: "+p.Message)
		} else {
			got[0] = "invalid"
			got = append(got, "error: "+p.Message)
		}
	}
	return got
}

// matchDots lets a wanted line ending in "..." stand for any line with
// that prefix.
func matchDots(got, want []string) []string {
	out := slices.Clone(got)
	for i := range out {
		if i < len(want) {
			if prefix, ok := strings.CutSuffix(want[i], "..."); ok && strings.HasPrefix(out[i], prefix) {
				out[i] = want[i]
			}
		}
	}
	return out
}

func TestConformance(t *testing.T) {
	cases := loadCases(t)
	if len(cases) < 40 {
		t.Fatalf("the corpus has %d cases, want at least 40", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.materialize(t)
			got := verdict(t, skillmd.Validate(dir))
			if diff := cmp.Diff(c.want, matchDots(got, c.want)); diff != "" {
				t.Errorf("Validate(%q) (-want +got):\n%s", c.name, diff)
			}
			checkProperties(t, c, dir)
			if c.lenient == nil {
				return
			}
			s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient))
			got = lenientVerdict(t, s, err)
			if diff := cmp.Diff(c.lenient, matchDots(got, c.lenient)); diff != "" {
				t.Errorf("ParseDir(%q, Lenient) (-want +got):\n%s", c.name, diff)
			}
		})
	}
}

// checkProperties compares PropertiesJSON and Prompt with what the
// reference's read-properties and to-prompt printed.
func checkProperties(t *testing.T, c conformanceCase, dir string) {
	t.Helper()
	var got, gotPrompt string
	s, err := skillmd.ParseDir(dir)
	var js []byte
	if err == nil {
		js, err = s.PropertiesJSON()
	}
	if err == nil {
		got = string(js) + "\n"
		p, err := skillmd.Prompt([]*skillmd.Skill{s})
		if err != nil {
			t.Fatalf("Prompt(%q) = %v after PropertiesJSON succeeded", c.name, err)
		}
		gotPrompt = strings.ReplaceAll(p, filepath.Dir(dir), "$ROOT") + "\n"
	} else {
		var e *skillmd.Error
		if !errors.As(err, &e) {
			t.Fatalf("PropertiesJSON(%q) error = %v, want an *Error", c.name, err)
		}
		got = "Error: " + e.Problems[0].Message + "\n"
		// The reference's read-properties words a missing file its own way.
		if errors.Is(err, skillmd.ErrNoSkillFile) && strings.HasPrefix(c.properties, "Error: SKILL.md not found in ") {
			got = c.properties
		}
		if prefix, ok := strings.CutSuffix(c.properties, "...\n"); ok && strings.HasPrefix(got, prefix) {
			got = c.properties
		}
	}
	if diff := cmp.Diff(c.properties, got); diff != "" {
		t.Errorf("PropertiesJSON(%q) (-reference +got):\n%s", c.name, diff)
	}
	if diff := cmp.Diff(c.prompt, gotPrompt); diff != "" {
		t.Errorf("Prompt(%q) (-reference +got):\n%s", c.name, diff)
	}
}
