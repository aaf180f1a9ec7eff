package audit

import "unicode/utf8"

// Rule 6's context, read once a line. prerequisiteContext asks whether
// archivePassword matches the seven lines around a download, and
// prerequisite the four up to it, joined: on a text whose every line is
// a download presented as a prerequisite, each line was read by the
// expressions four and seven times. nearMatch answers as they do from
// what it learns of each line once: where the first match that starts
// on the line ends (found by a matcher written by hand that gives each
// match's first end), read on the line alone or, when none is there,
// with the lines after it as far as a match that starts among its last
// seamTokens runs of \S may reach (its seam). A window of lines holds a
// match when one of its lines' first match ends in it: the window's
// text and the lines' share every byte a match reads, but for the end
// of the window, where \b and the expressions read the same in both.

// The expressions nearMatch answers for, by their index in line.near.
const (
	nearPassword = iota
	nearPrerequisite
	nearExprs
)

// nearExtra is how many bytes past the seam's last run of \S a match of
// prerequisite may read on that line: its `[^\n.]{0,80}` (of up to four
// bytes a character) and a word after it.
const nearExtra = 80*utf8.UTFMax + 32

// reach is what nearMatch learns of a line for one expression.
type reach struct {
	asked bool
	// end is where the first match that starts on the line ends, or
	// noPlace; seamRead, how far the seam was read for it (done
	// already when end is on the line).
	end place
	seamRead
}

// matchNear is matchLines for the expression of index k of nearEnds (e)
// over lines lo through hi, which text joins: from what each line's
// matches reach, or, in an exhaustive audit, by the expression.
func (s *scanner) matchNear(lines []line, lo, hi int, e *expr, k int, text func() string) bool {
	if s.exhaustive {
		return s.matchLines(lines[lo:hi+1], e, text)
	}
	u := s.union
	u.Reset()
	for _, l := range lines[lo : hi+1] {
		u.Add(l.hits)
	}
	return s.lf().MayLines(u, e.id) && s.nearMatch(lines, lo, hi, k)
}

// nearMatch reports whether the expression of index k (nearPassword,
// nearPrerequisite) matches lines lo through hi (the last included)
// joined by newlines.
func (s *scanner) nearMatch(lines []line, lo, hi, k int) bool {
	for j := lo; j <= hi; j++ {
		end := s.reachOf(lines, j, k)
		if j+end.lines < hi || j+end.lines == hi && int(end.at) <= len(lines[hi].clean) {
			return true
		}
	}
	return false
}

// reachOf returns where the first match of the expression of index k
// that starts on lines[j] ends, learning it first.
func (s *scanner) reachOf(lines []line, j, k int) place {
	l := &lines[j]
	if l.near == nil {
		if n := len(s.freeNear); n > 0 {
			l.near, s.freeNear = s.freeNear[n-1], s.freeNear[:n-1]
			*l.near = [nearExprs]reach{}
		} else {
			l.near = new([nearExprs]reach)
		}
	}
	r := &l.near[k]
	if r.asked && r.current(lines, j) {
		return r.end
	}
	end := nearEnds[k]
	t := lines[j].clean
	if !r.asked {
		r.asked = true
		if e := firstEnd(t, 0, len(t), end); e >= 0 {
			r.end, r.seamRead = place{0, int32(e)}, seamRead{read: true, done: true}
			return r.end
		}
	}
	// None ends on the line: the first that ends past it starts among
	// its last runs of \S.
	tail := tokensTail(t, seamTokens)
	seam, ends, done := s.seamText(lines, j, tail, nearExtra)
	r.end = noPlace
	r.readTo(ends, done)
	if e := firstEnd(seam, 0, len(t)-tail, end); e >= 0 {
		r.end = seamPlace(ends, tail, e)
	}
	return r.end
}

// nearEnds are the matchers of the first end of nearMatch's expressions.
var nearEnds = [nearExprs]func(t string, i int) int{
	nearPassword:     passwordEnd,
	nearPrerequisite: prerequisiteEnd,
}

// firstEnd returns the first end of a match of end's expression that
// starts in [from, to) of t, or -1.
func firstEnd(t string, from, to int, end func(t string, i int) int) int {
	best := -1
	for i := from; i < to && (best < 0 || i < best); i++ {
		if e := end(t, i); e >= 0 && (best < 0 || e < best) {
			best = e
		}
	}
	return best
}

// passwordEnd returns the first end of archivePassword's match at i of
// t, or -1: `\bpassword\b|\bpass(?:code|wd)?\s*[:=]`.
func passwordEnd(t string, i int) int {
	if i >= len(t) || t[i]|0x20 != 'p' || i > 0 && wordByte(t[i-1]) {
		return -1
	}
	p, ok := foldAt(t, i, "pass")
	if !ok {
		return -1
	}
	best := -1
	if e := endAt(t, foldEnd(t, p, "word")); e >= 0 {
		best = e
	}
	q := p
	if e := foldEnd(t, p, "code", "wd"); e >= 0 {
		q = e
	}
	if q = skipSpace(t, q); q < len(t) && (t[q] == ':' || t[q] == '=') && (best < 0 || q+1 < best) {
		best = q + 1
	}
	return best
}

