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
	s := &lineScanner{
		buf:      make([]byte, min(max+2, firstBuffer)),
		max:      max,
		line:     line,
		overlong: overlong,
	}
	for {
		n, err := r.Read(s.buf[s.end:])
		s.takeLines(n)
		s.boundPending()
		if err != nil {
			s.flush()
			return
		}
		s.makeRoom()
	}
}

// lineScanner is the state of one scanLines: a buffer whose part
// buf[start:end] is the pending start of a line not yet ended.
type lineScanner struct {
	buf        []byte
	start, end int
	skipping   bool // the pending line is longer than max
	skipped    int  // how many of its bytes were dropped

	max      int
	line     func([]byte)
	overlong func(int)
}

// takeLines adds the n bytes just read into buf[end:] to what is pending
// and emits every line they complete.
func (s *lineScanner) takeLines(n int) {
	for scan := s.end; ; {
		i := bytes.IndexByte(s.buf[scan:s.end+n], '\n')
		if i < 0 {
			break
		}
		i += scan
		s.emit(s.buf[s.start:i])
		s.start, scan = i+1, i+1
	}
	s.end += n
}

// boundPending starts skipping the pending line once it is longer than
// max, and drops what it has of a line being skipped. A trailing '\r' is
// kept aside: it may be the start of a "\r\n" ending.
func (s *lineScanner) boundPending() {
	cr := 0
	if s.end > s.start && s.buf[s.end-1] == '\r' {
		cr = 1
	}
	if !s.skipping && s.end-s.start-cr > s.max {
		s.skipping = true
	}
	if s.skipping {
		s.skipped += s.end - s.start - cr
		s.start = s.end - cr
	}
}

// flush emits what is pending at the end of the input: a last line without
// a newline, or the end of a line being skipped.
func (s *lineScanner) flush() {
	if s.end > s.start || s.skipping {
		s.emit(s.buf[s.start:s.end])
	}
}

// makeRoom moves what is pending to the front of the buffer, and doubles
// the buffer, up to max+2 bytes, when that leaves no room to read into.
func (s *lineScanner) makeRoom() {
	if s.start > 0 {
		s.end = copy(s.buf, s.buf[s.start:s.end])
		s.start = 0
	}
	if s.end == len(s.buf) {
		// Not skipping, so end <= max+1 and the buffer can grow.
		grown := make([]byte, min(2*len(s.buf), s.max+2))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
}

// emit passes on a line b, without its "\n": to line if it is not empty
// and at most max bytes long, or its length to overlong if it is longer,
// counting the bytes dropped while skipping it.
func (s *lineScanner) emit(b []byte) {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	size := len(b)
	if s.skipping {
		size += s.skipped
		s.skipping, s.skipped = false, 0
	}
	switch {
	case size > s.max:
		s.overlong(size)
	case size > 0:
		s.line(b)
	}
}
