package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// The input files, in the skill's folder, and their limits (the package
// doc, "The input").
const (
	suiteFile   = "evals/evals.json"
	queriesFile = "evals/eval_queries.json"
	// filesDir is the folder whose files go to a run's workspace at their
	// path below it.
	filesDir = "evals/files/"

	maxInputFile    = 8 << 20
	maxCases        = 1000
	maxExpectations = 100
	maxFiles        = 100
	maxQueries      = 1000
	maxIDLen        = 64
)

// LoadSuite reads and checks skillDir/evals/evals.json (the package doc,
// "The input"). A missing file is an error wrapping [ErrNoEvals] and
// fs.ErrNotExist; any other fault is [ErrInvalidSuite], naming the file,
// the case and the field.
func LoadSuite(skillDir string) (*Suite, error) {
	root, in, err := openInput(skillDir, suiteFile, "Evaluating skill output quality")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return in.suite(root)
}

// LoadQueries reads and checks skillDir/evals/eval_queries.json (the
// package doc, "The input"), as [LoadSuite] does evals.json.
func LoadQueries(skillDir string) ([]Query, error) {
	root, in, err := openInput(skillDir, queriesFile, "Optimizing descriptions")
	if err != nil {
		return nil, err
	}
	root.Close()
	return in.queries()
}

// CheckName reports whether the suite is the skill name's: nil, or an
// error wrapping [ErrInvalidSuite] when skill_name is another name (the
// file was copied from another skill, or the skill renamed). LoadSuite
// does not check it, since the name is the skill's and not the folder's;
// the caller that knows it does.
func (s *Suite) CheckName(name string) error {
	if s.SkillName == name {
		return nil
	}
	return fmt.Errorf("%w: %s: skill_name: %q, but the skill is named %q; write the skill's name", ErrInvalidSuite, suiteFile, s.SkillName, name)
}

// FilePlace returns where file, one of c.Files, goes in a run's
// workspace, slash-separated: a file below evals/files/ at its path below
// that folder (evals/files/data/x.csv is data/x.csv), any other at its
// path in the skill.
func (c Case) FilePlace(file string) string {
	if p, ok := strings.CutPrefix(file, filesDir); ok && p != "" {
		return p
	}
	return file
}

// MarshalJSON writes the id as it was read: a number as its text, a
// string quoted. The zero CaseID, no case, writes null.
func (id CaseID) MarshalJSON() ([]byte, error) {
	switch {
	case id.text == "":
		return []byte("null"), nil
	case id.number:
		return []byte(id.text), nil
	}
	return json.Marshal(id.text)
}

// UnmarshalJSON reads a JSON number of at most 64 characters, kept as
// written, or a string of 1 to 64 letters, digits, dots, dashes and
// underscores, not ending with a dot. Anything else (another JSON type,
// an empty or longer string, another character) is an error wrapping
// [ErrInvalidSuite].
func (id *CaseID) UnmarshalJSON(b []byte) error {
	v, problem := parseCaseID(b)
	if problem != "" {
		return fmt.Errorf("%w: id: %s", ErrInvalidSuite, problem)
	}
	*id = v
	return nil
}

// UnmarshalJSON reads a JSON string, the expectation's Text, or an
// object {"text", "command"}: text a string, required; command, when
// given, a non-empty array of strings whose first is not empty. Anything
// else (another JSON type, an unknown key, an empty text) is an error
// wrapping [ErrInvalidSuite].
func (e *Expectation) UnmarshalJSON(b []byte) error {
	v, field, problem := parseExpectation(b)
	if problem != "" {
		return fmt.Errorf("%w: expectation%s: %s", ErrInvalidSuite, field, problem)
	}
	*e = v
	return nil
}

