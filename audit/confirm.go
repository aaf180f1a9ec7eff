package audit

import "strings"

// Rule 5's confirmation (confirmed), read once a line. confirmed joins
// the seven lines around a download and runs notAsked, askedAnyway and
// askUser over them, and aboutRunning over each ask's sentence: on a
// text whose every line is a download offered on a confirmation, every
// line is read seven times by each, which made such a text a thousand
// times slower to audit than a text search of it. confirmFast answers as
// confirmed does (TestConfirmedAsBefore, and every test that compares
// an audit with the exhaustive one) from what it learns of each line
// once, however many windows hold it (TestConfirmReadsOnce):
//
//   - whether an expression that undoes an ask (notAsked, askedAnyway)
//     matches in the line;
//   - each ask in the line (askUser's match at every place one starts,
//     with the end the expression prefers there), each word of running
//     (aboutRunning's, with its first end) and each end of a sentence;
//   - what of these a match that runs over the line's end into the
//     lines after it adds: its seam.
//
// A match of these expressions touches at most seamTokens runs of \S,
// so one that runs over a newline starts among the last seamTokens of
// its line and ends among the first seamTokens after it; the seam is
// that stretch, and a match in it that ends in the window is one of the
// window's. A window's answer is then a walk over its lines' lists,
// which are as long as the asks and words of running they hold, not
// as their bytes.
//
// The expressions stay the specification: the matchers here are held to
// them by TestHandWritten and FuzzHandWritten, and an exhaustive audit
// runs confirmed itself.

// seamTokens is the most runs of \S a match of askUser, notAsked,
// askedAnyway or aboutRunning touches on the lines it spans: "only if
// the user has says yes" is seven (a match of notAsked's assume runs to
// the end of the sentence, but never over a newline).
const seamTokens = 8

// seamLines is how many lines after a line a seam reads at most: the
// windows of rules 5 and 6 hold no more than seven lines.
const seamLines = 6

// confirmFacts is what confirmFast learns of a line once.
type confirmFacts struct {
	// undo: notAsked or askedAnyway matches the line.
	undo bool
	// asks and runs: askUser's matches at every place one starts, with
	// the end the expression prefers, and aboutRunning's, with their
	// first end: offsets into the line, a start and an end each. In a
	// window, those that start at or after tail (the last seamTokens
	// runs of \S) are the seam's, unless the line is the window's
	// last.
	asks, runs []int32
	// stops are the offsets of '.', '!' and '?' in the line.
	stops []int32
	tail  int32
	// The seam: the matches that start at or after tail, read with the
	// lines after this one up to seamTokens runs of \S past its end
	// (or, when fewer lines were read, to the last line read: seamRead).
	seamAsks, seamRuns []seamMatch
	// undoEnd is where the first match of notAsked or askedAnyway in
	// the seam ends, or noPlace.
	undoEnd place
	seamRead
}

// seamRead is how far a line's seam was read: whether it was, how many
// lines after the line it read, and whether no more lines could change
// what it found (it reached its end, or seamLines).
type seamRead struct {
	read, done bool
	to         int
}

// current reports whether the seam of lines[j] was read and would read
// no more of lines now.
func (r *seamRead) current(lines []line, j int) bool {
	return r.read && (r.done || r.to >= len(lines)-1-j)
}

// readTo records a seam read, whose lines end at ends (seamText).
func (r *seamRead) readTo(ends []int, done bool) {
	r.read, r.done, r.to = true, done, len(ends)-1
}

// seamPlace returns the place of offset e of a seam that starts at byte
// tail of its line and whose lines end at ends: in the line of the byte
// before e.
func seamPlace(ends []int, tail, e int) place {
	n := 0
	for e > ends[n] {
		n++
	}
	if n == 0 {
		return place{0, int32(tail + e)}
	}
	return place{n, int32(e - ends[n-1])}
}

// place is a place in a window's lines: an offset in the line lines
// after the one it is of (len(clean) is the newline).
type place struct {
	lines int
	at    int32
}

// noPlace is the place of a match there is not: past every window.
var noPlace = place{lines: 1 << 30}

