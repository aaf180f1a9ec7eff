// Package prefilter tells, in one pass over a text, which of a list of
// regular expressions may match it, so that only those run.
//
// Each expression's syntax tree gives a condition on the literal strings
// every match must hold (literals.go): "curl" or "wget" between word
// boundaries, and "sh" at a word's end. One Aho-Corasick automaton over
// every condition's strings finds them in the text, with the word
// boundaries around each occurrence; an expression whose condition the
// occurrences do not meet cannot match, and is not run. The condition
// is necessary, never sufficient: a filter may let an expression run
// that then does not match, and never stops one that would. A text
// touches an expression only when it holds a string of the condition's
// trigger, the rarest of the parts an and needs, so that a frequent
// word has few conditions evaluated. Besides, [Filter.Window] bounds
// where in the text a match can be, [Filter.Find] answers for an
// expression that is a set of keywords, and [Filter.Anchors] gives the
// strings every match starts at, however frequent, so that an
// expression whose runs stop within a word or a gap ([Filter.Local])
// can be run anchored at them in a long text. [Filter.ScanEach] scans
// texts two at a time, which costs little more than one.
//
// Matching is as the expressions' own: an expression with (?i) matches
// the Kelvin sign K and the long s where it matches k and s, so a text
// that holds them is scanned with them folded to k and s (and then
// without telling word boundaries or offsets). The word boundaries are
// those of the text scanned: a condition on a part of it is asked with
// [Filter.MayPart], and one on lines joined by newlines with
// [Filter.MayLines].
//
// [New] reads the expressions' syntax trees, which takes milliseconds;
// [GoSource] writes the filter it built as Go source, so that a program
// whose expressions are fixed compiles their filter in, and [Compiled]
// returns it at no cost (gosource.go).
package prefilter

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Filter holds the conditions of a list of expressions and the automaton
// of their strings. It is safe for concurrent use.
type Filter struct {
	a        *automaton
	patterns []string // by expression: its pattern (see Compiled)
	conds    []*cond  // by expression
	// touches: by string, 5*words words, from each multiple of 8
	// (touchStride): the expressions whose condition names it at all,
	// then, by the boundaries around an occurrence (bound: one before
	// it, 1, one after it, 2), those whose condition's trigger names it
	// with need bits that those boundaries meet, so that recording an
	// occurrence reads one set rather than one a need bit
	touches []uint64
	strs    []string // by string id, folded
	words   int      // uint64 words of an expression set
	// newline: by expression, whether a newline alone meets its
	// condition in lines joined, though no string of it was found
	newline []bool
	always  []bool // by expression: it has no condition
	// starts and stops: by expression, the ids of the strings its
	// matches start and end with (nil: not known)
	starts, stops [][]int32
	slack         []int // by expression: how far before a start string a match may start
	// anchors: by expression, strings of which every match holds one
	// at most anchorSlack bytes after its start, however frequent (nil:
	// not known)
	anchors     [][]string
	anchorSlack []int
	local       []bool // by expression: local(its tree)
	// exact: by expression, when its matches are exactly the
	// occurrences of some strings (with their boundaries), those
	// strings in its order of preference
	exact [][]exactWord
}

// exactWord is a string of an expression that is a set of strings.
type exactWord struct {
	word
	id   int32
	need uint8
}

// New builds the filter of res, which the filter's methods name by their
// index in it.
func New(res []*regexp.Regexp) (*Filter, error) {
	ts := make([]exprTables, len(res))
	for i, re := range res {
		tree, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			return nil, fmt.Errorf("expression %d: %w", i, err)
		}
		a := analysis{}
		t := exprTables{pattern: re.String(), cond: simplify(a.required(tree)), local: local(tree)}
		var prefix, suffix, anchors []word
		prefix, t.slack, suffix = a.ends(tree)
		anchors, t.anchorSlack = a.startsWithin(tree, anchorable)
		t.starts, t.stops, t.anchors = strs(prefix), strs(suffix), strs(anchors)
		t.exact = a.exactWords(tree)
		ts[i] = t
	}
	return build(ts)
}

