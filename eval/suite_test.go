package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// guideSuite is the guide's evals.json ("Evaluating skill output
// quality"), with its expectations, and one expectation of this
// package's command form.
const guideSuite = `{
  "skill_name": "csv-analyzer",
  "evals": [
    {
      "id": 1,
      "prompt": "I have a CSV of monthly sales data in data/sales_2025.csv. Can you find the top 3 months by revenue and make a bar chart?",
      "expected_output": "A bar chart image showing the top 3 months by revenue, with labeled axes and values.",
      "files": ["evals/files/sales_2025.csv"],
      "expectations": [
        "The output includes a bar chart image file",
        "The chart shows exactly 3 months",
        {"text": "The chart is a PNG file", "command": ["python3", "evals/check_png.py", ""]}
      ]
    },
    {
      "id": "clean-missing_emails.2",
      "prompt": "there's a csv in my downloads called customers.csv, some rows have missing emails — can you clean it up and tell me how many were missing?",
      "expected_output": "A cleaned CSV with missing emails handled, plus a count of how many were missing.",
      "files": ["evals/files/customers.csv", "scripts/helper.py"]
    }
  ]
}`

// newSkill makes a skill's folder holding evals/evals.json (unless
// evals is "") and the files named, each with a line of text.
func newSkill(t testing.TB, evals string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data of "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if evals != "" {
		writeEvals(t, dir, suiteFile, evals)
	}
	return dir
}

func writeEvals(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSuiteGuideExample(t *testing.T) {
	dir := newSkill(t, guideSuite, "evals/files/sales_2025.csv", "evals/files/customers.csv", "scripts/helper.py")
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatalf("LoadSuite(guide's example) = %v", err)
	}
	want := &Suite{
		SkillName: "csv-analyzer",
		Evals: []Case{
			{
				ID:             CaseID{text: "1", number: true},
				Prompt:         "I have a CSV of monthly sales data in data/sales_2025.csv. Can you find the top 3 months by revenue and make a bar chart?",
				ExpectedOutput: "A bar chart image showing the top 3 months by revenue, with labeled axes and values.",
				Files:          []string{"evals/files/sales_2025.csv"},
				Expectations: []Expectation{
					{Text: "The output includes a bar chart image file"},
					{Text: "The chart shows exactly 3 months"},
					{Text: "The chart is a PNG file", Command: []string{"python3", "evals/check_png.py", ""}},
				},
			},
			{
				ID:             CaseID{text: "clean-missing_emails.2"},
				Prompt:         "there's a csv in my downloads called customers.csv, some rows have missing emails — can you clean it up and tell me how many were missing?",
				ExpectedOutput: "A cleaned CSV with missing emails handled, plus a count of how many were missing.",
				Files:          []string{"evals/files/customers.csv", "scripts/helper.py"},
			},
		},
	}
	if diff := cmp.Diff(want, s, cmp.AllowUnexported(CaseID{})); diff != "" {
		t.Errorf("LoadSuite(guide's example) mismatch (-want +got):\n%s", diff)
	}
	if got := s.Evals[0].ID.String(); got != "1" {
		t.Errorf("ID.String() = %q, want 1", got)
	}
	if err := s.CheckName("csv-analyzer"); err != nil {
		t.Errorf("CheckName(csv-analyzer) = %v, want nil", err)
	}
	err = s.CheckName("other")
	if !errors.Is(err, ErrInvalidSuite) || !strings.Contains(err.Error(), `skill_name: "csv-analyzer", but the skill is named "other"`) {
		t.Errorf("CheckName(other) = %v, want ErrInvalidSuite naming both names", err)
	}

	// A suite written back reads the same.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	writeEvals(t, dir, suiteFile, string(b))
	again, err := LoadSuite(dir)
	if err != nil {
		t.Fatalf("LoadSuite(%s) = %v", b, err)
	}
	if diff := cmp.Diff(s, again, cmp.AllowUnexported(CaseID{})); diff != "" {
		t.Errorf("a suite written back reads otherwise (-first +again):\n%s", diff)
	}
}

