package audit

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
)

// context is where a line stands in a file.
type context int

const (
	prose  context = iota // Markdown text outside code
	code                  // a fenced code block, or any line of a script
	hidden                // inside an HTML comment in Markdown
)

// line is one line of a text file.
type line struct {
	n     int     // 1-based
	raw   string  // as in the file, without its newline
	clean string  // raw with invisible characters removed
	ctx   context // where it stands
	block runMode // how rule 23 reads a line of a fenced block (runs.go)
	// hits are the prefilter's strings in clean (nil in an exhaustive
	// audit); text sets them.
	hits *prefilter.Hits
	// redefines caches whether clean gives b64decode another meaning
	// (see redefines), once asked.
	redefines, redefinesAsked bool
	// confirm is what rule 5's confirmation learns of the line
	// (confirm.go), once asked.
	confirm *confirmFacts
	// near is what rule 6's context learns of the line (near.go), once
	// asked.
	near *[nearExprs]reach
}

// lineReader reads a text file's lines with their context, one at a
// time, so that no more than a few lines are held at once. A line over
// maxLineBytes is read in pieces that overlap, each under the line's
// number, so nothing past the limit is missed.
type lineReader struct {
	md      bool
	plain   bool // the text has no character to drop and is UTF-8: a line's clean is its raw
	valid   bool // the text is UTF-8
	rawOnly bool // the reader's caller reads raw alone: no clean, no context
	// hides finds the places of the text that mayHide finds, which are
	// where a character to drop may be (unused when plain or rawOnly).
	hides     hideCursor
	text      string // what is left of the file after the current line
	read      int    // where text starts in the reader's text
	raw       string // what is left of the current line
	off       int    // where raw starts in the reader's text
	at        int    // where the last line (or piece) next returned starts in the reader's text
	open      bool   // raw is still to be read
	n         int    // the current line's number, 1-based
	fence     string // the open fence, or ""
	block     runMode
	inComment bool
	// all is the reader's text, and comment where a "<!--" was found
	// in it (commentIn).
	all     string
	comment ahead
	// collapse: of a run of empty lines, only the first three are
	// read (see nextInto); blanks: how many empty lines in a row were
	// read last.
	collapse bool
	blanks   int
}

func newLineReader(name, text string) *lineReader {
	return &lineReader{md: isMarkdown(name), text: text, all: text, comment: unsought}
}

// next returns the next line, or piece of a long line, and false at the
// end of the file.
func (r *lineReader) next() (line, bool) {
	var l line
	ok := r.nextInto(&l)
	return l, ok
}

// nextInto is next, which writes the line in l, a zero line: a line is
// written once where it is kept, not returned and copied.
func (r *lineReader) nextInto(l *line) bool {
	if !r.open {
		if r.text == "" {
			return false
		}
		if r.collapse && r.blanks >= 3 {
			// The fourth empty line in a row, and those after it, are
			// passed over: the line after the run has three empty
			// lines as its window's lines before it, and the line
			// before the run is more than three lines from it, so
			// that the window of no line that is not empty (the only
			// lines asked of the rules) holds lines from both sides.
			// The lines on each side of the run read three empty
			// lines beside them, as they would read the run, and are
			// numbered as in the file. (A seam of rule 5 or 6 may
			// read past the run; only a match that ends in the
			// window counts.)
			for w := blankEnd(r.text); w > 0; w = blankEnd(r.text) {
				r.read, r.text = r.read+w, r.text[w:]
				r.n++
				if r.text == "" {
					return false
				}
			}
		}
		if w := blankEnd(r.text); w > 0 {
			// An empty line: its context is the one the lines before
			// leave, which it changes in no way.
			r.off, r.read, r.text = r.read, r.read+w, r.text[w:]
			r.at = r.off
			r.n++
			r.blanks++
			l.n, l.ctx = r.n, r.standing()
			if r.fence != "" {
				l.block = r.block
			}
			return true
		}
		r.blanks = 0
		raw, rest, _ := strings.Cut(r.text, "\n")
		r.off, r.read = r.read, r.read+len(r.text)-len(rest)
		r.text, r.raw, r.open = rest, strings.TrimSuffix(raw, "\r"), true
		r.n++
	}
	raw := r.raw
	if len(raw) > maxLineBytes {
		// A piece ends, and the next starts, at a character's start:
		// within three bytes in UTF-8, or where the count fell in a run
		// of bytes that start none (which the cleaning reads as U+FFFD
		// each), so that every piece moves on.
		cut := runeStartBefore(raw, maxLineBytes)
		back := runeStartBefore(raw, cut-lineOverlap)
		r.at = r.off
		r.raw, r.off = raw[back:], r.at+back
		l.n, l.raw, l.clean, l.ctx = r.n, raw[:cut], r.clean(raw[:cut], r.at), code
		return true
	}
	r.open, r.at = false, r.off
	l.n, l.raw, l.clean, l.ctx = r.n, raw, r.clean(raw, r.at), code
	if r.md && !r.rawOnly {
		trimmed := strings.TrimSpace(l.clean)
		switch {
		case r.fence != "":
			l.block = r.block
			if strings.HasPrefix(trimmed, r.fence) && strings.Trim(trimmed, r.fence[:1]) == "" {
				r.fence = ""
			}
		case r.inComment:
			l.ctx = hidden
			r.inComment = !strings.Contains(l.clean, "-->")
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			r.fence, r.block = trimmed[:3], blockMode(trimmed[3:])
		default:
			l.ctx = prose
			if i := r.commentIn(l.clean, raw, r.at); i >= 0 {
				l.ctx = hidden
				r.inComment = !strings.Contains(l.clean[i:], "-->")
			}
		}
	}
	return true
}