// parseCaseID reads an id (UnmarshalJSON's rules), or says what is wrong
// with it.
func parseCaseID(b []byte) (CaseID, string) {
	b = bytes.TrimSpace(b)
	switch kind := jsonKind(b); kind {
	case "a number":
		if !json.Valid(b) {
			return CaseID{}, "not a JSON number; give a number or a name"
		}
		if len(b) > maxIDLen {
			return CaseID{}, fmt.Sprintf("a number of %d characters; an id has at most %d", len(b), maxIDLen)
		}
		return CaseID{text: string(b), number: true}, ""
	case "a string":
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return CaseID{}, "not a JSON string; give a number or a name"
		}
		if s == "" {
			return CaseID{}, "empty; give a number or a name of letters, digits, dots, dashes and underscores"
		}
		if len(s) > maxIDLen {
			return CaseID{}, fmt.Sprintf("%d characters; an id has at most %d", len(s), maxIDLen)
		}
		if i := strings.IndexFunc(s, func(r rune) bool { return !idRune(r) }); i >= 0 {
			return CaseID{}, fmt.Sprintf("%q holds %q; an id names a folder, with letters, digits, dots, dashes and underscores only: rename the case", s, []rune(s[i:])[0])
		}
		if strings.HasSuffix(s, ".") {
			return CaseID{}, fmt.Sprintf("%q ends with a dot, which some systems drop from a folder's name; rename the case", s)
		}
		return CaseID{text: s}, ""
	default:
		return CaseID{}, kind + "; give a number or a name of letters, digits, dots, dashes and underscores"
	}
}

// idRune reports whether r may be in a string id.
func idRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '-' || r == '_'
}

// parseExpectation reads an expectation (UnmarshalJSON's rules), or says
// what is wrong with it: field is where below the expectation (".text",
// ".command[2]", or ""), problem what.
func parseExpectation(b []byte) (e Expectation, field, problem string) {
	switch kind := jsonKind(b); kind {
	case "a string":
		s, problem := nonEmpty(b, "say what the result must show")
		return Expectation{Text: s}, "", problem
	case "an object":
	default:
		return Expectation{}, "", kind + `; give a string, or an object {"text", "command": [ARGV...]}`
	}
	obj, dup := objectOf(b)
	if dup != "" {
		return Expectation{}, "", fmt.Sprintf("field %q given twice; keep one", dup)
	}
	if k := unknownKey(obj, "text", "command"); k != "" {
		return Expectation{}, "", fmt.Sprintf(`unknown field %q; an expectation object has text and command`, k)
	}
	raw, ok := obj["text"]
	if !ok {
		return Expectation{}, ".text", "missing; say what the command checks"
	}
	if e.Text, problem = nonEmpty(raw, "say what the command checks"); problem != "" {
		return Expectation{}, ".text", problem
	}
	raw, ok = obj["command"]
	if !ok {
		return e, "", ""
	}
	if kind := jsonKind(raw); kind != "an array" {
		return Expectation{}, ".command", kind + `; give the command as an array of strings, ["evals/check.py"] (a program of the skill) or ["sh", "-c", "python3 \"$SKILL_DIR/evals/check.py\""]`
	}
	var args []json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return Expectation{}, ".command", err.Error()
	}
	if len(args) == 0 {
		return Expectation{}, ".command", `empty; give the program and its arguments, ["evals/check.py"] (a program of the skill) or ["sh", "-c", "python3 \"$SKILL_DIR/evals/check.py\""]`
	}
	e.Command = make([]string, len(args))
	for i, a := range args {
		if e.Command[i], problem = text(a); problem != "" {
			return Expectation{}, fmt.Sprintf(".command[%d]", i), problem
		}
	}
	if strings.TrimSpace(e.Command[0]) == "" {
		return Expectation{}, ".command[0]", "empty; the first string is the program to run"
	}
	return e, "", ""
}

// jsonKind names the JSON type of the value b, as a message does.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch c := b[0]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || '0' <= c && c <= '9':
		return "a number"
	}
	return "not JSON"
}

// text reads the JSON value b as a string, or says why it is none.
func text(b []byte) (string, string) {
	if kind := jsonKind(b); kind != "a string" {
		return "", kind + "; give a string"
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", "not a JSON string; give a string"
	}
	if strings.ContainsRune(s, 0) {
		return "", "holds a NUL character; remove it"
	}
	return s, ""
}

