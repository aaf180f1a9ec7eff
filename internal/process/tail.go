package process

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	// buf fills up to max bytes; from then on it is a ring whose oldest
	// byte is buf[next].
	buf     []byte
	next    int
	written int64
}

// Write keeps the end of p; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.written += int64(n)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if room := t.max - len(t.buf); room > 0 {
		k := min(room, len(p))
		t.buf = append(t.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(t.buf[t.next:], p)
		p = p[k:]
		t.next = (t.next + k) % t.max
	}
	return n, nil
}

// bytes returns the bytes kept, oldest first.
func (t *tailBuffer) bytes() []byte {
	return slices.Concat(t.buf[t.next:], t.buf[:t.next])
}

// String returns the bytes kept as valid UTF-8 of at most max bytes: a
// character cut by the start of the tail is dropped, and invalid bytes are
// replaced by U+FFFD.
func (t *tailBuffer) String() string {
	b := t.bytes()
	if t.written > int64(len(b)) {
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	for len(s) > t.max {
		_, size := utf8.DecodeRuneInString(s)
		s = s[size:]
	}
	return s
}
