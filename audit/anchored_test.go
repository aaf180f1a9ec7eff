package audit_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// TestFindAnchored checks that an expression run anchored at the
// places its matches can start finds what the expression run over the
// whole text finds, for every line expression with anchors, on long texts of
// prose, the rules' keywords and the prefilter's strings, joined by
// newlines and spaces of every kind, in any case.
func TestFindAnchored(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	words := append(audit.Keywords(), audittext.RuleWords...)
	words = append(words, "before using this skill", "you must first install", "password:", "pass =",
		"this skill requires the acme helper", "é", "\t", "\n", "  \n ", ".", "Before\n\nyou run the skill")
	patterns, _ := audit.LineConditions()
	texts := 20
	if raceDetector {
		texts = 3
	}
	anchored, matched := 0, 0
	for n := range texts {
		var b strings.Builder
		b.WriteString(audittext.Ordinary(audit.AnchoredMin+r.IntN(4<<10), uint64(n)))
		for b.Len() < 3*audit.AnchoredMin {
			w := words[r.IntN(len(words))]
			if r.IntN(3) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			b.WriteString([]string{" ", "\n", "", "  ", "\t"}[r.IntN(5)])
		}
		for i, p := range patterns {
			got, decided, want := audit.FindAnchored(i, b.String())
			if !decided {
				continue
			}
			anchored++
			if got != nil {
				matched++
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s on text %d: anchored %v, over the whole text %v", p, n, got, want)
			}
		}
	}
	if matched == 0 || matched == anchored {
		t.Fatalf("%d of %d expressions run anchored matched: want some, not all", matched, anchored)
	}
}

// TestFindAnchoredBudget checks that the anchored runs of an expression
// read no more than a few times a text's length, on words of many
// anchors that a repetition of the expression reads to their end from
// each of them (a URL's `[^\s)"'<>\]]+?`) or that a bounded repetition
// reads 60 bytes from each (`[^\n]{0,60}`): what they read grows as
// the text does, not as its square; and that what findAnchored finds,
// when it decides, is what the expression finds over the whole text,
// on those words and on random texts of them.
func TestFindAnchoredBudget(t *testing.T) {
	patterns, _ := audit.LineConditions()
	units := []string{"http://a.exe", "http://a/b.", "https://1.2.3.", "http://evil:", "profile|", `user data\`}
	const end = " x http://a.exe "
	hostile := func(u string, n int) string { return strings.Repeat(u, (n-len(end))/len(u)) + end }
	spent := 0
	for _, u := range units {
		for i, p := range patterns {
			small, large := hostile(u, 16<<10), hostile(u, 64<<10)
			rs, _ := audit.AnchoredRead(i, small)
			rl, decided := audit.AnchoredRead(i, large)
			if !decided {
				spent++
			}
			if max := audit.AnchoredBudget*len(large) + 4; rl > max {
				t.Errorf("%q, %s: anchored runs read %d bytes of %d, more than %d", u, p, rl, len(large), max)
			}
			if rl > 5*rs+1024 {
				t.Errorf("%q, %s: anchored runs read %d bytes of 16 KiB and %d of 64 KiB: faster than the text grows", u, p, rs, rl)
			}
			checked := []string{small, large}
			if raceDetector {
				checked = checked[:1]
			}
			for _, s := range checked {
				if got, decided, want := audit.FindAnchored(i, s); decided && !slices.Equal(got, want) {
					t.Fatalf("%q, %s: anchored %v, over the whole text %v", u, p, got, want)
				}
			}
		}
	}
	if spent == 0 {
		t.Fatal("no expression spent its anchored runs' budget on the words of many anchors")
	}
	r := rand.New(rand.NewPCG(9, 9))
	words := append(units, " ", "\n", ".exe", "a", "http://", "chrome/cookies", "HTTPS://")
	texts := 12
	if raceDetector {
		texts = 3
	}
	for n := range texts {
		var b strings.Builder
		for b.Len() < audit.AnchoredMin+r.IntN(16<<10) {
			w := words[r.IntN(len(words))]
			for range r.IntN(200) {
				b.WriteString(w)
			}
		}
		for i, p := range patterns {
			if got, decided, want := audit.FindAnchored(i, b.String()); decided && !slices.Equal(got, want) {
				t.Fatalf("%s on random text %d: anchored %v, over the whole text %v", p, n, got, want)
			}
		}
	}
}