// seamMatch is a match of a seam: its start, in the line of the seam,
// and its end.
type seamMatch struct {
	at  int32
	end place
}

// facts returns what confirmFast learns of lines[j], learning it first.
func (s *scanner) facts(lines []line, j int) *confirmFacts {
	l := &lines[j]
	if l.confirm != nil {
		return l.confirm
	}
	s.factsLearnt++
	t := l.clean
	f := s.newFacts()
	f.undo, f.tail = undoIn(t), int32(tokensTail(t, seamTokens))
	f.asks, f.runs = askRunSpans(t, 0, len(t), f.asks, f.runs)
	for k := 0; k < len(t); k++ {
		switch t[k] {
		case '.', '!', '?':
			f.stops = append(f.stops, int32(k))
		}
	}
	l.confirm = f
	return f
}

// seamText returns the seam of lines[j] from byte tail: the line from
// there, its newline, and the lines after it that lines holds (each with
// its newline) to the end of the seamTokens-th run of \S after the
// newline, then extra bytes more of its line, to the end of the run of
// \S there and the byte of \s after it (what a match that ends before
// that byte reads there is what it reads in the lines). ends are where
// each line of the seam ends in it, with its newline; done reports
// whether the seam reached that end (else it holds every line after
// lines[j]).
func (s *scanner) seamText(lines []line, j, tail, extra int) (t string, ends []int, done bool) {
	b := append(s.seamBuf[:0], lines[j].clean[tail:]...)
	b = append(b, '\n')
	ends = append(s.seamEnds[:0], len(b))
	runs := 0
	for k := j + 1; k < len(lines) && !done; k++ {
		t := lines[k].clean
		p, last := 0, 0 // where the line is read to, and where its last run of \S read ends
		for p < len(t) {
			if p = skipSpace(t, p); p == len(t) {
				break
			}
			p = tokenEnd(t, p)
			last = p
			if runs++; runs == seamTokens {
				if extra > 0 {
					p = tokenEnd(t, min(p+extra, len(t)))
					last = p
				}
				done = true
				break
			}
		}
		// The line to its last run of \S read, and the byte of \s
		// after it (the newline at the line's end): a match that runs
		// over a run of \s reads it as one byte of it, and none ends
		// further in it than its first byte.
		b = append(b, t[:last]...)
		if last < len(t) {
			b = append(b, t[last])
		}
		if last == len(t) || !done {
			b = append(b, '\n')
		}
		ends = append(ends, len(b))
		// No window that holds line j reads past line j+seamLines.
		done = done || k == j+seamLines
	}
	s.seamBuf, s.seamEnds = b, ends
	return string(b), ends, done
}

// newFacts returns a confirmFacts to fill, one a line that left the
// window held if there is one.
func (s *scanner) newFacts() *confirmFacts {
	n := len(s.freeFacts)
	if n == 0 {
		return new(confirmFacts)
	}
	f := s.freeFacts[n-1]
	s.freeFacts = s.freeFacts[:n-1]
	*f = confirmFacts{asks: f.asks[:0], runs: f.runs[:0], stops: f.stops[:0], seamAsks: f.seamAsks[:0], seamRuns: f.seamRuns[:0]}
	return f
}

// recycleNear keeps what rules 5 and 6 learnt of l, which leaves the
// window, for the lines after it.
func (s *scanner) recycleNear(l *line) {
	if l.confirm != nil {
		s.freeFacts = append(s.freeFacts, l.confirm)
		l.confirm = nil
	}
	if l.near != nil {
		s.freeNear = append(s.freeNear, l.near)
		l.near = nil
	}
}

// tokensTail returns where the last n runs of \S of t start (0 when it
// holds fewer).
func tokensTail(t string, n int) int {
	k := len(t)
	for ; n > 0; n-- {
		for k > 0 && spaceByte(t[k-1]) {
			k--
		}
		if k == 0 {
			return 0
		}
		for k > 0 && !spaceByte(t[k-1]) {
			k--
		}
	}
	return k
}

