package prefilter

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cond is a condition on the strings a text holds: true, false, one
// string (with word boundaries), and the and and or of conditions.
type cond struct {
	op   condOp
	word word    // opWord
	kids []*cond // opAnd, opOr
	lit  int32   // opWord: the string's id in the filter
	need uint8   // opWord: the need bit its boundaries ask for
}

type condOp uint8

const (
	opTrue condOp = iota
	opFalse
	opWord
	opAnd
	opOr
	opNewline // a string with a newline: met by lines joined, never by one line
)

var (
	condTrue  = &cond{op: opTrue}
	condFalse = &cond{op: opFalse}
)

// and returns a and b.
func and(a, b *cond) *cond {
	switch {
	case a.op == opTrue:
		return b
	case b.op == opTrue:
		return a
	case a.op == opFalse || b.op == opFalse:
		return condFalse
	}
	return &cond{op: opAnd, kids: append(flatten(a, opAnd), flatten(b, opAnd)...)}
}

// or returns a or b.
func or(a, b *cond) *cond {
	switch {
	case a.op == opTrue || b.op == opTrue:
		return condTrue
	case a.op == opFalse:
		return b
	case b.op == opFalse:
		return a
	}
	return &cond{op: opOr, kids: append(flatten(a, opOr), flatten(b, opOr)...)}
}

// flatten returns c's kids if c is op, and c alone otherwise.
func flatten(c *cond, op condOp) []*cond {
	if c.op == op {
		return append([]*cond(nil), c.kids...)
	}
	return []*cond{c}
}

// walk calls fn for each string of c.
func (c *cond) walk(fn func(*cond)) {
	if c.op == opWord {
		fn(c)
	}
	for _, k := range c.kids {
		k.walk(fn)
	}
}

// mode is what a text asked about is: a line scanned, a part of one,
// or lines joined by newlines.
type mode uint8

const (
	modeLine mode = iota
	modePart
	modeLines
)

// eval reports whether the strings found (mask, by id) meet c, in a text
// of mode m: in a part of a line the boundaries are not known, and only
// lines joined hold a newline.
func (c *cond) eval(mask []uint8, m mode) bool {
	switch c.op {
	case opTrue:
		return true
	case opNewline:
		return m == modeLines
	case opWord:
		if m == modePart {
			return mask[c.lit] != 0
		}
		return mask[c.lit]&c.need != 0
	case opAnd:
		// A string of a line, the most frequent kid, is told without a
		// call.
		for _, k := range c.kids {
			if k.op == opWord && m != modePart {
				if mask[k.lit]&k.need == 0 {
					return false
				}
			} else if !k.eval(mask, m) {
				return false
			}
		}
		return true
	case opOr:
		for _, k := range c.kids {
			if k.op == opWord && m != modePart {
				if mask[k.lit]&k.need != 0 {
					return true
				}
			} else if k.eval(mask, m) {
				return true
			}
		}
	}
	return false
}

