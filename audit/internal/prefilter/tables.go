package prefilter

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The tables of a filter, as text: what [New] reads from the
// expressions' syntax trees, so that [Load] builds the same filter
// without reading them, at a small part of the cost. A program that
// builds one filter of fixed expressions at each start (the audit) keeps
// its tables in a file generated beside the expressions.
//
// The text may begin with comment lines, each beginning with # (Tables
// writes none; a file of tables says in them what wrote it). Then comes a
// line naming the format, tablesHeader, and seven lines for each
// expression, in order, each a key and its value after a space:
//
//	expr PATTERN              the expression's pattern, quoted (strconv.Quote)
//	cond CONDITION            its condition, as Filter.Condition writes it
//	starts SLACK STRING...    the strings its matches start with, SLACK bytes before one at most
//	stops STRING...           the strings its matches end with
//	anchors SLACK STRING...   the strings every match holds at most SLACK bytes after its start
//	local BOOL                whether it is local (Filter.Local)
//	exact WORD...             the strings it matches exactly, in its order of preference
//
// A STRING is quoted; a WORD is a quoted string with \b before or after
// it where it has a word boundary there; an empty list is not known.

// tablesHeader is the line that begins the tables: the format's name
// and version, which changes with the format.
const tablesHeader = "prefilter tables 1"

