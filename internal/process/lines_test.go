package process

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chunkReader returns data in reads whose sizes cycle through sizes, and
// records the largest buffer it was given.
type chunkReader struct {
	data    []byte
	sizes   []int
	eofLast bool // return io.EOF with the last bytes, not after them
	reads   int
	widest  int
}

func (r *chunkReader) Read(b []byte) (int, error) {
	r.widest = max(r.widest, len(b))
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(r.sizes[r.reads%len(r.sizes)], len(b), len(r.data))
	r.reads++
	copy(b, r.data[:n])
	r.data = r.data[n:]
	if r.eofLast && len(r.data) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// splitLines is what scanLines must find in data, computed the simple way.
func splitLines(data []byte, max int) (lines []string, overlong []int) {
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		switch {
		case len(l) > max:
			overlong = append(overlong, len(l))
		case len(l) > 0:
			lines = append(lines, string(l))
		}
	}
	return lines, overlong
}

func checkScanLines(t *testing.T, data []byte, max int, sizes []int, eofLast bool) {
	t.Helper()
	r := &chunkReader{data: data, sizes: sizes, eofLast: eofLast}
	var lines []string
	var overlong []int
	scanLines(r, max, func(b []byte) { lines = append(lines, string(b)) }, func(n int) { overlong = append(overlong, n) })
	wantLines, wantOverlong := splitLines(data, max)
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("scanLines(%.60q, max %d, reads of %v) lines (-want +got):\n%s", data, max, sizes, diff)
	}
	if diff := cmp.Diff(wantOverlong, overlong); diff != "" {
		t.Errorf("scanLines(%.60q, max %d, reads of %v) overlong (-want +got):\n%s", data, max, sizes, diff)
	}
	if r.widest > max+2 {
		t.Errorf("scanLines(max %d) read into a buffer of %d bytes, want at most %d", max, r.widest, max+2)
	}
}

var scanSeeds = []string{
	"",
	"a",
	"a\nb",
	"a\n\nb\n",
	"\r\n\r\n",
	"a\r",
	"a\r\r\n",
	"\r",
	"\x00\xff\n\xc3\n",
	strings.Repeat("x", 10) + "\n" + strings.Repeat("y", 30) + "\r\nz",
	strings.Repeat("x", 16) + "\r\n" + strings.Repeat("x", 17) + "\r\n",
	strings.Repeat("x", 17) + "\r" + strings.Repeat("x", 17),
	strings.Repeat("long line\r\r\n", 20),
}

func TestScanLines(t *testing.T) {
	t.Parallel()
	for _, data := range scanSeeds {
		for _, max := range []int{1, 2, 15, 16, 17, 100, DefaultMaxLine} {
			for _, sizes := range [][]int{{1}, {2, 3}, {7}, {1 << 20}} {
				for _, eofLast := range []bool{false, true} {
					checkScanLines(t, []byte(data), max, sizes, eofLast)
				}
			}
		}
	}
}

// TestScanLinesBounded checks rule 4: a line far longer than the limit is
// skipped with a buffer of the limit's size, and the next line is read.
func TestScanLinesBounded(t *testing.T) {
	t.Parallel()
	const max = 1000
	data := []byte(strings.Repeat("x", 50<<20) + "\nnext\n")
	checkScanLines(t, data, max, []int{64 << 10}, false)
}

func FuzzScanLines(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s), uint8(16), uint8(3), uint8(1), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, max, size1, size2 uint8, eofLast bool) {
		checkScanLines(t, data, int(max)%64+1, []int{int(size1)%17 + 1, int(size2) + 1}, eofLast)
	})
}
