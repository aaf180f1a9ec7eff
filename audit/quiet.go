package audit

import (
	"strings"

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
)

// quiet finds the lines of a file that text passes over (see "Speed" in
// the package doc). A line that holds none of the prefilter's strings
// is one that no expression asked of a line may match, which patterns
// leaves at once; a rule reads it only in the window of a line within
// three lines of it that holds one. Beyond those windows, a line
// matters only for how the lines after it are read, which it changes
// only when it holds a mark: a fence or an HTML comment that opens or
// closes (in Markdown), a command rule 23 reads (a / or inline code),
// or a character that the cleaning of a line drops or that a scan
// folds, either of which may give the line as the rules read it a
// string its bytes lack. A line that holds neither is quiet, and text
// passes over the quiet lines more than three lines from every other
// in bulk: it counts their newlines and asks what their context is,
// without reading them one at a time. (A backslash that continues a
// line of a shell's block is no mark: what it continues matters to rule
// 23 only on a line with a /, whose three lines before are read.)
type quiet struct {
	text string
	f    *prefilter.Filter
	// marks are the file's marks other than a place hides finds, and
	// next[k] where the first occurrence of marks[k] was found.
	marks []string
	next  []ahead
	// hides finds the places a character may be dropped (nil in a
	// file with none).
	hides *hideCursor
	// str is where the last byte of the first of the prefilter's
	// strings was found.
	str ahead
	// hold is where the next line that is not quiet was found last:
	// no line before it is passed over.
	hold int
	// run is how many lines (or pieces of a long line) read last hold
	// none of the strings: text passes over lines only after three.
	run int
	// idle is how many more times passTo returns at once, without a
	// search, after a search that found no line to pass; wait is how
	// many times it waits after the next such search. In text whose
	// lines that hold a string are four to seven apart (a keyword's
	// line, then six empty lines), a search would run once a batch of
	// lines and pass none: each search that passes none makes the wait
	// about twice as long (1, 3, 7, 15, then maxWait). A search that
	// passes lines ends it, and so does one that passes none after
	// quietWait quiet lines were read one at a time, which is no sign
	// of strings close together: text cannot keep the wait long by
	// putting a string just past each place a search is made, with
	// many quiet lines between. Lines not passed over are read, which
	// changes no finding.
	idle, wait int
	// searches counts the searches of every file the scanner reads,
	// for tests.
	searches int
}

// maxWait is the longest wait between passTo's searches, in batches of
// lines read (see quiet.idle); quietWait is how many quiet lines read
// one at a time before a search ends the wait.
const (
	maxWait   = 16
	quietWait = 2 * scanBatch
)

// The marks of quiet lines, by what a file is.
var (
	markdownMarks = []string{"```", "~~~", "<!--", "-->"}
	runsMarks     = []string{"/", "`"}
	foldMarks     = []string{"\u212a", "\u017f"}
)

// start makes q ready for the text of a file: md, whether it is read as
// Markdown; runs, whether rule 23 reads it; fold, whether a scan of it
// may fold; hides, the places of the characters its lines drop (nil
// when none may).
func (q *quiet) start(text string, f *prefilter.Filter, md, runs, fold bool, hides *hideCursor) {
	q.text, q.f, q.hides = text, f, hides
	q.marks = q.marks[:0]
	if md {
		q.marks = append(q.marks, markdownMarks...)
	}
	if runs {
		q.marks = append(q.marks, runsMarks...)
	}
	if fold {
		q.marks = append(q.marks, foldMarks...)
	}
	q.next = q.next[:0]
	for range q.marks {
		q.next = append(q.next, unsought)
	}
	q.str, q.hold = unsought, -1
	q.idle, q.wait = 0, 0
	// The lines before the first are none.
	q.run = 3
}

// stop lets go of the file's text.
func (q *quiet) stop() { q.text, q.hides = "", nil }

// mark returns where the first occurrence of marks[k] at or after from
// is, or len(text).
func (q *quiet) mark(k, from int) int {
	return q.next[k].find(from, func(from int) int { return indexFrom(q.text, q.marks[k], from) })
}

// ahead is where a search of a text found the first occurrence of
// something at or after an offset (the text's length: none). Lines are
// read forwards, and a search from a later offset that is not past
// what was found finds it again: find searches only when asked from
// before where it last searched or past what it found, so that the
// searches of a file read each byte about once.
type ahead struct{ from, at int }

// unsought is an ahead that has not searched.
var unsought = ahead{at: -1}

// find returns what search finds from offset from (search(from) returns
// the first place at or after from, or the text's length).
func (a *ahead) find(from int, search func(from int) int) int {
	if a.at < from || a.from > from {
		a.from, a.at = from, search(from)
	}
	return a.at
}

// indexFrom returns where the first sep at or after from is in s, or
// len(s).
func indexFrom(s, sep string, from int) int {
	if i := strings.Index(s[from:], sep); i >= 0 {
		return from + i
	}
	return len(s)
}

// saw counts a line (or a piece of one) that text read, whose strings
// are h. Only the lines that hold a string need the lines around them:
// a mark changes how the lines after it are read, not what a rule reads
// around it, and the lines before a mark are read (passTo).
func (q *quiet) saw(h *prefilter.Hits) {
	if h.Empty() {
		q.run++
		return
	}
	q.run = 0
}

// passTo returns where the run of quiet lines that text may pass over
// ends, when the lines read last are quiet and the next starts at byte
// from: at the third line before the next line that is not quiet, or
// at the text's end when none is; from when there is no line to pass,
// or while it waits after searches that passed none (quiet.idle).
func (q *quiet) passTo(from int) int {
	if q.run < 3 || from <= q.hold {
		return from
	}
	if q.idle > 0 {
		q.idle--
		return from
	}
	to := q.search(from)
	if to > from || q.run >= quietWait {
		q.wait = 0
	} else {
		q.wait = min(2*q.wait+1, maxWait)
		q.idle = q.wait
	}
	return to
}

// search is passTo's search: where the run of quiet lines that starts
// at byte from ends.
func (q *quiet) search(from int) int {
	q.searches++
	at := q.str.find(from, func(from int) int {
		if end := q.f.NextString(q.text, from); end >= 0 {
			return end - 1
		}
		return len(q.text)
	})
	for k := range q.marks {
		at = min(at, q.mark(k, from))
	}
	if q.hides != nil {
		if h := q.hides.next(from, at); h >= 0 {
			at = h
		}
	}
	if at == len(q.text) {
		return at
	}
	q.hold = at
	// The start of the line that is not quiet, then of each of the
	// three before it.
	at = from + strings.LastIndexByte(q.text[from:at], '\n') + 1
	for range 3 {
		if at == from {
			return from
		}
		at = from + strings.LastIndexByte(q.text[from:at-1], '\n') + 1
	}
	return at
}