// exprTables is what the filter holds of one expression, read from its
// syntax tree by New.
type exprTables struct {
	pattern string
	cond    *cond
	// starts, slack, stops: see Filter.Window (nil: not known)
	starts, stops []string
	slack         int
	// anchors, anchorSlack: see Filter.Anchors
	anchors     []string
	anchorSlack int
	local       bool
	exact       []word // see Filter.Find
}

// strs returns the strings of ws (nil when there are none).
func strs(ws []word) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.s)
	}
	return out
}

// build builds the filter of the expressions ts tell of: each string
// its id, in the order the expressions name them (their conditions
// first, then their start and stop strings and their exact strings),
// the sets of expressions each string touches, and the automaton.
func build(ts []exprTables) (*Filter, error) {
	n := len(ts)
	f := &Filter{
		words:       (n + 63) / 64,
		patterns:    make([]string, n),
		conds:       make([]*cond, n),
		newline:     make([]bool, n),
		always:      make([]bool, n),
		starts:      make([][]int32, n),
		stops:       make([][]int32, n),
		slack:       make([]int, n),
		anchors:     make([][]string, n),
		anchorSlack: make([]int, n),
		local:       make([]bool, n),
		exact:       make([][]exactWord, n),
	}
	ids := map[string]int32{}
	// The sets are appended to one array, and sliced from it once every
	// string has its id.
	var touch, touchAll []uint64
	id := func(s string) int32 {
		id, ok := ids[s]
		if !ok {
			id = int32(len(f.strs))
			ids[s] = id
			f.strs = append(f.strs, s)
			touch = append(touch, make([]uint64, 4*f.words)...)
			touchAll = append(touchAll, make([]uint64, f.words)...)
		}
		return id
	}
	ids32 := func(ss []string) []int32 {
		var out []int32
		for _, s := range ss {
			out = append(out, id(s))
		}
		return out
	}
	for i, t := range ts {
		c := t.cond
		var all []*cond
		c.walk(func(w *cond) {
			w.lit, w.need = id(w.word.s), needOf(w.word.wb, w.word.wa)
			touchAll[int(w.lit)*f.words+i/64] |= 1 << (i % 64)
			all = append(all, w)
		})
		// A line touches the expression only when it holds a string of
		// the condition's trigger, with its boundaries.
		trigger, ok := c.trigger()
		if !ok {
			trigger = all
		}
		for _, w := range trigger {
			touch[(int(w.lit)*4+bits.TrailingZeros8(w.need))*f.words+i/64] |= 1 << (i % 64)
		}
		f.starts[i], f.stops[i] = ids32(t.starts), ids32(t.stops)
		f.slack[i] = t.slack
		f.anchors[i], f.anchorSlack[i] = t.anchors, t.anchorSlack
		f.local[i] = t.local
		var exact []exactWord
		for _, w := range t.exact {
			exact = append(exact, exactWord{word: w, id: id(w.s), need: needOf(w.wb, w.wa)})
		}
		f.exact[i] = exact
		f.patterns[i], f.conds[i] = t.pattern, c
		f.newline[i] = c.eval(make([]uint8, len(f.strs)), modeLines)
		f.always[i] = c.op == opTrue
	}
	f.touches = make([]uint64, 0, f.touchStride()*len(f.strs))
	for s := range f.strs {
		f.touches = append(f.touches, touchAll[s*f.words:(s+1)*f.words]...)
		// touch's sets of s by need bit: any, before, after, both
		byNeed := func(bit, k int) uint64 { return touch[(s*4+bit)*f.words+k] }
		for bound := range 4 {
			for k := range f.words {
				x := byNeed(0, k)
				if bound&1 != 0 {
					x |= byNeed(1, k)
				}
				if bound&2 != 0 {
					x |= byNeed(2, k)
				}
				if bound == 3 {
					x |= byNeed(3, k)
				}
				f.touches = append(f.touches, x)
			}
		}
		f.touches = append(f.touches, make([]uint64, f.touchStride()-5*f.words)...)
	}
	a, err := newAutomaton(f.strs)
	if err != nil {
		return nil, err
	}
	f.a = a
	return f, nil
}

