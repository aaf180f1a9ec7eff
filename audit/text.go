package audit

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// context is where a line stands in a file.
type context int

const (
	prose  context = iota // Markdown text outside code
	code                  // a fenced code block, or any line of a script
	hidden                // inside an HTML comment in Markdown
)

// line is one line of a text file.
type line struct {
	n     int     // 1-based
	raw   string  // as in the file, without its newline
	clean string  // raw with invisible characters removed
	ctx   context // where it stands
}

// splitLines splits a text file into lines with their context.
func splitLines(name string, data []byte) []line {
	md := isMarkdown(name)
	text := string(data)
	var out []line
	var fence string // the open fence, or ""
	inComment := false
	for n := 1; len(text) > 0; n++ {
		raw, rest, _ := strings.Cut(text, "\n")
		text = rest
		raw = strings.TrimSuffix(raw, "\r")
		if len(raw) > maxLineBytes {
			raw = strings.ToValidUTF8(raw[:maxLineBytes], "")
		}
		l := line{n: n, raw: raw, clean: strings.Map(dropInvisible, raw), ctx: code}
		if md {
			trimmed := strings.TrimSpace(l.clean)
			switch {
			case fence != "":
				if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
					fence = ""
				}
			case inComment:
				l.ctx = hidden
				inComment = !strings.Contains(l.clean, "-->")
			case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
				fence = trimmed[:3]
			default:
				l.ctx = prose
				if i := strings.Index(l.clean, "<!--"); i >= 0 {
					l.ctx = hidden
					inComment = !strings.Contains(l.clean[i:], "-->")
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// invisible reports whether r is a zero-width or other invisible
// formatting character (rule 3's set, with the variation selectors).
func invisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064,
		r == 0xfeff, r == 0x180e, r == 0x00ad, r == 0x034f:
		return true
	case isVariationSelector(r):
		return true
	}
	return false
}

func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

func isTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// dropInvisible is the strings.Map function that removes what rules 1-3
// find, so the other rules read the text a model reads.
func dropInvisible(r rune) rune {
	if invisible(r) || isTag(r) || isBidi(r) {
		return -1
	}
	return r
}

// text audits a text file line by line.
func (s *scanner) text(name string, data []byte) {
	lines := splitLines(name, data)
	hiddenText := false
	for i, l := range lines {
		if s.unicode(name, l, i == 0) {
			hiddenText = true
		}
		s.controls(name, l)
	}
	for i := range lines {
		s.patterns(name, lines, i, hiddenText)
	}
}

// unicode applies rules 1-3 to a line and reports whether it found any.
func (s *scanner) unicode(name string, l line, first bool) bool {
	found := false
	runes := []rune(l.raw)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if isTag(r) {
			// A subdivision flag: U+1F3F4, tag letters or digits, U+E007F.
			if i > 0 && runes[i-1] == 0x1f3f4 {
				j := i
				for j < len(runes) && runes[j] >= 0xe0030 && runes[j] <= 0xe007a {
					j++
				}
				if j < len(runes) && runes[j] == 0xe007f && j > i {
					i = j
					continue
				}
			}
			j := i
			for j < len(runes) && isTag(runes[j]) {
				j++
			}
			s.add(ruleUnicodeTag, name, l.n, excerptAt(l.raw, runeOffset(runes, i)),
				fmt.Sprintf("%d tag characters, which read as %q", j-i, untag(runes[i:j])))
			found = true
			i = j - 1
			continue
		}
		if isBidi(r) {
			s.add(ruleBidiControl, name, l.n, excerptAt(l.raw, runeOffset(runes, i)),
				fmt.Sprintf("bidirectional control U+%04X", r))
			found = true
			for i+1 < len(runes) && isBidi(runes[i+1]) {
				i++
			}
			continue
		}
		if !invisible(r) {
			continue
		}
		j := i
		for j < len(runes) && invisible(runes[j]) {
			j++
		}
		run := j - i
		switch {
		case run >= 3:
			s.add(ruleZeroWidth, name, l.n, excerptAt(l.raw, runeOffset(runes, i)),
				fmt.Sprintf("%d invisible characters in a row", run))
			found = true
		case r == 0xfeff && first && i == 0:
		case isVariationSelector(r):
		case i > 0 && j < len(runes) && isASCIIWord(runes[i-1]) && isASCIIWord(runes[j]):
			s.add(ruleZeroWidth, name, l.n, excerptAt(l.raw, runeOffset(runes, i)),
				fmt.Sprintf("invisible U+%04X inside a word", r))
			found = true
		}
		i = j - 1
	}
	return found
}

func isASCIIWord(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// untag reads tag characters as the ASCII they shadow.
func untag(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		if c := r - 0xe0000; c >= 0x20 && c < 0x7f {
			b.WriteRune(c)
		}
	}
	return truncate(b.String(), 80)
}

func runeOffset(runes []rune, i int) int {
	n := 0
	for _, r := range runes[:i] {
		n += utf8.RuneLen(r)
	}
	return n
}

// controls applies rule 4 to a line.
func (s *scanner) controls(name string, l line) {
	for i, r := range l.raw {
		switch {
		case r == 0x1b && i+1 < len(l.raw) && strings.IndexByte(escapeFinal, l.raw[i+1]) >= 0:
			s.add(ruleTerminalEscape, name, l.n, excerptAt(l.raw, i), "an escape sequence (ESC)")
		case r >= 0x80 && r <= 0x9f:
			s.add(ruleTerminalEscape, name, l.n, excerptAt(l.raw, i), fmt.Sprintf("a C1 control character U+%04X", r))
		case r == '\b':
			s.add(ruleTerminalEscape, name, l.n, excerptAt(l.raw, i), "a backspace, which overwrites text on a terminal")
		case r == '\r':
			s.add(ruleTerminalEscape, name, l.n, excerptAt(l.raw, i), "a carriage return inside a line, which overwrites it on a terminal")
		default:
			continue
		}
		return
	}
}

// escapeFinal holds the bytes that make ESC the start of a sequence a
// terminal acts on: CSI, OSC, DCS, SOS, PM, APC, character sets, cursor
// save and restore, reset, index, keypad modes. An ESC before anything
// else (a mis-encoded arrow, say) does nothing on a terminal.
const escapeFinal = "[]PX^_()*+#%c78DEHMNOZ=><"

// excerptAt returns the part of a line around byte offset at, escaped.
func excerptAt(raw string, at int) string {
	start := max(0, at-60)
	for start > 0 && !utf8.RuneStart(raw[start]) {
		start--
	}
	end := len(raw)
	if end-start > 4*maxExcerpt {
		end = start + 4*maxExcerpt
	}
	out := escape(strings.TrimSpace(raw[start:end]))
	if start > 0 {
		out = "..." + out
	}
	return truncate(out, maxExcerpt)
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n-3]) + "..."
}

// escape writes control, invisible and deceptive characters as escapes:
// \xNN below U+0080 and for invalid bytes, \uNNNN or \UNNNNNNNN above.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, invisible(r), isBidi(r), isTag(r),
			r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029,
			!unicode.IsPrint(r) && r != ' ':
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