// blankEnd returns the length of the newline text starts with (with
// its carriage return), or 0.
func blankEnd(text string) int {
	switch {
	case text[0] == '\n':
		return 1
	case text[0] == '\r' && len(text) > 1 && text[1] == '\n':
		return 2
	}
	return 0
}

// commentIn returns where "<!--" first is in clean, the cleaned text
// of raw, a line that starts at byte at of the reader's text, or -1. In
// a line that the cleaning left as it is, it reads what a search of
// the text, which moves on with the lines, found: a search of each line
// costs more than a short line's reading.
func (r *lineReader) commentIn(clean, raw string, at int) int {
	if unsafe.StringData(clean) != unsafe.StringData(raw) || len(clean) != len(raw) {
		return strings.Index(clean, "<!--")
	}
	// "<!--" holds no newline or carriage return: one that starts on
	// the line is in it.
	if c := r.comment.find(at, func(from int) int { return indexFrom(r.all, "<!--", from) }); c < at+len(raw) {
		return c - at
	}
	return -1
}

// pass passes over the lines from the next to the one that starts at
// byte to of the reader's text (or its end), lines that open or close
// no fence and no HTML comment (quiet), and returns the context they
// stand in.
func (r *lineReader) pass(to int) context {
	k := to - r.read
	r.n += strings.Count(r.text[:k], "\n")
	r.text, r.read, r.blanks = r.text[k:], to, 0
	return r.standing()
}

// standing returns the context that a line that opens or closes no
// fence and no HTML comment stands in: that of the lines before it.
func (r *lineReader) standing() context {
	switch {
	case !r.md || r.rawOnly || r.fence != "":
		return code
	case r.inComment:
		return hidden
	}
	return prose
}

// clean returns raw, which starts at off in the reader's text, with the
// invisible characters removed, as rules 5-15 read it; raw itself in
// ASCII text, which has none.
func (r *lineReader) clean(raw string, off int) string {
	if r.rawOnly || r.plain {
		return raw
	}
	at := r.hides.next(off, off+len(raw))
	if at < 0 && (r.valid || utf8.ValidString(raw)) {
		// strings.Map would change nothing: no character to drop, and
		// no invalid byte to write as U+FFFD.
		return raw
	}
	if r.valid {
		return dropHidden(raw, off, at, &r.hides)
	}
	return strings.Map(dropInvisible, raw)
}

// dropHidden returns strings.Map(dropInvisible, s) for s that is UTF-8
// and starts at off in the text of hides, whose first place in s is at
// (in the text): it decodes only the characters at the places mayHide
// finds (every character dropInvisible drops is at one) and copies the
// text between them as it is.
func dropHidden(s string, off, at int, hides *hideCursor) string {
	var b strings.Builder
	kept := 0 // s[:kept] is written or dropped
	for at >= 0 {
		i := at - off
		r, w := utf8.DecodeRuneInString(s[i:])
		if dropInvisible(r) < 0 {
			if kept == 0 {
				b.Grow(len(s) - w)
			}
			b.WriteString(s[kept:i])
			kept = i + w
		}
		at = hides.next(at+w, off+len(s))
	}
	if kept == 0 {
		return s
	}
	b.WriteString(s[kept:])
	return b.String()
}

