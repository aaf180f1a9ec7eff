package audit

import (
	_ "embed" // linefilter.tables

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
)

// The prefilter of lineExprs is loaded from its tables, which go
// generate writes beside the expressions, instead of being built by
// reading the expressions' syntax trees at each start of a program that
// audits (about 10 ms and 4 MB of garbage, against well under 1 ms to
// load). TestLineFilterTables fails when the tables are stale.
//
//go:generate go test -run ^TestLineFilterTables$ -update-line-filter .

// lineFilterTables are the tables of the prefilter of lineExprs
// (prefilter.Filter.Tables).
//
//go:embed linefilter.tables
var lineFilterTables string

// loadLineFilter returns the prefilter of exprs: loaded from
// lineFilterTables when they are of exprs, and built from exprs
// otherwise (the same filter, built more slowly).
func loadLineFilter(exprs []*expr) *prefilter.Filter {
	patterns := make([]string, len(exprs))
	for i, e := range exprs {
		patterns[i] = e.String()
	}
	if f, err := prefilter.Load(patterns, lineFilterTables); err == nil {
		return f
	}
	return newLineFilter(exprs)
}
