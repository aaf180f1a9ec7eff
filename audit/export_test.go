package audit

import "io/fs"

// TreeExhaustive is Tree without the prefilter: every expression runs on
// every line. The prefilter's findings must be its findings.
func TreeExhaustive(fsys fs.FS) (Report, error) { return scanTree(fsys, true) }

// LineConditions returns each line expression's pattern and the
// prefilter's condition for it.
func LineConditions() (patterns, conds []string) {
	for i, e := range lineExprs {
		patterns = append(patterns, e.String())
		conds = append(conds, lineFilter().Condition(i))
	}
	return patterns, conds
}

// Keywords returns the strings the prefilter looks for.
func Keywords() []string { return lineFilter().Strings() }

// FindAnchored returns what findAnchored finds of line expression i in
// t, whether it decides, and what the expression finds over all of t.
func FindAnchored(i int, t string) (got []int, decided bool, want []int) {
	e := lineExprs[i]
	if got, decided = findAnchored(e, t); decided {
		want = e.FindStringIndex(t)
	}
	return got, decided, want
}

// AnchoredMin is the length from which an expression runs anchored.
const AnchoredMin = anchoredMin

// QuickMatcher is a line expression's pattern and its matcher written
// by hand.
type QuickMatcher struct {
	Pattern string
	Match   func(string) bool
}

// QuickMatchers returns the line expressions that have a matcher
// written by hand.
func QuickMatchers() []QuickMatcher {
	var qs []QuickMatcher
	for _, e := range lineExprs {
		if e.quick != nil {
			qs = append(qs, QuickMatcher{e.String(), e.quick})
		}
	}
	return qs
}

// EnvFile returns what the hand-written search for a .env file's name
// finds in t, and what dotEnv's matches give.
func EnvFile(t string) (got, want []int) { return firstEnvFile(t), envFile(t) }
