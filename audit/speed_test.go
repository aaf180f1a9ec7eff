package audit_test

import (
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// BenchmarkOrdinary audits 4 MiB of ordinary instructions.
func BenchmarkOrdinary(b *testing.B) {
	benchmarkText(b, audittext.Ordinary(4<<20, 1))
}

// BenchmarkDenseKeywords audits 8 MiB of lines dense with the rules' own
// keywords: the prefilter's worst case, every line a candidate.
func BenchmarkDenseKeywords(b *testing.B) {
	benchmarkText(b, audittext.DenseKeywords(8<<20, 1))
}

func benchmarkText(b *testing.B, text string) {
	m := fstest.MapFS{
		"SKILL.md": {Data: []byte(front + "Read notes.md.\n")},
		"notes.md": {Data: []byte(text)},
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.Tree(m); err != nil {
			b.Fatal(err)
		}
	}
}
