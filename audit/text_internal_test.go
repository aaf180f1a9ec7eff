package audit

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
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

// TestHideFinder holds hideFinder, which searches a whole text for each
// first byte, to hideAt, which reads every byte.
func TestHideFinder(t *testing.T) {
	parts := []string{"a", "é", "—", "\u00ad", "\u034f", "\u180e", "\u200b", "\u202e", "\u2066", "\ufe0f", "\ufeff", "\U000e0041", "\U000e0101",
		"\xc2", "\xe2\x80", "\xef", "\xf3\xa0", "\u00a0", "\u2028", "\n", "plain ASCII text "}
	r := rand.New(rand.NewPCG(6, 6))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		f := newHideFinder(s)
		for from := 0; from <= len(s); from += 1 + r.IntN(5) {
			want := hideAt(s[from:])
			if want >= 0 {
				want += from
			}
			if got := f.at(from); got != want {
				t.Fatalf("at(%d) of %+q = %d, want %d", from, s, got, want)
			}
		}
	}
}

// TestDropHidden holds dropHidden, which decodes only where mayHide
// looks, to strings.Map of dropInvisible on text that is UTF-8.
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
		if got, want := dropHidden(s), strings.Map(dropInvisible, s); got != want {
			t.Fatalf("dropHidden(%+q) = %+q, want %+q", s, got, want)
		}
	}
}

// TestSurveyText holds surveyText, one pass over a text, to the
// questions it answers asked one at a time, on text with invalid bytes,
// cut characters and every character those questions look for.
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
		want := survey{valid: valid, hides: !isASCII(s) && (mayHide(s) || !valid), c1: hasC1(s), fold: prefilter.NeedsFold(s)}
		if got := surveyText(s); got != want {
			t.Fatalf("surveyText(%+q) = %+v, want %+v", s, got, want)
		}
	}
}