// runeStartBefore returns i, or the start of the character that holds
// byte i of s if it starts at most three bytes before.
func runeStartBefore(s string, i int) int {
	for n := 1; n <= utf8.UTFMax && i-n >= -1; n++ {
		if utf8.RuneStart(s[i-n+1]) {
			return i - n + 1
		}
	}
	return i
}

// lineOverlap is how much of a long line's piece the next piece
// repeats, so that a match across the cut is found.
const lineOverlap = 4 << 10

// invisible reports whether r is a zero-width or other invisible
// formatting character (rule 3's set, with the variation selectors).
func invisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064,
		r == 0xfeff, r == 0x180e, r == 0x00ad, r == 0x034f:
		return true
	case isVariationSelector(r):
		return true
	}
	return false
}

func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

func isTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// mayHide reports whether s may hold a character that rules 1-3 find
// (one that dropInvisible drops): it looks for their UTF-8 encodings'
// first bytes, a few times faster than decoding every character, and
// false means none of them is in s.
func mayHide(s string) bool { return hideAt(s) >= 0 }

// hideAt returns the offset of the first place in s that mayHide finds,
// or -1. Eight bytes of ASCII are passed over at a time. No place spans
// a line end: the bytes after the first are continuation bytes.
func hideAt(s string) int {
	for i := 0; i < len(s); i++ {
		for i+8 <= len(s) && s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7] < utf8.RuneSelf {
			i += 8
		}
		if i < len(s) && s[i] >= 0xc2 && hideSeq(s, i) {
			return i
		}
	}
	return -1
}

// survey is what a text file holds outside ASCII.
type survey struct {
	valid bool // utf8.ValidString
	hides bool // mayHide, or not valid
	c1    bool // hasC1
	fold  bool // prefilter.NeedsFold
	// places are the offsets of the places that mayHide finds (hideAt's
	// answers), in order: every one before upTo, at most limit of them.
	places []int32
	limit  int
	upTo   int
}

// surveyText answers the questions of survey about s in one pass,
// decoding only the characters outside ASCII (ASCII is passed over
// eight bytes at a time, up to the first byte among the eight that is
// not), and lists the first limit places of s that mayHide finds,
// appending to places[:0]. Every byte that is no
// continuation byte of a valid character is read as a first byte, as
// each question's own search reads it; so is every byte from 0xC2 up,
// where hideAt looks.
func surveyText(s string, places []int32, limit int) survey {
	if len(s) > math.MaxInt32 {
		limit = 0
	}
	v := survey{valid: true, places: places[:0], limit: limit, upTo: -1}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// Past the ASCII, eight bytes at a time, to the first byte
			// of the eight that is not.
			i++
			for i+8 <= len(s) {
				if w := word(s, i) & 0x8080808080808080; w != 0 {
					i += bits.TrailingZeros64(w) / 8
					break
				}
				i += 8
			}
			continue
		}
		f := utf8Firsts[c]
		n := int(f & firstLen)
		var ok bool
		if i+8 <= len(s) {
			// The bytes after the first are continuation bytes: one
			// test of the eight, not one of each.
			ok = word(s, i)&contMask[n] == contBits[n]
		} else {
			ok = n != 0 && i+n <= len(s) && s[i+1]&0xc0 == 0x80 && (n < 3 || s[i+2]&0xc0 == 0x80) && (n < 4 || s[i+3]&0xc0 == 0x80)
		}
		if !ok || f&firstAsked != 0 && !v.asked(s, i) {
			v.valid, v.hides = false, true
			if hideSeq(s, i) {
				v.place(i)
			}
			i++
			continue
		}
		i += n
	}
	if v.upTo < 0 {
		v.upTo = len(s)
	}
	return v
}

// place lists the place at offset i, the next of the text's, or ends
// the list there when it holds limit (upTo is -1 until the list ends).
func (v *survey) place(i int) {
	switch {
	case v.upTo >= 0:
	case len(v.places) < v.limit:
		v.places = append(v.places, int32(i))
	default:
		v.upTo = i
	}
}

// contMask and contBits test, of the eight bytes from a character's
// first (word), that the bytes after the first are continuation bytes:
// by its length (utf8Firsts), 2-4; a length of 0 fails.
var (
	contMask = [5]uint64{0, 0, 0xc000, 0xc0c000, 0xc0c0c000}
	contBits = [5]uint64{1, 1, 0x8000, 0x808000, 0x80808000}
)

