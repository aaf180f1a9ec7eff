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
		conds = append(conds, lineFilter.Condition(i))
	}
	return patterns, conds
}

// Keywords returns the strings the prefilter looks for.
func Keywords() []string { return lineFilter.Strings() }