// askRunSpans appends to asks and runs askUser's and aboutRunning's
// matches in t at the places in [from, to) where one starts. A place is
// asked only when its first two letters start one of their words
// (spanPairs).
func askRunSpans(t string, from, to int, asks, runs []int32) ([]int32, []int32) {
	for k := from; k < to; k++ {
		c := t[k] | 0x20
		if c < 'a' || c > 'x' {
			if t[k] == 0xc5 && k+1 < len(t) && t[k+1] == 0xbf { // ſ: set
				if e := runAt(t, k); e >= 0 {
					runs = append(runs, int32(k), int32(e))
				}
			}
			continue
		}
		if k > 0 && wordByte(t[k-1]) || k+1 == len(t) || !spanPair(c, t[k+1]) {
			continue
		}
		switch c {
		case 'a', 'c', 'o', 'w':
			if e := askAt(t, k); e >= 0 {
				asks = append(asks, int32(k), int32(e))
			}
		case 'i':
			if e := askAt(t, k); e >= 0 {
				asks = append(asks, int32(k), int32(e))
			}
			fallthrough
		case 'r', 'd', 's', 'p', 'e':
			if e := runAt(t, k); e >= 0 {
				runs = append(runs, int32(k), int32(e))
			}
		}
	}
	return asks, runs
}

// spanPairs are, for each first letter of a word of askUser and
// aboutRunning (ask, after, confirm, only, once, if, with; install,
// run, download, set, proceed, execute), the second letters it may
// have; the first byte of ſ, which folds to s, is written '{'.
var spanPairs = [26]string{
	'a' - 'a': "sf{", 'c' - 'a': "o", 'o' - 'a': "n", 'w' - 'a': "i", 'i' - 'a': "fn",
	'r' - 'a': "u", 'd' - 'a': "o", 's' - 'a': "e", 'p' - 'a': "r", 'e' - 'a': "x",
}

// spanPair reports whether a word whose first letter is c (lower case)
// and whose next byte is d may be one of askRunSpans's.
func spanPair(c, d byte) bool { return letterPair(&spanPairs, c, d) }

// letterPair reports whether pairs lets a word whose first letter is c
// (lower case) have d as its next byte.
func letterPair(pairs *[26]string, c, d byte) bool {
	if d == 0xc5 {
		d = '{'
	} else {
		d |= 0x20
	}
	return 'a' <= c && c <= 'z' && strings.IndexByte(pairs[c-'a'], d) >= 0
}

// seam reads the seam of lines[j] with the lines after it that lines
// holds, once, and again when lines holds more than it read and it
// stopped at the last: at most twice, as the window grows by more than
// seamLines lines at a time (scanBatch).
func (s *scanner) seam(lines []line, j int) *confirmFacts {
	f := s.facts(lines, j)
	if f.current(lines, j) {
		return f
	}
	s.seamsRead++
	f.seamAsks, f.seamRuns = f.seamAsks[:0], f.seamRuns[:0]
	t, ends, done := s.seamText(lines, j, int(f.tail), 0)
	f.readTo(ends, done)
	head := lines[j].clean[f.tail:]
	where := func(e int) place { return seamPlace(ends, int(f.tail), e) }
	f.undoEnd = noPlace
	if e := undoEnd(t, len(head)); e >= 0 {
		f.undoEnd = where(e)
	}
	asks, spans := askRunSpans(t, 0, len(head), s.spans[:0], s.spans2[:0])
	for n := 0; n < len(asks); n += 2 {
		f.seamAsks = append(f.seamAsks, seamMatch{f.tail + asks[n], where(int(asks[n+1]))})
	}
	for n := 0; n < len(spans); n += 2 {
		f.seamRuns = append(f.seamRuns, seamMatch{f.tail + spans[n], where(int(spans[n+1]))})
	}
	s.spans, s.spans2 = asks, spans
	return f
}

// spacesEnd returns the end of the run of \s at i of t, or -1 when t
// has none there (\s+).
func spacesEnd(t string, i int) int {
	if i < 0 {
		return -1
	}
	if j := skipSpace(t, i); j > i {
		return j
	}
	return -1
}

// foldEnd returns where the first of words (lower-case ASCII) that t
// holds at i, in any case, ends, or -1 (also when i is -1).
func foldEnd(t string, i int, words ...string) int {
	if i < 0 {
		return -1
	}
	return wordsAt(t, i, words...)
}

