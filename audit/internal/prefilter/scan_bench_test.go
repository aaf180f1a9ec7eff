package prefilter

import (
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// auditFilter returns the audit's line filter, compiled into the
// package (compiled.go).
func auditFilter(b *testing.B) *Filter {
	if compiled == nil {
		b.Skip("the package is built without its compiled filter")
	}
	return compiled
}

// benchmarkScanEach scans the lines of text with the audit's filter, 8
// lines a call, as the audit does.
func benchmarkScanEach(b *testing.B, text string) {
	f := auditFilter(b)
	lines := strings.Split(text, "\n")
	hs := make([]*Hits, 8)
	for i := range hs {
		hs[i] = f.NewHits()
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for i := 0; i < len(lines); i += 8 {
			batch := lines[i:min(i+8, len(lines))]
			f.ScanEach(hs[:len(batch)], batch, true)
		}
	}
}

// BenchmarkScanEachDense scans 8 MiB of lines dense with the audit's
// keywords: a string ends every few bytes.
func BenchmarkScanEachDense(b *testing.B) {
	benchmarkScanEach(b, audittext.DenseKeywords(8<<20, 1))
}

// BenchmarkScanEachOrdinary scans 4 MiB of ordinary instructions.
func BenchmarkScanEachOrdinary(b *testing.B) {
	benchmarkScanEach(b, audittext.Ordinary(4<<20, 1))
}

// BenchmarkScanEachShortLines scans 4 MiB of lines of one or two of
// the rules' keywords, about 12 bytes each: what a scan costs a line,
// more than what it costs a byte.
func BenchmarkScanEachShortLines(b *testing.B) {
	benchmarkScanEach(b, audittext.ShortLines(4<<20, 1))
}

// BenchmarkNextStringShortLines runs the automaton alone over the text
// of BenchmarkScanEachShortLines, from each string's end to the next
// (NextString): what a step a byte costs where nearly every byte is in
// a string, with nothing recorded, set against what ScanEach costs.
func BenchmarkNextStringShortLines(b *testing.B) {
	f := auditFilter(b)
	text := audittext.ShortLines(4<<20, 1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for at := 0; ; {
			end := f.NextString(text, at)
			if end < 0 {
				break
			}
			at = end
		}
	}
}
