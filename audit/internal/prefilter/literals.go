package prefilter

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a condition is made of, read from a regular expression's syntax
// tree as Russ Cox's "Regular Expression Matching with a Trigram Index"
// (2012) reads trigrams, with whole strings instead: for each node of
// the tree, the set of strings it matches exactly when that set is
// small, or else the strings every match starts and ends with and a
// condition every match meets. Every string is in the folded form the
// automaton matches (ASCII lower case; see fold).

// Limits on the sets, to keep the automaton small: past them a set
// moves into the condition (an exact set) or is cut to shorter strings
// (a prefix or suffix set), which only weakens the condition.
const (
	maxSet   = 64 // strings in one set
	maxClass = 16 // characters of a class taken as a set of strings
	minLen   = 2  // a shorter string is a condition every text meets
)

// word is a string a match holds, and whether the match has a word
// boundary (\b) right before it (wb) and right after it (wa).
type word struct {
	s      string
	wb, wa bool
}

// info is what is known of the strings a node matches.
type info struct {
	exact []word // every string the node matches, when known (nil: unknown)
	// lossy: exact is wider than the node (a case-sensitive letter, an
	// anchor or a boundary inside a string left out), so it is only a
	// condition, not the node itself
	lossy  bool
	prefix []word // when exact is nil: every match starts with one of these
	suffix []word // when exact is nil: every match ends with one of these
	match  *cond  // when exact is nil: every match meets this
}

var empty = []word{{}}

func anyInfo() info { return info{prefix: empty, suffix: empty, match: condTrue} }

// analysis is what analyze learnt of the nodes of one expression's
// tree, by node: a node is read once however many questions ask of it
// (the condition, the ends, the exact strings, each sequence's tail).
type analysis map[*syntax.Regexp]info

// analyze returns what is known of the strings re matches.
func (a analysis) analyze(re *syntax.Regexp) info {
	if x, ok := a[re]; ok {
		return x
	}
	x := a.read(re)
	a[re] = x
	return x
}

// read is analyze of a node not read yet.
func (a analysis) read(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpNoMatch:
		return info{prefix: empty, suffix: empty, match: condFalse}
	case syntax.OpEmptyMatch:
		return info{exact: empty}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpNoWordBoundary:
		return info{exact: empty, lossy: true}
	case syntax.OpWordBoundary:
		return info{exact: []word{{wb: true, wa: true}}}
	case syntax.OpLiteral:
		out, lossy := empty, false
		for _, r := range re.Rune {
			alts := []rune{r}
			if re.Flags&syntax.FoldCase != 0 {
				alts = foldOrbit(r)
			} else if len(foldOrbit(r)) > 1 {
				lossy = true // the automaton matches its other case too
			}
			out, _ = product(out, runeWords(alts))
			if len(out) > maxSet {
				return fromExact(out)
			}
		}
		return info{exact: out, lossy: lossy}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return info{prefix: empty, suffix: empty, match: condFalse} // [^\x00-\x{10FFFF}]
		}
		var runes []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if int(hi-lo) >= maxClass || len(runes) > maxClass {
				return anyInfo()
			}
			for r := lo; r <= hi; r++ {
				runes = append(runes, r)
			}
		}
		w := runeWords(runes)
		lossy := false
		for _, r := range runes {
			for _, f := range foldOrbit(r) {
				lossy = lossy || !slices.Contains(runes, f) // a class not closed under case
			}
		}
		if len(w) > maxClass || slices.Contains(runes, ' ') {
			// A class with a space (\s, [\s(]) is taken as any
			// character: the strings it would join ("the" and " user")
			// are as frequent as the words alone and many times as many.
			return anyInfo()
		}
		return info{exact: w, lossy: lossy}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return anyInfo()
	case syntax.OpCapture:
		return a.analyze(re.Sub[0])
	case syntax.OpStar:
		return anyInfo()
	case syntax.OpQuest:
		x := a.analyze(re.Sub[0])
		if x.exact != nil {
			return info{exact: union(x.exact, empty), lossy: x.lossy}
		}
		return anyInfo()
	case syntax.OpPlus:
		return toInexact(a.analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min == 0 {
			return anyInfo()
		}
		return toInexact(a.analyze(re.Sub[0]))
	case syntax.OpConcat:
		x := info{exact: empty}
		for _, sub := range re.Sub {
			x = concat(x, a.analyze(sub))
		}
		return x
	case syntax.OpAlternate:
		x := a.analyze(re.Sub[0])
		for _, sub := range re.Sub[1:] {
			x = alternate(x, a.analyze(sub))
		}
		return x
	}
	return anyInfo()
}

// foldOrbit returns r and the characters a case-insensitive match of r
// matches.
func foldOrbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// fold returns the form in which the automaton sees r: an ASCII letter
// in lower case, and the two characters outside ASCII that match an
// ASCII letter case-insensitively (the Kelvin sign K, the long s) as that
// letter, which Scan folds in a text that holds them (see foldText).
func fold(r rune) string {
	switch {
	case r < utf8.RuneSelf:
		return string(rune(lowerASCII(byte(r))))
	case r == '\u212a':
		return "k"
	case r == '\u017f':
		return "s"
	}
	return string(r)
}