// endAt returns e when \b holds there, or -1.
func endAt(t string, e int) int {
	if e >= 0 && boundaryAt(t, e) {
		return e
	}
	return -1
}

// suffixEnd returns the end of (?:SUFFIXES)?\b after word that ends at
// e, as a case-insensitive expression prefers it: with the first suffix
// that t holds at e and \b after it, or else with none.
func suffixEnd(t string, e int, suffixes ...string) int {
	if e < 0 {
		return -1
	}
	for _, x := range suffixes {
		if f, ok := foldAt(t, e, x); ok && boundaryAt(t, f) {
			return f
		}
	}
	return endAt(t, e)
}

// firstSuffixEnd is suffixEnd's first end: with no suffix, when \b
// holds there.
func firstSuffixEnd(t string, e int, suffixes ...string) int {
	if e < 0 {
		return -1
	}
	if boundaryAt(t, e) {
		return e
	}
	for _, x := range suffixes {
		if f, ok := foldAt(t, e, x); ok && boundaryAt(t, f) {
			return f
		}
	}
	return -1
}

// askAt returns where askUser's match at i of t ends, as the expression
// prefers it, or -1. Its four alternatives start with different words
// (ask; confirm; only, if, once or after; with), and no part of one
// holds two ways to go on that both match: its match at a place is
// unique but for a final s, d or ed and \b (agree, agreed, agreeſ).
//
//	\bask(?:ing)?\s+(?:the\s+user|them)\s+(?:first\b|for\s+(?:(?:their|explicit)\s+)?(?:confirmation|permission|approval|consent)\b|whether\b|if\s+(?:they|it)\b|before\b)
//	\bconfirm\s+with\s+the\s+user\b
//	\b(?:only\s+)?(?:if|once|after)\s+(?:the\s+user|they)\s+(?:has\s+|have\s+)?(?:agree[sd]?|confirm(?:s|ed)?|approve[sd]?|says?\s+yes|said\s+yes|accept(?:s|ed)?)\b
//	\bwith\s+the\s+user'?s\s+(?:explicit\s+)?(?:permission|consent|approval|confirmation)\b
func askAt(t string, i int) int {
	if i >= len(t) || i > 0 && wordByte(t[i-1]) {
		return -1
	}
	switch t[i] | 0x20 {
	case 'a':
		if e, ok := foldAt(t, i, "ask"); ok {
			if g, ok := foldAt(t, e, "ing"); ok {
				if end := askedWhat(t, g); end >= 0 {
					return end
				}
			}
			return askedWhat(t, e)
		}
		return ifAgreed(t, foldEnd(t, i, "after"))
	case 'c':
		return endAt(t, seqAt(t, i, "confirm", "with", "the", "user"))
	case 'o':
		if e := spacesEnd(t, foldEnd(t, i, "only")); e >= 0 {
			if end := ifAgreed(t, foldEnd(t, e, "if", "once", "after")); end >= 0 {
				return end
			}
		}
		return ifAgreed(t, foldEnd(t, i, "once"))
	case 'i':
		return ifAgreed(t, foldEnd(t, i, "if"))
	case 'w':
		e := seqAt(t, i, "with", "the", "user")
		if e < 0 {
			return -1
		}
		if e < len(t) && t[e] == '\'' {
			e++
		}
		if e = spacesEnd(t, foldEnd(t, e, "s")); e < 0 {
			return -1
		}
		return optionalThen(t, e, []string{"explicit"}, "permission", "consent", "approval", "confirmation")
	}
	return -1
}

// askedWhat returns the end of what follows an ask that ends at e:
// \s+(?:the\s+user|them)\s+(?:first\b|for\s+...|whether\b|if\s+(?:they|it)\b|before\b).
func askedWhat(t string, e int) int {
	q := subjectEnd(t, e, "them")
	if q < 0 {
		return -1
	}
	if end := endAt(t, foldEnd(t, q, "first", "whether", "before")); end >= 0 {
		return end
	}
	if x := spacesEnd(t, foldEnd(t, q, "for")); x >= 0 {
		return optionalThen(t, x, []string{"their", "explicit"}, "confirmation", "permission", "approval", "consent")
	}
	if x := spacesEnd(t, foldEnd(t, q, "if")); x >= 0 {
		if end := endAt(t, foldEnd(t, x, "they")); end >= 0 {
			return end
		}
		return endAt(t, foldEnd(t, x, "it"))
	}
	return -1
}

