package prefilter

import (
	"strconv"
	"strings"
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

// eval reports whether the strings found (mask, by id) meet c; with part
// set, whatever the boundaries.
func (c *cond) eval(mask []uint8, part bool) bool {
	switch c.op {
	case opTrue:
		return true
	case opWord:
		if part {
			return mask[c.lit] != 0
		}
		return mask[c.lit]&c.need != 0
	case opAnd:
		for _, k := range c.kids {
			if !k.eval(mask, part) {
				return false
			}
		}
		return true
	case opOr:
		for _, k := range c.kids {
			if k.eval(mask, part) {
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
