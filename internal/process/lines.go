package process

import (
	"bytes"
	"io"
	"math"
)

// firstBuffer is the initial size of the line buffer, which grows, up to the
// longest line accepted, only as long lines come.
const firstBuffer = 64 << 10

// scanLines reads r until its end or a read error, calling line for each
// non-empty line, without its ending ("\n" or "\r\n"), of at most max
// bytes, and overlong with the length of each longer line, which is
// skipped. A final line without a newline counts as a line. The buffer
// never exceeds max+2 bytes.
func scanLines(r io.Reader, max int, line func([]byte), overlong func(int)) {
	max = min(max, math.MaxInt-2)
	buf := make([]byte, min(max+2, firstBuffer))
	var (
		start, end int  // buf[start:end] is the pending part of a line
		skipping   bool // the pending line is longer than max
		skipped    int  // how many of its bytes were dropped
	)
	emit := func(b []byte) {
		b = bytes.TrimSuffix(b, []byte{'\r'})
		size := len(b)
		if skipping {
			size += skipped
			skipping, skipped = false, 0
		}
		switch {
		case size > max:
			overlong(size)
		case size > 0:
			line(b)
		}
	}
	for {
		n, err := r.Read(buf[end:])
		for scan := end; ; {
			i := bytes.IndexByte(buf[scan:end+n], '\n')
			if i < 0 {
				break
			}
			i += scan
			emit(buf[start:i])
			start, scan = i+1, i+1
		}
		end += n

		// What is pending has no newline. A trailing '\r' is kept aside:
		// it may be the start of a "\r\n" ending.
		cr := 0
		if end > start && buf[end-1] == '\r' {
			cr = 1
		}
		if !skipping && end-start-cr > max {
			skipping = true
		}
		if skipping {
			skipped += end - start - cr
			start = end - cr
		}
		if err != nil {
			if end > start || skipping {
				emit(buf[start:end])
			}
			return
		}

		if start > 0 {
			end = copy(buf, buf[start:end])
			start = 0
		}
		if end == len(buf) {
			// Not skipping, so end <= max+1 and the buffer can grow.
			grown := make([]byte, min(2*len(buf), max+2))
			copy(grown, buf[:end])
			buf = grown
		}
	}
}
