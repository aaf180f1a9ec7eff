package audit_test

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// pieces are what the texts that hold the hand-written matchers to their
// expressions are made of: the expressions' literals, the characters
// their classes and boundaries tell apart (white space of every kind,
// quotation marks, the Kelvin sign and the long s that match k and s,
// characters outside ASCII, bytes that are not UTF-8), and the rules'
// keywords.
func pieces(t testing.TB) []string {
	t.Helper()
	ps := []string{" ", " ", "  ", "\t", "\n", "\r", "\f", "\v", "|", "||", ";", "&", "(", ")", "$(", "/", "\\", "-", "--",
		"=", "@", "=@", "\"", "'", "<", "*", ".", "_", "x", "a1", "99", "1.2.3.4", "é", "日", "\u212a", "\u017f", "\u212ash",
		"\u017fh", "\xff", "\xe2\x80", "\xc5", "\xe2\x84", "$", "sudo", "env", ".env", ".env.example", ".env.local", ".env.Sample ", ".env.example .env", ".ssh/", "id_rsa", "-d @"}
	for _, q := range audit.QuickMatchers() {
		tree, err := syntax.Parse(q.Pattern, syntax.Perl)
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

// quickTexts returns n texts for the hand-written matchers: pieces run
// together, matches of each expression made from its syntax tree with
// pieces around them and cut short, and those texts with bytes cut out
// and pieces put in, and changed in case, in spaces and by the Kelvin
// sign and the long s (mutate).
func quickTexts(t testing.TB, r *rand.Rand, n int) []string {
	t.Helper()
	ps := pieces(t)
	var trees []*syntax.Regexp
	for _, q := range audit.QuickMatchers() {
		tree, err := syntax.Parse(q.Pattern, syntax.Perl)
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
			m := generate(r, trees[r.IntN(len(trees))])
			if r.IntN(4) == 0 && len(m) > 0 {
				m = m[:r.IntN(len(m))]
			}
			b.WriteString(m)
			some(&b, r.IntN(4))
		}
		text := b.String()
		// Bytes cut out and pieces put in, at random places.
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

// TestQuickMatchers checks that each hand-written matcher answers as its
// expression does, on texts that match it, nearly match it and do not.
func TestQuickMatchers(t *testing.T) {
	n := 60000
	if raceDetector {
		n = 6000
	}
	texts := quickTexts(t, rand.New(rand.NewPCG(11, 11)), n)
	for _, q := range audit.QuickMatchers() {
		re := regexp.MustCompile(q.Pattern)
		matched := 0
		for _, text := range texts {
			want := re.MatchString(text)
			if got := q.Match(text); got != want {
				t.Fatalf("%s: matcher on %q = %v, want %v", q.Pattern, text, got, want)
			}
			if want {
				matched++
			}
		}
		if matched < n/100 {
			t.Errorf("%s: %d of %d texts matched: want more, so that the test shows a matcher that misses", q.Pattern, matched, n)
		}
	}
	for _, text := range texts {
		if got, want := audit.EnvFile(text); !slices.Equal(got, want) {
			t.Fatalf("the search for a .env file on %q = %v, want %v", text, got, want)
		}
	}
}

// FuzzQuickMatchers checks the hand-written matchers on any text.
func FuzzQuickMatchers(f *testing.F) {
	for _, text := range quickTexts(f, rand.New(rand.NewPCG(12, 12)), 200) {
		f.Add(text)
	}
	f.Add(audittext.DenseKeywords(4<<10, 6))
	f.Fuzz(func(t *testing.T, text string) {
		for _, q := range audit.QuickMatchers() {
			if got, want := q.Match(text), regexp.MustCompile(q.Pattern).MatchString(text); got != want {
				t.Errorf("%s: matcher on %q = %v, want %v", q.Pattern, text, got, want)
			}
		}
		if got, want := audit.EnvFile(text); !slices.Equal(got, want) {
			t.Errorf("the search for a .env file on %q = %v, want %v", text, got, want)
		}
	})
}