// touchStride is how many words of touches a string's are from the
// next's: 5*words rounded up to a multiple of 8, so that those of a
// string, which a scan of text dense with the strings reads at nearly
// every string it finds, are in one cache line where touches begins at
// one (as a large allocation does) and in two at most otherwise.
func (f *Filter) touchStride() int { return (5*f.words + 7) &^ 7 }

// Anchors returns strings of which every match of expression i holds
// one, at most slack bytes after the match's start, folded (ASCII in
// lower case, and in ASCII only), however frequent they are; nil when
// they are not known. Whether a long text matches can then be asked at
// each place an occurrence of one of them allows a match to start,
// instead of over the whole text.
func (f *Filter) Anchors(i int) (strs []string, slack int) {
	return f.anchors[i], f.anchorSlack[i]
}

// Local reports whether every unbounded repetition of expression i
// repeats a part that reads only white space or only other characters
// (`\s+`, `[^/\s]*`, not `[^\n]*`): run anchored at a place, it stops
// within a few words of it, so that running it at each of its anchors
// in a long text costs less than running it over the text.
func (f *Filter) Local(i int) bool { return f.local[i] }

// Strings returns the strings the filter looks for, folded (ASCII in
// lower case).
func (f *Filter) Strings() []string { return append([]string(nil), f.strs...) }

// Always reports whether expression i has no condition: it runs on every
// text.
func (f *Filter) Always(i int) bool { return f.conds[i].op == opTrue }

// Condition writes expression i's condition, for a person.
func (f *Filter) Condition(i int) string { return f.conds[i].String() }

// Hits are the strings found in a text, with the word boundaries around
// them. A Hits is reused from text to text; it is not safe for
// concurrent use.
type Hits struct {
	mask []uint8 // by string id: what was found (the need bits)
	// set[:found]: the ids of mask that are not 0 (set has room for
	// every id and one more, which record writes and does not count)
	set   []int32
	found int
	// touched: the expressions whose condition's trigger (a set of its
	// strings one of which a text that meets it holds) names a string
	// found with the boundaries it asks for there (on a line, or lines
	// joined); touchedAll: whose condition names a string found (in a
	// part)
	touched, touchedAll []uint64
	// spots: by string id, where its occurrences are
	spots  []spot
	folded bool // the text was scanned folded: spots are not its offsets
}

// spot is where a string's occurrences are in a text scanned: first, by
// need bit, where its first occurrence with those boundaries starts;
// last, where its last occurrence ends; offsets in the text unless it
// was scanned folded. They are 32 bits (a text scanned is under 2 GiB)
// and one string's are in half a cache line, which a scan of text dense
// with the strings writes at nearly every string it finds: one place of
// memory, not one for its firsts and another for its last.
type spot struct {
	first [4]int32
	last  int32
	_     [3]int32
}

// NewHits returns an empty Hits for f's texts.
func (f *Filter) NewHits() *Hits {
	n := len(f.strs)
	return &Hits{mask: make([]uint8, n), set: make([]int32, n+1), touched: make([]uint64, f.words), touchedAll: make([]uint64, f.words), spots: make([]spot, n)}
}

// Reset empties h.
func (h *Hits) Reset() {
	if h.found == 0 {
		// Only a string found touches an expression (record, Add):
		// h is empty already, as is a line's that holds none.
		return
	}
	for _, id := range h.set[:h.found] {
		h.mask[id] = 0
	}
	h.found = 0
	if len(h.touched) == 1 && len(h.touchedAll) == 1 {
		// Up to 64 expressions: a store each rather than a call.
		h.touched[0], h.touchedAll[0] = 0, 0
		return
	}
	clear(h.touched)
	clear(h.touchedAll)
}