// ifAgreed returns the end of what follows "if", "once" or "after" that
// ends at e in an ask:
// \s+(?:the\s+user|they)\s+(?:has\s+|have\s+)?(?:agree[sd]?|confirm(?:s|ed)?|approve[sd]?|says?\s+yes|said\s+yes|accept(?:s|ed)?)\b.
func ifAgreed(t string, e int) int {
	q := subjectEnd(t, e, "they")
	if q < 0 {
		return -1
	}
	if x := spacesEnd(t, foldEnd(t, q, "has", "have")); x >= 0 {
		if end := agreedAt(t, x); end >= 0 {
			return end
		}
	}
	return agreedAt(t, q)
}

// subjectEnd returns the end of `\s+(?:the\s+user|OTHER)\s+` after an
// ask's word that ends at e, or -1.
func subjectEnd(t string, e int, other string) int {
	e = spacesEnd(t, e)
	if e < 0 {
		return -1
	}
	who := seqAt(t, e, "the", "user")
	if who < 0 {
		who = foldEnd(t, e, other)
	}
	return spacesEnd(t, who)
}

// optionalThen returns the end of `(?:(?:OPTIONAL)\s+)?(?:FINALS)\b` at
// x of t, as the expression prefers it (with the optional word when
// that matches), or -1.
func optionalThen(t string, x int, optional []string, finals ...string) int {
	if y := spacesEnd(t, foldEnd(t, x, optional...)); y >= 0 {
		if end := endAt(t, foldEnd(t, y, finals...)); end >= 0 {
			return end
		}
	}
	return endAt(t, foldEnd(t, x, finals...))
}

// agreedAt returns the end of ask's verb of agreeing at i, with \b after
// it, or -1.
func agreedAt(t string, i int) int {
	if e := foldEnd(t, i, "agree", "approve"); e >= 0 {
		return suffixEnd(t, e, "s", "d")
	}
	if e := foldEnd(t, i, "confirm", "accept"); e >= 0 {
		return suffixEnd(t, e, "s", "ed")
	}
	if e := foldEnd(t, i, "say"); e >= 0 {
		if f, ok := foldAt(t, e, "s"); ok {
			if end := endAt(t, foldEnd(t, spacesEnd(t, f), "yes")); end >= 0 {
				return end
			}
		}
		return endAt(t, foldEnd(t, spacesEnd(t, e), "yes"))
	}
	return endAt(t, foldEnd(t, spacesEnd(t, foldEnd(t, i, "said")), "yes"))
}

// runAt returns where aboutRunning's first match at i of t ends, or -1:
// \b(?:install(?:s|ed|er|ing)?|run(?:s|ning)?|download(?:s|ed|ing)?|set\s*up|proceed|execute)\b.
// Its alternatives start with different letters; set may start with
// ſ, which \b reads as no word character.
func runAt(t string, i int) int {
	if !boundaryAt(t, i) {
		return -1
	}
	c := t[i] | 0x20
	if t[i] == 0xc5 {
		c = 's' // ſ
	}
	switch c {
	case 'i':
		return firstSuffixEnd(t, foldEnd(t, i, "install"), "s", "ed", "er", "ing")
	case 'r':
		return firstSuffixEnd(t, foldEnd(t, i, "run"), "s", "ning")
	case 'd':
		return firstSuffixEnd(t, foldEnd(t, i, "download"), "s", "ed", "ing")
	case 's':
		if e := foldEnd(t, i, "set"); e >= 0 {
			return endAt(t, foldEnd(t, skipSpace(t, e), "up"))
		}
	case 'p':
		return endAt(t, foldEnd(t, i, "proceed"))
	case 'e':
		return endAt(t, foldEnd(t, i, "execute"))
	}
	return -1
}