// nonEmpty reads b as text does, and refuses a string of spaces alone,
// saying what to do.
func nonEmpty(b []byte, todo string) (string, string) {
	s, problem := text(b)
	if problem == "" && strings.TrimSpace(s) == "" {
		problem = "empty; " + todo
	}
	return s, problem
}

// objectOf reads b, a JSON object, as its fields; dup is a key given
// twice in it ("" for none).
func objectOf(b []byte) (obj map[string]json.RawMessage, dup string) {
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, ""
	}
	if p := duplicateKey(b); len(p) == 1 {
		dup, _ = p[0].(string)
	}
	return obj, dup
}

// unknownKey returns the first key of obj, in sorted order, that is not
// one of known; "" for none.
func unknownKey(obj map[string]json.RawMessage, known ...string) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return slices.Min(keys)
}

// input is one input file read: its path as messages name it, and its
// content.
type input struct {
	path string
	data []byte
}

// openInput opens skillDir as a root and reads name in it.
func openInput(skillDir, name, guide string) (*os.Root, *input, error) {
	in := &input{path: filepath.Join(skillDir, filepath.FromSlash(name))}
	missing := func() error {
		return fmt.Errorf("%s: %w: %w; write it, as the Agent Skills guide %q shows", in.path, ErrNoEvals, fs.ErrNotExist, guide)
	}
	root, err := os.OpenRoot(skillDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, missing()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: the skill's folder cannot be opened: %v", ErrInvalidSuite, in.path, err)
	}
	in.data, err = readfile.InRoot(root, filepath.FromSlash(name), maxInputFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = missing()
	case errors.Is(err, readfile.ErrTooLarge):
		err = in.fileErrorf("larger than %d bytes (8 MiB); keep the evaluations smaller", maxInputFile)
	case errors.Is(err, readfile.ErrNotRegular):
		err = in.fileErrorf("%v; it must be a regular file inside the skill's folder", err)
	case err != nil:
		err = in.fileErrorf("it cannot be read inside the skill's folder (a link out of it?): %v", err)
	}
	if err != nil {
		root.Close()
		return nil, nil, err
	}
	return root, in, nil
}

// fileErrorf is a fault of the whole file.
func (in *input) fileErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidSuite, in.path, fmt.Sprintf(format, args...))
}

// errorf is a fault at place in the file.
func (in *input) errorf(place, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s: %s", ErrInvalidSuite, in.path, place, fmt.Sprintf(format, args...))
}

// decode checks that in's content is one JSON value and nothing after
// it, with no object holding a key twice, and returns the value; label
// names a case's place for a duplicate key's message.
func (in *input) decode(label func(path []any) string) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(in.data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		switch {
		case err == io.EOF:
			return nil, in.fileErrorf("empty; write a JSON value")
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%w: %s:%d: not JSON: %v", ErrInvalidSuite, in.path, in.line(syn.Offset), err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, in.fileErrorf("not JSON: the file ends inside its value")
		}
		return nil, in.fileErrorf("not JSON: %v", err)
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		for off < int64(len(in.data)) && strings.IndexByte(" \t\r\n", in.data[off]) >= 0 {
			off++
		}
		return nil, fmt.Errorf("%w: %s:%d: data after the JSON value; the file holds one value alone", ErrInvalidSuite, in.path, in.line(off+1))
	}
	if p := duplicateKey(v); p != nil {
		return nil, in.errorf(label(p), "given twice; keep one")
	}
	return v, nil
}

// line returns the line of the byte at offset off (from 1: the offset
// after it, as json.SyntaxError gives).
func (in *input) line(off int64) int {
	off = min(max(off-1, 0), int64(len(in.data)))
	return 1 + bytes.Count(in.data[:off], []byte{'\n'})
}

