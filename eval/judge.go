package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	adaptor "github.com/agentadaptor/agentadaptor"
)

// maxJudgeAnswer is the longest judge's answer read, in bytes.
const maxJudgeAnswer = 256 << 10

// maxSearch bounds the search for the grading object in an answer: the
// bytes read from the places it may begin, the last first.
const maxSearch = 2 << 20

// maxListed is the most files of outputs/ the judge's prompt lists.
const maxListed = 100

// judgeRun grades texts, the string expectations of one run, by one run
// of judge in a fresh workspace holding a copy of the run's outputs/ and
// its response.md. It returns one verdict per text, in order; when the
// judge cannot be run, fails, outlasts the judge timeout, or answers
// what does not parse, every verdict is a failure saying why.
func (e *Evaluator) judgeRun(ctx context.Context, judge *Agent, c Case, texts []string, runDir string, res *adaptor.Result) []GradedExpectation {
	fail := func(why string) []GradedExpectation {
		out := make([]GradedExpectation, len(texts))
		for i, t := range texts {
			out[i] = GradedExpectation{Text: t, Evidence: why}
		}
		return out
	}
	if judge.Driver == nil {
		return fail("the judge failed: no driver")
	}
	ws, err := os.MkdirTemp("", "agentskills-judge-")
	if err != nil {
		return fail("the judge failed: its workspace: " + err.Error())
	}
	defer os.RemoveAll(ws)
	files, err := judgeWorkspace(ws, runDir, res)
	if err != nil {
		return fail("the judge failed: its workspace: " + err.Error())
	}
	prompt := judgePrompt(c, texts, files)

	jctx, cancel := context.WithTimeoutCause(ctx, e.cfg.judgeTimeout, errJudgeTimeout)
	defer cancel()
	agent := adaptor.New(judge.Driver, adaptor.WithWorkspace(ws), adaptor.WithSkillMaterializer(e.cfg.materializer))
	r, err := agent.Run(jctx, prompt)
	switch {
	case err != nil && errors.Is(context.Cause(jctx), errJudgeTimeout):
		return fail(fmt.Sprintf("the judge did not answer within %v", e.cfg.judgeTimeout))
	case err != nil:
		return fail("the judge failed: " + err.Error())
	case r.ExitCode != 0:
		return fail(fmt.Sprintf("the judge failed: exit status %d", r.ExitCode))
	}
	verdicts, err := parseJudgeAnswer(r.Text, texts)
	if err != nil {
		return fail(fmt.Sprintf("the judge's answer did not parse: %v (the answer began %q)", err, head(r.Text, 200)))
	}
	return verdicts
}