// String writes c as (a AND b), (a OR b), with \b marking a boundary.
func (c *cond) String() string {
	switch c.op {
	case opTrue:
		return "true"
	case opFalse:
		return "false"
	case opNewline:
		return "newline"
	case opWord:
		s := strconv.Quote(c.word.s)
		if c.word.wb {
			s = `\b` + s
		}
		if c.word.wa {
			s += `\b`
		}
		return s
	}
	sep := " AND "
	if c.op == opOr {
		sep = " OR "
	}
	var parts []string
	for _, k := range c.kids {
		parts = append(parts, k.String())
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// commonWords are words so frequent in prose that looking for them costs
// more than it saves: a condition drops them where it has a stronger
// string to look for.
var commonWords = strings.Fields(`the you your are now new this that these them it in is be do on
to of from with and or not should use using about what all any my`)

// frequentWords are words frequent in skills' instructions that rules'
// expressions name too ("install", "user"): a condition's trigger
// (see trigger) is a rarer part where it has one.
var frequentWords = strings.Fields(`install installed run running user users skill skills mode set
name names tool tools agent agents example examples http https file files data first must before
need needs config local state profile profiles key keys find open read test env out include
message messages system prompt command commands script scripts code output input path home api
token server client request`)

// commonOrFrequent holds commonWords and frequentWords, which
// commonness looks up for each string of every condition as a filter is
// built.
var commonOrFrequent = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range append(slices.Clone(commonWords), frequentWords...) {
		m[w] = true
	}
	return m
}()

// trigger returns strings of c one of which is found, with the
// boundaries c asks for, in every line that meets c: for an or, those
// of each part; for an and, those of one part, the rarest (see
// commonness). ok is false when c has no such strings: it is true, or
// met by a newline alone.
func (c *cond) trigger() (words []*cond, ok bool) {
	switch c.op {
	case opWord:
		return []*cond{c}, true
	case opFalse:
		return nil, true
	case opOr:
		for _, k := range c.kids {
			w, ok := k.trigger()
			if !ok {
				return nil, false
			}
			words = append(words, w...)
		}
		return words, true
	case opAnd:
		best := 0.0
		for _, k := range c.kids {
			if w, ok := k.trigger(); ok {
				if n := commonness(w); words == nil || n < best {
					words, best = w, n
				}
			}
		}
		return words, words != nil
	}
	return nil, false
}

// commonness guesses how often one of words is found in a line of
// instructions, for comparing triggers: a frequent word or a common one
// (its letters) always, punctuation often, a shorter string more often
// than a longer, a string between word boundaries less often.
func commonness(words []*cond) float64 {
	n := 0.0
	for _, w := range words {
		core := strings.Trim(w.word.s, " \t\f\r\v")
		letters := strings.TrimFunc(core, func(r rune) bool { return !unicode.IsLetter(r) })
		switch {
		case commonOrFrequent[letters]:
			n++
		case letters == "":
			n += 0.5 // punctuation: "://", "--"
		case w.word.wb && w.word.wa:
			n += math.Pow(0.25, float64(len(core)))
		default:
			n += math.Pow(0.25, float64(len(core)-1))
		}
	}
	return n
}

// weak reports whether c is met by most lines: a short string without
// a boundary, a common word (with the spaces around it), an or with a
// weak part.
func (c *cond) weak() bool {
	switch c.op {
	case opTrue:
		return true
	case opWord:
		core := strings.Trim(c.word.s, " \t\f\r\v")
		short := len(core) < 3 && !c.word.wb && !c.word.wa && !strings.ContainsFunc(core, isPunct)
		return short || slices.Contains(commonWords, core)
	case opOr:
		return slices.ContainsFunc(c.kids, (*cond).weak)
	case opAnd:
		return !slices.ContainsFunc(c.kids, func(k *cond) bool { return !k.weak() })
	}
	return false
}

// isPunct reports whether r is ASCII punctuation: a short string with
// one ("<(", "-c") is rarer than two letters.
func isPunct(r rune) bool {
	return r < utf8.RuneSelf && r > ' ' && !isWord(byte(r))
}

// simplify returns c without repeated parts, and without the weak parts
// of an and that has a part that is not weak: a weaker condition, as
// every condition may be, that costs less to check.
func simplify(c *cond) *cond {
	if c.op != opAnd && c.op != opOr {
		return c
	}
	var kids []*cond
	seen := map[string]bool{}
	for _, k := range c.kids {
		k = simplify(k)
		if key := k.String(); !seen[key] {
			seen[key] = true
			kids = append(kids, k)
		}
	}
	if c.op == opAnd && slices.ContainsFunc(kids, func(k *cond) bool { return !k.weak() }) {
		kids = slices.DeleteFunc(kids, (*cond).weak)
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return &cond{op: c.op, kids: kids}
}
