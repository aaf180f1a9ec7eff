package adaptor_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goBlock is one ```go block of a markdown file.
type goBlock struct {
	where string // FILE:LINE of the opening fence
	src   string
}

// goBlocks returns the ```go blocks of the markdown file.
func goBlocks(t *testing.T, file string) []goBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(file))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []goBlock
	var cur *goBlock
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```go":
			cur, lines = &goBlock{where: fmt.Sprintf("%s:%d", file, n)}, nil
		case cur != nil && line == "```":
			cur.src = strings.Join(lines, "\n") + "\n"
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			lines = append(lines, line)
		}
	}
	if cur != nil {
		t.Fatalf("%s: the ```go block is not closed", cur.where)
	}
	return blocks
}

// TestDocGoProgramsCompile checks that every Go block of the README and
// the guides is a program that builds against this checkout, as a reader
// would copy it, and that every skill it writes inline is one agents
// load. A fragment cannot be checked so: write a whole program, or leave
// the code to a package doc, whose programs docs_test.go checks.
func TestDocGoProgramsCompile(t *testing.T) {
	// Files the programs may need beside them (an embedded folder).
	extra := map[string]string{"skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n"}
	programs, inline := 0, 0
	for _, file := range docFiles(t) {
		for _, b := range goBlocks(t, file) {
			t.Run(b.where, func(t *testing.T) {
				if !strings.HasPrefix(b.src, "package main\n") {
					t.Fatalf("%s: the Go block does not start with \"package main\": make it a program a reader can build", b.where)
				}
				vetProgram(t, b.src, extra)
				for _, lit := range skillLiterals(b.src) {
					checkSkillMD(t, b.where, lit)
					inline++
				}
			})
			programs++
		}
	}
	// The README's tour and the SDK guide's programs at least.
	if programs < 3 || inline < 3 {
		t.Errorf("found %d Go programs writing %d skills inline in the docs, want at least 3 of each: the search finds too little", programs, inline)
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