// Add adds o's strings to h: h holds then what a text joining both
// texts with a newline holds, for [Filter.MayLines]; not where they are,
// which Window and Find read for one text scanned.
func (h *Hits) Add(o *Hits) {
	for _, id := range o.set[:o.found] {
		if h.mask[id] == 0 {
			h.set[h.found] = id
			h.found++
		}
		h.mask[id] |= o.mask[id]
	}
	for i, w := range o.touched {
		h.touched[i] |= w
	}
	for i, w := range o.touchedAll {
		h.touchedAll[i] |= w
	}
}

// The need bits: a string found anywhere, with a word boundary before
// it, after it, or both.
const (
	needAny    = 1
	needBefore = 2
	needAfter  = 4
	needBoth   = 8
)

func needOf(wb, wa bool) uint8 {
	switch {
	case wb && wa:
		return needBoth
	case wb:
		return needBefore
	case wa:
		return needAfter
	}
	return needAny
}

// foldText replaces the characters outside ASCII that a case-insensitive
// match reads as ASCII letters.
var foldText = strings.NewReplacer("\u212a", "k", "\u017f", "s")

// Scan empties h and records in it the strings text holds.
func (f *Filter) Scan(h *Hits, text string) {
	if NeedsFold(text) {
		f.scan(h, foldText.Replace(text), true)
		return
	}
	f.scan(h, text, false)
}

// ScanASCII is Scan for a text known to need no folding: ASCII text,
// or one [NeedsFold] says needs none.
func (f *Filter) ScanASCII(h *Hits, text string) { f.scan(h, text, false) }

// NextString returns the offset just after the first occurrence of one
// of the filter's strings in text[from:] (the one that ends first), or
// -1 when there is none. Matching is as a scan's, without folding: ASCII
// letters without regard to case. It records nothing, and costs a step
// and a comparison a byte, so that a caller can find the parts of a
// long text that hold none of the strings and pass over them. Where no
// string holds a newline ([Filter.Strings] tells), a string found from a
// line's start is on that line or a later one, and each line holds one
// exactly when a scan of it alone finds one.
func (f *Filter) NextString(text string, from int) int {
	a := f.a
	next, class, shift, out := a.next, &a.class, a.shift&31, uint32(a.firstOut)
	var state uint32
	for i := from; i < len(text); i++ {
		state = uint32(next[state<<shift|uint32(class[text[i]])])
		if state >= out {
			return i + 1
		}
	}
	return -1
}

