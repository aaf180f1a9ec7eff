package prefilter

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNextString checks NextString against a search of every string
// from each offset, ASCII letters in any case: it returns where the
// occurrence that ends first ends, and -1 past the last.
func TestNextString(t *testing.T) {
	f, _ := exprsFilter(t)
	strs := f.Strings()
	pieces := append(append([]string(nil), strs...), " ", "\n", "|", "-e ", "K", "\u212a", "_", "x", "é", "CURL", "Wget")
	lower := func(s string) string {
		b := []byte(s)
		for i := range b {
			b[i] = lowerASCII(b[i])
		}
		return string(b)
	}
	r := rand.New(rand.NewPCG(8, 8))
	for range 1000 {
		var b strings.Builder
		for range r.IntN(4) * r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		low := lower(text)
		for from := 0; from <= len(text); from++ {
			want := -1
			for _, s := range strs {
				if i := strings.Index(low[from:], s); i >= 0 && (want < 0 || from+i+len(s) < want) {
					want = from + i + len(s)
				}
			}
			if got := f.NextString(text, from); got != want {
				t.Fatalf("NextString(%q, %d) = %d, want %d", text, from, got, want)
			}
		}
	}
}
