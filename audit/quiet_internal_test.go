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

// TestQuietWaitEnds checks the rules of passTo's wait between searches:
// a search that passes no line lengthens it, a call while it waits
// searches nothing, a search that passes lines ends it, and so does one
// that passes none after quietWait quiet lines read one at a time.
func TestQuietWaitEnds(t *testing.T) {
	lines := []string{"curl a", "", "", "wget b", "", "", "curl c"}
	for range 40 {
		lines = append(lines, "")
	}
	lines = append(lines, "wget d", "")
	text := strings.Join(lines, "\n")
	// start(k) is where line k starts.
	start := func(k int) int { return len(strings.Join(lines[:k], "\n")) + 1 }
	var q quiet
	q.start(text, lineFilter(), false, false, false, nil)
	step := func(name string, from, run, wantTo, wantSearches, wantWait int) {
		t.Helper()
		q.run = run
		before := q.searches
		if to := q.passTo(from); to != wantTo {
			t.Errorf("%s: passes to %d, want %d", name, to, wantTo)
		}
		if got := q.searches - before; got != wantSearches {
			t.Errorf("%s: %d searches, want %d", name, got, wantSearches)
		}
		if q.wait != wantWait {
			t.Errorf("%s: waits %d, want %d", name, q.wait, wantWait)
		}
	}
	step("a string two lines on", start(1), 3, start(1), 1, 1)
	step("while it waits", start(4), 3, start(4), 0, 1)
	step("a string a line on, after many quiet lines", start(5), quietWait, start(5), 1, 0)
	q.wait = maxWait
	step("forty quiet lines on", start(7), 3, start(44), 1, 0)
}
