package prefilter

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAutomatonFindsEveryOccurrence checks the automaton against a
// search of each string at each offset, ASCII letters in any case.
func TestAutomatonFindsEveryOccurrence(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const alphabet = "abcAB-/ \u212a"
	randString := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 200 {
		seen := map[string]bool{}
		var strs []string
		for range 1 + r.IntN(12) {
			s := strings.ToLower(randString(1 + r.IntN(4)))
			if !seen[s] {
				seen[s] = true
				strs = append(strs, s)
			}
		}
		a, err := newAutomaton(strs)
		if err != nil {
			t.Fatal(err)
		}
		text := randString(r.IntN(60))
		type hit struct{ id, end int }
		var got, want []hit
		state := uint32(0)
		for i := 0; i < len(text); i++ {
			state = a.step(state, text[i])
			for _, e := range a.endsAt(state) {
				if int(e.len) != len(strs[e.id]) {
					t.Fatalf("strings %q: string %d's length is %d, want %d", strs, e.id, e.len, len(strs[e.id]))
				}
				got = append(got, hit{int(e.id), i + 1})
			}
		}
		asciiLower := func(s string) string {
			b := []byte(s)
			for i := range b {
				b[i] = lowerASCII(b[i])
			}
			return string(b)
		}
		lower := asciiLower(text)
		for end := 1; end <= len(text); end++ {
			for id, s := range strs {
				if end >= len(s) && lower[end-len(s):end] == s {
					want = append(want, hit{id, end})
				}
			}
		}
		count := func(hs []hit) map[hit]int {
			m := map[hit]int{}
			for _, h := range hs {
				m[h]++
			}
			return m
		}
		g, w := count(got), count(want)
		if len(g) != len(w) || len(got) != len(want) {
			t.Fatalf("strings %q in %q: found %v, want %v", strs, text, got, want)
		}
		for h, n := range w {
			if g[h] != n {
				t.Fatalf("strings %q in %q: found %v, want %v", strs, text, got, want)
			}
		}
	}
}

// exprs are expressions with the shapes the audit's rules have.
var exprs = []string{
	`(?i)\b(?:curl|wget|nc|ncat|netcat|iwr)\b|\brequests\.(?:post|put)\(|\bfetch\(`,
	`(?i)\bwallet\.dat\b|[/\\]exodus[/\\]|\.electrum[/\\]wallets`,
	`\bCurl\b`,
	`(?i)a\bb|^cd`,
	`(?i)\b(?:curl|wget|fetch)\b[^|\n]*\|\s*(?:ba|z)?sh\b`,
	`(?i)\b(?:nc|ncat|netcat)\b[^\n;|]*\s-[a-z]*[ec]\s+\S*sh\b`,
	`(?i)(?:~|\$home)[/\\]\.ssh\b|\.aws[/\\](?:credentials|config)\b`,
	`(?:^|[^\w.$-])\.env(?:\.([A-Za-z]+))?(?:[^\w.-]|$)`,
	`(?i)\bpass(?:code|wd)?\s*[:=]`,
	`(?i)\bignore\s+(?:all\s+)*(?:previous|prior)\s+instructions\b`,
	`(?i)\bthe\s+user\s+(?:must|should)\s+not\s+know\b`,
	`(?i)x{2,}y+`,
	`(?i)[a-c]k`,
}

// TestConditionsAreNecessary checks that no text an expression matches
// fails its condition, for every mode, nor falls outside its window;
// the texts are random ones and ones built around the expressions'
// strings.
func TestConditionsAreNecessary(t *testing.T) {
	f, res := exprsFilter(t)
	pieces := append(f.Strings(), " ", "\t", "|", "-e ", "sh", "K", "\u212a", "\u017f", "_", "x", "é", "\xff", ":", "=", "(", "/", "\\", "nc", "ncat")
	r := rand.New(rand.NewPCG(2, 2))
	h, u := f.NewHits(), f.NewHits()
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(4) == 0 {
				p = strings.ToUpper(p)
			}
			b.WriteString(p)
		}
		text := b.String()
		f.Scan(h, text)
		u.Reset()
		u.Add(h)
		for i, re := range res {
			loc := re.FindStringIndex(text)
			if lo, hi, ok := f.Find(h, i); ok {
				got := []int{lo, hi}
				if lo < 0 {
					got = nil
				}
				if !slices.Equal(got, loc) {
					t.Fatalf("Find(%s, %q) = %v, want %v", exprs[i], text, got, loc)
				}
			}
			if loc == nil {
				continue
			}
			if !f.May(h, i) || !f.MayPart(h, i) || !f.MayLines(u, i) {
				t.Fatalf("%s matches %q, but its condition %s is not met", exprs[i], text, f.Condition(i))
			}
			lo, hi := f.Window(h, i, len(text))
			if lo > loc[0] || hi < loc[1] {
				t.Fatalf("%s matches %q at %v, outside its window [%d, %d)", exprs[i], text, loc, lo, hi)
			}
			if strs, slack := f.Anchors(i); strs != nil && !NeedsFold(text) && !anchoredNear(text, loc[0], strs, slack) {
				t.Fatalf("%s matches %q at %v, with none of its anchors %q within %d bytes", exprs[i], text, loc, strs, slack)
			}
		}
	}
}

