package audit

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// anchoredMin is the length of a text from which an expression is
// asked at the places a match of it can start rather than over the
// whole text: the regexp package runs an expression over a long text
// with its slowest engine, a piece of a long line is up to 64 KiB, and
// seven of them joined (rule 6's context) are 448 KiB.
const anchoredMin = 4 << 10

// anchoredExpr is an expression run anchored at a place in a text.
type anchoredExpr struct {
	strs  []string // its anchors ([prefilter.Filter.Anchors])
	slack int
	// start is the expression anchored at the start of a text; after,
	// anchored after the text's first character, which it reads for
	// the word boundary (\b) and the anchors (^) the expression has
	// where its match starts.
	start, after *regexp.Regexp
}

// anchoredExprs holds, by *expr, its *anchoredExpr, or nil when it has
// no anchors; each is made the first time a long text asks for it.
var anchoredExprs sync.Map

func anchoredOf(e *expr) *anchoredExpr {
	if a, ok := anchoredExprs.Load(e); ok {
		return a.(*anchoredExpr)
	}
	var a *anchoredExpr
	if strs, slack := lineFilter().Anchors(e.id); strs != nil {
		a = &anchoredExpr{
			strs:  strs,
			slack: slack,
			start: regexp.MustCompile(`^(?:` + e.String() + `)`),
			after: regexp.MustCompile(`^(?s:.)(?:` + e.String() + `)`),
		}
	}
	v, _ := anchoredExprs.LoadOrStore(e, a)
	return v.(*anchoredExpr)
}

// findAnchored returns the leftmost match of e in t, a long text, as
// e.FindStringIndex does, by running e anchored at each place a match
// of it can start, from the first on: within slack bytes before an
// occurrence of one of its anchors, which every match holds there. The
// first place where e matches is the leftmost match's start, and
// anchored there e prefers what it prefers over the whole text.
// decided is false when it cannot tell this way: e has no anchors, or
// t is not UTF-8 or holds the Kelvin sign or the long s (which a
// case-insensitive anchor matches, and a search for it in ASCII lower
// case does not), or its runs together read anchoredBudget times the
// length of t before one decided (a repetition that runs over a word of
// many anchors: each run reads the rest of the word), and the caller
// runs e over t once instead.
func findAnchored(e *expr, t string) (loc []int, decided bool) {
	loc, decided, _ = findAnchoredRead(e, t)
	return loc, decided
}

// anchoredBudget is how many times the length of a text the anchored
// runs of findAnchored may read together before it gives up, so that
// it never costs more than a few runs of the expression over the text.
const anchoredBudget = 4

// findAnchoredRead is findAnchored, which also returns how many bytes
// its anchored runs read.
func findAnchoredRead(e *expr, t string) (loc []int, decided bool, read int) {
	a := anchoredOf(e)
	if a == nil || !utf8.ValidString(t) || strings.Contains(t, "\u212a") || strings.Contains(t, "\u017f") {
		return nil, false, 0
	}
	lower := asciiLower(t)
	var starts []int
	for _, s := range a.strs {
		for i := 0; ; {
			j := strings.Index(lower[i:], s)
			if j < 0 {
				break
			}
			o := i + j
			for p := max(0, o-a.slack); p <= o; p++ {
				starts = append(starts, p)
			}
			i = o + 1
		}
	}
	slices.Sort(starts)
	budget := anchoredBudget * len(t)
	r := &budgetReader{left: budget}
	for k, p := range starts {
		if k > 0 && p == starts[k-1] || !utf8.RuneStart(t[p]) {
			continue
		}
		re, q := a.start, 0
		if p > 0 {
			_, w := utf8.DecodeLastRuneInString(t[:p])
			re, q = a.after, p-w
		}
		r.s, r.i = t[q:], 0
		loc := re.FindReaderIndex(r)
		if r.spent {
			return nil, false, budget - r.left
		}
		if loc != nil {
			return []int{p, q + loc[1]}, true, budget - r.left
		}
	}
	return nil, true, budget - r.left
}

// budgetReader reads s from i, as long as left, the bytes that the
// runs sharing it may still read, lasts: then it ends s early and says
// it spent them, so that what the run found is not what it finds in s.
type budgetReader struct {
	s     string
	i     int
	left  int
	spent bool
}

func (r *budgetReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	if r.left <= 0 {
		r.spent = true
		return 0, 0, io.EOF
	}
	c, w := rune(r.s[r.i]), 1
	if c >= utf8.RuneSelf {
		c, w = utf8.DecodeRuneInString(r.s[r.i:])
	}
	r.i += w
	r.left -= w
	return c, w, nil
}

// findIn returns e.FindStringIndex(t): as its finder written by hand
// finds it, nil without running e when its matcher written by hand
// says it does not match, and found by
// findAnchored when t is long and e is local
// ([prefilter.Filter.Local]), so that each anchored run is short.
func (s *scanner) findIn(e *expr, t string) []int {
	if !s.exhaustive && e.index != nil {
		return e.index(t)
	}
	if !s.exhaustive && e.quick != nil && !e.quick(t) {
		return nil
	}
	if !s.exhaustive && len(t) >= anchoredMin && s.lf().Local(e.id) {
		if loc, ok := findAnchored(e, t); ok {
			return loc
		}
	}
	return e.FindStringIndex(t)
}

// matchIn returns e.MatchString(t), as its finder or matcher written
// by hand answers, or as findIn finds it.
func (s *scanner) matchIn(e *expr, t string) bool {
	if !s.exhaustive && e.index != nil {
		return e.index(t) != nil
	}
	if !s.exhaustive && e.quick != nil {
		return e.quick(t)
	}
	if !s.exhaustive && len(t) >= anchoredMin && s.lf().Local(e.id) {
		if loc, ok := findAnchored(e, t); ok {
			return loc != nil
		}
	}
	return e.MatchString(t)
}

// asciiLower returns s with its ASCII letters in lower case, and every
// other byte where it was.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