// duplicateKey returns the place of the first key given twice in one
// object of b, which is valid JSON, as the keys and indexes that lead to
// it; nil for none. It walks the tokens with a stack of its own, so a
// deep value takes no deep recursion.
func duplicateKey(b []byte) []any {
	type frame struct {
		object  bool
		seen    map[string]bool
		key     string // the current key of an object
		wantKey bool
		index   int // the current index of an array
	}
	var stack []*frame
	place := func(last string) []any {
		p := make([]any, 0, len(stack))
		for _, f := range stack[:len(stack)-1] {
			if f.object {
				p = append(p, f.key)
			} else {
				p = append(p, f.index)
			}
		}
		return append(p, last)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if k, ok := tok.(string); ok {
				if top.seen[k] {
					return place(k)
				}
				top.seen[k], top.key, top.wantKey = true, k, false
				continue
			}
			// The object's '}'.
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		if top != nil && !top.object {
			if d, ok := tok.(json.Delim); ok && d == ']' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			top.index++
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, seen: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{index: -1})
		default:
			if top != nil && top.object {
				top.wantKey = true
			}
		}
	}
}

// pathText writes a place as a message does: keys after dots, indexes in
// brackets (evals[2].files[0]).
func pathText(p []any) string {
	return strings.TrimPrefix(pathSuffix(p), ".")
}

// pathSuffix writes a place below another: .files[0].
func pathSuffix(p []any) string {
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", e)
		case string:
			b.WriteByte('.')
			b.WriteString(e)
		}
	}
	return b.String()
}

