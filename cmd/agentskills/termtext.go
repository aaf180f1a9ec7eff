package main

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Human-readable output shows what a skill's author wrote without letting
// it act on the terminal. A SKILL.md description, an error quoting a file
// name, an agent's answer: all are text others wrote, and a terminal obeys
// the control sequences in text it prints (ESC [2K erases a line, so a
// harmless description can hide the one before it). So everything written
// to stderr, and to stdout by commands that print for a person, goes
// through a [textWriter]:
//
//  1. Line feeds and tabs pass through; a carriage return passes only
//     right before a line feed.
//  2. Every other control character (C0, DEL, C1) is shown escaped, as
//     \x1b or \u009b, and so are the Unicode marks that reorder text on
//     screen (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
//  3. A byte that is not part of valid UTF-8 is shown as \xNN. A character
//     split across two writes is put together first.
//
// JSON output (--json, read-properties) and the catalogue block of
// to-prompt are data for programs, written to stdout exactly: JSON
// escapes the C0 controls itself.

// textWriter escapes what a terminal would act on; see the rules above.
// It is not safe for concurrent use.
type textWriter struct {
	w       io.Writer
	partial []byte // the start of a character a write ended in
	buf     []byte
}

func newTextWriter(w io.Writer) *textWriter { return &textWriter{w: w} }

// Write writes p with its control characters escaped. It returns len(p)
// when the escaped text was written whole.
func (t *textWriter) Write(p []byte) (int, error) {
	b := p
	if len(t.partial) > 0 {
		b = append(t.partial, p...)
		t.partial = nil
	}
	t.buf = t.buf[:0]
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(b[i:]) {
				// The rest may be completed by the next write.
				t.partial = append([]byte(nil), b[i:]...)
				break
			}
			t.buf = fmt.Appendf(t.buf, `\x%02x`, b[i])
			i++
			continue
		}
		switch {
		case r == '\r' && i+1 < len(b) && b[i+1] == '\n', r == '\n', r == '\t':
			t.buf = append(t.buf, byte(r))
		case r < 0x20 || r == 0x7f:
			t.buf = fmt.Appendf(t.buf, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, reordering(r):
			t.buf = fmt.Appendf(t.buf, `\u%04x`, r)
		default:
			t.buf = append(t.buf, b[i:i+size]...)
		}
		i += size
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a character left incomplete by the last write, escaped
// byte by byte.
func (t *textWriter) Flush() error {
	if len(t.partial) == 0 {
		return nil
	}
	t.buf = t.buf[:0]
	for _, c := range t.partial {
		t.buf = fmt.Appendf(t.buf, `\x%02x`, c)
	}
	t.partial = nil
	_, err := t.w.Write(t.buf)
	return err
}

// reordering reports whether r is a mark that changes the order in which
// a terminal shows text.
func reordering(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
