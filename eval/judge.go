package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
// what does not parse, every verdict is a failure saying why. final is
// false when that failure may pass another time (every one but an
// answer that does not parse, which is that judge's verdict).
func (e *Evaluator) judgeRun(ctx context.Context, judge *Agent, c Case, texts []string, runDir string, res *adaptor.Result) (verdicts []GradedExpectation, final bool) {
	fail := func(why string) []GradedExpectation {
		out := make([]GradedExpectation, len(texts))
		for i, t := range texts {
			out[i] = GradedExpectation{Text: t, Evidence: why}
		}
		return out
	}
	if judge.Driver == nil {
		return fail("the judge failed: no driver"), false
	}
	ws, err := os.MkdirTemp("", "agentskills-judge-")
	if err != nil {
		return fail("the judge failed: its workspace: " + err.Error()), false
	}
	defer removeWorkspace(ws) // whatever the judge did to its permissions
	files, err := judgeWorkspace(ws, runDir, res)
	if err != nil {
		return fail("the judge failed: its workspace: " + err.Error()), false
	}
	prompt := judgePrompt(c, texts, files)

	jctx, cancel := context.WithTimeoutCause(ctx, e.cfg.judgeTimeout, errJudgeTimeout)
	defer cancel()
	agent := adaptor.New(judge.Driver, adaptor.WithWorkspace(ws), adaptor.WithSkillMaterializer(e.cfg.materializer))
	r, err := agent.Run(jctx, prompt)
	switch {
	case err != nil && errors.Is(context.Cause(jctx), errJudgeTimeout):
		return fail(fmt.Sprintf("the judge did not answer within %v", e.cfg.judgeTimeout)), false
	case err != nil:
		return fail("the judge failed: " + err.Error()), false
	case r.ExitCode != 0:
		return fail(fmt.Sprintf("the judge failed: exit status %d", r.ExitCode)), false
	}
	verdicts, err = parseJudgeAnswer(r.Text, texts)
	if err != nil {
		return fail(fmt.Sprintf("the judge's answer did not parse: %v (the answer began %q)", err, cutUTF8(r.Text, 200))), true
	}
	return verdicts, true
}

// judgeWorkspace fills ws with a copy of runDir/outputs (as outputs/) and
// runDir/response.md (res's text when the run wrote none), and returns
// the files of outputs/, slash-separated, in lexical order.
func judgeWorkspace(ws, runDir string, res *adaptor.Result) ([]string, error) {
	files, err := copyOutputsTo(ws, filepath.Join(runDir, "outputs"))
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
	dst, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if _, err := writeIn(dst, "response.md", bytes.NewReader(response), -1, 0o644); err != nil {
		return nil, err
	}
	return files, nil
}

// copyOutputsTo copies the run's outputs folder src to ws/outputs, a
// folder it creates (see copyOutputs): the judge's copy, and the
// commands' (OUTPUTS_DIR), so that neither can change the run's files.
func copyOutputsTo(ws, src string) ([]string, error) {
	dst, err := os.OpenRoot(ws)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if err := dst.Mkdir("outputs", 0o755); err != nil {
		return nil, err
	}
	return copyOutputs(dst, src)
}

// copyOutputs copies the folders and regular files below src into
// dst's outputs/, through roots on both (see copyTree), and returns the
// files' slash-separated paths. Anything else (a link, a device) is
// left out: a link could show the judge a file outside the run. A
// missing src is an empty one.
func copyOutputs(dst *os.Root, src string) ([]string, error) {
	root, err := os.OpenRoot(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return copyTree(context.Background(), root, dst, treeCopy{under: "outputs", folders: true})
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
		// The names are the agent's: each is a JSON string, so that
		// none can write a line of this prompt.
		fmt.Fprintf(&b, "- outputs/ holds the %d files the agent created or changed, named in <files> below, one JSON string a line:\n<files>\n", len(files))
		for i, f := range files {
			if i == maxListed {
				fmt.Fprintf(&b, "... and %d more\n", len(files)-maxListed)
				break
			}
			name, _ := json.Marshal("outputs/" + f)
			b.Write(append(name, '\n'))
		}
		b.WriteString("</files>\n")
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
// the whole answer or a part of it (in a fenced block or in prose). The
// answer must hold exactly one such object, not counting one inside
// another, or several the same: two different ones (the judge's and
// one it quotes from the run, say) do not tell which is the judge's.
// The search is bounded (gradingObjects). The object must give no key
// twice, and have one entry per expectation, each with "passed" a JSON
// boolean and "text" (when given) a string. Entry I grades expectation
// I when each entry's text is either empty or the expectation's
// (compared with spaces collapsed, ignoring case); when every text
// names another expectation instead, the entries are matched by text;
// otherwise the answer does not parse. A pass needs evidence: a string,
// or a list of strings (joined with "; "), with more than spaces; any
// other "evidence" is none, and a pass without evidence is a failure.
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
		out[i] = GradedExpectation{Text: t, Passed: en.passed, Evidence: clip(en.evidence, maxEvidence)}
		if en.passed && strings.TrimSpace(en.evidence) == "" {
			out[i].Passed = false
			out[i].Evidence = "the judge passed it without evidence"
		}
	}
	return out, nil
}

// errTangled is an answer whose search for the grading object would
// cost more than maxSearch.
var errTangled = fmt.Errorf("the answer is too tangled to search (more than %d MiB of reading)", maxSearch>>20)

// findGradingObject finds the grading object in answer (see
// parseJudgeAnswer).
func findGradingObject(answer string) ([]byte, error) {
	objs, err := gradingObjects(answer)
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return nil, errors.New(`no JSON object with an "expectations" field`)
	}
	for _, o := range objs[1:] {
		if !sameJSON(o, objs[0]) {
			return nil, fmt.Errorf(`%d different JSON objects with an "expectations" field: give one`, len(objs))
		}
	}
	return objs[0], nil
}

