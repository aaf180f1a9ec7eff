package audit

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// TestMayHide checks mayHide against the characters dropInvisible
// drops: every one of them, alone and among others, is seen.
func TestMayHide(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || dropInvisible(r) >= 0 {
			continue
		}
		for _, s := range []string{string(r), "é" + string(r) + "x", "ab" + string(r), "a line of ASCII, then " + string(r) + " and more"} {
			if !mayHide(s) {
				t.Errorf("mayHide(%+q) = false, want true", s)
			}
		}
	}
	for _, s := range []string{"café “quoted” — … → ✅ 文件", "\u2010\u2019\u2070\u20ac\ufe10", "\U000e0200"} {
		if mayHide(s) {
			t.Errorf("mayHide(%+q) = true, want false", s)
		}
	}
}

// TestFileControls checks that the test of a whole file for what rule
// 4 finds sees every line of it that holds one: ESC, a backspace, a
// carriage return inside the line, a C1 control.
func TestFileControls(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	pieces := []string{"a", " ", "\n", "\r", "\r\n", "\x1b", "\b", "\u0085", "\u009b", "\u00a0", "é", "\xc2"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		file := containsByte(text, 0x1b, '\b') || loneCR(text) || hasC1(text)
		lr := newLineReader("a.md", text)
		lr.rawOnly = true
		for {
			l, ok := lr.next()
			if !ok {
				break
			}
			line := strings.ContainsAny(l.raw, "\x1b\b\r") || strings.ContainsFunc(l.raw, func(r rune) bool { return r >= 0x80 && r <= 0x9f })
			if line && !file {
				t.Fatalf("line %q of %q holds a control, and the file's test says none", l.raw, text)
			}
		}
	}
}

// TestRedefines holds redefines, which asks redefined (or its matcher
// written by hand) only of lines that hold what its matches hold, to
// the expression's own answer.
func TestRedefines(t *testing.T) {
	parts := []string{"def", "DEF", "Def", " ", "\t", "b64decode", "B64Decode", "frombase64string", "FromBase64String", "frombaſe64ſtring",
		"=", "==", "= 1", "function", "FUNCTION", "Function", "x.", "exec(", "64", ":", "lambda s: k", "\u212a", "é"}
	r := rand.New(rand.NewPCG(5, 5))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		for _, quick := range []bool{false, true} {
			l := line{clean: b.String()}
			if got, want := redefines(&l, quick), redefined.MatchString(l.clean); got != want {
				t.Fatalf("redefines(%q, %v) = %v, redefined matches: %v", l.clean, quick, got, want)
			}
		}
	}
}

// hidePlaces returns the places of s that mayHide finds, read from the
// whole of s: every byte where hideSeq holds.
func hidePlaces(s string) []int32 {
	var at []int32
	for i := range len(s) {
		if hideSeq(s, i) {
			at = append(at, int32(i))
		}
	}
	return at
}

// hideParts are the pieces TestHideCursor and TestSurveyText make texts
// of: every kind of place mayHide finds, characters that start with the
// same bytes and are none, places cut short, invalid bytes, line ends.
var hideParts = []string{"a", "é", "—", "\u00ad", "\u034f", "\u180e", "\u200b", "\u202e", "\u2066", "\ufe0f", "\ufeff", "\U000e0041",
	"\U000e0101", "\u00a0", "\u2028", "\u2010", "\ufe10", "\U000e0200", "👩\u200d💻", "⚠\ufe0f",
	"\xc2", "\xe2\x80", "\xef", "\xef\xb8", "\xf3\xa0", "\xf3\xa0\x81", "\x80", "\x8f", "\xff", "\n", "\r\n", "plain ASCII text "}