func TestFilePlace(t *testing.T) {
	tests := []struct{ file, want string }{
		{"evals/files/data/x.csv", "data/x.csv"},
		{"evals/files/x.csv", "x.csv"},
		{"scripts/helper.py", "scripts/helper.py"},
		{"evals/other/x.csv", "evals/other/x.csv"},
		{"evals/files", "evals/files"},
		{"evals/filesx/a", "evals/filesx/a"},
	}
	for _, tt := range tests {
		if got := (Case{}).FilePlace(tt.file); got != tt.want {
			t.Errorf("FilePlace(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestCaseIDJSON(t *testing.T) {
	for _, in := range []string{`1`, `-3`, `1.50`, `1e3`, `0`, `"a"`, `"A.b-c_9"`, `"` + strings.Repeat("x", 64) + `"`, `12345678901234567890123456789012345678901234567890123456789012345`[:64]} {
		var id CaseID
		if err := json.Unmarshal([]byte(in), &id); err != nil {
			t.Errorf("Unmarshal(%s) = %v", in, err)
			continue
		}
		out, err := json.Marshal(id)
		if err != nil || string(out) != in {
			t.Errorf("Marshal(Unmarshal(%s)) = %s, %v, want it as written", in, out, err)
		}
		if want := strings.Trim(in, `"`); id.String() != want {
			t.Errorf("Unmarshal(%s).String() = %q, want %q", in, id.String(), want)
		}
	}
	for _, in := range []string{`null`, `true`, `{}`, `[]`, `[1]`, `""`, `"a b"`, `"a/b"`, `"é"`, `"../x"`, `"a\u0000"`, `"x."`, `"` + strings.Repeat("x", 65) + `"`, strings.Repeat("1", 65)} {
		var id CaseID
		err := json.Unmarshal([]byte(in), &id)
		if !errors.Is(err, ErrInvalidSuite) || !strings.Contains(err.Error(), "id: ") {
			t.Errorf("Unmarshal(%s) = %v, want ErrInvalidSuite naming the id", in, err)
		}
	}
	if b, err := json.Marshal(CaseID{}); err != nil || string(b) != "null" {
		t.Errorf("Marshal(CaseID{}) = %s, %v, want null", b, err)
	}
}

func TestExpectationJSON(t *testing.T) {
	good := []struct {
		in   string
		want Expectation
	}{
		{`"The file is JSON"`, Expectation{Text: "The file is JSON"}},
		{`{"text": "t"}`, Expectation{Text: "t"}},
		{`{"text": "t", "command": ["jq", "", "."]}`, Expectation{Text: "t", Command: []string{"jq", "", "."}}},
	}
	for _, tt := range good {
		var e Expectation
		if err := json.Unmarshal([]byte(tt.in), &e); err != nil {
			t.Errorf("Unmarshal(%s) = %v", tt.in, err)
		} else if diff := cmp.Diff(tt.want, e); diff != "" {
			t.Errorf("Unmarshal(%s) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	bad := []struct{ in, want string }{
		{`1`, "expectation: a number; give a string, or an object"},
		{`null`, "expectation: null"},
		{`true`, "expectation: a boolean"},
		{`["t"]`, "expectation: an array"},
		{`""`, "expectation: empty"},
		{`" \n"`, "expectation: empty"},
		{`"a\u0000"`, "expectation: holds a NUL"},
		{`{}`, "expectation.text: missing"},
		{`{"command": ["true"]}`, "expectation.text: missing"},
		{`{"text": ""}`, "expectation.text: empty"},
		{`{"text": 1}`, "expectation.text: a number"},
		{`{"text": "t", "cmd": ["true"]}`, `expectation: unknown field "cmd"`},
		{`{"text": "t", "text": "u"}`, `expectation: field "text" given twice`},
		{`{"text": "t", "command": "true"}`, "expectation.command: a string; give the command as an array"},
		{`{"text": "t", "command": null}`, "expectation.command: null"},
		{`{"text": "t", "command": []}`, "expectation.command: empty"},
		{`{"text": "t", "command": [1]}`, "expectation.command[0]: a number"},
		{`{"text": "t", "command": [""]}`, "expectation.command[0]: empty"},
		{`{"text": "t", "command": [" ", "x"]}`, "expectation.command[0]: empty"},
		{`{"text": "t", "command": ["x", "a\u0000"]}`, "expectation.command[1]: holds a NUL"},
	}
	for _, tt := range bad {
		var e Expectation
		err := json.Unmarshal([]byte(tt.in), &e)
		if !errors.Is(err, ErrInvalidSuite) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) = %v, want ErrInvalidSuite with %q", tt.in, err, tt.want)
		}
	}
}

// suiteWith is an evals.json of one case whose fields are the JSON
// members given (after "id": 1 unless they give an id).
func suiteWith(members string) string {
	if !strings.Contains(members, `"id"`) {
		members = `"id": 1, ` + members
	}
	return `{"skill_name": "s", "evals": [{` + members + `}]}`
}

// suiteRefusal is an evals.json LoadSuite refuses, with the skill's
// files and what else the skill holds.
type suiteRefusal struct {
	name  string
	evals string
	files []string
	setup func(t *testing.T, dir string)
	// place is what follows FILE: in the message; what a part of the
	// rest.
	place, what string
}

// suiteRefusals are the refusals TestLoadSuiteRefuses checks, and seeds
// of FuzzLoadSuite.
func suiteRefusals() []suiteRefusal {
	const prompt = `"prompt": "p"`
	many := func(n int, item string) string {
		return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
	}
	manyCases := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id": %d, "prompt": "p"}`, i)
		}
		return `{"skill_name": "s", "evals": [` + b.String() + `]}`
	}
	manyFiles := func(n int) []string {
		var fs []string
		for i := range n {
			fs = append(fs, fmt.Sprintf("evals/files/f%d", i))
		}
		return fs
	}
	quoted := func(fs []string) string {
		b, _ := json.Marshal(fs)
		return string(b)
	}
	return []suiteRefusal{
		{name: "empty file", evals: " ", place: "", what: "empty"},
		{name: "not JSON", evals: "{\n\"skill_name\": \"s\",\n\"evals\": [}", place: ":3", what: "not JSON"},
		{name: "cut short", evals: `{"skill_name": "s"`, place: "", what: "not JSON: the file ends"},
		{name: "trailing data", evals: "{\"skill_name\": \"s\", \"evals\": []}\n\n {}", place: ":3", what: "data after the JSON value"},
		{name: "too deep", evals: strings.Repeat("[", 20000), place: ":1", what: "not JSON"},
		{name: "an array", evals: `[]`, place: "", what: "an array; write an object"},
		{name: "null", evals: `null`, place: "", what: "null; write an object"},
		{name: "unknown top field", evals: `{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}], "version": 2}`, place: `"version"`, what: "unknown field"},
		{name: "top key twice", evals: `{"skill_name": "s", "skill_name": "t", "evals": [{"id": 1, "prompt": "p"}]}`, place: "skill_name", what: "given twice"},
		{name: "no skill_name", evals: `{"evals": [{"id": 1, "prompt": "p"}]}`, place: "skill_name", what: "missing"},
		{name: "empty skill_name", evals: `{"skill_name": " ", "evals": [{"id": 1, "prompt": "p"}]}`, place: "skill_name", what: "empty"},
		{name: "skill_name a number", evals: `{"skill_name": 1, "evals": [{"id": 1, "prompt": "p"}]}`, place: "skill_name", what: "a number; give a string"},
		{name: "no evals", evals: `{"skill_name": "s"}`, place: "evals", what: "missing"},
		{name: "evals an object", evals: `{"skill_name": "s", "evals": {}}`, place: "evals", what: "an object; give the cases as an array"},
		{name: "evals null", evals: `{"skill_name": "s", "evals": null}`, place: "evals", what: "null"},
		{name: "no case", evals: `{"skill_name": "s", "evals": []}`, place: "evals", what: "empty; give at least one case"},
		{name: "too many cases", evals: manyCases(maxCases + 1), place: "evals", what: "1001 cases; at most 1000"},
		{name: "case a string", evals: `{"skill_name": "s", "evals": ["p"]}`, place: "evals[0]", what: "a string; a case is an object"},
		{name: "no id", evals: `{"skill_name": "s", "evals": [{"prompt": "p"}]}`, place: "evals[0].id", what: "missing"},
		{name: "id null", evals: suiteWith(`"id": null, ` + prompt), place: "evals[0].id", what: "null; give a number or a name"},
		{name: "id true", evals: suiteWith(`"id": true, ` + prompt), place: "evals[0].id", what: "a boolean"},
		{name: "id an object", evals: suiteWith(`"id": {}, ` + prompt), place: "evals[0].id", what: "an object"},
		{name: "id an array", evals: suiteWith(`"id": [1], ` + prompt), place: "evals[0].id", what: "an array"},
		{name: "id empty", evals: suiteWith(`"id": "", ` + prompt), place: "evals[0].id", what: "empty"},
		{name: "id with a space", evals: suiteWith(`"id": "a b", ` + prompt), place: "evals[0].id", what: `"a b" holds ' '`},
		{name: "id with a slash", evals: suiteWith(`"id": "../x", ` + prompt), place: "evals[0].id", what: `holds '/'`},
		{name: "id ending with a dot", evals: suiteWith(`"id": "a.", ` + prompt), place: "evals[0].id", what: `"a." ends with a dot`},
		{name: "id not ASCII", evals: suiteWith(`"id": "é", ` + prompt), place: "evals[0].id", what: `holds 'é'`},
		{name: "id too long", evals: suiteWith(`"id": "` + strings.Repeat("x", 65) + `", ` + prompt), place: "evals[0].id", what: "65 characters; an id has at most 64"},
		{name: "number id too long", evals: suiteWith(`"id": ` + strings.Repeat("1", 65) + `, ` + prompt), place: "evals[0].id", what: "a number of 65 characters"},
		{name: "unknown case field", evals: suiteWith(prompt + `, "expected": "x"`), place: `evals[0] (id 1)."expected"`, what: "unknown field"},
		{name: "case key twice", evals: suiteWith(prompt + `, "prompt": "q"`), place: "evals[0] (id 1).prompt", what: "given twice"},
		{name: "case key twice after a case", evals: `{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}, {"id": "b", "files": [], "files": []}]}`, place: "evals[1] (id b).files", what: "given twice"},
		{name: "deep key twice", evals: suiteWith(prompt + `, "expectations": ["a", {"text": "t", "text": "u"}]`), place: "evals[0] (id 1).expectations[1].text", what: "given twice"},
		{name: "no prompt", evals: suiteWith(`"expected_output": "x"`), place: "evals[0] (id 1).prompt", what: "missing"},
		{name: "prompt empty", evals: suiteWith(`"prompt": ""`), place: "evals[0] (id 1).prompt", what: "empty"},
		{name: "prompt of spaces", evals: suiteWith(`"prompt": " \n\t"`), place: "evals[0] (id 1).prompt", what: "empty"},
		{name: "prompt a number", evals: suiteWith(`"prompt": 3`), place: "evals[0] (id 1).prompt", what: "a number; give a string"},
		{name: "prompt null", evals: suiteWith(`"prompt": null`), place: "evals[0] (id 1).prompt", what: "null"},
		{name: "prompt with NUL", evals: suiteWith(`"prompt": "a\u0000b"`), place: "evals[0] (id 1).prompt", what: "NUL"},
		{name: "expected_output a number", evals: suiteWith(prompt + `, "expected_output": 1`), place: "evals[0] (id 1).expected_output", what: "a number"},
		{name: "expected_output null", evals: suiteWith(prompt + `, "expected_output": null`), place: "evals[0] (id 1).expected_output", what: "null"},
		{name: "files a string", evals: suiteWith(prompt + `, "files": "evals/files/a"`), place: "evals[0] (id 1).files", what: "a string; give the paths as an array"},
		{name: "files null", evals: suiteWith(prompt + `, "files": null`), place: "evals[0] (id 1).files", what: "null"},
		{name: "too many files", evals: suiteWith(prompt + `, "files": ` + quoted(manyFiles(maxFiles+1))), files: manyFiles(maxFiles + 1), place: "evals[0] (id 1).files", what: "101 files; a case has at most 100"},
		{name: "file a number", evals: suiteWith(prompt + `, "files": [1]`), place: "evals[0] (id 1).files[0]", what: "a number"},
		{name: "file empty", evals: suiteWith(prompt + `, "files": [""]`), place: "evals[0] (id 1).files[0]", what: "empty"},
		{name: "file with a backslash", evals: suiteWith(prompt + `, "files": ["evals\\files\\a"]`), place: "evals[0] (id 1).files[0]", what: "backslash"},
		{name: "file with a colon", evals: suiteWith(prompt + `, "files": ["c:a"]`), place: "evals[0] (id 1).files[0]", what: "colon"},
		{name: "file with NUL", evals: suiteWith(prompt + `, "files": ["a\u0000"]`), place: "evals[0] (id 1).files[0]", what: "NUL"},
		{name: "absolute file", evals: suiteWith(prompt + `, "files": ["/etc/passwd"]`), place: "evals[0] (id 1).files[0]", what: "absolute"},
		{name: "file up", evals: suiteWith(prompt + `, "files": ["../x"]`), place: "evals[0] (id 1).files[0]", what: "leads out of the skill's folder"},
		{name: "file up inside", evals: suiteWith(prompt + `, "files": ["evals/../../x"]`), place: "evals[0] (id 1).files[0]", what: "leads out of the skill's folder"},
		{name: "file with a dot", evals: suiteWith(prompt + `, "files": ["./evals/files/a"]`), files: []string{"evals/files/a"}, place: "evals[0] (id 1).files[0]", what: "not a clean path"},
		{name: "file with two slashes", evals: suiteWith(prompt + `, "files": ["evals//files/a"]`), files: []string{"evals/files/a"}, place: "evals[0] (id 1).files[0]", what: "not a clean path"},
		{name: "file with a slash at its end", evals: suiteWith(prompt + `, "files": ["evals/files/"]`), place: "evals[0] (id 1).files[0]", what: "not a clean path"},
		{name: "file the skill's folder", evals: suiteWith(prompt + `, "files": ["."]`), place: "evals[0] (id 1).files[0]", what: "not a clean path"},
		{name: "missing file", evals: suiteWith(prompt + `, "files": ["evals/files/a", "evals/files/b"]`), files: []string{"evals/files/a"}, place: "evals[0] (id 1).files[1]", what: `"evals/files/b": no such file`},
		{name: "folder", evals: suiteWith(prompt + `, "files": ["evals/files"]`), files: []string{"evals/files/a"}, place: "evals[0] (id 1).files[0]", what: "a folder"},
		{name: "symbolic link", evals: suiteWith(prompt + `, "files": ["evals/files/l"]`), files: []string{"evals/files/a"},
			setup: func(t *testing.T, dir string) { symlink(t, "a", filepath.Join(dir, "evals/files/l")) },
			place: "evals[0] (id 1).files[0]", what: "a symbolic link"},
		{name: "link out", evals: suiteWith(prompt + `, "files": ["evals/files/l/passwd"]`),
			setup: func(t *testing.T, dir string) { symlink(t, "/etc", filepath.Join(dir, "evals/files/l")) },
			place: "evals[0] (id 1).files[0]", what: "cannot be read inside the skill's folder"},
		{name: "named pipe", evals: suiteWith(prompt + `, "files": ["evals/files/p"]`),
			setup: func(t *testing.T, dir string) { mkfifo(t, filepath.Join(dir, "evals/files/p")) },
			place: "evals[0] (id 1).files[0]", what: "not a regular file"},
		{name: "one place twice", evals: suiteWith(prompt + `, "files": ["evals/files/a.txt", "a.txt"]`), files: []string{"evals/files/a.txt", "a.txt"}, place: "evals[0] (id 1).files[1]", what: `"a.txt" goes to a.txt in the run's workspace, which clashes with files[0]`},
		{name: "one file twice", evals: suiteWith(prompt + `, "files": ["a.txt", "a.txt"]`), files: []string{"a.txt"}, place: "evals[0] (id 1).files[1]", what: "clashes with files[0]"},
		{name: "places differing in case", evals: suiteWith(prompt + `, "files": ["A.txt", "a.txt"]`), files: []string{"A.txt", "a.txt"}, place: "evals[0] (id 1).files[1]", what: "clashes with files[0]"},
		{name: "file where a folder goes", evals: suiteWith(prompt + `, "files": ["evals/files/d", "d/x"]`), files: []string{"evals/files/d", "d/x"}, place: "evals[0] (id 1).files[1]", what: "clashes with files[0]"},
		{name: "folder where a file goes", evals: suiteWith(prompt + `, "files": ["d/x", "evals/files/d"]`), files: []string{"evals/files/d", "d/x"}, place: "evals[0] (id 1).files[1]", what: "clashes with files[0]"},
		{name: "expectations a string", evals: suiteWith(prompt + `, "expectations": "x"`), place: "evals[0] (id 1).expectations", what: "a string; give them as an array"},
		{name: "too many expectations", evals: suiteWith(prompt + `, "expectations": [` + many(maxExpectations+1, `"x"`) + `]`), place: "evals[0] (id 1).expectations", what: "101 expectations; a case has at most 100"},
		{name: "expectation a number", evals: suiteWith(prompt + `, "expectations": ["a", 2]`), place: "evals[0] (id 1).expectations[1]", what: "a number; give a string, or an object"},
		{name: "expectation null", evals: suiteWith(prompt + `, "expectations": [null]`), place: "evals[0] (id 1).expectations[0]", what: "null"},
		{name: "expectation empty", evals: suiteWith(prompt + `, "expectations": [" "]`), place: "evals[0] (id 1).expectations[0]", what: "empty"},
		{name: "expectation without text", evals: suiteWith(prompt + `, "expectations": [{"command": ["true"]}]`), place: "evals[0] (id 1).expectations[0].text", what: "missing"},
		{name: "expectation unknown field", evals: suiteWith(prompt + `, "expectations": [{"text": "t", "run": "x"}]`), place: "evals[0] (id 1).expectations[0]", what: `unknown field "run"`},
		{name: "command a string", evals: suiteWith(prompt + `, "expectations": [{"text": "t", "command": "true"}]`), place: "evals[0] (id 1).expectations[0].command", what: "a string; give the command as an array"},
		{name: "command empty", evals: suiteWith(prompt + `, "expectations": [{"text": "t", "command": []}]`), place: "evals[0] (id 1).expectations[0].command", what: "empty"},
		{name: "command's program empty", evals: suiteWith(prompt + `, "expectations": [{"text": "t", "command": ["", "x"]}]`), place: "evals[0] (id 1).expectations[0].command[0]", what: "empty"},
		{name: "command argument a number", evals: suiteWith(prompt + `, "expectations": [{"text": "t", "command": ["x", 1]}]`), place: "evals[0] (id 1).expectations[0].command[1]", what: "a number"},
		{name: "one id twice", evals: `{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}, {"id": 1, "prompt": "q"}]}`, place: "evals[1] (id 1).id", what: "names the folder of evals[0] (id 1), eval-1"},
		{name: "a number and a string of one id", evals: `{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}, {"id": "1", "prompt": "q"}]}`, place: "evals[1] (id 1).id", what: "names the folder of evals[0]"},
		{name: "ids differing in case", evals: `{"skill_name": "s", "evals": [{"id": "a", "prompt": "p"}, {"id": "b", "prompt": "p"}, {"id": "A", "prompt": "q"}]}`, place: "evals[2] (id A).id", what: "names the folder of evals[0] (id a), eval-A"},
		{name: "second case", evals: `{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}, {"id": "two", "prompt": ""}]}`, place: "evals[1] (id two).prompt", what: "empty"},
		{name: "too large", evals: "{}" + strings.Repeat(" ", maxInputFile-1), place: "", what: "larger than 8388608 bytes"},
		{name: "a folder", setup: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "evals/evals.json"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, place: "", what: "not a regular file (a folder)"},
		{name: "a named pipe", setup: func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "evals"), 0o755)
			mkfifo(t, filepath.Join(dir, "evals/evals.json"))
		}, place: "", what: "not a regular file (a named pipe)"},
		{name: "a link out of the skill", setup: func(t *testing.T, dir string) {
			other := newSkill(t, suiteWith(prompt))
			os.MkdirAll(filepath.Join(dir, "evals"), 0o755)
			symlink(t, filepath.Join(other, "evals/evals.json"), filepath.Join(dir, "evals/evals.json"))
		}, place: "", what: "cannot be read inside the skill's folder"},
		{name: "a folder linked out of the skill", setup: func(t *testing.T, dir string) {
			other := newSkill(t, suiteWith(prompt))
			symlink(t, filepath.Join(other, "evals"), filepath.Join(dir, "evals"))
		}, place: "", what: "cannot be read inside the skill's folder"},
	}
}