// runeWords returns the one-character strings of runes, folded, without
// repeats.
func runeWords(runes []rune) []word {
	var out []word
	for _, r := range runes {
		w := word{s: fold(r)}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// product returns every string of xs followed by one of ys. A word
// boundary between two strings that are not empty is dropped: it is
// inside the string, and lossy says so.
func product(xs, ys []word) (out []word, lossy bool) {
	for _, x := range xs {
		for _, y := range ys {
			lossy = lossy || x.s != "" && y.s != "" && (x.wa || y.wb)
			w := word{s: x.s + y.s, wb: x.wb, wa: y.wa}
			if x.s == "" {
				w.wb = x.wb || y.wb
			}
			if y.s == "" {
				w.wa = y.wa || x.wa
			}
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out, lossy
}

// union returns the strings of xs and ys, without repeats.
func union(xs, ys []word) []word {
	out := slices.Clone(xs)
	for _, y := range ys {
		if !slices.Contains(out, y) {
			out = append(out, y)
		}
	}
	return out
}

// fromExact turns a set of exact strings into prefixes, suffixes and the
// condition that one of them occurs.
func fromExact(xs []word) info {
	return info{prefix: trimSet(xs, true), suffix: trimSet(xs, false), match: anyOf(xs)}
}

// toInexact is x as a node whose exact strings are not kept: x+.
func toInexact(x info) info {
	if x.exact != nil {
		return fromExact(x.exact)
	}
	return x
}

// trimSet returns a prefix (or suffix) set within maxSet strings: its
// strings cut, from the end (or the start), until the set is small
// enough. A cut drops the boundary on the cut side.
func trimSet(xs []word, prefix bool) []word {
	out := slices.Clone(xs)
	for n := 16; len(out) > maxSet; n /= 2 {
		var cut []word
		for _, x := range out {
			if len(x.s) > n {
				if prefix {
					x = word{s: x.s[:n], wb: x.wb}
				} else {
					x = word{s: x.s[len(x.s)-n:], wa: x.wa}
				}
			}
			if !slices.Contains(cut, x) {
				cut = append(cut, x)
			}
		}
		out = cut
		if n == 0 {
			return empty
		}
	}
	return out
}

// concat returns what is known of x followed by y.
func concat(x, y info) info {
	if x.exact != nil && y.exact != nil && len(x.exact)*len(y.exact) <= maxSet {
		p, lossy := product(x.exact, y.exact)
		return info{exact: p, lossy: lossy || x.lossy || y.lossy}
	}
	xi, yi := toInexact(x), toInexact(y)
	out := info{match: and(xi.match, yi.match), prefix: xi.prefix, suffix: yi.suffix}
	// The strings across the join.
	if len(xi.suffix)*len(yi.prefix) <= maxSet {
		p, _ := product(xi.suffix, yi.prefix)
		out.match = and(out.match, anyOf(p))
	}
	// An exact side is all of its part of the match, so the other
	// side's prefix (or suffix) follows it.
	if x.exact != nil && len(x.exact)*len(yi.prefix) <= maxSet {
		out.prefix, _ = product(x.exact, yi.prefix)
	}
	if y.exact != nil && len(xi.suffix)*len(y.exact) <= maxSet {
		out.suffix, _ = product(xi.suffix, y.exact)
	}
	return out
}

// alternate returns what is known of x or y.
func alternate(x, y info) info {
	if x.exact != nil && y.exact != nil && len(x.exact)+len(y.exact) <= maxSet {
		return info{exact: union(x.exact, y.exact), lossy: x.lossy || y.lossy}
	}
	x, y = toInexact(x), toInexact(y)
	return info{
		match:  or(x.match, y.match),
		prefix: trimSet(union(x.prefix, y.prefix), true),
		suffix: trimSet(union(x.suffix, y.suffix), false),
	}
}

// required returns the condition every match of re meets.
func (a analysis) required(re *syntax.Regexp) *cond {
	x := a.analyze(re)
	if x.exact != nil {
		return anyOf(x.exact)
	}
	return and(x.match, and(anyOf(x.prefix), anyOf(x.suffix)))
}

// anyOf returns the condition that one of xs occurs: true when one of
// them is shorter than minLen. A string with a newline is not looked
// for: no line holds one, and lines joined are taken to.
func anyOf(xs []word) *cond {
	var kids []*cond
	nl := false
	for _, x := range xs {
		switch {
		case len(x.s) < minLen:
			return condTrue
		case strings.Contains(x.s, "\n"):
			if !nl {
				kids = append(kids, &cond{op: opNewline})
			}
			nl = true
		default:
			kids = append(kids, &cond{op: opWord, word: x})
		}
	}
	if len(kids) == 0 {
		return condFalse
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return &cond{op: opOr, kids: kids}
}

// ends returns strings every match of re starts with, give or take
// slack bytes (every match starts at most slack bytes before an
// occurrence of one of them), and strings every match ends with; each
// set nil when not known: a set with a string shorter than minLen, or a
// weak one (so frequent that looking for it costs more than it saves).
// A string with a newline is left out: no line holds it.
func (a analysis) ends(re *syntax.Regexp) (prefix []word, slack int, suffix []word) {
	prefix, slack = a.startsWithin(re, usable)
	x := a.analyze(re)
	if x.exact != nil {
		x.suffix = x.exact
	}
	return prefix, slack, usable(x.suffix)
}

// prefixOf returns the strings every match of re starts with, as
// analyze knows them.
func (a analysis) prefixOf(re *syntax.Regexp) []word {
	x := a.analyze(re)
	if x.exact != nil {
		return x.exact
	}
	return x.prefix
}

// startsWithin returns strings, those of a set keep keeps (usable or
// anchorable), of which every match of re holds one at most slack bytes
// after its start (nil when not known): its prefix set, or, for a
// sequence whose first parts match a bounded width
// ("(?:^|[^\w.$-])\.env"), the rest's strings and that width.
func (a analysis) startsWithin(re *syntax.Regexp, keep func([]word) []word) (prefix []word, slack int) {
	switch re.Op {
	case syntax.OpCapture:
		return a.startsWithin(re.Sub[0], keep)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			p, s := a.startsWithin(sub, keep)
			if p == nil {
				return nil, 0
			}
			prefix, slack = union(prefix, p), max(slack, s)
		}
		if len(prefix) > 2*maxSet {
			return nil, 0
		}
		return prefix, slack
	case syntax.OpConcat:
		if p := keep(a.prefixOf(re)); p != nil {
			return p, 0
		}
		width := 0
		for k, sub := range re.Sub[:len(re.Sub)-1] {
			w := maxWidth(sub)
			if w < 0 {
				return nil, 0
			}
			width += w
			rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[k+1:]}
			if p, s := a.startsWithin(rest, keep); p != nil {
				return p, width + s
			}
		}
		return nil, 0
	}
	return keep(a.prefixOf(re)), 0
}

// maxWidth returns the most bytes a match of re can span (a character
// taken as utf8.UTFMax), or -1 when there is no bound.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		return utf8.UTFMax * len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpRepeat:
		if w := maxWidth(re.Sub[0]); re.Max >= 0 && w >= 0 {
			return re.Max * w
		}
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += w
			} else {
				n = max(n, w)
			}
		}
		return n
	}
	return -1
}