// word returns s[i:i+8] as a number, read by one load.
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// asked answers the questions of survey about the character at s[i],
// of a first byte that utf8Firsts marks firstAsked and continuation
// bytes after it, and reports whether it is valid.
func (v *survey) asked(s string, i int) bool {
	switch c := s[i+1]; s[i] {
	case 0xc2:
		v.c1 = v.c1 || c <= 0x9f
	case 0xc5: // U+017F
		v.fold = v.fold || c == 0xbf
	case 0xe0:
		return c >= 0xa0
	case 0xed:
		return c <= 0x9f
	case 0xe2: // U+212A
		v.fold = v.fold || c == 0x84 && s[i+2] == 0xaa
	case 0xf0:
		return c >= 0x90
	case 0xf4:
		return c <= 0x8f
	}
	if hideSeq(s, i) {
		v.hides = true
		v.place(i)
	}
	return true
}

// utf8Firsts describes each byte as the first of a character's UTF-8:
// its length (firstLen; 0 when no character starts with it), and
// firstAsked when survey.asked must look at the character.
var utf8Firsts = func() (t [256]byte) {
	for c := 0xc2; c < 0xf5; c++ {
		switch {
		case c < 0xe0:
			t[c] = 2
		case c < 0xf0:
			t[c] = 3
		default:
			t[c] = 4
		}
	}
	for _, c := range append(hideLeads[:], 0xc5, 0xe0, 0xed, 0xf0, 0xf4) {
		t[c] |= firstAsked
	}
	return t
}()

const (
	firstLen   = 7
	firstAsked = 8
)

// hideLeads are the first bytes of the UTF-8 of the characters mayHide
// looks for.
var hideLeads = [...]byte{0xc2, 0xcd, 0xe1, 0xe2, 0xef, 0xf3}

// hideSeq reports whether s holds at i the UTF-8 of a character that
// mayHide looks for (as far as its bytes after the first go: a
// character of four bytes may lack its last).
func hideSeq(s string, i int) bool {
	rest := s[i+1:]
	switch s[i] {
	case 0xc2: // U+00AD
		return strings.HasPrefix(rest, "\xad")
	case 0xcd: // U+034F
		return strings.HasPrefix(rest, "\x8f")
	case 0xe1: // U+180E
		return strings.HasPrefix(rest, "\xa0\x8e")
	case 0xe2: // U+200B-U+200D, U+202A-U+202E, U+2060-U+2064, U+2066-U+2069
		return len(rest) >= 2 && (rest[0] == 0x80 && (0x8b <= rest[1] && rest[1] <= 0x8d || 0xaa <= rest[1] && rest[1] <= 0xae) ||
			rest[0] == 0x81 && 0xa0 <= rest[1] && rest[1] <= 0xa9)
	case 0xef: // U+FE00-U+FE0F, U+FEFF
		return len(rest) >= 2 && (rest[0] == 0xb8 && 0x80 <= rest[1] && rest[1] <= 0x8f || rest[0] == 0xbb && rest[1] == 0xbf)
	case 0xf3: // U+E0000-U+E007F, U+E0100-U+E01EF
		return len(rest) >= 2 && rest[0] == 0xa0 && (0x80 <= rest[1] && rest[1] <= 0x81 || 0x84 <= rest[1] && rest[1] <= 0x87)
	}
	return false
}

// hideCursor finds the places of a text that mayHide finds: those
// before upTo in a survey's list, the others by hideAt.
type hideCursor struct {
	text   string
	places []int32 // every place before upTo, in order
	upTo   int
	k      int // places[:k] are before the last from asked
}

func newHideCursor(text string, v survey) hideCursor {
	return hideCursor{text: text, places: v.places, upTo: v.upTo}
}

// next returns the offset of the first place in text[from:to], or -1.
// A place's bytes after its first are continuation bytes, so no place
// spans a line's end or the first byte of a character; to is one of
// them, or the text's end. Asked forwards (and back a little, as the
// pieces of a long line overlap), next costs little more than the
// places it passes.
func (c *hideCursor) next(from, to int) int {
	for c.k > 0 && int(c.places[c.k-1]) >= from {
		c.k--
	}
	for c.k < len(c.places) && int(c.places[c.k]) < from {
		c.k++
	}
	if c.k < len(c.places) {
		if p := int(c.places[c.k]); p < to {
			return p
		}
		return -1
	}
	from = max(from, c.upTo)
	if from >= to {
		return -1
	}
	if j := hideAt(c.text[from:to]); j >= 0 {
		return from + j
	}
	return -1
}