func TestLoadSuiteRefuses(t *testing.T) {
	tests := suiteRefusals()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSkill(t, tt.evals, tt.files...)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			s, err := LoadSuite(dir)
			if !errors.Is(err, ErrInvalidSuite) {
				t.Fatalf("LoadSuite = %v, %v, want ErrInvalidSuite", s, err)
			}
			file := filepath.Join(dir, "evals", "evals.json")
			prefix := "invalid evaluation file: " + file + tt.place + ": "
			if !strings.HasPrefix(tt.place, ":") && tt.place != "" {
				prefix = "invalid evaluation file: " + file + ": " + tt.place + ": "
			}
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg[len(prefix):], tt.what) {
				t.Errorf("LoadSuite = %q, want %q followed by %q", msg, prefix, tt.what)
			}
		})
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := makeFIFO(name); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
}

// TestLoadSuiteLimits checks that each limit lets its largest value in.
func TestLoadSuiteLimits(t *testing.T) {
	var cases []string
	for i := range maxCases {
		cases = append(cases, fmt.Sprintf(`{"id": %d, "prompt": "p"}`, i))
	}
	var files, exps []string
	for i := range maxFiles {
		files = append(files, fmt.Sprintf("evals/files/d%d/f", i))
	}
	for i := range maxExpectations {
		exps = append(exps, fmt.Sprintf("%q", fmt.Sprint("e", i)))
	}
	filesJSON, _ := json.Marshal(files)
	cases[0] = `{"id": "` + strings.Repeat("x", maxIDLen) + `", "prompt": "p", "files": ` + string(filesJSON) + `, "expectations": [` + strings.Join(exps, ",") + `]}`
	evals := `{"skill_name": "s", "evals": [` + strings.Join(cases, ",") + `]}`
	evals += strings.Repeat(" ", maxInputFile-len(evals))
	dir := newSkill(t, evals, files...)
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatalf("LoadSuite(every limit reached) = %v", err)
	}
	if len(s.Evals) != maxCases || len(s.Evals[0].Files) != maxFiles || len(s.Evals[0].Expectations) != maxExpectations {
		t.Errorf("LoadSuite = %d cases, %d files, %d expectations, want %d, %d, %d", len(s.Evals), len(s.Evals[0].Files), len(s.Evals[0].Expectations), maxCases, maxFiles, maxExpectations)
	}
}