// undoEnd returns where the match of notAsked or askedAnyway in t that
// starts before to and ends first ends, or -1: wording that undoes an
// ask. Each place a
// match may start is read once, with its first end; an assume arms the
// rest of its sentence on its line, where the first word of agreeing
// ends its first match.
func undoEnd(t string, to int) int {
	best := len(t) + 1
	armed := len(t) + 1 // where the last assume of the sentence ends
	for k := 0; k < len(t) && k < best; k++ {
		if k >= to && armed > len(t) {
			break // no match starts here, and no assume before goes on
		}
		c := t[k]
		switch {
		case c == '.' || c == '\n':
			armed = len(t) + 1
			continue
		case c == '|':
			if e := orTrueEnd(t, k); e >= 0 && k < to {
				best = min(best, e)
			}
			continue
		case k > 0 && wordByte(t[k-1]):
			continue
		}
		if k >= armed {
			if e := foldEnd(t, k, "agree", "confirm", "approve", "yes", "consent"); e >= 0 {
				best = min(best, e)
			}
		}
		if k >= to || k+1 == len(t) || !undoPair(c|0x20, t[k+1]) {
			continue
		}
		e := -1
		switch c | 0x20 {
		case 'd':
			if p := seqAt(t, k, "do", "not"); p >= 0 {
				e = notAskedTail(t, p)
			} else if p := foldEnd(t, k, "don"); p >= 0 {
				if p < len(t) && t[p] == '\'' {
					p++
				}
				e = notAskedTail(t, foldEnd(t, p, "t"))
			}
		case 'n':
			if p := foldEnd(t, k, "never"); p >= 0 {
				e = notAskedTail(t, p)
			} else if p := seqAt(t, k, "no", "need", "to"); p >= 0 {
				e = notAskedTail(t, p)
			} else if p := foldEnd(t, k, "needn"); p >= 0 {
				if p < len(t) && t[p] == '\'' {
					p++
				}
				e = notAskedTail(t, foldEnd(t, p, "t"))
			}
			if p := seqAt(t, k, "no", "matter"); p >= 0 {
				q := spacesEnd(t, p)
				f := endAt(t, foldEnd(t, q, "what"))
				if f < 0 && q >= 0 {
					f = endAt(t, seqAt(t, q, "the", "answer"))
				}
				if f >= 0 && (e < 0 || f < e) {
					e = f
				}
			}
		case 'w':
			if p := foldEnd(t, k, "without"); p >= 0 {
				e = notAskedTail(t, p)
			} else if p := spacesEnd(t, foldEnd(t, k, "whatever")); p >= 0 {
				who := foldEnd(t, p, "they")
				if who < 0 {
					who = seqAt(t, p, "the", "user")
				}
				if v := foldEnd(t, spacesEnd(t, who), "answer", "say", "reply", "choose", "decide"); v >= 0 {
					e = firstSuffixEnd(t, v, "s")
				}
			}
		case 'u', 't':
			if p := spacesEnd(t, foldEnd(t, k, "user", "they")); p >= 0 {
				if p = spacesEnd(t, foldEnd(t, p, "has", "have")); p >= 0 {
					e = foldEnd(t, spacesEnd(t, foldEnd(t, p, "already")), "agreed", "confirmed", "approved", "accepted", "consented")
				}
			}
		case 'a':
			if p := spacesEnd(t, foldEnd(t, k, "already")); p >= 0 {
				if e = foldEnd(t, p, "approved", "confirmed", "agreed", "consented"); e < 0 {
					e = foldEnd(t, spacesEnd(t, foldEnd(t, p, "been")), "approved", "confirmed", "agreed", "consented")
				}
			} else if p := endAt(t, foldEnd(t, k, "assume")); p >= 0 {
				armed = min(armed, p)
			} else if p := foldEnd(t, k, "auto"); p >= 0 {
				if p < len(t) && t[p] == '-' {
					if e = foldEnd(t, p+1, "approve", "confirm"); e >= 0 {
						break
					}
				}
				e = foldEnd(t, p, "approve", "confirm")
			} else {
				e = endAt(t, foldEnd(t, k, "anyway"))
			}
		case 'p':
			if p := foldEnd(t, k, "pre"); p >= 0 {
				if p < len(t) && t[p] == '-' {
					if e = endAt(t, foldEnd(t, p+1, "approved")); e >= 0 {
						break
					}
				}
				e = endAt(t, foldEnd(t, p, "approved"))
			}
		case 'y':
			if p := foldEnd(t, k, "yes"); p >= 0 {
				if p = skipSpace(t, p); p < len(t) && t[p] == '|' {
					e = p + 1
				}
			}
		case 'r':
			e = endAt(t, foldEnd(t, k, "regardless"))
		case 'e':
			e = endAt(t, seqAt(t, k, "either", "way"))
		case 'i':
			e = endAt(t, seqAt(t, k, "in", "any", "case"))
		}
		if e >= 0 {
			best = min(best, e)
		}
	}
	if best > len(t) {
		return -1
	}
	return best
}