// dropInvisible is the strings.Map function that removes what rules 1-3
// find, so the other rules read the text a model reads.
func dropInvisible(r rune) rune {
	if invisible(r) || isTag(r) || isBidi(r) {
		return -1
	}
	return r
}

// text audits a text file line by line: rules 1-4 first, then, knowing
// whether the file hides characters, rules 5-15 and 21 on each line with
// up to three lines each side (rule 6's context).
func (s *scanner) text(name, text string) {
	s.file, s.layout = text, nil
	s.startRuns(name, text)
	defer func() { s.file, s.layout = "", nil }()
	// What the file may hold is asked once of it all, so that a line
	// asks only what the file may hold: rules 1-3 find nothing in text
	// without the characters they look for (ASCII text, say), rule 4
	// nothing without ESC, a backspace, a carriage return inside a line
	// or a C1 control, and a line of text without hidden characters and
	// invalid bytes is clean as it is. The questions about its
	// characters outside ASCII are answered in one pass over it, which
	// also lists where the characters rules 1-3 find may be, so that
	// neither they nor the cleaning of a line search for them again.
	// The exhaustive audit lists none: it searches, as the reference.
	limit := maxPlaces
	if s.exhaustive {
		limit = 0
	}
	v := surveyText(text, s.places, limit)
	s.places = v.places
	valid, hides := v.valid, v.hides
	controls := containsByte(text, 0x1b, '\b') || loneCR(text) || v.c1
	unfolded := !v.fold
	places := newHideCursor(text, v)
	hiddenText := s.hiddenAndControls(name, text, hides, controls, places)
	r := newLineReader(name, text)
	r.plain, r.valid, r.hides = !hides, valid, places
	// Of a run of empty lines, the exhaustive audit reads every line.
	r.collapse = !s.exhaustive
	// The quiet lines far from the others are passed over (quiet.go);
	// the exhaustive audit reads every line.
	q := &s.quiet
	if !s.exhaustive {
		var drops *hideCursor
		if hides {
			drops = &places
		}
		q.start(text, s.lf(), r.md, s.runsFile, !unfolded, drops)
		defer q.stop()
	}
	// passing: where the run of quiet lines to pass over ends, once the
	// lines read are done (-1: none).
	passing := -1
	// The current line, win[cur], and its neighbours, and the lines a
	// batch scans, in the scanner's slices, which every file reuses.
	win := s.win[:0]
	defer func() {
		// Kept, the lines would keep the text.
		clear(win[:cap(win)])
		clear(s.texts[:cap(s.texts)])
		s.win, s.texts, s.batch = win[:0], s.texts[:0], s.batch[:0]
	}()
	cur := 0
	for {
		if len(win) < cur+4 && passing < 0 {
			// The lines before the three above the current one leave
			// the window, a batch at a time rather than a line at a time.
			if gone := cur - 3; gone > 0 {
				win = append(win[:0], win[gone:]...)
				cur -= gone
			}
			if !s.exhaustive && !r.open {
				// The lines read last are quiet, and so may the next
				// be: once the lines read are done, text passes over
				// them.
				if to := q.passTo(r.read); to > r.read {
					passing = to
				}
			}
			if passing < 0 {
				win = s.readBatch(r, win, unfolded)
			}
		}
		if cur >= len(win) {
			for k := range win {
				s.recycle(win[k].hits)
				s.recycleNear(&win[k])
			}
			if passing < 0 {
				return
			}
			// Every line read is done: the quiet lines are passed over
			// (rule 23 learns that the last of them continues no
			// command; what it continued could matter only on a line
			// with a /, whose three lines before are read: quiet.go),
			// and the lines after them start a window of their own.
			clear(win)
			win, cur = win[:0], 0
			if r.pass(passing) != hidden {
				s.runCont = false
			}
			passing = -1
			continue
		}
		// patterns reads the three lines each side of the current one;
		// of a line empty as the rules read it, it would ask rule 23
		// alone, which learns that the line continues no command.
		above := min(cur, 3)
		if l := &win[cur]; l.clean == "" && !s.exhaustive {
			if s.runsFile && l.ctx != hidden {
				s.runCont = false
			}
		} else {
			s.patterns(name, win[cur-above:], above, hiddenText)
		}
		if above == 3 {
			// The line leaves the window: its Hits serve the next
			// batch.
			s.recycle(win[cur-3].hits)
			win[cur-3].hits = nil
			s.recycleNear(&win[cur-3])
		}
		cur++
	}
}