// TestLoadSuiteLinksInside checks that links inside the skill are
// followed for evals.json, as os.Root follows them.
func TestLoadSuiteLinksInside(t *testing.T) {
	dir := newSkill(t, "")
	writeEvals(t, dir, "evals/real.json", suiteWith(`"prompt": "p"`))
	symlink(t, "real.json", filepath.Join(dir, "evals/evals.json"))
	if _, err := LoadSuite(dir); err != nil {
		t.Errorf("LoadSuite(evals.json a link to a file inside the skill) = %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	for _, tt := range []struct {
		name string
		load func(string) error
		file string
	}{
		{"LoadSuite", func(d string) error { _, err := LoadSuite(d); return err }, "evals/evals.json"},
		{"LoadQueries", func(d string) error { _, err := LoadQueries(d); return err }, "evals/eval_queries.json"},
	} {
		for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "nothing")} {
			err := tt.load(dir)
			file := filepath.Join(dir, filepath.FromSlash(tt.file))
			if !errors.Is(err, ErrNoEvals) || !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrInvalidSuite) || !strings.HasPrefix(err.Error(), file+": no evaluations: ") {
				t.Errorf("%s(%s) = %v, want ErrNoEvals and fs.ErrNotExist naming %s", tt.name, dir, err, file)
			}
		}
	}
}