// suite checks in as evals.json, with the files its cases name in root.
func (in *input) suite(root *os.Root) (*Suite, error) {
	var cases []json.RawMessage // for a duplicate key's label
	label := func(p []any) string {
		if len(p) >= 2 && p[0] == "evals" {
			if i, ok := p[1].(int); ok {
				return caseLabel(i, idOf(cases, i)) + pathSuffix(p[2:])
			}
		}
		return pathText(p)
	}
	top, err := in.decode(func(p []any) string {
		var obj map[string]json.RawMessage
		if json.Unmarshal(in.data, &obj) == nil {
			json.Unmarshal(obj["evals"], &cases)
		}
		return label(p)
	})
	if err != nil {
		return nil, err
	}
	if kind := jsonKind(top); kind != "an object" {
		return nil, in.fileErrorf(`%s; write an object {"skill_name": NAME, "evals": [CASE...]}`, kind)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(top, &obj); err != nil {
		return nil, in.fileErrorf("not JSON: %v", err)
	}
	if k := unknownKey(obj, "skill_name", "evals"); k != "" {
		return nil, in.errorf(strconv.Quote(k), "unknown field; the file has skill_name and evals")
	}
	s := &Suite{}
	raw, ok := obj["skill_name"]
	if !ok {
		return nil, in.errorf("skill_name", "missing; give the skill's name")
	}
	var problem string
	if s.SkillName, problem = nonEmpty(raw, "give the skill's name"); problem != "" {
		return nil, in.errorf("skill_name", "%s", problem)
	}
	raw, ok = obj["evals"]
	if !ok {
		return nil, in.errorf("evals", "missing; give the cases, [{\"id\": 1, \"prompt\": ...}]")
	}
	if kind := jsonKind(raw); kind != "an array" {
		return nil, in.errorf("evals", "%s; give the cases as an array, [{\"id\": 1, \"prompt\": ...}]", kind)
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		return nil, in.errorf("evals", "not JSON: %v", err)
	}
	switch {
	case len(cases) == 0:
		return nil, in.errorf("evals", "empty; give at least one case")
	case len(cases) > maxCases:
		return nil, in.errorf("evals", "%d cases; at most %d are run: keep the ones that tell most", len(cases), maxCases)
	}
	s.Evals = make([]Case, len(cases))
	folders := map[string]int{} // by the id's folded text
	for i, raw := range cases {
		if s.Evals[i], err = in.parseCase(root, i, raw); err != nil {
			return nil, err
		}
		id := s.Evals[i].ID
		if j, ok := folders[strings.ToLower(id.text)]; ok {
			why := ""
			if s.Evals[j].ID.text != id.text {
				why = " (names differing in case alone are one folder on some systems)"
			}
			return nil, in.errorf(caseLabel(i, id)+".id", "names the folder of evals[%d] (id %s), eval-%s%s; give each case its own id", j, s.Evals[j].ID, id, why)
		}
		folders[strings.ToLower(id.text)] = i
	}
	return s, nil
}

// idOf returns the id of cases[i], zero when there is none to read.
func idOf(cases []json.RawMessage, i int) CaseID {
	if i >= len(cases) {
		return CaseID{}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(cases[i], &obj) != nil {
		return CaseID{}
	}
	id, _ := parseCaseID(obj["id"])
	return id
}

// caseLabel names the case at index i of evals, with its id when it has
// one: evals[I] (id ID).
func caseLabel(i int, id CaseID) string {
	if id.text == "" {
		return fmt.Sprintf("evals[%d]", i)
	}
	return fmt.Sprintf("evals[%d] (id %s)", i, id.text)
}

// parseCase checks the case raw at index i of evals.
func (in *input) parseCase(root *os.Root, i int, raw json.RawMessage) (Case, error) {
	var c Case
	at := caseLabel(i, c.ID)
	if kind := jsonKind(raw); kind != "an object" {
		return c, in.errorf(at, `%s; a case is an object {"id", "prompt", "expected_output", "files", "expectations"}`, kind)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return c, in.errorf(at, "not JSON: %v", err)
	}
	rawID, ok := obj["id"]
	if !ok {
		return c, in.errorf(at+".id", "missing; give a number or a name of letters, digits, dots, dashes and underscores")
	}
	var problem string
	if c.ID, problem = parseCaseID(rawID); problem != "" {
		return c, in.errorf(at+".id", "%s", problem)
	}
	at = caseLabel(i, c.ID)
	if k := unknownKey(obj, "id", "prompt", "expected_output", "files", "expectations"); k != "" {
		return c, in.errorf(at+"."+strconv.Quote(k), "unknown field; a case has id, prompt, expected_output, files and expectations")
	}
	raw, ok = obj["prompt"]
	if !ok {
		return c, in.errorf(at+".prompt", "missing; give the task the agent is asked")
	}
	if c.Prompt, problem = nonEmpty(raw, "give the task the agent is asked"); problem != "" {
		return c, in.errorf(at+".prompt", "%s", problem)
	}
	if raw, ok := obj["expected_output"]; ok {
		if c.ExpectedOutput, problem = text(raw); problem != "" {
			return c, in.errorf(at+".expected_output", "%s", problem)
		}
	}
	if raw, ok := obj["files"]; ok {
		var files []json.RawMessage
		if kind := jsonKind(raw); kind != "an array" || json.Unmarshal(raw, &files) != nil {
			return c, in.errorf(at+".files", `%s; give the paths as an array, ["evals/files/data.csv"]`, kind)
		}
		if len(files) > maxFiles {
			return c, in.errorf(at+".files", "%d files; a case has at most %d", len(files), maxFiles)
		}
		for k, f := range files {
			if k == 0 {
				c.Files = make([]string, len(files)) // none is nil, as when left out
			}
			field := fmt.Sprintf("%s.files[%d]", at, k)
			if c.Files[k], problem = text(f); problem != "" {
				return c, in.errorf(field, "%s", problem)
			}
			if problem = checkCaseFile(root, c.Files[k]); problem != "" {
				return c, in.errorf(field, "%q: %s", c.Files[k], problem)
			}
		}
		if k, j := clash(c); k >= 0 {
			return c, in.errorf(fmt.Sprintf("%s.files[%d]", at, k), "%q goes to %s in the run's workspace, which clashes with files[%d] (%q, at %s); keep one, or move one", c.Files[k], c.FilePlace(c.Files[k]), j, c.Files[j], c.FilePlace(c.Files[j]))
		}
	}
	if raw, ok := obj["expectations"]; ok {
		var exps []json.RawMessage
		if kind := jsonKind(raw); kind != "an array" || json.Unmarshal(raw, &exps) != nil {
			return c, in.errorf(at+".expectations", `%s; give them as an array, ["The output includes ..."]`, kind)
		}
		if len(exps) > maxExpectations {
			return c, in.errorf(at+".expectations", "%d expectations; a case has at most %d", len(exps), maxExpectations)
		}
		for k, e := range exps {
			if k == 0 {
				c.Expectations = make([]Expectation, len(exps))
			}
			var field string
			if c.Expectations[k], field, problem = parseExpectation(e); problem != "" {
				return c, in.errorf(fmt.Sprintf("%s.expectations[%d]%s", at, k, field), "%s", problem)
			}
		}
	}
	return c, nil
}

// checkCaseFile says what is wrong with name as a file of a case: a clean
// relative slash-separated path, inside the skill's folder (root), to a
// regular file; "" when nothing is.
func checkCaseFile(root *os.Root, name string) string {
	switch {
	case name == "":
		return "empty; give a path inside the skill's folder, as evals/files/data.csv"
	case strings.Contains(name, `\`):
		return "holds a backslash; write the path with slashes"
	case strings.Contains(name, ":"):
		return "holds a colon, which no portable file name does; rename the file"
	case path.IsAbs(name):
		return "absolute; give a path relative to the skill's folder"
	case slices.Contains(strings.Split(name, "/"), ".."):
		return "leads out of the skill's folder (..); copy the file into the skill"
	case !fs.ValidPath(name) || name == ".":
		return "not a clean path (an empty or . element, or a slash at its end); write it as evals/files/data.csv"
	}
	fi, err := root.Lstat(filepath.FromSlash(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file in the skill's folder; add it or fix the path"
	case err != nil:
		return fmt.Sprintf("it cannot be read inside the skill's folder (a link out of it?): %v", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symbolic link; put the file it names in its place"
	case fi.IsDir():
		return "a folder; list the files in it one by one"
	case !fi.Mode().IsRegular():
		return "not a regular file; give a regular file"
	}
	return ""
}

// clash returns two files of c that cannot both be in a run's workspace
// (one place twice, or a file where the other needs a folder; case
// aside, since some systems ignore it), k the later; -1, -1 for none.
func clash(c Case) (k, j int) {
	files := map[string]int{}   // by the folded place
	folders := map[string]int{} // the folders the places need, by their folded path
	for k, f := range c.Files {
		p := strings.ToLower(c.FilePlace(f))
		if j, ok := files[p]; ok {
			return k, j
		}
		if j, ok := folders[p]; ok {
			return k, j
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if j, ok := files[d]; ok {
				return k, j
			}
			if _, ok := folders[d]; !ok {
				folders[d] = k
			}
		}
		files[p] = k
	}
	return -1, -1
}

// queries checks in as eval_queries.json.
func (in *input) queries() ([]Query, error) {
	top, err := in.decode(pathText)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if kind := jsonKind(top); kind != "an array" || json.Unmarshal(top, &items) != nil {
		return nil, in.fileErrorf(`%s; write an array of queries, [{"query": TEXT, "should_trigger": true}]`, kind)
	}
	switch {
	case len(items) == 0:
		return nil, in.fileErrorf("no query; give at least one")
	case len(items) > maxQueries:
		return nil, in.fileErrorf("%d queries; at most %d are run: keep the ones that tell most", len(items), maxQueries)
	}
	qs := make([]Query, len(items))
	for i, raw := range items {
		at := fmt.Sprintf("[%d]", i)
		var obj map[string]json.RawMessage
		if kind := jsonKind(raw); kind != "an object" || json.Unmarshal(raw, &obj) != nil {
			return nil, in.errorf(at, `%s; a query is an object {"query", "should_trigger"}`, kind)
		}
		if k := unknownKey(obj, "query", "should_trigger"); k != "" {
			return nil, in.errorf(at+"."+strconv.Quote(k), "unknown field; a query has query and should_trigger")
		}
		raw, ok := obj["query"]
		if !ok {
			return nil, in.errorf(at+".query", "missing; give the user's message")
		}
		var problem string
		if qs[i].Query, problem = nonEmpty(raw, "give the user's message"); problem != "" {
			return nil, in.errorf(at+".query", "%s", problem)
		}
		raw, ok = obj["should_trigger"]
		if !ok {
			return nil, in.errorf(at+".should_trigger", "missing; say true when the skill should be used for the query, false when not")
		}
		if kind := jsonKind(raw); kind != "a boolean" || json.Unmarshal(raw, &qs[i].ShouldTrigger) != nil {
			return nil, in.errorf(at+".should_trigger", "%s; give true or false", kind)
		}
	}
	return qs, nil
}
