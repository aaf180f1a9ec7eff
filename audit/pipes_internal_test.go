package audit

import (
	"slices"
	"strings"
	"testing"
)

// TestPipesReadOnce: a line of pipes whose runner is looked for after
// each, with no space between them, is read a bounded number of times,
// not once a pipe (which made 64 KiB of "curl|" a second's work, and a
// file of them minutes): pathEnd learns a run of bytes of no \s once.
func TestPipesReadOnce(t *testing.T) {
	for _, c := range []struct {
		name, unit string
		first      *[256]bool
		at         func(t string, i int) int
	}{
		{"downloads", "curl|", &downloadFirst, func(t string, i int) int { return wordAt(t, i, "curl", "wget", "fetch") }},
		{"downloads and paths", "curl|/a/b|", &downloadFirst, func(t string, i int) int { return wordAt(t, i, "curl", "wget", "fetch") }},
		{"decodes", "base64 -d|", &base64First, base64DecodeAt},
		{"sudo without spaces", "curl|sudo|", &downloadFirst, func(t string, i int) int { return wordAt(t, i, "curl", "wget", "fetch") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Repeat(c.unit, (64<<10)/len(c.unit))
			loc, st := pipedAfterState(text, c.first, c.at, runnerEnd)
			if loc != nil {
				t.Fatalf("pipedAfter of %q... = %v, want no match", text[:20], loc)
			}
			if want := downloadExec[0].FindStringIndex(text); c.unit[0] == 'c' && want != nil {
				t.Fatalf("the expression finds %v", want)
			}
			if st.read > 3*len(text) {
				t.Errorf("read %d bytes of a text of %d to learn its runs, want at most %d", st.read, len(text), 3*len(text))
			}
		})
	}
}

// TestFindersAcrossNewlines: an expression whose \s runs over a newline
// starts a match on a line after the one a finder looked at first; the
// finders that pass over the rest of a line look at such a command
// again.
func TestFindersAcrossNewlines(t *testing.T) {
	for _, c := range []struct {
		e    *expr
		find func(string) []int
		text string
	}{
		{exprOf(t, `\bexec\s*\(`), findExecDecode, "exec(exec\n(b64decode"},
		{exprOf(t, `\bexec\s*\(`), findExecDecode, "exec( x exec \t\r\n\n ( b64decode"},
		{exprOf(t, `\bexec\s*\(`), findExecDecode, "exec(x) EXEC\n(b64decode"},
		{exprOf(t, `\bexec\s*\(`), findExecDecode, "exec(x) texec\n(b64decode"},
		{exprOf(t, `cp\s+-r`), findArchiveHome, "tar cp\n-r ~/.ssh"},
		{exprOf(t, `cp\s+-r`), findArchiveHome, "zip x CP \r\n -r $HOME/.aws"},
		{exprOf(t, `cp\s+-r`), findArchiveHome, "tar scp\n-r ~/.ssh"},
		{exprOf(t, `cp\s+-r`), findArchiveHome, "tar cp|\n-r ~/.ssh"},
	} {
		got, want := c.find(c.text), c.e.FindStringIndex(c.text)
		if !slices.Equal(got, want) {
			t.Errorf("the finder of %s on %q = %v, want %v", c.e, c.text, got, want)
		}
	}
}

// exprOf returns the expression of lineExprs whose pattern holds part.
func exprOf(t *testing.T, part string) *expr {
	t.Helper()
	for _, e := range lineExprs {
		if strings.Contains(e.String(), part) {
			return e
		}
	}
	t.Fatalf("no expression holds %q", part)
	return nil
}