// head is the first n characters of s.
func head(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// judgeWorkspace fills ws with a copy of runDir/outputs (as outputs/) and
// runDir/response.md (res's text when the run wrote none), and returns
// the files of outputs/, slash-separated, in lexical order.
func judgeWorkspace(ws, runDir string, res *adaptor.Result) ([]string, error) {
	dst, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if err := dst.Mkdir("outputs", 0o755); err != nil {
		return nil, err
	}
	files, err := copyOutputs(dst, filepath.Join(runDir, "outputs"))
	if err != nil {
		return nil, err
	}
	response, err := os.ReadFile(filepath.Join(runDir, "response.md"))
	if errors.Is(err, fs.ErrNotExist) && res != nil {
		response, err = []byte(res.Text), nil
	}
	if err != nil {
		return nil, err
	}
	if err := writeFile(dst, "response.md", bytes.NewReader(response), 0o644); err != nil {
		return nil, err
	}
	return files, nil
}

// copyOutputs copies the folders and regular files below src into
// dst's outputs/, through roots on both, and returns the files'
// slash-separated paths. Anything else (a link, a device) is left out: a
// link could show the judge a file outside the run. A missing src is an
// empty one.
func copyOutputs(dst *os.Root, src string) ([]string, error) {
	root, err := os.OpenRoot(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var files []string
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "." {
			return nil
		}
		rel, err := filepath.Localize(name)
		if err != nil {
			return err
		}
		to := filepath.Join("outputs", rel)
		switch {
		case d.IsDir():
			return dst.Mkdir(to, 0o755)
		case d.Type().IsRegular():
			f, err := root.Open(rel)
			if err != nil {
				return err
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			if !fi.Mode().IsRegular() { // replaced since it was listed
				return nil
			}
			files = append(files, name)
			return writeFile(dst, to, f, fi.Mode().Perm()&0o111|0o644)
		}
		return nil
	})
	return files, err
}

// writeFile creates name in root with r's content.
func writeFile(root *os.Root, name string, r io.Reader, perm fs.FileMode) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// judgePrompt asks the judge to grade texts, the string expectations of
// case c, given the run's files (paths below outputs/).
func judgePrompt(c Case, texts []string, files []string) string {
	var b strings.Builder
	b.WriteString("You are grading one run of an AI agent against a list of expectations. " +
		"Grade only: read the files, change none of them.\n\n")
	b.WriteString("The task the agent was given:\n<task>\n" + c.Prompt + "\n</task>\n\n")
	if c.ExpectedOutput != "" {
		b.WriteString("What a good result looks like:\n<expected_output>\n" + c.ExpectedOutput + "\n</expected_output>\n\n")
	}
	b.WriteString("What the agent produced is in the current folder:\n")
	b.WriteString("- response.md holds the agent's final answer.\n")
	switch {
	case len(files) == 0:
		b.WriteString("- outputs/ is empty: the agent created or changed no file.\n")
	default:
		fmt.Fprintf(&b, "- outputs/ holds the %d files the agent created or changed:\n", len(files))
		for i, f := range files {
			if i == maxListed {
				fmt.Fprintf(&b, "  - ... and %d more\n", len(files)-maxListed)
				break
			}
			b.WriteString("  - outputs/" + f + "\n")
		}
	}
	b.WriteString("\nThe expectations, in order:\n")
	for i, t := range texts {
		fmt.Fprintf(&b, "%d. %s\n", i+1, t)
	}
	b.WriteString(`
How to grade:
- Read response.md and the files in outputs/ before deciding.
- An expectation passes only on concrete evidence: quote the output, or
  name the file and what it holds. Do not give the benefit of the doubt:
  when the evidence is missing, vague or only on the surface (a heading
  with nothing under it, a file with the right name and the wrong
  content), the expectation fails.
- Grade what the files and the answer show, not what the answer claims
  was done. Grade each expectation on its own.

Answer with exactly one JSON object and nothing else: one entry per
expectation, in the order above, "text" copied exactly, "passed" true or
false, "evidence" the quote or fact the verdict rests on:
{"expectations": [
`)
	for i, t := range texts {
		text, _ := json.Marshal(t)
		fmt.Fprintf(&b, `  {"text": %s, "passed": true or false, "evidence": "..."}`, text)
		if i < len(texts)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return b.String()
}

// parseJudgeAnswer reads the judge's answer to the expectations texts:
// one JSON object {"expectations": [{"text", "passed", "evidence"}]},
// the whole answer, or in the answer's one fenced block, or else the
// last object in it that decodes and has an "expectations" field (the
// search reads at most 2 MiB, from the end: an object followed by a
// thousand unclosed braces is out of its reach). The
// object must have one entry per expectation, each with "passed" a JSON
// boolean, "text" (when given) a string and "evidence" (when given)
// text; no field twice. Entry I grades expectation I when each entry's
// text is either empty or the expectation's (compared with spaces
// collapsed, ignoring case); when every text names another expectation
// instead, the entries are matched by text; otherwise the answer does
// not parse. A pass without evidence is a failure: the guide asks for
// concrete evidence.
func parseJudgeAnswer(answer string, texts []string) ([]GradedExpectation, error) {
	if strings.TrimSpace(answer) == "" {
		return nil, errors.New("the answer is empty")
	}
	if len(answer) > maxJudgeAnswer {
		return nil, fmt.Errorf("the answer is longer than %d KiB", maxJudgeAnswer>>10)
	}
	obj, err := findGradingObject(answer)
	if err != nil {
		return nil, err
	}
	entries, err := readEntries(obj)
	if err != nil {
		return nil, err
	}
	if len(entries) != len(texts) {
		return nil, fmt.Errorf("%d entries for %d expectations", len(entries), len(texts))
	}
	order, err := matchEntries(entries, texts)
	if err != nil {
		return nil, err
	}
	out := make([]GradedExpectation, len(texts))
	for i, t := range texts {
		en := entries[order[i]]
		out[i] = GradedExpectation{Text: t, Passed: en.passed, Evidence: truncate(en.evidence)}
		if en.passed && strings.TrimSpace(en.evidence) == "" {
			out[i].Passed = false
			out[i].Evidence = "the judge passed it without evidence"
		}
	}
	return out, nil
}

// findGradingObject finds the grading object in answer (see
// parseJudgeAnswer).
func findGradingObject(answer string) ([]byte, error) {
	s := strings.TrimSpace(answer)
	if hasExpectations([]byte(s)) {
		return []byte(s), nil
	}
	if block, ok := oneFence(s); ok && hasExpectations([]byte(block)) {
		return []byte(block), nil
	}
	budget := maxSearch
	for end := len(s); end > 0 && budget > 0; {
		i := strings.LastIndexByte(s[:end], '{')
		if i < 0 {
			break
		}
		stop, closed := objectEnd(s, i)
		budget -= stop - i
		if closed && hasExpectations([]byte(s[i:stop])) {
			return []byte(s[i:stop]), nil
		}
		end = i
	}
	return nil, errors.New(`no JSON object with an "expectations" field`)
}

// objectEnd is the end of the JSON object that begins at s[i], a '{', as
// its strings and brackets say, and whether it closes before s ends.
func objectEnd(s string, i int) (int, bool) {
	depth, inString, escaped := 0, false, false
	for j := i; j < len(s); j++ {
		c := s[j]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return j + 1, true
			}
		}
	}
	return len(s), false
}

