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
