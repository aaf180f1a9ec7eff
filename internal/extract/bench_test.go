package extract

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

// BenchmarkTarGzOneVsTwoPasses extracts a 2,000-file, 16 MiB tar.gz into
// an empty root in one pass and in two (Options.Scratch), alternating in
// each round, and reports the time of each and their ratio, so that the
// two are measured in the same minutes on a shared machine.
func BenchmarkTarGzOneVsTwoPasses(b *testing.B) {
	var buf bytes.Buffer
	if err := testarchive.TarGz(&buf, 2000, 16<<20); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	one := concurrentOptions()
	two := concurrentOptions()
	two.Scratch = func() (*os.File, error) { return os.CreateTemp(b.TempDir(), "scratch") }
	var took [2]time.Duration
	extract := func(i int, opts Options) {
		root, err := os.OpenRoot(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer root.Close()
		start := time.Now()
		if _, err := Archive(b.Context(), bytes.NewReader(data), int64(len(data)), root, opts); err != nil {
			b.Fatal(err)
		}
		took[i] += time.Since(start)
	}
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			extract(0, one)
			extract(1, two)
		} else {
			extract(1, two)
			extract(0, one)
		}
		n++
	}
	b.ReportMetric(float64(took[0].Milliseconds())/float64(n), "one-pass-ms/op")
	b.ReportMetric(float64(took[1].Milliseconds())/float64(n), "two-passes-ms/op")
	b.ReportMetric(float64(took[0])/float64(took[1]), "one/two")
}

// BenchmarkTarGzWriters extracts a 2,000-file, 16 MiB tar.gz into an
// empty root with [fileWriters] goroutines writing small files
// (GOMAXPROCS+1) and with 2*GOMAXPROCS+2, alternating in each round, and reports the
// time of each and the median of the rounds' ratios (more over
// fileWriters), so that the two are measured in the same minutes on a
// shared machine.
func BenchmarkTarGzWriters(b *testing.B) {
	var buf bytes.Buffer
	if err := testarchive.TarGz(&buf, 2000, 16<<20); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	few, many := concurrentOptions(), concurrentOptions()
	few.writers = fileWriters()
	many.writers = 2*runtime.GOMAXPROCS(0) + 2
	var took [2]time.Duration
	var ratios []float64
	extract := func(opts Options) time.Duration {
		root, err := os.OpenRoot(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer root.Close()
		start := time.Now()
		if _, err := Archive(b.Context(), bytes.NewReader(data), int64(len(data)), root, opts); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	n := 0
	for b.Loop() {
		var f, m time.Duration
		if n%2 == 0 {
			f, m = extract(few), extract(many)
		} else {
			m, f = extract(many), extract(few)
		}
		took[0] += f
		took[1] += m
		ratios = append(ratios, float64(m)/float64(f))
		n++
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(took[0].Milliseconds())/float64(n), "filewriters-ms/op")
	b.ReportMetric(float64(took[1].Milliseconds())/float64(n), "more-ms/op")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}
