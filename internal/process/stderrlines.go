package process

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// stderrLines writes standard error to the tail and cuts it into lines
// for [Command.StderrLine] (rule 12): each line without its ending, empty
// lines skipped, at most [MaxStderrLine] bytes of it (the rest dropped,
// and a character cut at the end with it), invalid UTF-8 replaced by
// U+FFFD. Its buffer never holds more than MaxStderrLine bytes.
type stderrLines struct {
	tail    *tailBuffer
	line    func(string)
	buf     []byte
	cutting bool // the pending line has passed MaxStderrLine
}

// Write keeps p in the tail and emits the lines it completes; it never
// fails.
func (s *stderrLines) Write(p []byte) (int, error) {
	n, _ := s.tail.Write(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			break
		}
		s.add(p[:i])
		s.flush()
		p = p[i+1:]
	}
	return n, nil
}

// add appends b to the pending line, up to MaxStderrLine bytes.
func (s *stderrLines) add(b []byte) {
	if room := MaxStderrLine - len(s.buf); len(b) > room {
		b = b[:room]
		s.cutting = true
	}
	s.buf = append(s.buf, b...)
}

// flush emits the pending line, if it is not empty, and starts the next.
func (s *stderrLines) flush() {
	b := bytes.TrimSuffix(s.buf, []byte("\r"))
	if s.cutting {
		b = s.buf
		// Drop a character the cut split.
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
			if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
				break
			}
			b = b[:len(b)-1]
		}
	}
	if len(b) > 0 {
		s.line(strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	s.buf = s.buf[:0]
	s.cutting = false
}