// readBatch reads the next scanBatch lines of r (fewer at the text's
// end) onto the window win, and scans them: two at a time, which costs
// little more than one (prefilter.Filter.ScanEach). unfolded says the
// text needs no folding.
func (s *scanner) readBatch(r *lineReader, win []line, unfolded bool) []line {
	from := len(win)
	for len(win) < from+scanBatch {
		win = append(win, line{})
		l := &win[len(win)-1]
		if !r.nextInto(l) {
			win = win[:len(win)-1]
			break
		}
		if !s.exhaustive {
			// A line empty as the rules read it holds no string: it
			// shares one Hits that no scan writes (blankHits).
			l.hits = s.blankHits()
			if l.clean != "" {
				l.hits = s.hits()
			}
		}
		s.linesRead++
	}
	if s.exhaustive {
		return win
	}
	texts, hits := s.texts[:0], s.batch[:0]
	for k := from; k < len(win); k++ {
		if l := &win[k]; l.clean != "" {
			texts, hits = append(texts, l.clean), append(hits, l.hits)
		}
	}
	s.lf().ScanEach(hits, texts, unfolded)
	s.texts, s.batch = texts, hits
	for k := from; k < len(win); k++ {
		s.quiet.saw(win[k].hits)
	}
	return win
}

// scanBatch is how many lines text reads, and the prefilter scans, at a
// time.
const scanBatch = 8

// maxPlaces is how many places of a file that mayHide finds its survey
// lists (64 KiB of offsets); past them, they are searched for.
const maxPlaces = 1 << 14

// hiddenAndControls applies rules 1-3 (when the text hides, as far as
// mayHide can tell) and rule 4 (when it has controls) to the lines of
// text that may hold what they find, in order, and reports whether
// rules 1-3 found any. Those lines are found by the places of text that
// mayHide finds (places) and by searching the whole text for the bytes
// rule 4 looks for, not by reading each line: a line without them is
// neither cut out of the text nor read.
func (s *scanner) hiddenAndControls(name, text string, hides, controls bool, places hideCursor) (hiddenText bool) {
	// The next place of each kind, searched for from a line's start
	// (quiet.go's ahead: found again only once a line passes it); a
	// kind not asked for has none.
	searchOf := func(index func(string) int) func(int) int {
		return func(at int) int {
			if i := index(text[at:]); i >= 0 {
				return at + i
			}
			return len(text)
		}
	}
	seek := [5]func(int) int{
		func(at int) int {
			if p := places.next(at, len(text)); p >= 0 {
				return p
			}
			return len(text)
		},
		searchOf(func(t string) int { return strings.IndexByte(t, 0x1b) }),
		searchOf(func(t string) int { return strings.IndexByte(t, '\b') }),
		searchOf(loneCRAt),
		searchOf(c1At),
	}
	asked := [5]bool{hides, controls, controls, controls, controls}
	var next [5]ahead
	for k := range next {
		next[k] = unsought
		if !asked[k] {
			next[k] = ahead{at: len(text)}
		}
	}
	start, n := 0, 0 // a line's start, and how many lines are before it
	for start < len(text) {
		p := len(text)
		for k := range next {
			p = min(p, next[k].find(start, seek[k]))
		}
		if p == len(text) {
			break
		}
		from := start + strings.LastIndexByte(text[start:p], '\n') + 1
		n += strings.Count(text[start:from], "\n")
		end := len(text)
		if i := strings.IndexByte(text[p:], '\n'); i >= 0 {
			end = p + i
		}
		r := &lineReader{text: text[from:end], rawOnly: true, n: n}
		for first := n == 0; ; first = false {
			l, ok := r.next()
			if !ok {
				break
			}
			if hides && s.unicode(name, l, first, &places, from+r.at) {
				hiddenText = true
			}
			if controls {
				s.controls(name, l)
			}
		}
		start, n = end+1, n+1
	}
	return hiddenText
}

// loneCR reports whether s holds a carriage return that is not part of
// a CRLF line end (one at the end of s too, which a line read without
// its line end drops, counts).
func loneCR(s string) bool { return loneCRAt(s) >= 0 }