// TestHideCursor holds hideCursor, which reads a survey's list of
// places and searches past its end, to the places of the whole text, on
// texts with places at their start and end, invalid bytes and places
// cut short, for lists that end anywhere, asked forwards and back.
func TestHideCursor(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(hideParts[r.IntN(len(hideParts))])
		}
		s := b.String()
		all := hidePlaces(s)
		// Where a place may be asked up to: a line's end, the first
		// byte of a character, the text's end.
		var ends []int
		for i := range len(s) {
			if utf8.RuneStart(s[i]) {
				ends = append(ends, i)
			}
		}
		ends = append(ends, len(s))
		for _, limit := range []int{0, 1, 2, len(all) / 2, len(all), maxPlaces} {
			c := newHideCursor(s, surveyText(s, nil, limit))
			for range 20 {
				from := r.IntN(len(s) + 1)
				to := ends[r.IntN(len(ends))]
				want := -1
				if k, _ := slices.BinarySearch(all, int32(from)); k < len(all) && int(all[k]) < to {
					want = int(all[k])
				}
				if got := c.next(from, to); got != want {
					t.Fatalf("next(%d, %d) of %+q, listing %d places, = %d, want %d", from, to, s, limit, got, want)
				}
				if from < to {
					if j := hideAt(s[from:to]); j >= 0 && from+j != want || j < 0 && want >= 0 {
						t.Fatalf("hideAt(%+q) = %d, want %d; s=%+q from %d to %d", s[from:to], j, want-from, s, from, to)
					}
				}
			}
		}
	}
}

// TestDropHidden holds dropHidden, which decodes only where mayHide
// looks, to strings.Map of dropInvisible on text that is UTF-8, for
// lists of places that end anywhere.
func TestDropHidden(t *testing.T) {
	parts := []string{"a", "é", "—", "\u00ad", "\u034f", "\u180e", "\u200b", "\u202e", "\u2065", "\u2066", "\ufe0f", "\ufeff", "\U000e0041",
		"\U000e0101", "\U000e01f5", "\u00a0", "\u2028", "👩\u200d💻", "⚠\ufe0f", "plain ASCII text "}
	r := rand.New(rand.NewPCG(7, 7))
	for range 5000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		want := strings.Map(dropInvisible, s)
		for _, limit := range []int{0, 1, 3, maxPlaces} {
			c := newHideCursor(s, surveyText(s, nil, limit))
			if got := dropHidden(s, 0, c.next(0, len(s)), &c); got != want {
				t.Fatalf("dropHidden(%+q), listing %d places, = %+q, want %+q", s, limit, got, want)
			}
		}
		// s as a line of a text, after another.
		before := "é\u200b\n"
		text := before + s + "\r\n"
		off := len(before)
		c := newHideCursor(text, surveyText(text, nil, 1))
		if got := dropHidden(s, off, c.next(off, off+len(s)), &c); got != want {
			t.Fatalf("dropHidden(%+q) in %+q = %+q, want %+q", s, text, got, want)
		}
	}
}

// TestLineReaderPlaces checks that a lineReader given a survey's places
// cleans each line, and each piece of a long line, as strings.Map of
// dropInvisible does, wherever the survey's list ends: among the places
// of a line, in a piece alone, in the part of a long line that two
// pieces share, across a piece's end; and that the reader's at is where
// a line's raw is in the text.
func TestLineReaderPlaces(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	var valid []string
	for _, p := range hideParts {
		if utf8.ValidString(p) {
			valid = append(valid, p)
		}
	}
	for n := range 300 {
		// Half the texts are UTF-8, the others may be not.
		parts := hideParts
		if n%2 == 0 {
			parts = valid
		}
		part := func() string { return parts[r.IntN(len(parts))] }
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(part())
		}
		if n%5 < 2 {
			// A long line, with places where its first piece ends (64
			// KiB) and the second starts (4 KiB before).
			for _, at := range []int{r.IntN(60 << 10), 60<<10 - 8 + r.IntN(16), 64<<10 - 8 + r.IntN(16), 64<<10 + r.IntN(16)} {
				b.WriteString(strings.Repeat("a", max(0, at-b.Len())))
				for range 1 + r.IntN(3) {
					b.WriteString(part())
				}
			}
			b.WriteString(strings.Repeat("a", 8<<10))
			for range r.IntN(10) {
				b.WriteString(part())
			}
		}
		text := b.String()
		all := surveyText(text, nil, maxPlaces)
		for _, limit := range []int{0, 1, 2, len(all.places) / 2, len(all.places) - 1, maxPlaces} {
			lr := newLineReader("a.md", text)
			v := surveyText(text, nil, limit)
			lr.plain, lr.valid, lr.hides = !v.hides, v.valid, newHideCursor(text, v)
			for {
				l, ok := lr.next()
				if !ok {
					break
				}
				if lr.at < 0 || lr.at+len(l.raw) > len(text) || text[lr.at:lr.at+len(l.raw)] != l.raw {
					t.Fatalf("line %d of %+q, at %d, is not its raw %+q", l.n, text, lr.at, l.raw)
				}
				if want := strings.Map(dropInvisible, l.raw); l.clean != want {
					t.Fatalf("line %d (at %d) of %+q, listing %d places, is cleaned to %+q, want %+q", l.n, lr.at, text, limit, l.clean, want)
				}
			}
		}
	}
}

