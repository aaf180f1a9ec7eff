package skillmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQuoteColonValues(t *testing.T) {
	tests := []struct {
		in, want string
		keys     []string
	}{
		{"\nname: a\ndescription: Use when: x\n", "\nname: a\ndescription: \"Use when: x\"\n", []string{"description"}},
		{"\ndescription: ends with:\n", "\ndescription: \"ends with:\"\n", []string{"description"}},
		{"\nd: a \"q\" \\ b: c  \n", "\nd: \"a \\\"q\\\" \\\\ b: c\"\n", []string{"d"}},
		{"\nmetadata:\n  note: see: here\n", "\nmetadata:\n  note: \"see: here\"\n", []string{"note"}},
		{"\nd: 'quoted: already'\n", "\nd: 'quoted: already'\n", nil},
		{"\nd: >\n  folded: fine\n", "\nd: >\n  folded: fine\n", nil},
		{"\nd: a: b\n  continued\n", "\nd: a: b\n  continued\n", nil},
		{"\nd: no colon here\n", "\nd: no colon here\n", nil},
		{"\n- d: a: b\n", "\n- d: a: b\n", nil},
	}
	for _, tt := range tests {
		got, keys := quoteColonValues(tt.in)
		if got != tt.want || !cmp.Equal(keys, tt.keys) {
			t.Errorf("quoteColonValues(%q) = %q, %q; want %q, %q", tt.in, got, keys, tt.want, tt.keys)
		}
	}
}

func TestPythonCharacters(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{" \t\n\x1c\x1d\x1e\x1f\u00a0\u2003a b\u3000\u0085", "a b"},
		{"\u200ba\u200b", "\u200ba\u200b"}, // zero width space is not white space for Python
	} {
		if got := trimSpace(tt.in); got != tt.want {
			t.Errorf("trimSpace(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for r, want := range map[rune]bool{
		'a': true, 'Я': true, '技': true, 'ǅ': true, 'ʰ': true, // letters: Ll, Lu, Lo, Lt, Lm
		'٣': true, 'Ⅻ': true, '½': true, // numbers: Nd, Nl, No
		'_': false, '-': false, '\u0301': false, '\u094d': false, '🙂': false, ' ': false,
	} {
		if got := isAlnum(r); got != want {
			t.Errorf("isAlnum(%q) = %v, want %v", r, got, want)
		}
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{
		"Skill name":    "skill name",
		"SKILL.md must": "SKILL.md must",
		"YAML is":       "YAML is",
		"already":       "already",
		"":              "",
		"Ä umlaut":      "ä umlaut",
		"A":             "a",
	} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}