// loneCRAt returns the offset of the first carriage return of s that
// loneCR finds, or -1.
func loneCRAt(s string) int {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '\r')
		if j < 0 {
			return -1
		}
		i += j
		if i+1 == len(s) || s[i+1] != '\n' {
			return i
		}
	}
}

// hasC1 reports whether s holds the UTF-8 of a C1 control
// (U+0080-U+009F: C2 80-C2 9F).
func hasC1(s string) bool { return c1At(s) >= 0 }

// c1At returns the offset of the first C1 control of s, or -1.
func c1At(s string) int {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], 0xc2)
		if j < 0 || i+j+1 >= len(s) {
			return -1
		}
		i += j
		if s[i+1] >= 0x80 && s[i+1] <= 0x9f {
			return i
		}
	}
}

// containsByte reports whether s holds one of bs: a search for each,
// which is many times faster over a whole file than strings.ContainsAny.
func containsByte(s string, bs ...byte) bool {
	for _, b := range bs {
		if strings.IndexByte(s, b) >= 0 {
			return true
		}
	}
	return false
}

// unicode applies rules 1-3 to a line, which starts at off in the text
// of places, and reports whether it found any. Each rule reports the
// line once, at its first match.
func (s *scanner) unicode(name string, l line, first bool, places *hideCursor, off int) bool {
	raw := l.raw
	found := false
	var tagged, bidi, zeroWidth bool // reported on this line
	prev := rune(-1)                 // the character before i
	for i := 0; i < len(raw); {
		// The characters before the next place mayHide finds are none
		// of those the rules look for.
		if p := places.next(off+i, off+len(raw)); p < 0 {
			break
		} else if j := p - off; j > i {
			i = j
			prev, _ = utf8.DecodeLastRuneInString(raw[:i])
		}
		r, w := utf8.DecodeRuneInString(raw[i:])
		if isTag(r) {
			// A subdivision flag: U+1F3F4, tag letters or digits, U+E007F.
			if prev == 0x1f3f4 {
				j := skip(raw, i, func(r rune) bool { return r >= 0xe0030 && r <= 0xe007a })
				if c, cw := utf8.DecodeRuneInString(raw[j:]); j > i && c == 0xe007f {
					prev, i = c, j+cw
					continue
				}
			}
			j := skip(raw, i, isTag)
			if !tagged {
				s.addf(ruleUnicodeTag, name, l.n, span{raw, i}, func() string {
					return fmt.Sprintf("%d tag characters, which read as %q", utf8.RuneCountInString(raw[i:j]), untag(raw[i:j]))
				})
				tagged = true
			}
			found = true
			prev, _ = utf8.DecodeLastRuneInString(raw[:j])
			i = j
			continue
		}
		if isBidi(r) {
			if !bidi {
				s.addf(ruleBidiControl, name, l.n, span{raw, i}, func() string { return fmt.Sprintf("bidirectional control U+%04X", r) })
				bidi = true
			}
			found = true
			j := skip(raw, i, isBidi)
			prev, _ = utf8.DecodeLastRuneInString(raw[:j])
			i = j
			continue
		}
		if !invisible(r) {
			prev, i = r, i+w
			continue
		}
		j := skip(raw, i, invisible)
		run := utf8.RuneCountInString(raw[i:j])
		next, _ := utf8.DecodeRuneInString(raw[j:])
		// The message, written for a finding kept: of a run, or of one
		// inside a word.
		hides, inWord := false, false
		switch {
		case run >= 3:
			hides = true
		case r == 0xfeff && first && i == 0:
		case isVariationSelector(r):
		case i > 0 && j < len(raw) && isASCIIWord(prev) && isASCIIWord(next):
			hides, inWord = true, true
		}
		if hides {
			if !zeroWidth {
				rule, example := ruleZeroWidth, false
				if run == 1 && !invisibleAfter(raw[j:]) && documentedInvisible(name, raw, i, j) {
					rule, example = ruleAttackExample, true
				}
				s.addf(rule, name, l.n, span{raw, i}, func() string {
					msg := fmt.Sprintf("invisible U+%04X inside a word", r)
					if !inWord {
						msg = fmt.Sprintf("%d invisible characters in a row", run)
					}
					if example {
						msg += ", quoted on a line that names it (an example)"
					}
					return msg
				})
				zeroWidth = true
			}
			found = true
		}
		prev, _ = utf8.DecodeLastRuneInString(raw[:j])
		i = j
	}
	return found
}