// anchoredNear reports whether one of strs occurs in text, ASCII
// letters in any case, from offset at to slack bytes after it.
func anchoredNear(text string, at int, strs []string, slack int) bool {
	b := []byte(text)
	for i := range b {
		b[i] = lowerASCII(b[i])
	}
	lower := string(b)
	for p := at; p <= min(at+slack, len(text)); p++ {
		for _, s := range strs {
			if strings.HasPrefix(lower[p:], s) {
				return true
			}
		}
	}
	return false
}

// TestLocal checks which expressions run on through one word or gap
// at a time.
func TestLocal(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		local bool
	}{
		{`(?i)\bthis\s+skill\s+requires\b[^.\n]{0,80}\binstall`, true},
		{`(?:https?|ftp)://[^/\s]*\bpastebin\.com`, true},
		{`x{2,}y+[\w.-]+`, true},
		{`\bcurl\b[^|\n]*\|\s*sh`, false},
		{`(?:sudo\s+(?:-\S+\s+)*)?sh`, false},
		{`a.*b`, false},
		{`(?:a b)+`, false},
	} {
		f, err := New([]*regexp.Regexp{regexp.MustCompile(tc.expr)})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Local(0); got != tc.local {
			t.Errorf("Local(%s) = %v, want %v", tc.expr, got, tc.local)
		}
	}
}

// TestScanEach checks that ScanEach records in each Hits what Scan
// does, for any number of texts of any lengths, empty ones among them.
func TestScanEach(t *testing.T) {
	f, _ := exprsFilter(t)
	pieces := append(f.Strings(), " ", "|", "-e ", "K", "\u212a", "_", "x", "é")
	r := rand.New(rand.NewPCG(6, 6))
	for range 3000 {
		n := r.IntN(7)
		texts := make([]string, n)
		got, want := make([]*Hits, n), make([]*Hits, n)
		for i := range texts {
			var b strings.Builder
			for range r.IntN(3) * r.IntN(12) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			texts[i] = b.String()
			got[i], want[i] = f.NewHits(), f.NewHits()
			f.Scan(want[i], texts[i])
			f.Scan(got[i], "curl wget") // what ScanEach must empty
		}
		f.ScanEach(got, texts, false)
		for i := range texts {
			g, w := got[i], want[i]
			if !slices.Equal(g.set[:g.found], w.set[:w.found]) || !slices.Equal(g.mask, w.mask) || !slices.Equal(g.touched, w.touched) ||
				!slices.Equal(g.touchedAll, w.touchedAll) || g.folded != w.folded {
				t.Fatalf("ScanEach(%q): the Hits of %q are not Scan's", texts, texts[i])
			}
			for _, id := range w.set[:w.found] {
				for b := range 4 {
					if w.mask[id]&(1<<b) != 0 && g.spots[id].first[b] != w.spots[id].first[b] {
						t.Fatalf("ScanEach(%q): the offsets in %q are not Scan's", texts, texts[i])
					}
				}
				if g.spots[id].last != w.spots[id].last {
					t.Fatalf("ScanEach(%q): the offsets in %q are not Scan's", texts, texts[i])
				}
			}
		}
	}
}

// TestWideRecordsAsNarrow checks that a filter of more than 64
// expressions, whose sets of them are words each, records what one of
// 64 at most does: the expressions of exprs, then others whose strings
// the texts never hold, find the same strings at the same places and
// touch the same expressions of exprs.
func TestWideRecordsAsNarrow(t *testing.T) {
	narrow, res := exprsFilter(t)
	for i := range 100 {
		res = append(res, regexp.MustCompile(fmt.Sprintf(`\bq%03dq\b`, i)))
	}
	wide, err := New(res)
	if err != nil {
		t.Fatal(err)
	}
	if wide.words < 2 || narrow.words != 1 {
		t.Fatalf("%d and %d words of expressions, want 1 and more", narrow.words, wide.words)
	}
	pieces := append(narrow.Strings(), " ", "|", "-e ", "K", "\u212a", "_", "x", "é")
	r := rand.New(rand.NewPCG(7, 7))
	hn, hw := narrow.NewHits(), wide.NewHits()
	for range 3000 {
		var b strings.Builder
		for range r.IntN(3) * r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		narrow.Scan(hn, text)
		wide.Scan(hw, text)
		n := len(hn.mask)
		if !slices.Equal(hn.set[:hn.found], hw.set[:hw.found]) || !slices.Equal(hn.mask, hw.mask[:n]) {
			t.Fatalf("%q: the strings found by %d expressions are not those found by %d", text, len(exprs), len(res))
		}
		for _, id := range hn.set[:hn.found] {
			sn, sw := hn.spots[id], hw.spots[id]
			for b := range 4 {
				if hn.mask[id]&(1<<b) != 0 && sn.first[b] != sw.first[b] || sn.last != sw.last {
					t.Fatalf("%q: where %d expressions find %q is not where %d find it", text, len(exprs), narrow.strs[id], len(res))
				}
			}
		}
		if hn.touched[0] != hw.touched[0] || hn.touchedAll[0] != hw.touchedAll[0] {
			t.Fatalf("%q: the expressions touched of %d are not those of %d", text, len(exprs), len(res))
		}
	}
}