// sameJSON reports whether a and b are one JSON text, spaces aside.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// gradingObjects returns the JSON objects of s that have an
// "expectations" field, from the first, leaving out those inside one
// found: each '{' of s is taken for the start of an object, which ends
// where its strings and brackets say (objectEnd). The ends are found
// from the last '{' to the first, each scan stopping at a '{' already
// scanned (an object inside it, skipped whole, or one that never
// closes, and so neither does this one), so that a flood of unclosed
// braces costs little; the bytes scanned and the bytes of the
// candidates decoded are bounded by maxSearch, past which the answer
// does not parse (errTangled).
func gradingObjects(s string) ([][]byte, error) {
	budget := maxSearch
	ends := map[int]int{} // a '{' -> the end of its object, or -1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != '{' {
			continue
		}
		end, cost := objectEndMemo(s, i, ends)
		if budget -= cost; budget < 0 {
			return nil, errTangled
		}
		ends[i] = end
	}
	var objs [][]byte
	for i := 0; i < len(s); i++ {
		end, ok := ends[i]
		if !ok || end < 0 || !strings.Contains(s[i:end], `"expectations"`) {
			continue
		}
		if budget -= end - i; budget < 0 {
			return nil, errTangled
		}
		if hasExpectations([]byte(s[i:end])) {
			objs = append(objs, []byte(s[i:end]))
			i = end - 1 // the objects inside it are its own
		}
	}
	return objs, nil
}

// objectEndMemo is objectEnd(s, i), -1 when the object does not close,
// reading ends, the ends of the objects that begin after i: a '{'
// reached outside a string begins an object whose end is known (skipped
// to), or that never closes (and then neither does the one at i). cost
// is the bytes read.
func objectEndMemo(s string, i int, ends map[int]int) (end, cost int) {
	depth, inString, escaped := 0, false, false
	for j := i; j < len(s); j++ {
		cost++
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
		case c == '{' && j > i:
			e, known := ends[j]
			switch {
			case !known:
				depth++ // not reached by the scan from the end: cannot be
			case e < 0:
				return -1, cost
			default:
				j = e - 1 // depth is back where it was at e
			}
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return j + 1, cost
			}
		}
	}
	return -1, cost
}

// objectEnd is the end of the JSON object that begins at s[i], a '{', as
// its strings and brackets say, and whether it closes before s ends.
func objectEnd(s string, i int) (int, bool) {
	end, _ := objectEndMemo(s, i, nil)
	if end < 0 {
		return len(s), false
	}
	return end, true
}

// hasExpectations reports whether b is exactly one JSON object with an
// "expectations" field.
func hasExpectations(b []byte) bool {
	var fields map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) || json.Unmarshal(b, &fields) != nil {
		return false
	}
	_, ok := fields["expectations"]
	return ok
}

// entry is one verdict of the judge's answer.
type entry struct {
	text     string
	passed   bool
	evidence string
}

// readEntries reads the grading object's "expectations", refusing a key
// given twice anywhere in the object.
func readEntries(obj []byte) ([]entry, error) {
	if p := duplicateKey(obj); p != nil {
		return nil, duplicateError(p)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil {
		return nil, err // hasExpectations read it
	}
	list := fields["expectations"]
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

// duplicateError says where the grading object gives a key twice, p
// as duplicateKey returns it.
func duplicateError(p []any) error {
	prefix := ""
	if len(p) >= 3 && p[0] == "expectations" {
		if i, ok := p[1].(int); ok {
			prefix, p = fmt.Sprintf("entry %d: ", i+1), p[2:]
		}
	}
	var b strings.Builder
	for i, x := range p {
		if i > 0 {
			b.WriteString(".")
		}
		switch x := x.(type) {
		case string:
			b.WriteString(strconv.Quote(x))
		default:
			fmt.Fprintf(&b, "[%v]", x)
		}
	}
	return fmt.Errorf("%s%s is given twice", prefix, b.String())
}

// readEntry reads one entry: an object with "passed" a boolean, "text" a
// string when given, and "evidence" (see evidenceText).
func readEntry(raw json.RawMessage) (entry, error) {
	var fields map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) || json.Unmarshal(raw, &fields) != nil {
		return entry{}, fmt.Errorf("%s is not an object", brief(raw))
	}
	var en entry
	v, ok := fields["passed"]
	if !ok {
		return entry{}, errors.New(`no "passed"`)
	}
	switch string(bytes.TrimSpace(v)) {
	case "true":
		en.passed = true
	case "false":
	default:
		return entry{}, fmt.Errorf(`"passed" is %s, not true or false`, brief(v))
	}
	if v, ok := fields["text"]; ok {
		if v = bytes.TrimSpace(v); len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &en.text) != nil {
			return entry{}, fmt.Errorf(`"text" is %s, not a string`, brief(v))
		}
	}
	en.evidence = evidenceText(fields["evidence"])
	return en, nil
}

// evidenceText is an entry's "evidence": a string, or the strings of a
// list of strings with more than spaces, joined with "; ". Anything
// else (a number, a boolean, an object, null, a list holding another
// value) is no evidence: "".
func evidenceText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(v, &list) != nil || bytes.HasPrefix(bytes.TrimSpace(v), []byte("null")) {
		return ""
	}
	var kept []string
	for _, x := range list {
		if strings.TrimSpace(x) != "" {
			kept = append(kept, x)
		}
	}
	return strings.Join(kept, "; ")
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
				mismatch+1, clip(entries[mismatch].text, 80), mismatch+1, clip(texts[mismatch], 80))
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
	return clip(string(v), 40)
}
