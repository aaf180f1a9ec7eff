package adaptor_test

import (
	"bufio"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mdLink matches the target of a markdown link or image.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingAnchors returns the anchors GitHub gives the headings of a
// markdown file: lower case, punctuation but - and _ dropped, spaces as
// -, a repeated anchor numbered -1, -2, ...
func headingAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return anchors
}

// TestDocLinks checks that every relative link of the README and the
// guides names a file or folder of the checkout and, into a markdown
// file, one of its headings.
func TestDocLinks(t *testing.T) {
	checked := 0
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p, anchor, _ := strings.Cut(target, "#")
			dest := file
			if p != "" {
				dest = path.Join(path.Dir(file), p)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: the link %s names %s, which is not in the checkout", file, target, dest)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !headingAnchors(t, dest)[anchor] {
				t.Errorf("%s: the link %s names no heading of %s", file, target, dest)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links, want at least 20: the search finds too little", checked)
	}
}