// TestBoundaries checks that a string asked with a word boundary is
// found only there, and anywhere in a part of the line.
func TestBoundaries(t *testing.T) {
	f, err := New([]*regexp.Regexp{regexp.MustCompile(`(?i)\bnc\b`)})
	if err != nil {
		t.Fatal(err)
	}
	h := f.NewHits()
	for text, want := range map[string]bool{
		"nc -e sh": true, "x|nc|y": true, "NC": true,
		"function": false, "once": false, "nc_x": false,
		"\u212ac": false, // the Kelvin sign folds to k, not n
	} {
		f.Scan(h, text)
		if got := f.May(h, 0); got != want {
			t.Errorf("May(%q) = %v, want %v", text, got, want)
		}
		if f.MayPart(h, 0) != strings.Contains(strings.ToLower(text), "nc") {
			t.Errorf("MayPart(%q) = %v, want whether nc is in it", text, f.MayPart(h, 0))
		}
	}
	// A text folded for the Kelvin sign does not tell boundaries.
	g, err := New([]*regexp.Regexp{regexp.MustCompile(`(?i)\bkey\b`)})
	if err != nil {
		t.Fatal(err)
	}
	h = g.NewHits()
	text := "x\u212aey"
	g.Scan(h, text)
	if !g.May(h, 0) {
		t.Errorf("May(%q) = false; want true, a folded text's boundaries unknown", text)
	}
	if lo, hi := g.Window(h, 0, len(text)); lo != 0 || hi != len(text) || !utf8.ValidString(text) {
		t.Errorf("Window(%q) = [%d, %d), want the whole text", text, lo, hi)
	}
}

// TestAnyTouched checks the test of a range of expressions against the
// test of each, Touched against AnyTouched of a range of one, and
// NextTouched against Touched of each expression of a range.
func TestAnyTouched(t *testing.T) {
	var res []*regexp.Regexp
	for i := range 150 {
		res = append(res, regexp.MustCompile(fmt.Sprintf("w%03d", i)))
	}
	f, err := New(res)
	if err != nil {
		t.Fatal(err)
	}
	h := f.NewHits()
	r := rand.New(rand.NewPCG(4, 4))
	for range 2000 {
		f.Scan(h, fmt.Sprintf("w%03d w%03d", r.IntN(150), r.IntN(150)))
		lo := r.IntN(150)
		hi := lo + r.IntN(150-lo+1)
		want := false
		for i := lo; i < hi; i++ {
			want = want || f.May(h, i)
		}
		if got := h.AnyTouched(lo, hi); got != want {
			t.Fatalf("AnyTouched(%d, %d) = %v, want %v", lo, hi, got, want)
		}
		for i := range 150 {
			if got, want := h.Touched(i), h.AnyTouched(i, i+1); got != want {
				t.Fatalf("Touched(%d) = %v, AnyTouched(%d, %d) %v", i, got, i, i+1, want)
			}
		}
		var next, each []int
		for i := h.NextTouched(lo, hi); i < hi; i = h.NextTouched(i+1, hi) {
			next = append(next, i)
		}
		for i := lo; i < hi; i++ {
			if h.Touched(i) {
				each = append(each, i)
			}
		}
		if !slices.Equal(next, each) {
			t.Fatalf("NextTouched from %d to %d: %v, want %v", lo, hi, next, each)
		}
		if got := h.NextTouched(hi, hi); got != hi {
			t.Fatalf("NextTouched(%d, %d) = %d, want %d", hi, hi, got, hi)
		}
	}
}