func TestLoadQueries(t *testing.T) {
	dir := newSkill(t, "")
	writeEvals(t, dir, queriesFile, `[
  {"query": "make a bar chart of data/sales.csv", "should_trigger": true},
  {"query": "what is the capital of France?", "should_trigger": false}
]`)
	qs, err := LoadQueries(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Query{{"make a bar chart of data/sales.csv", true}, {"what is the capital of France?", false}}
	if diff := cmp.Diff(want, qs); diff != "" {
		t.Errorf("LoadQueries mismatch (-want +got):\n%s", diff)
	}

	var maxed []string
	for range maxQueries {
		maxed = append(maxed, `{"query": "q", "should_trigger": true}`)
	}
	writeEvals(t, dir, queriesFile, "["+strings.Join(maxed, ",")+"]")
	if qs, err := LoadQueries(dir); err != nil || len(qs) != maxQueries {
		t.Errorf("LoadQueries(%d queries) = %d, %v", maxQueries, len(qs), err)
	}
}

// queryRefusals are the eval_queries.json LoadQueries refuses, with the
// place and the words of the message; seeds of FuzzLoadQueries too.
func queryRefusals() []struct{ name, in, place, what string } {
	return []struct{ name, in, place, what string }{
		{"not JSON", "[\n{]", ":2", "not JSON"},
		{"trailing data", `[{"query": "q", "should_trigger": true}] []`, ":1", "data after the JSON value"},
		{"an object", `{"query": "q", "should_trigger": true}`, "", "an object; write an array of queries"},
		{"no query", `[]`, "", "no query"},
		{"too many", "[" + strings.TrimSuffix(strings.Repeat(`{"query": "q", "should_trigger": true},`, maxQueries+1), ",") + "]", "", "1001 queries; at most 1000"},
		{"query a string", `[{"query": "q", "should_trigger": true}, "q"]`, "[1]", "a string; a query is an object"},
		{"unknown field", `[{"query": "q", "should_trigger": true, "split": "train"}]`, `[0]."split"`, "unknown field"},
		{"key twice", `[{"query": "q", "should_trigger": true, "query": "r"}]`, "[0].query", "given twice"},
		{"query missing", `[{"should_trigger": true}]`, "[0].query", "missing"},
		{"query empty", `[{"query": " ", "should_trigger": true}]`, "[0].query", "empty"},
		{"query a number", `[{"query": 1, "should_trigger": true}]`, "[0].query", "a number"},
		{"should_trigger missing", `[{"query": "q"}]`, "[0].should_trigger", "missing"},
		{"should_trigger a string", `[{"query": "q", "should_trigger": "yes"}]`, "[0].should_trigger", "a string; give true or false"},
		{"should_trigger null", `[{"query": "q", "should_trigger": null}]`, "[0].should_trigger", "null; give true or false"},
	}
}

func TestLoadQueriesRefuses(t *testing.T) {
	tests := queryRefusals()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSkill(t, "")
			writeEvals(t, dir, queriesFile, tt.in)
			qs, err := LoadQueries(dir)
			if !errors.Is(err, ErrInvalidSuite) {
				t.Fatalf("LoadQueries = %v, %v, want ErrInvalidSuite", qs, err)
			}
			file := filepath.Join(dir, "evals", "eval_queries.json")
			prefix := "invalid evaluation file: " + file + tt.place + ": "
			if !strings.HasPrefix(tt.place, ":") && tt.place != "" {
				prefix = "invalid evaluation file: " + file + ": " + tt.place + ": "
			}
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg[len(prefix):], tt.what) {
				t.Errorf("LoadQueries = %q, want %q followed by %q", msg, prefix, tt.what)
			}
		})
	}
}

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		in   string
		want []any
	}{
		{`{"a": 1, "b": 2}`, nil},
		{`{"a": 1, "a": 2}`, []any{"a"}},
		{`[{"a": 1}, {"a": 1}]`, nil},
		{`[1, {"x": [2, {"a": 1, "b": {"a": 2}, "a": 3}]}]`, []any{1, "x", 1, "a"}},
		{`{"a": {"b": 1}, "c": [{"d": 1, "d": 2}]}`, []any{"c", 0, "d"}},
		{`{"a": [], "b": {}, "a": 0}`, []any{"a"}},
		{`"x"`, nil},
	}
	for _, tt := range tests {
		if got := duplicateKey([]byte(tt.in)); !cmp.Equal(got, tt.want) {
			t.Errorf("duplicateKey(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzLoadSuite checks that any content of evals.json either loads, with
// every rule of the package doc holding of what it loaded, or fails with
// ErrInvalidSuite naming the file; never a panic.
func FuzzLoadSuite(f *testing.F) {
	f.Add([]byte(guideSuite))
	f.Add([]byte(suiteWith(`"prompt": "p", "files": ["evals/files/a", "b/c", "evals/files/link"], "expectations": ["x", {"text": "t", "command": ["true"]}]`)))
	f.Add([]byte(`{"skill_name": "s", "evals": [{"id": 1, "prompt": "p"}, {"id": "1", "prompt": "q"}]}`))
	f.Add([]byte(`{"skill_name": "s", "evals": [{"id": 1, "prompt": "p", "files": ["evals/files/d"]}]}`))
	f.Add([]byte(`{"skill_name": "s", "evals": [{"id": 1e3, "prompt": "p", "prompt": "q"}]} `))
	f.Add([]byte(`[]`))
	for _, r := range suiteRefusals() {
		if len(r.evals) < 1<<16 {
			f.Add([]byte(r.evals))
		}
	}
	dir := newSkill(f, "", "evals/files/sales_2025.csv", "evals/files/customers.csv", "scripts/helper.py", "evals/files/a", "b/c", "evals/files/d/e")
	if err := os.Symlink("a", filepath.Join(dir, "evals/files/link")); err != nil {
		f.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer root.Close()
	file := filepath.Join(dir, "evals", "evals.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		writeEvals(t, dir, suiteFile, string(data))
		s, err := LoadSuite(dir)
		if err != nil {
			if !errors.Is(err, ErrInvalidSuite) || !strings.HasPrefix(err.Error(), "invalid evaluation file: "+file) {
				t.Fatalf("LoadSuite(%q) = %v, want ErrInvalidSuite naming the file", data, err)
			}
			return
		}
		if strings.TrimSpace(s.SkillName) == "" || len(s.Evals) == 0 || len(s.Evals) > maxCases {
			t.Fatalf("LoadSuite(%q) = %d cases, skill_name %q", data, len(s.Evals), s.SkillName)
		}
		folders := map[string]bool{}
		for _, c := range s.Evals {
			id := c.ID.String()
			if id == "" || len(id) > maxIDLen || folders[strings.ToLower(id)] {
				t.Fatalf("LoadSuite(%q): id %q empty, long or not distinct", data, id)
			}
			folders[strings.ToLower(id)] = true
			if !c.ID.number && strings.IndexFunc(id, func(r rune) bool { return !idRune(r) }) >= 0 {
				t.Fatalf("LoadSuite(%q): id %q holds a character no folder name should", data, id)
			}
			if strings.TrimSpace(c.Prompt) == "" || len(c.Files) > maxFiles || len(c.Expectations) > maxExpectations {
				t.Fatalf("LoadSuite(%q): case %s breaks a rule: %+v", data, id, c)
			}
			for _, file := range c.Files {
				fi, err := root.Lstat(filepath.FromSlash(file))
				if err != nil || !fi.Mode().IsRegular() || !fs.ValidPath(file) || strings.ContainsAny(file, `\:`) {
					t.Fatalf("LoadSuite(%q): file %q is no clean path to a regular file: %v", data, file, err)
				}
			}
			if k, j := clash(c); k >= 0 {
				t.Fatalf("LoadSuite(%q): files %d and %d clash", data, k, j)
			}
			for _, e := range c.Expectations {
				if strings.TrimSpace(e.Text) == "" || e.Command != nil && (len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "") {
					t.Fatalf("LoadSuite(%q): expectation %+v breaks a rule", data, e)
				}
			}
		}
		// What loaded, written back, loads the same.
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal(LoadSuite(%q)) = %v", data, err)
		}
		writeEvals(t, dir, suiteFile, string(b))
		again, err := LoadSuite(dir)
		if err != nil {
			t.Fatalf("LoadSuite(Marshal(LoadSuite(%q))) = %v", data, err)
		}
		if diff := cmp.Diff(s, again, cmp.AllowUnexported(CaseID{})); diff != "" {
			t.Fatalf("LoadSuite(%q) written back reads otherwise (-first +again):\n%s", data, diff)
		}
	})
}

// FuzzLoadQueries checks that any content of eval_queries.json either
// loads, each query holding more than spaces, or fails with
// ErrInvalidSuite naming the file; never a panic.
func FuzzLoadQueries(f *testing.F) {
	f.Add([]byte(`[{"query": "make a chart", "should_trigger": true}, {"query": "hi", "should_trigger": false}]`))
	for _, r := range queryRefusals() {
		if len(r.in) < 1<<16 {
			f.Add([]byte(r.in))
		}
	}
	dir := newSkill(f, "")
	file := filepath.Join(dir, "evals", "eval_queries.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		writeEvals(t, dir, queriesFile, string(data))
		qs, err := LoadQueries(dir)
		if err != nil {
			if !errors.Is(err, ErrInvalidSuite) || !strings.HasPrefix(err.Error(), "invalid evaluation file: "+file) {
				t.Fatalf("LoadQueries(%q) = %v, want ErrInvalidSuite naming the file", data, err)
			}
			return
		}
		if len(qs) == 0 || len(qs) > maxQueries {
			t.Fatalf("LoadQueries(%q) = %d queries", data, len(qs))
		}
		for _, q := range qs {
			if strings.TrimSpace(q.Query) == "" || strings.ContainsRune(q.Query, 0) {
				t.Fatalf("LoadQueries(%q): query %q breaks a rule", data, q.Query)
			}
		}
	})
}