// TestSurveyText holds surveyText, one pass over a text, to the
// questions it answers asked one at a time, and its list of places to
// hideSeq asked at every byte, for lists that end anywhere, on text with
// invalid bytes, cut characters and every character those questions
// look for.
func TestSurveyText(t *testing.T) {
	parts := []string{"a", "é", "—", "\u00ad", "\u034f", "\u180e", "\u200b", "\u202e", "\u2066", "\ufe0f", "\ufeff", "\U000e0041", "\U000e0101",
		"\u0085", "\u009b", "\u00a0", "\u017f", "\u212a", "\u2028", "\U0001f469", "\ued00", "\U0010ffff",
		"\xc2", "\xc5", "\xe2\x84", "\xe2\x80", "\xef", "\xf3\xa0", "\xf3\xa0\x81", "\x80", "\xbf", "\xc0\xaf", "\xe0\x80\x80", "\xed\xa0\x80",
		"\xf0\x80\x80\x80", "\xf4\x90\x80\x80", "\xf5", "\xff", "\n", "plain ASCII text "}
	r := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		valid := utf8.ValidString(s)
		all := hidePlaces(s)
		for _, limit := range []int{0, 1, 2, maxPlaces} {
			want := survey{valid: valid, hides: !isASCII(s) && (mayHide(s) || !valid), c1: hasC1(s), fold: prefilter.NeedsFold(s),
				places: all[:min(limit, len(all))], limit: limit, upTo: len(s)}
			if limit < len(all) {
				want.upTo = int(all[limit])
			}
			got := surveyText(s, make([]int32, 3), limit)
			if !slices.Equal(got.places, want.places) {
				t.Fatalf("surveyText(%+q, %d) lists %v, want %v", s, limit, got.places, want.places)
			}
			got.places, want.places = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("surveyText(%+q, %d) = %+v, want %+v", s, limit, got, want)
			}
		}
	}
}

// BenchmarkSurveyText surveys the text of BenchmarkNonASCII, which has
// a word in five outside ASCII.
func BenchmarkSurveyText(b *testing.B) {
	text := audittext.NonASCII(4<<20, 1)
	var places []int32
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		places = surveyText(text, places, maxPlaces).places
	}
}

// TestLongLineOfContinuationBytes: a line over maxLineBytes of bytes
// that start no character (after a first 8 KiB of UTF-8, so the file is
// text) is read in pieces that move on, each cut within it, without a
// panic and without reading a piece again and again.
func TestLongLineOfContinuationBytes(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("x\n", 4097) + strings.Repeat("\x80", 65537),
		strings.Repeat("x\n", 5000) + "a" + strings.Repeat("\x80", 64000) + strings.Repeat("b", 2000) + "\n",
		strings.Repeat("x\n", 5000) + strings.Repeat("\x80", 300<<10) + "\n",
		strings.Repeat("é", 100<<10) + "\n",
		strings.Repeat("😀", 50<<10) + "\n",
	} {
		r := newLineReader("SKILL.md", text)
		r.rawOnly = true // the pieces alone (TestLongLinesAudited audits them)
		pieces, read := 0, 0
		for {
			l, ok := r.next()
			if !ok {
				break
			}
			if pieces++; pieces > 2*len(text)/(maxLineBytes-lineOverlap-utf8.UTFMax)+len(text)/2+2 {
				t.Fatalf("%d pieces of a text of %d bytes: the reader does not move on", pieces, len(text))
			}
			read += len(l.raw)
			if utf8.ValidString(text) && !utf8.ValidString(l.raw) {
				t.Fatalf("a piece of a UTF-8 text cuts a character: %q...", l.raw[max(0, len(l.raw)-8):])
			}
		}
		if read < len(text)-strings.Count(text, "\n") {
			t.Errorf("the pieces hold %d bytes of a text of %d", read, len(text))
		}
	}
}