// prerequisiteEnd returns the first end of prerequisite's match at i of
// t, or -1. Its alternatives start with different words but two (this
// skill requires, then a word of installing within 80 characters, or a
// helper's name and the word helper), whose first end is the earlier:
//
//	\bbefore\s+(?:using|you\s+use|running|you\s+run|invoking)\s+(?:this|the)\s+skill
//	\bthis\s+skill\s+(?:requires|needs|depends\s+on)\b[^.\n]{0,80}\b(?:installed|install|download|run)
//	\bthis\s+skill\s+(?:requires|needs|depends\s+on)\s+(?:the\s+)?[\w.-]+\s+(?:helper|agent|driver|daemon|companion|component)\b
//	\byou\s+must\s+(?:first\s+)?(?:install|download|run|execute)\b
//	\bmust\s+be\s+(?:installed|running|downloaded)\s+(?:first|before)
//	\b(?:required|mandatory)\s+(?:prerequisite|helper|agent|driver|component|core)\b
func prerequisiteEnd(t string, i int) int {
	if i >= len(t) || i > 0 && wordByte(t[i-1]) {
		return -1
	}
	switch t[i] | 0x20 {
	case 'b':
		p := spacesEnd(t, foldEnd(t, i, "before"))
		if p < 0 {
			return -1
		}
		q := foldEnd(t, p, "using", "running", "invoking")
		if q < 0 {
			q = foldEnd(t, spacesEnd(t, foldEnd(t, p, "you")), "use", "run")
		}
		return foldEnd(t, spacesEnd(t, foldEnd(t, spacesEnd(t, q), "this", "the")), "skill")
	case 't':
		p := spacesEnd(t, seqAt(t, i, "this", "skill"))
		if p < 0 {
			return -1
		}
		q := foldEnd(t, p, "requires", "needs")
		if q < 0 {
			q = seqAt(t, p, "depends", "on")
		}
		if q < 0 {
			return -1
		}
		best := -1
		if boundaryAt(t, q) {
			best = installWordAfter(t, q)
		}
		if e := helperAfter(t, q); e >= 0 && (best < 0 || e < best) {
			best = e
		}
		return best
	case 'y':
		p := spacesEnd(t, seqAt(t, i, "you", "must"))
		if p < 0 {
			return -1
		}
		if e := endAt(t, foldEnd(t, p, "install", "download", "run", "execute")); e >= 0 {
			return e
		}
		return endAt(t, foldEnd(t, spacesEnd(t, foldEnd(t, p, "first")), "install", "download", "run", "execute"))
	case 'm':
		if p := spacesEnd(t, seqAt(t, i, "must", "be")); p >= 0 {
			return foldEnd(t, spacesEnd(t, foldEnd(t, p, "installed", "running", "downloaded")), "first", "before")
		}
		fallthrough
	case 'r':
		return endAt(t, foldEnd(t, spacesEnd(t, foldEnd(t, i, "required", "mandatory")), "prerequisite", "helper", "agent", "driver", "component", "core"))
	}
	return -1
}

// installWordAfter returns the first end of
// `[^.\n]{0,80}\b(?:installed|install|download|run)` at q of t, or -1.
func installWordAfter(t string, q int) int {
	for n, p := 0, q; n <= 80 && p <= len(t); n++ {
		if boundaryAt(t, p) {
			if e := foldEnd(t, p, "install", "download", "run"); e >= 0 {
				return e
			}
		}
		if p == len(t) || t[p] == '.' || t[p] == '\n' {
			break
		}
		_, size := utf8.DecodeRuneInString(t[p:])
		p += size
	}
	return -1
}

// helperAfter returns the first end of
// `\s+(?:the\s+)?[\w.-]+\s+(?:helper|agent|driver|daemon|companion|component)\b`
// at q of t, or -1: the helper's name may be the word the, or follow it.
func helperAfter(t string, q int) int {
	p := spacesEnd(t, q)
	if p < 0 {
		return -1
	}
	best := -1
	for _, at := range []int{p, spacesEnd(t, foldEnd(t, p, "the"))} {
		if at < 0 {
			continue
		}
		w := at
		for w < len(t) {
			if n := foldWordAt(t, w); n > 0 {
				w += n
			} else if t[w] == '.' || t[w] == '-' {
				w++
			} else {
				break
			}
		}
		if w == at {
			continue
		}
		if e := endAt(t, foldEnd(t, spacesEnd(t, w), "helper", "agent", "driver", "daemon", "companion", "component")); e >= 0 && (best < 0 || e < best) {
			best = e
		}
	}
	return best
}
