package audit

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMayHide checks mayHide against the characters dropInvisible
// drops: every one of them, alone and among others, is seen.
func TestMayHide(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || dropInvisible(r) >= 0 {
			continue
		}
		for _, s := range []string{string(r), "é" + string(r) + "x", "ab" + string(r)} {
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