// ScanEach is Scan of each of texts into the Hits of hs at its index:
// it steps through two texts at once, so that the processor overlaps
// the two chains of table lookups a scan is, and when one ends the next
// text takes its place, so that texts of unequal lengths (lines) are
// scanned two at a time nearly throughout and cost little more than
// half of scanning each. The two lanes step a chunk (64 bytes) at a
// time without stopping where strings end, and what ends in the chunk
// is recorded after it, lane by lane, so that text dense with the
// strings costs no more stops than any. unfolded says the texts are
// known to need no folding (see [NeedsFold]; ASCII text needs none),
// which spares looking.
func (f *Filter) ScanEach(hs []*Hits, texts []string, unfolded bool) {
	for i, t := range texts {
		if !unfolded && NeedsFold(t) {
			for i, t := range texts {
				f.Scan(hs[i], t)
			}
			return
		}
		hs[i].Reset()
		hs[i].folded = false
	}
	// A lane scans one text after another: text k from offset at, in
	// state s.
	type lane struct {
		k, at int
		s     uint32
	}
	next := 0 // the next text to give a lane
	take := func(l *lane) bool {
		for next < len(texts) && texts[next] == "" {
			next++
		}
		if next == len(texts) {
			return false
		}
		*l = lane{k: next}
		next++
		return true
	}
	a := f.a
	var l1, l2 lane
	var st states
	ok1, ok2 := take(&l1), take(&l2)
	for ok1 && ok2 {
		t1, t2 := texts[l1.k], texts[l2.k]
		h1, h2 := hs[l1.k], hs[l2.k]
		b1, b2, s1, s2 := l1.at, l2.at, l1.s, l2.s
		n := min(len(t1)-b1, len(t2)-b2)
		u1, u2 := t1[b1:b1+n], t2[b2:b2+n]
		for j := 0; j < n; j += chunk {
			e := min(j+chunk, n)
			s1, s2 = a.steps(u1[j:e], u2[j:e], s1, s2, &st)
			if out := a.outputs(&st[0], e-j); out != 0 {
				f.record(h1, t1, b1+j, &st[0], out, false)
			}
			if out := a.outputs(&st[1], e-j); out != 0 {
				f.record(h2, t2, b2+j, &st[1], out, false)
			}
		}
		l1.at, l2.at, l1.s, l2.s = b1+n, b2+n, s1, s2
		if l1.at == len(t1) {
			ok1 = take(&l1)
		}
		if l2.at == len(t2) {
			ok2 = take(&l2)
		}
	}
	// One lane is left at most, and the texts no lane took.
	if ok1 {
		f.run(hs[l1.k], texts[l1.k], l1.at, l1.s, false)
	}
	if ok2 {
		f.run(hs[l2.k], texts[l2.k], l2.at, l2.s, false)
	}
	for ; next < len(texts); next++ {
		f.run(hs[next], texts[next], 0, 0, false)
	}
}

// NeedsFold reports whether text holds a character outside ASCII that
// a case-insensitive match reads as an ASCII letter (the Kelvin sign,
// the long s), which Scan folds. A text that does not, none of its
// parts does.
func NeedsFold(text string) bool {
	return strings.Contains(text, "\u212a") || strings.Contains(text, "\u017f")
}

func (f *Filter) scan(h *Hits, text string, folded bool) {
	h.Reset()
	h.folded = folded
	f.run(h, text, 0, 0, folded)
}

// run goes on scanning text into h from offset i, in state, a chunk at
// a time, as ScanEach does with one lane.
func (f *Filter) run(h *Hits, text string, i int, state uint32, folded bool) {
	var st states
	for ; i < len(text); i += chunk {
		e := min(i+chunk, len(text))
		state = f.a.steps1(text[i:e], state, &st)
		if out := f.a.outputs(&st[0], e-i); out != 0 {
			f.record(h, text, i, &st[0], out, folded)
		}
	}
}