// oneFence is the content of the one fenced block of s (``` or ```json),
// when it has exactly one.
func oneFence(s string) (string, bool) {
	var blocks []string
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		lang := strings.TrimSpace(strings.TrimPrefix(open, "```"))
		if lang != "" && !strings.EqualFold(lang, "json") {
			blocks = append(blocks, "") // another language's block: counted, not read
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		if j == len(lines) {
			return "", false // unclosed
		}
		if lang == "" || strings.EqualFold(lang, "json") {
			blocks = append(blocks, strings.Join(lines[i+1:j], "\n"))
		}
		i = j
	}
	if len(blocks) != 1 {
		return "", false
	}
	return blocks[0], true
}

// hasExpectations reports whether b is exactly one JSON object with an
// "expectations" field.
func hasExpectations(b []byte) bool {
	fields, ok := objectFields(b)
	if !ok {
		return false
	}
	for _, f := range fields {
		if f.key == "expectations" {
			return true
		}
	}
	return false
}

// field is one member of a JSON object.
type field struct {
	key   string
	value json.RawMessage
}

// objectFields reads b, one JSON object and nothing else, into its
// members in order, duplicates kept.
func objectFields(b []byte) ([]field, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var fields []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := t.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		fields = append(fields, field{key, v})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return fields, true
}

// entry is one verdict of the judge's answer.
type entry struct {
	text     string
	passed   bool
	evidence string
}

// readEntries reads the grading object's "expectations".
func readEntries(obj []byte) ([]entry, error) {
	fields, _ := objectFields(obj)
	var list json.RawMessage
	for _, f := range fields {
		if f.key != "expectations" {
			continue
		}
		if list != nil {
			return nil, errors.New(`"expectations" is given twice`)
		}
		list = f.value
	}
	var raws []json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(list), []byte("[")) || json.Unmarshal(list, &raws) != nil {
		return nil, fmt.Errorf(`"expectations" is %s, not a list`, brief(list))
	}
	entries := make([]entry, len(raws))
	for i, raw := range raws {
		en, err := readEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		entries[i] = en
	}
	return entries, nil
}

// readEntry reads one entry: an object with "passed" a boolean, and
// "text" and "evidence" strings when given.
func readEntry(raw json.RawMessage) (entry, error) {
	fields, ok := objectFields(raw)
	if !ok {
		return entry{}, fmt.Errorf("%s is not an object", brief(raw))
	}
	var en entry
	seen := map[string]bool{}
	for _, f := range fields {
		switch f.key {
		case "text", "passed", "evidence":
		default:
			continue // the judge may add its reasoning
		}
		if seen[f.key] {
			return entry{}, fmt.Errorf("%q is given twice", f.key)
		}
		seen[f.key] = true
		v := bytes.TrimSpace(f.value)
		switch f.key {
		case "passed":
			switch string(v) {
			case "true":
				en.passed = true
			case "false":
			default:
				return entry{}, fmt.Errorf(`"passed" is %s, not true or false`, brief(v))
			}
		case "text":
			if json.Unmarshal(v, &en.text) != nil || v[0] != '"' {
				return entry{}, fmt.Errorf(`"text" is %s, not a string`, brief(v))
			}
		case "evidence":
			if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &en.evidence) == nil {
				break
			}
			var compact bytes.Buffer
			if json.Compact(&compact, v) == nil && string(v) != "null" {
				en.evidence = compact.String() // a list of quotes, say: kept as written
			}
		}
	}
	if !seen["passed"] {
		return entry{}, errors.New(`no "passed"`)
	}
	return en, nil
}

// matchEntries returns, for each text, the index of the entry that
// grades it (see parseJudgeAnswer).
func matchEntries(entries []entry, texts []string) ([]int, error) {
	order := make([]int, len(texts))
	mismatch := -1
	for i := range texts {
		order[i] = i
		if entries[i].text != "" && !sameText(entries[i].text, texts[i]) && mismatch < 0 {
			mismatch = i
		}
	}
	if mismatch < 0 {
		return order, nil
	}
	used := make([]bool, len(entries))
	for i, t := range texts {
		found := false
		for j, en := range entries {
			if !used[j] && sameText(en.text, t) {
				order[i], used[j], found = j, true, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("entry %d is for %q, not for expectation %d (%q)",
				mismatch+1, head(entries[mismatch].text, 80), mismatch+1, head(texts[mismatch], 80))
		}
	}
	return order, nil
}

// sameText compares two expectation texts with spaces collapsed,
// ignoring case.
func sameText(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// brief is raw JSON as an error message shows it: at most 40 bytes.
func brief(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "missing"
	}
	if len(v) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		return string(v[:cut]) + "…"
	}
	return string(v)
}
