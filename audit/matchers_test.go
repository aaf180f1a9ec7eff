package audit_test

import (
	"math/rand/v2"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// pieces are what the texts that hold the matchers and finders written
// by hand to their expressions are made of: the expressions' literals,
// the characters their classes and boundaries tell apart (white space
// of every kind, quotation marks, the Kelvin sign and the long s that
// match k and s, characters outside ASCII, bytes that are not UTF-8),
// and the rules' keywords.
func pieces(t testing.TB) []string {
	t.Helper()
	ps := []string{" ", " ", "  ", "\t", "\n", "\r", "\f", "\v", "|", "||", ";", "&", "(", ")", "$(", "/", "\\", "-", "--",
		"=", "@", "=@", "\"", "'", "<", "*", ".", "_", "x", "a1", "d", "99", "é", "日", "\u212a", "\u017f", "\u212ash", "\u017fh", "-d\u017f",
		"\xff", "\xe2\x80", "\xc5", "\xe2\x84", "$", "#", "sudo", "env", ".env", ".env.example", ".env.local", ".env.Sample ",
		".env.example .env", ".ssh/", "id_rsa", "-d @", "1.2.3.4", "10.0.0.1", "8.8.8.8 ", "1.2.3.4.5", "256.1.1.1", "1234.5.6.7",
		"exec(base64.b64decode('aGk='))", "| sh"}
	for _, c := range audit.HandChecks() {
		tree, err := syntax.Parse(c.Pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		var walk func(re *syntax.Regexp)
		walk = func(re *syntax.Regexp) {
			if re.Op == syntax.OpLiteral {
				ps = append(ps, string(re.Rune))
			}
			for _, sub := range re.Sub {
				walk(sub)
			}
		}
		walk(tree.Simplify())
	}
	ps = append(ps, audittext.RuleWords...)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// handTexts returns n texts for the matchers and finders written by
// hand: pieces run together, and matches of each expression made from
// its syntax tree with pieces around them and cut short; then bytes cut
// out and pieces put in, at random places, and case, spaces, the
// Kelvin sign and the long s changed (mutate).
func handTexts(t testing.TB, r *rand.Rand, n int) []string {
	t.Helper()
	ps := pieces(t)
	var trees []*syntax.Regexp
	for _, c := range audit.HandChecks() {
		tree, err := syntax.Parse(c.Pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree)
	}
	some := func(b *strings.Builder, k int) {
		for range k {
			b.WriteString(ps[r.IntN(len(ps))])
		}
	}
	texts := make([]string, 0, n)
	for len(texts) < n {
		var b strings.Builder
		switch r.IntN(3) {
		case 0:
			some(&b, 1+r.IntN(20))
		default:
			some(&b, r.IntN(4))
			for range 1 + r.IntN(2) {
				m := generate(r, trees[r.IntN(len(trees))])
				if r.IntN(4) == 0 && len(m) > 0 {
					m = m[:r.IntN(len(m))]
				}
				b.WriteString(m)
				some(&b, r.IntN(4))
			}
		}
		text := b.String()
		for range r.IntN(3) {
			if text == "" {
				break
			}
			i := r.IntN(len(text))
			if r.IntN(2) == 0 {
				text = text[:i] + text[min(len(text), i+1+r.IntN(3)):]
			} else {
				text = text[:i] + ps[r.IntN(len(ps))] + text[i:]
			}
		}
		if r.IntN(3) == 0 {
			text = mutate(r, text)
		}
		texts = append(texts, text)
	}
	return texts
}

// TestHandWritten checks that each matcher and finder written by hand
// gives what its expression gives, on texts that match it, nearly match
// it and do not, and that the texts show both answers of each.
func TestHandWritten(t *testing.T) {
	n := 60000
	if raceDetector {
		n = 6000
	}
	texts := handTexts(t, rand.New(rand.NewPCG(11, 11)), n)
	for _, c := range audit.HandChecks() {
		found := 0
		for _, text := range texts {
			got, want := c.Check(text)
			if !cmp.Equal(got, want) {
				t.Fatalf("%s of %s on %q = %v, want %v", c.Name, c.Pattern, text, got, want)
			}
			if !reflect.ValueOf(want).IsZero() {
				found++
			}
		}
		if found < n/200 || found > n-n/200 {
			t.Errorf("%s of %s finds something in %d of %d texts: want texts that show both answers", c.Name, c.Pattern, found, n)
		}
	}
}

// FuzzHandWritten checks the matchers and finders written by hand on
// any text.
func FuzzHandWritten(f *testing.F) {
	for _, text := range handTexts(f, rand.New(rand.NewPCG(12, 12)), 200) {
		f.Add(text)
	}
	f.Add(audittext.DenseKeywords(4<<10, 6))
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range audit.HandChecks() {
			if got, want := c.Check(text); !cmp.Equal(got, want) {
				t.Errorf("%s of %s on %q = %v, want %v", c.Name, c.Pattern, text, got, want)
			}
		}
	})
}