// record records in h the strings that end in a chunk of text from
// offset base, in which a lane was in the states st: outs has bit k set
// when strings end after byte k, in state st[k] (outputs). At each such
// offset it records which strings were found, with which word
// boundaries, where each first occurrence with them starts and where
// the last ends (the string's spot), and the expressions they touch.
// The strings of the state and their lengths are one run of the
// automaton's ends, and what each string touches one run of touches, a
// cache line: in text dense with the strings, an occurrence every few
// bytes, nearly every one a string's first on its line. It records a
// chunk's offsets in one call, in order, so that what it reads of h and
// f is read once a chunk.
func (f *Filter) record(h *Hits, text string, base int, st *[2 * chunk]byte, outs uint64, folded bool) {
	const all = needAny | needBefore | needAfter | needBoth
	a := f.a
	outAt, ends, firstOut := a.outAt, a.ends, uint32(a.firstOut)
	// A text scanned folded tells no boundary: its strings are found
	// with every one.
	var fold uint32
	if folded {
		fold = all
	}
	if f.words > 1 || folded {
		// recordWide records any number of expressions, and a text
		// scanned folded, which is rare, so that the loop below has
		// one value fewer to keep.
		for ; outs != 0; outs &= outs - 1 {
			k := bits.TrailingZeros64(outs)
			f.recordWide(h, text, base+k+1, uint32(binary.LittleEndian.Uint16(st[2*(k%chunk):]))-firstOut, fold)
		}
		return
	}
	// Up to 64 expressions, each string's sets are a word each. The
	// bits are worked out by arithmetic rather than tests, as whether
	// a boundary is there is as likely as not in a text dense with the
	// strings, which a processor would guess wrong half the time; they
	// are uint32s, which a conditional move moves.
	mask, spots, touches := h.mask, h.spots, f.touches
	touched, touchedAll := h.touched[0], h.touchedAll[0]
	set, found := h.set, h.found
	for ; outs != 0; outs &= outs - 1 {
		k := bits.TrailingZeros64(outs)
		end, out := base+k+1, uint32(binary.LittleEndian.Uint16(st[2*(k%chunk):]))-firstOut
		// Every string ends at end: the boundary after them is one.
		// The byte after them is none at the text's end (end is at
		// most len(text), and end-len(text) shifted is all ones
		// before it, 0 there), which is as likely as not on short
		// lines, so it is masked rather than tested.
		after := uint32(wordByte[text[min(end, len(text)-1)]]) & uint32((end-len(text))>>63)
		after ^= uint32(wordByte[text[end-1]])
		for i, hi := int(outAt[out]), int(outAt[out+1]); i < hi; i++ {
			e := &ends[i]
			id := e.id
			start := end - int(e.len)
			before := uint32(wordByte[text[max(start-1, 0)]])
			if start == 0 {
				before = 0
			}
			before ^= uint32(wordByte[text[start]])
			b := needAny | before<<1 | after<<2 | (before&after)<<3
			m := uint32(mask[id])
			// The string's first occurrence adds it to set, which
			// has room for every string and one more: id is written
			// after the last, and counted only then.
			set[found] = id
			if m == 0 {
				found++
			}
			// Where the first occurrence with each need bit found
			// starts: at the string's first occurrence, every bit's
			// (those it has not are not read).
			sp, s := &spots[id], int32(start)
			if m == 0 {
				// Nearly every occurrence in a text dense with the
				// strings: stored, not read.
				// Field by field: a spot composed whole is
				// written to the stack and copied, and the copy's
				// wide loads of the narrow stores wait for them.
				sp.first[0], sp.first[1], sp.first[2], sp.first[3] = s, s, s, s
				sp.last = int32(end)
			} else {
				fresh := b &^ m
				f0, f1, f2, f3 := sp.first[0], sp.first[1], sp.first[2], sp.first[3]
				if fresh&1 != 0 {
					f0 = s
				}
				if fresh&2 != 0 {
					f1 = s
				}
				if fresh&4 != 0 {
					f2 = s
				}
				if fresh&8 != 0 {
					f3 = s
				}
				sp.first = [4]int32{f0, f1, f2, f3}
				sp.last = int32(end)
			}
			// The sets of the bits found again are added again,
			// which changes nothing: one set, of the boundaries
			// around the occurrence.
			t := (*[5]uint64)(touches[int(id)*8 : int(id)*8+5])
			touchedAll |= t[0]
			touched |= t[1+(before|after<<1)&3]
			mask[id] = uint8(m | b)
		}
	}
	h.touched[0], h.touchedAll[0], h.found = touched, touchedAll, found
}