// undoPairs are undoPair's spanPairs: the second letters of the words
// notAsked's and askedAnyway's matches start with, by their first.
var undoPairs = [26]string{
	'd' - 'a': "o", 'n' - 'a': "eo", 'w' - 'a': "ih", 'u' - 'a': "s{", 't' - 'a': "h", 'a' - 'a': "ls{un",
	'p' - 'a': "r", 'y' - 'a': "e", 'r' - 'a': "e", 'e' - 'a': "i", 'i' - 'a': "n",
}

// undoPair reports whether a word whose first letter is c (lower case)
// and whose next byte is d may start a match of undoEnd's.
func undoPair(c, d byte) bool { return letterPair(&undoPairs, c, d) }

// undoIn reports whether notAsked or askedAnyway matches t.
func undoIn(t string) bool { return undoEnd(t, len(t)) >= 0 }

// orTrueEnd returns where notAsked's `\|\|\s*(?:true|:)(?:\s|$)` at i
// of t ends, or -1.
func orTrueEnd(t string, i int) int {
	if !strings.HasPrefix(t[i:], "||") {
		return -1
	}
	p := skipSpace(t, i+2)
	e := foldEnd(t, p, "true")
	if e < 0 && p < len(t) && t[p] == ':' {
		e = p + 1
	}
	switch {
	case e < 0:
		return -1
	case e == len(t):
		return e
	case spaceByte(t[e]):
		return e + 1
	}
	return -1
}

// notAskedTail returns where notAsked's first alternative's
// `\s+(?:\w+\s+){0,2}?(?:ask|asking|confirm|confirmation|permission|prompt|prompting|approval|consent)`
// after its start, which ends at p, first ends, or -1.
func notAskedTail(t string, p int) int {
	q := spacesEnd(t, p)
	for words := 0; q >= 0; words++ {
		if e := foldEnd(t, q, "ask", "confirm", "permission", "prompt", "approval", "consent"); e >= 0 {
			return e
		}
		if words == 2 {
			break
		}
		w := q
		for n := foldWordAt(t, w); n > 0; n = foldWordAt(t, w) {
			w += n
		}
		if w == q {
			break
		}
		q = spacesEnd(t, w)
	}
	return -1
}

// confirmed is confirmed, read once a line (confirmFast); an exhaustive
// audit, the reference of the others, runs the expressions.
func (s *scanner) confirmed(name string, lines []line, i, at int) bool {
	if !isMarkdown(name) && !s.withinScriptBudget(lines, i, at) {
		return false
	}
	if s.exhaustive {
		return confirmed(name, lines, i, at)
	}
	return s.confirmFast(name, lines, i, at)
}

