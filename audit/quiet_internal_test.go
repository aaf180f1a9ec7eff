package audit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAheadFinds checks ahead.find against a search from every offset
// asked, forwards and now and then back, and that offsets asked
// forwards search each byte of the text about once (not once a line).
func TestAheadFinds(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for range 200 {
		var b strings.Builder
		for range r.IntN(400) {
			b.WriteString([]string{"x", "\n", "<!--", " "}[r.IntN(4)])
		}
		text := b.String()
		a := unsought
		search := func(from int) int { return indexFrom(text, "<!--", from) }
		from := 0
		for from <= len(text) {
			if got, want := a.find(from, search), indexFrom(text, "<!--", from); got != want {
				t.Fatalf("find(%d) in %q = %d, want %d", from, text, got, want)
			}
			if r.IntN(20) == 0 {
				from = max(0, from-r.IntN(8))
			} else {
				from += 1 + r.IntN(6)
			}
		}
	}
	text := strings.Repeat("x\n", 10000) + "<!--"
	a, read := unsought, 0
	for from := 0; from < len(text); from += 2 {
		a.find(from, func(from int) int {
			at := indexFrom(text, "<!--", from)
			read += at - from
			return at
		})
	}
	if read > len(text) {
		t.Errorf("asked forwards of every line, the searches read %d bytes of %d", read, len(text))
	}
}