// TestTouchesAny checks the test of a set of expressions against the
// test of each.
func TestTouchesAny(t *testing.T) {
	var res []*regexp.Regexp
	for i := range 150 {
		res = append(res, regexp.MustCompile(fmt.Sprintf(`\bw%03d\b`, i)))
	}
	f, err := New(res)
	if err != nil {
		t.Fatal(err)
	}
	h := f.NewHits()
	r := rand.New(rand.NewPCG(5, 5))
	for range 2000 {
		f.Scan(h, fmt.Sprintf("w%03d w%03dx w%03d", r.IntN(150), r.IntN(150), r.IntN(150)))
		set := make([]uint64, 3)
		want := false
		for range r.IntN(20) {
			i := r.IntN(150)
			set[i/64] |= 1 << (i % 64)
			want = want || f.May(h, i)
		}
		if got := h.TouchesAny(set); got != want {
			t.Fatalf("TouchesAny(%x) = %v, want %v", set, got, want)
		}
	}
}

// TestTouchedByBoundaries checks that a string found without the word
// boundaries a condition asks for touches no expression of a line,
// and still lets a part of the line be asked about.
func TestTouchedByBoundaries(t *testing.T) {
	f, err := New([]*regexp.Regexp{regexp.MustCompile(`\bnc\b`), regexp.MustCompile(`nc`)})
	if err != nil {
		t.Fatal(err)
	}
	h := f.NewHits()
	f.Scan(h, "once")
	if h.AnyTouched(0, 1) || f.May(h, 0) || !f.MayPart(h, 0) || !h.AnyTouched(1, 2) || !f.May(h, 1) {
		t.Errorf("once: AnyTouched %v %v, May %v %v, MayPart %v", h.AnyTouched(0, 1), h.AnyTouched(1, 2), f.May(h, 0), f.May(h, 1), f.MayPart(h, 0))
	}
	f.Scan(h, "nc -e")
	if !h.AnyTouched(0, 1) || !f.May(h, 0) {
		t.Errorf("nc -e: AnyTouched %v, May %v", h.AnyTouched(0, 1), f.May(h, 0))
	}
}

// TestFindDecides checks that Find answers for the expressions that are
// sets of strings, and only for them.
func TestFindDecides(t *testing.T) {
	for _, tc := range []struct {
		expr string
		set  bool
	}{
		{`(?i)\b(?:curl|wget|nc)\b`, true},
		{`(?i)\bwallet\.dat\b|[/\\]exodus[/\\]`, true},
		{`\bcurl\b`, false},             // case-sensitive: the automaton is not
		{`(?i)a\bb`, false},             // a boundary inside a string
		{`(?i)^curl`, false},            // an anchor
		{`(?i)curl[^|]*\|\s*sh`, false}, // not a set of strings
	} {
		f, err := New([]*regexp.Regexp{regexp.MustCompile(tc.expr)})
		if err != nil {
			t.Fatal(err)
		}
		h := f.NewHits()
		f.Scan(h, "x")
		if _, _, ok := f.Find(h, 0); ok != tc.set {
			t.Errorf("Find(%s) decided %v, want %v", tc.expr, ok, tc.set)
		}
	}
}

// exprsFilter compiles exprs and builds their filter.
func exprsFilter(t *testing.T) (*Filter, []*regexp.Regexp) {
	t.Helper()
	var res []*regexp.Regexp
	for _, e := range exprs {
		res = append(res, regexp.MustCompile(e))
	}
	f, err := New(res)
	if err != nil {
		t.Fatal(err)
	}
	return f, res
}

// TestOutputs checks the states where strings end that outputs tells,
// four at a time or, in an automaton of more than 1<<15 states or a
// chunk shorter than shortOutputs, one at a time, against a test of
// each, for chunks of any length.
func TestOutputs(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{2, 300, 1 << 15, 1<<15 + 1, 1 << 16} {
		for range 500 {
			a := &automaton{next: make([]uint16, n), firstOut: uint16(r.IntN(n))}
			var st states
			for k := range chunk {
				binary.LittleEndian.PutUint16(st[0][2*k:], uint16(r.IntN(n)))
			}
			length := r.IntN(chunk + 1)
			var want uint64
			for k := range length {
				if binary.LittleEndian.Uint16(st[0][2*k:]) >= a.firstOut {
					want |= 1 << k
				}
			}
			if got := a.outputs(&st[0], length); got != want {
				t.Fatalf("%d states, from %d: outputs of %d = %x, want %x", n, a.firstOut, length, got, want)
			}
		}
	}
}

// TestFindAllocates checks that Find allocates nothing, as the audit
// asks it of nearly every line.
func TestFindAllocates(t *testing.T) {
	f, _ := exprsFilter(t)
	h := f.NewHits()
	f.Scan(h, "x curl y wget")
	if lo, hi, ok := f.Find(h, 0); !ok || lo != 2 || hi != 6 {
		t.Fatalf("Find = %d, %d, %v, want 2, 6, true", lo, hi, ok)
	}
	if n := testing.AllocsPerRun(100, func() { f.Find(h, 0) }); n != 0 {
		t.Errorf("Find allocates %v times, want none", n)
	}
}
