package audit

import (
	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
)

// The prefilter of lineExprs is compiled into the program: go generate
// writes it, as New builds it from the expressions' syntax trees, as Go
// source (internal/prefilter/compiled.go), whose composite literals are
// the program's data, so that a program that audits does not build it
// at each start (about 10 ms and 4 MB of garbage) and loading it costs
// nothing. TestLineFilterSource fails when the source is stale. The
// build tag leaves the stale source out, which may not compile.
//
//go:generate go test -tags prefilter_regen -run ^TestLineFilterSource$ -update-line-filter .

// loadLineFilter returns the prefilter of exprs: the one compiled into
// the program when it is of exprs, and built from exprs otherwise (the
// same filter, built more slowly).
func loadLineFilter(exprs []*expr) *prefilter.Filter {
	patterns := make([]string, len(exprs))
	for i, e := range exprs {
		patterns[i] = e.String()
	}
	if f := prefilter.Compiled(patterns); f != nil {
		return f
	}
	return newLineFilter(exprs)
}