// confirmFast is confirmed, from each line's confirmFacts.
func (s *scanner) confirmFast(name string, lines []line, i, at int) bool {
	md := isMarkdown(name)
	lo, hi := max(0, i-3), min(len(lines), i+4)
	if !md {
		hi = i + 1
	}
	// base[k-lo] is where line k starts in the window's text, the lines
	// joined, each with its newline.
	var base [8]int
	for k := lo; k < hi; k++ {
		base[k-lo+1] = base[k-lo] + len(lines[k].clean) + 1
	}
	// in returns where the place p of line j is in the window, or -1
	// when it is past the window's end.
	in := func(j int, p place) int {
		if j+p.lines >= hi {
			return -1
		}
		return base[j+p.lines-lo] + int(p.at)
	}
	for j := lo; j < hi; j++ {
		if s.facts(lines, j).undo || j < hi-1 && in(j, s.seam(lines, j).undoEnd) >= 0 {
			return false
		}
	}
	if !md {
		return scriptConfirmed(lines, i, at)
	}
	// The asks, the words of running, and the ends of sentences, in
	// the window; then askedFirst's walk over them.
	w := &s.asked
	w.asks, w.runs, w.stops, w.blanks = w.asks[:0], w.runs[:0], w.stops[:0], w.blanks[:0]
	cut := base[i-lo] + at
	for j := lo; j < hi; j++ {
		f, b := s.facts(lines, j), base[j-lo]
		tail := int32(len(lines[j].clean))
		if j < hi-1 {
			tail = f.tail
		}
		for n := 0; n < len(f.asks); n += 2 {
			if f.asks[n] < tail || j == hi-1 {
				w.asks = append(w.asks, b+int(f.asks[n]), b+int(f.asks[n+1]))
			}
		}
		for n := 0; n < len(f.runs); n += 2 {
			if f.runs[n] < tail || j == hi-1 {
				w.runs = append(w.runs, b+int(f.runs[n]), b+int(f.runs[n+1]))
			}
		}
		if j < hi-1 {
			for _, m := range f.seamAsks {
				if e := in(j, m.end); e >= 0 {
					w.asks = append(w.asks, b+int(m.at), e)
				}
			}
			for _, m := range f.seamRuns {
				if e := in(j, m.end); e >= 0 {
					w.runs = append(w.runs, b+int(m.at), e)
				}
			}
		}
		for _, p := range f.stops {
			w.stops = append(w.stops, b+int(p))
		}
		if j > lo && len(lines[j].clean) == 0 {
			w.blanks = append(w.blanks, b)
		}
	}
	return w.askedFirst(cut, base[hi-lo])
}

// confirmWindow is what confirmFast gathers of a window, in its text's
// offsets: the asks and the words of running (a start and an end each,
// by start), the ends of sentences, and the newlines of its empty lines
// but the first.
type confirmWindow struct {
	asks, runs, stops, blanks []int
}

// askedFirst is the function of that name over the window's lists: of
// the asks that askUser.FindAllStringIndex would find (the first at or
// after the end of the one before), is one that starts before cut in a
// sentence with a word of running? A sentence starts after a '.', '!',
// '?' or the newline of an empty line, and ends at one of them or at
// the newline before an empty line; size is the window's length.
func (w *confirmWindow) askedFirst(cut, size int) bool {
	last := 0
	doneLo, doneHi := -1, -1
	// The lists are by place, as the asks and their sentences are: each
	// is walked once (si, bi: the first end of a sentence at or after
	// the ask's start; ri: the first word of running at or after its
	// sentence's start).
	si, bi, ri := 0, 0, 0
	for n := 0; n < len(w.asks); n += 2 {
		a, b := w.asks[n], w.asks[n+1]
		if a >= cut {
			break
		}
		if a < last {
			continue // in the ask before, as FindAllStringIndex skips it
		}
		last = b
		lo, hi := 0, size
		for si < len(w.stops) && w.stops[si] < a {
			si++
		}
		for bi < len(w.blanks) && w.blanks[bi] < a {
			bi++
		}
		if si > 0 {
			lo = w.stops[si-1] + 1
		}
		if bi > 0 {
			lo = max(lo, w.blanks[bi-1]+1)
		}
		// No '.', '!' or '?' is in an ask: the first at or after its
		// start is at or after its end.
		if si < len(w.stops) {
			hi = w.stops[si]
		}
		for k := bi; k < len(w.blanks); k++ {
			if w.blanks[k]-1 >= b {
				hi = min(hi, w.blanks[k]-1)
				break
			}
		}
		if lo == doneLo && hi == doneHi {
			continue
		}
		doneLo, doneHi = lo, hi
		for ri < len(w.runs) && w.runs[ri] < lo {
			ri += 2
		}
		for r := ri; r < len(w.runs) && w.runs[r] < hi; r += 2 {
			if w.runs[r+1] <= hi {
				return true
			}
		}
	}
	return false
}
