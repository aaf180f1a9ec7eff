package prefilter

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// referenceScan records in h what text holds the plain way: a step of
// the automaton a byte, and at each byte each string that ends there,
// its boundaries read from the text, its first occurrence with each
// need bit and its last, and the expressions each need bit found
// touches, word by word. It is what Scan and ScanEach must record,
// however they get there.
func referenceScan(f *Filter, h *Hits, text string) {
	for _, id := range h.set[:h.found] {
		h.mask[id] = 0
	}
	h.found = 0
	clear(h.touched)
	clear(h.touchedAll)
	var fold uint8
	h.folded = NeedsFold(text)
	if h.folded {
		text, fold = foldText.Replace(text), needAny|needBefore|needAfter|needBoth
	}
	word := func(i int) uint8 {
		if i < 0 || i >= len(text) || !isWord(text[i]) {
			return 0
		}
		return 1
	}
	state := uint32(0)
	for i := 0; i < len(text); i++ {
		state = f.a.step(state, text[i])
		for _, e := range f.a.endsAt(state) {
			end := i + 1
			start := end - int(e.len)
			before, after := word(start-1)^word(start), word(end)^word(end-1)
			b := needAny | before<<1 | after<<2 | before&after<<3 | fold
			m := h.mask[e.id]
			if m == 0 {
				h.set[h.found] = e.id
				h.found++
			}
			t := f.touches[int(e.id)*f.touchStride():]
			for w := range f.words {
				h.touchedAll[w] |= t[w]
			}
			for bit := range 4 {
				if b&(1<<bit) != 0 && m&(1<<bit) == 0 {
					h.spots[e.id].first[bit] = int32(start)
				}
			}
			bound := int(before | after<<1)
			if fold != 0 {
				bound = 3
			}
			for w := range f.words {
				h.touched[w] |= t[(1+bound)*f.words+w]
			}
			h.mask[e.id] = m | b
			h.spots[e.id].last = int32(end)
		}
	}
}

// sameHits reports what differs between got and want, which were
// scanned from text: "" when nothing does.
func sameHits(got, want *Hits) string {
	switch {
	case !slices.Equal(got.set[:got.found], want.set[:want.found]):
		return "the strings found, or their order"
	case !slices.Equal(got.mask, want.mask):
		return "the need bits"
	case !slices.Equal(got.touched, want.touched), !slices.Equal(got.touchedAll, want.touchedAll):
		return "the expressions touched"
	case got.folded != want.folded:
		return "folded"
	}
	for _, id := range want.set[:want.found] {
		g, w := got.spots[id], want.spots[id]
		for b := range 4 {
			if want.mask[id]&(1<<b) != 0 && g.first[b] != w.first[b] {
				return "where a first occurrence starts"
			}
		}
		if g.last != w.last {
			return "where a last occurrence ends"
		}
	}
	return ""
}

// TestScansRecordAsReference checks that Scan and ScanEach, with the
// audit's filter, record in each Hits exactly what referenceScan does,
// for lines of the audit's benchmark texts (short lines of keywords,
// ordinary instructions, lines dense with keywords, the attacks) and
// random ones of the filter's strings, folded ones among them, scanned
// in batches as the audit scans them and reusing each Hits.
func TestScansRecordAsReference(t *testing.T) {
	f := compiled
	if f == nil {
		t.Skip("the package is built without its compiled filter")
	}
	var lines []string
	for _, text := range []string{audittext.ShortLines(64<<10, 1), audittext.Ordinary(64<<10, 1), audittext.DenseKeywords(64<<10, 1)} {
		lines = append(lines, strings.Split(text, "\n")...)
	}
	lines = append(lines, audittext.AttackLines...)
	pieces := append(f.Strings(), " ", "|", "-e ", "K", "\u212a", "\u017f", "_", "x", "é", "\t")
	r := rand.New(rand.NewPCG(9, 9))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(3) * r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	hs, want := make([]*Hits, 8), f.NewHits()
	for i := range hs {
		hs[i] = f.NewHits()
	}
	for i := 0; i < len(lines); i += 8 {
		batch := lines[i:min(i+8, len(lines))]
		unfolded := !slices.ContainsFunc(batch, NeedsFold)
		f.ScanEach(hs[:len(batch)], batch, unfolded)
		for k, line := range batch {
			referenceScan(f, want, line)
			if d := sameHits(hs[k], want); d != "" {
				t.Fatalf("ScanEach(%q): %s in the Hits of %q are not the reference's", batch, d, line)
			}
			f.Scan(hs[k], line)
			if d := sameHits(hs[k], want); d != "" {
				t.Fatalf("Scan(%q): %s are not the reference's", line, d)
			}
		}
	}
}