// skip returns the offset in s of the first character from i on that is
// not in.
func skip(s string, i int, in func(rune) bool) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			break
		}
		i += w
	}
	return i
}

// isASCII reports whether s has no byte above U+007F, and so nothing
// rules 1-3 find.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7] >= utf8.RuneSelf {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isASCIIWord(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// untag reads tag characters as the ASCII they shadow.
func untag(tags string) string {
	var b strings.Builder
	for _, r := range tags {
		if c := r - 0xe0000; c >= 0x20 && c < 0x7f {
			b.WriteRune(c)
		}
		if b.Len() > 80 {
			break
		}
	}
	return truncate(b.String(), 80)
}

// controls applies rule 4 to a line.
func (s *scanner) controls(name string, l line) {
	if !hasControlByte(l.raw) {
		return
	}
	for i, r := range l.raw {
		switch {
		case r == 0x1b && i+1 < len(l.raw) && strings.IndexByte(escapeFinal, l.raw[i+1]) >= 0:
			s.add(ruleTerminalEscape, name, l.n, span{l.raw, i}, "an escape sequence (ESC)")
		case r >= 0x80 && r <= 0x9f:
			s.addf(ruleTerminalEscape, name, l.n, span{l.raw, i}, func() string { return fmt.Sprintf("a C1 control character U+%04X", r) })
		case r == '\b':
			s.add(ruleTerminalEscape, name, l.n, span{l.raw, i}, "a backspace, which overwrites text on a terminal")
		case r == '\r':
			s.add(ruleTerminalEscape, name, l.n, span{l.raw, i}, "a carriage return inside a line, which overwrites it on a terminal")
		default:
			continue
		}
		return
	}
}

// hasControlByte reports whether s has a byte of what rule 4 finds: ESC,
// a backspace, a carriage return, or the first byte of a C1 control's
// UTF-8 (U+0080-U+009F are C2 80-C2 9F).
func hasControlByte(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0x1b, '\b', '\r', 0xc2:
			return true
		}
	}
	return false
}

// escapeFinal holds the bytes that make ESC the start of a sequence a
// terminal acts on: CSI, OSC, DCS, SOS, PM, APC, character sets, cursor
// save and restore, reset, index, keypad modes. An ESC before anything
// else (a mis-encoded arrow, say) does nothing on a terminal.
const escapeFinal = "[]PX^_()*+#%c78DEHMNOZ=><"

// excerptAt returns the part of a line around byte offset at, escaped.
func excerptAt(raw string, at int) string {
	start := max(0, at-60)
	for start > 0 && !utf8.RuneStart(raw[start]) {
		start--
	}
	end := len(raw)
	if end-start > 4*maxExcerpt {
		end = start + 4*maxExcerpt
		for end > start && !utf8.RuneStart(raw[end]) {
			end--
		}
	}
	out := escape(strings.TrimSpace(raw[start:end]))
	if start > 0 {
		out = "..." + out
	}
	return truncate(out, maxExcerpt)
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n-3]) + "..."
}

// escape writes control, invisible and deceptive characters as escapes:
// \xNN below U+0080 and for invalid bytes, \uNNNN or \UNNNNNNNN above.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, invisible(r), isBidi(r), isTag(r),
			r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029,
			!unicode.IsPrint(r) && r != ' ':
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// hits returns an empty Hits for a line entering the window of text,
// one that a line leaving it gave back if there is one.
func (s *scanner) hits() *prefilter.Hits {
	if n := len(s.free); n > 0 {
		h := s.free[n-1]
		s.free = s.free[:n-1]
		return h
	}
	return lineFilter().NewHits()
}

// blankHits returns the Hits of every empty line: empty, and never
// scanned, reset or given back.
func (s *scanner) blankHits() *prefilter.Hits {
	if s.blank == nil {
		s.blank = lineFilter().NewHits()
	}
	return s.blank
}

// recycle gives back the Hits of a line leaving the window.
func (s *scanner) recycle(h *prefilter.Hits) {
	if h != nil && h != s.blank {
		s.free = append(s.free, h)
	}
}

// invisibleAfter reports whether s holds an invisible character other
// than a variation selector: a line with a second one is not the
// documentation of one character (rule 21), and the first finding of a
// line is its only one.
func invisibleAfter(s string) bool {
	for _, r := range s {
		if invisible(r) && !isVariationSelector(r) {
			return true
		}
	}
	return false
}