// recordWide is record of one offset, end, in the state numbered out
// among those where strings end, for more than 64 expressions, whose
// sets of them are several words each.
func (f *Filter) recordWide(h *Hits, text string, end int, out uint32, fold uint32) {
	a := f.a
	var after uint32
	if end < len(text) {
		after = uint32(wordByte[text[end]])
	}
	after ^= uint32(wordByte[text[end-1]])
	for _, e := range a.ends[a.outAt[out]:a.outAt[out+1]] {
		id := e.id
		start := end - int(e.len)
		var before uint32
		if start > 0 {
			before = uint32(wordByte[text[start-1]])
		}
		before ^= uint32(wordByte[text[start]])
		b := uint8(needAny | before<<1 | after<<2 | (before&after)<<3 | fold)
		m := h.mask[id]
		t := f.touches[int(id)*f.touchStride() : int(id)*f.touchStride()+5*f.words]
		if m == 0 {
			h.set[h.found] = id
			h.found++
			for k, x := range t[:f.words] {
				h.touchedAll[k] |= x
			}
		}
		fresh := b &^ m
		for rest := fresh; rest != 0; rest &= rest - 1 {
			h.spots[id].first[bits.TrailingZeros8(rest)] = int32(start)
		}
		if fresh != 0 {
			// The set of the boundaries b tells (all of them in a
			// text scanned folded), which adds again those of the
			// bits found before, which changes nothing.
			at := (1 + int(b>>1&1|b>>2&1<<1)) * f.words
			for k, x := range t[at : at+f.words] {
				h.touched[k] |= x
			}
		}
		h.mask[id] = m | b
		h.spots[id].last = int32(end)
	}
}

// wordByte tells, by byte, what isWord does, in one load: 1 for a word
// byte, 0 for another.
var wordByte = func() (w [256]uint8) {
	for b := range w {
		if isWord(byte(b)) {
			w[b] = 1
		}
	}
	return w
}()

// isWord reports whether b is an ASCII letter, digit or underscore, as
// \b reads a character; a byte of a character outside ASCII is not.
func isWord(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}

// May reports whether expression i may match the text h was scanned
// from, a line (no newline in it).
func (f *Filter) May(h *Hits, i int) bool { return f.may(h, i, modeLine) }

// MayPart reports whether expression i may match a part of the line h
// was scanned from, whose word boundaries are not the line's.
func (f *Filter) MayPart(h *Hits, i int) bool { return f.may(h, i, modePart) }

// MayLines reports whether expression i may match lines joined by
// newlines, h the union of their Hits ([Hits.Add]). Every string found
// is in one line, and a newline is no word character, so the
// boundaries are the lines' own.
func (f *Filter) MayLines(h *Hits, i int) bool { return f.may(h, i, modeLines) }

func (f *Filter) may(h *Hits, i int, m mode) bool {
	touched := h.touched
	if m == modePart {
		touched = h.touchedAll
	}
	if touched[i/64]&(1<<(i%64)) == 0 && !f.always[i] && !(m == modeLines && f.newline[i]) {
		return false
	}
	return f.conds[i].eval(h.mask, m)
}

// AnyTouched reports whether a string of the condition of one of the
// expressions lo to hi-1 (of its trigger: one of the parts an and of
// parts needs) was found with the word boundaries the condition asks
// for: when none was, only one that f reports
// [Filter.Always] may match the line (though a part of it may: "nc" in
// "once" touches no `\bnc\b`, and the part "nc" of it holds one).
func (h *Hits) AnyTouched(lo, hi int) bool {
	if l, u := uint(lo), uint(hi-1); lo < hi && l/64 == u/64 {
		// The expressions are in one word, nearly always (one of
		// them, or those of a rule): its bits l%64 to u%64.
		return h.touched[l/64]>>(l%64)<<(63-(u-l)) != 0
	}
	for i := lo; i < hi; {
		w := h.touched[i/64] >> (i % 64)
		if n := min(64-i%64, hi-i); n < 64 {
			w &= 1<<n - 1
		}
		if w != 0 {
			return true
		}
		i += 64 - i%64
	}
	return false
}

