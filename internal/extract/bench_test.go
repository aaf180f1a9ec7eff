package extract

import (
	"bytes"
	"os"
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