func usable(xs []word) []word {
	var out []word
	for _, x := range xs {
		switch {
		case strings.Contains(x.s, "\n"):
			continue
		case len(x.s) < minLen, (&cond{op: opWord, word: x}).weak():
			return nil
		}
		out = append(out, x)
	}
	return out
}

// anchorable returns xs as strings to run an expression anchored at,
// however frequent: nil when one of them is shorter than minLen or not
// ASCII (whose other cases a search in ASCII lower case misses).
func anchorable(xs []word) []word {
	for _, x := range xs {
		if len(x.s) < minLen || strings.ContainsFunc(x.s, func(r rune) bool { return r >= utf8.RuneSelf }) {
			return nil
		}
	}
	return xs
}

// local reports whether every unbounded repetition in re (x*, x+,
// x{n,}) repeats a part that reads only white space or only other
// characters: then a match, or an attempt at one, runs on through one
// word or one gap between words at a time, and re run anchored at a
// place stops within a few words of it (or at the end of a word without
// spaces, however long), not at the end of the text as `[^\n]*` does.
func local(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus:
		if space, other := reads(re.Sub[0]); space && other {
			return false
		}
	case syntax.OpRepeat:
		if space, other := reads(re.Sub[0]); re.Max < 0 && space && other {
			return false
		}
	}
	for _, sub := range re.Sub {
		if !local(sub) {
			return false
		}
	}
	return true
}

// reads reports whether re may read a white space character (of \s),
// and whether it may read another character.
func reads(re *syntax.Regexp) (space, other bool) {
	const spaces = " \t\n\f\r"
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if strings.ContainsRune(spaces, r) {
				space = true
			} else {
				other = true
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			in := 0
			for _, r := range spaces {
				if lo <= r && r <= hi {
					in++
				}
			}
			space = space || in > 0
			other = other || int(hi-lo)+1 > in
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true, true
	default:
		for _, sub := range re.Sub {
			s, o := reads(sub)
			space, other = space || s, other || o
		}
	}
	return space, other
}

// exactWords returns the strings re matches, in the order of its
// preference (leftmost-first: the first alternative, and in a sequence
// the first choice of its first part), when they are all it matches:
// a match of re is an occurrence of one of them, with the word
// boundaries each asks for. Nil when re is not such a set.
func (a analysis) exactWords(re *syntax.Regexp) []word {
	x := a.analyze(re)
	if x.exact == nil || x.lossy {
		return nil
	}
	for _, w := range x.exact {
		if len(w.s) < minLen || strings.Contains(w.s, "\n") {
			return nil
		}
	}
	return x.exact
}