// NextTouched returns the first expression of lo to hi-1 that h
// touches, or hi when it touches none: the expressions a text touches
// in a range, in order, one set bit at a time rather than one
// expression at a time. As for AnyTouched, hi is at most the filter's
// count of expressions.
func (h *Hits) NextTouched(lo, hi int) int {
	for i := lo; i < hi; i += 64 - i%64 {
		if w := h.touched[uint(i)/64] >> (uint(i) % 64); w != 0 {
			return min(i+bits.TrailingZeros64(w), hi)
		}
	}
	return hi
}

// Touched is AnyTouched of expression i alone, which the compiler
// inlines where it is asked, of nearly every expression of nearly every
// line.
func (h *Hits) Touched(i int) bool { return h.touched[uint(i)/64]>>(uint(i)%64)&1 != 0 }

// Empty reports whether h holds no string: then no expression with a
// condition may match.
func (h *Hits) Empty() bool { return h.found == 0 }

// TouchesAny reports whether h touches one of the expressions of set,
// which holds expression i as bit i%64 of set[i/64]: AnyTouched of a set
// rather than a range. When it does not, only one of them that f
// reports [Filter.Always] may match the line, though a part of the line
// may match them.
func (h *Hits) TouchesAny(set []uint64) bool {
	for i, w := range set[:min(len(set), len(h.touched))] {
		if h.touched[i]&w != 0 {
			return true
		}
	}
	return false
}

// Window returns the part [lo, hi) of a line of n bytes, scanned into h,
// that holds every match of expression i: from the first occurrence of
// a string its matches start with (less the bytes a match may span
// before it, "(?:^|[^\w.$-])\.env") to the end of the last occurrence of
// one they end with; [0, n) when those are not known, and lo > hi when
// no match can be. Run on the part of the line from the character
// before lo (lo moved back to a character's first byte) to the one
// after hi, the expression finds the matches it finds on the line: the
// word boundaries at lo and hi, and the start and end of the text, read
// the same there, and no match can start before lo.
func (f *Filter) Window(h *Hits, i, n int) (lo, hi int) {
	lo, hi = 0, n
	if h.folded {
		return lo, hi
	}
	if ids := f.starts[i]; ids != nil {
		lo = n + 1
		for _, id := range ids {
			if h.mask[id] != 0 {
				lo = min(lo, int(h.spots[id].first[0]))
			}
		}
		if lo <= n {
			lo = max(0, lo-f.slack[i])
		}
	}
	if ids := f.stops[i]; ids != nil {
		hi = -1
		for _, id := range ids {
			if h.mask[id] != 0 {
				hi = max(hi, int(h.spots[id].last))
			}
		}
	}
	return lo, hi
}

// Find returns the leftmost match of expression i in the line h was
// scanned from, [lo, hi), as regexp.FindStringIndex does, when the
// expression is a set of strings and their boundaries (an alternation
// of keywords, `\b(?:curl|wget)\b`): then the occurrences found are its
// matches, and at the leftmost one it prefers the first of its strings
// there. lo is -1 when it does not match. decided is false when Find
// cannot tell (another expression, a folded text): then run the
// expression. It allocates nothing, as it answers for a line dense with
// the strings many times.
func (f *Filter) Find(h *Hits, i int) (lo, hi int, decided bool) {
	ws := f.exact[i]
	if ws == nil || h.folded {
		return -1, -1, false
	}
	start := -1
	for _, w := range ws {
		if h.mask[w.id]&w.need != 0 {
			if p := int(h.spots[w.id].first[bits.TrailingZeros8(w.need)]); start < 0 || p < start {
				start = p
			}
		}
	}
	if start < 0 {
		return -1, -1, true
	}
	// A string occurs at start with its boundaries exactly when its
	// first occurrence with them starts there: none starts before.
	for _, w := range ws {
		if h.mask[w.id]&w.need != 0 && int(h.spots[w.id].first[bits.TrailingZeros8(w.need)]) == start {
			return start, start + len(w.s), true
		}
	}
	return -1, -1, false // not reached: an occurrence at start was found
}