// Tables returns the text of f's tables, from which [Load] builds f
// again.
func (f *Filter) Tables() string {
	var b strings.Builder
	b.WriteString(tablesHeader + "\n")
	for i, c := range f.conds {
		fmt.Fprintf(&b, "expr %s\ncond %s\n", strconv.Quote(f.patterns[i]), c)
		fmt.Fprintf(&b, "starts %d", f.slack[i])
		for _, id := range f.starts[i] {
			b.WriteString(" " + strconv.Quote(f.strs[id]))
		}
		b.WriteString("\nstops")
		for _, id := range f.stops[i] {
			b.WriteString(" " + strconv.Quote(f.strs[id]))
		}
		fmt.Fprintf(&b, "\nanchors %d", f.anchorSlack[i])
		for _, s := range f.anchors[i] {
			b.WriteString(" " + strconv.Quote(s))
		}
		fmt.Fprintf(&b, "\nlocal %t\nexact", f.local[i])
		for _, w := range f.exact[i] {
			b.WriteString(" " + (&cond{op: opWord, word: w.word}).String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Load returns the filter of the expressions of patterns from tables,
// the text [Filter.Tables] wrote of the filter New built of them: the
// filter New returns, though the expressions need not be compiled. It
// fails when tables are not such a text, or were written of other
// expressions (a pattern differs) or in another format.
func Load(patterns []string, tables string) (*Filter, error) {
	ts, err := readTables(tables)
	if err != nil {
		return nil, fmt.Errorf("invalid tables: %w", err)
	}
	if len(ts) != len(patterns) {
		return nil, fmt.Errorf("tables of %d expressions, not %d", len(ts), len(patterns))
	}
	for i, p := range patterns {
		if ts[i].pattern != p {
			return nil, fmt.Errorf("expression %d: the tables are of %q, not %q", i, ts[i].pattern, p)
		}
	}
	return build(ts)
}

// readTables reads the text of tables.
func readTables(text string) ([]exprTables, error) {
	n := 1 // the line number
	header, text, _ := strings.Cut(text, "\n")
	for strings.HasPrefix(header, "#") {
		header, text, _ = strings.Cut(text, "\n")
		n++
	}
	if header != tablesHeader {
		return nil, fmt.Errorf("line %d: %q, want %q", n, header, tablesHeader)
	}
	n++
	var ts []exprTables
	keys := [...]string{"expr", "cond", "starts", "stops", "anchors", "local", "exact"}
	for text != "" {
		var t exprTables
		for _, key := range keys {
			var l string
			l, text, _ = strings.Cut(text, "\n")
			v, ok := strings.CutPrefix(l, key)
			if ok && v != "" {
				v, ok = strings.CutPrefix(v, " ")
			}
			var err error
			switch {
			case !ok:
				err = fmt.Errorf("want %s", key)
			case key == "expr":
				t.pattern, err = strconv.Unquote(v)
			case key == "cond":
				t.cond, err = readCond(v)
			case key == "starts":
				t.slack, t.starts, err = readSlack(v)
			case key == "stops":
				t.stops, err = readStrings(v)
			case key == "anchors":
				t.anchorSlack, t.anchors, err = readSlack(v)
			case key == "local":
				t.local, err = strconv.ParseBool(v)
			case key == "exact":
				t.exact, err = readWords(v)
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			n++
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// readSlack reads a number and a list of strings.
func readSlack(v string) (int, []string, error) {
	num, rest, _ := strings.Cut(v, " ")
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, nil, err
	}
	strs, err := readStrings(rest)
	return n, strs, err
}

// readStrings reads a list of quoted strings.
func readStrings(v string) ([]string, error) {
	ws, err := readWords(v)
	var out []string
	for _, w := range ws {
		if w.wb || w.wa {
			return nil, fmt.Errorf("a word boundary in a list of strings")
		}
		out = append(out, w.s)
	}
	return out, err
}

// readWords reads a list of words.
func readWords(v string) ([]word, error) {
	var out []word
	for v != "" {
		c, rest, err := readWord(v)
		if err != nil {
			return nil, err
		}
		out = append(out, c.word)
		v = strings.TrimPrefix(rest, " ")
	}
	return out, nil
}

// readWord reads the word at the start of v, a string quoted with \b
// before or after it, as a condition, and returns the rest of v.
func readWord(v string) (c *cond, rest string, err error) {
	c = &cond{op: opWord}
	v, c.word.wb = strings.CutPrefix(v, `\b`)
	q, s, ok := plainQuoted(v)
	if !ok {
		if q, err = strconv.QuotedPrefix(v); err != nil {
			return nil, "", fmt.Errorf("%q: a quoted string: %w", v, err)
		}
		if s, err = strconv.Unquote(q); err != nil {
			return nil, "", err
		}
	}
	c.word.s = s
	if c.word.s == "" {
		return nil, "", fmt.Errorf("an empty string")
	}
	rest, c.word.wa = strings.CutPrefix(v[len(q):], `\b`)
	return c, rest, nil
}

// plainQuoted reads the double-quoted string at the start of v when it
// holds no escape (nearly every string of the tables): q is it quoted,
// s its text, a part of v (no copy), as strconv.QuotedPrefix and
// strconv.Unquote give them; ok is false for any other v, which they
// read.
func plainQuoted(v string) (q, s string, ok bool) {
	if !strings.HasPrefix(v, `"`) {
		return "", "", false
	}
	end := strings.IndexByte(v[1:], '"')
	if end < 0 {
		return "", "", false
	}
	s = v[1 : 1+end]
	if strings.ContainsAny(s, "\\\n") || !utf8.ValidString(s) {
		return "", "", false
	}
	return v[:end+2], s, true
}

// readCond reads a condition as cond.String writes it.
func readCond(v string) (*cond, error) {
	c, rest, err := readCondPrefix(v)
	if err == nil && rest != "" {
		err = fmt.Errorf("%q after the condition", rest)
	}
	return c, err
}

// readCondPrefix reads the condition at the start of v and returns the
// rest of v.
func readCondPrefix(v string) (*cond, string, error) {
	switch {
	case strings.HasPrefix(v, "true"):
		return condTrue, v[len("true"):], nil
	case strings.HasPrefix(v, "false"):
		return condFalse, v[len("false"):], nil
	case strings.HasPrefix(v, "newline"):
		return &cond{op: opNewline}, v[len("newline"):], nil
	case !strings.HasPrefix(v, "("):
		return readWord(v)
	}
	var kids []*cond
	var op condOp // opAnd or opOr, once read
	for rest := v[1:]; ; {
		k, r, err := readCondPrefix(rest)
		if err != nil {
			return nil, "", err
		}
		kids = append(kids, k)
		if r, ok := strings.CutPrefix(r, ")"); ok {
			if len(kids) < 2 {
				return nil, "", fmt.Errorf("an AND or OR of one condition")
			}
			return &cond{op: op, kids: kids}, r, nil
		}
		next, ok := opAnd, false
		rest, ok = strings.CutPrefix(r, " AND ")
		if !ok {
			next = opOr
			if rest, ok = strings.CutPrefix(r, " OR "); !ok {
				return nil, "", fmt.Errorf("%q: want AND, OR or )", r)
			}
		}
		if len(kids) > 1 && next != op {
			return nil, "", fmt.Errorf("AND and OR in one list")
		}
		op = next
	}
}
