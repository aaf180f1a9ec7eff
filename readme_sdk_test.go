package adaptor_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeGoBlock returns the first ```go block of the README's section
// with the given heading.
func readmeGoBlock(t *testing.T, heading string) string {
	t.Helper()
	var block []string
	in := false
	for _, line := range readmeSection(t, heading) {
		switch {
		case !in && line == "```go":
			in = true
		case in && line == "```":
			return strings.Join(block, "\n") + "\n"
		case in:
			block = append(block, line)
		}
	}
	t.Fatalf("README section %q has no complete ```go block", heading)
	return ""
}

// TestReadmeSDKSectionsCompile checks that the README's SDK sections are
// programs that build against this checkout, as a reader would copy
// them, and that every skill they write inline is one agents load.
func TestReadmeSDKSectionsCompile(t *testing.T) {
	tests := []struct {
		heading string
		extra   map[string]string // files the program needs beside it
	}{
		{"Declaring skills", map[string]string{"skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n"}},
		{"Running an agent with skills", nil},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			src := readmeGoBlock(t, tt.heading)
			if !strings.HasPrefix(src, "package main\n") {
				t.Fatalf("README section %q: its Go block does not start with \"package main\": make it a program a reader can build", tt.heading)
			}
			vetProgram(t, src, tt.extra)
			lits := skillLiterals(src)
			if len(lits) == 0 {
				t.Errorf("README section %q writes no SKILL.md inline; the test finds none to check", tt.heading)
			}
			for _, lit := range lits {
				checkSkillMD(t, "README section "+strconv.Quote(tt.heading), lit)
			}
		})
	}
}

// skillLiterals returns the SKILL.md texts written in src as Go string
// literals that start with front matter.
func skillLiterals(src string) []string {
	var out []string
	for _, m := range goString.FindAllString(src, -1) {
		if s, err := strconv.Unquote(m); err == nil && strings.HasPrefix(s, "---\n") {
			out = append(out, s)
		}
	}
	return out
}

// goString matches an interpreted or a raw Go string literal.
var goString = regexp.MustCompile("\"(?:[^\"\\\\\n]|\\\\.)*\"|`[^`]*`")
