package audit

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The caps on what one audit keeps, as the package doc's "Limits" says.
const (
	maxPerRule  = 100  // findings kept of one rule
	maxFindings = 1000 // findings kept in all, each rule's first aside
	maxMessage  = 200  // characters of a finding's message
)

// Omitted counts, by rule ID, the findings an audit found past its caps
// (see "Limits" in the package doc): each was found and counted, and none
// is in the report's Findings. In a report of [Tree] a rule counted here
// always has findings kept too, so the kept findings hold every rule that
// fired; a report cut by [Report.Trim] may count rules it lists none of.
type Omitted map[string]int

// Total returns how many findings were omitted, of every rule.
func (o Omitted) Total() int {
	n := 0
	for _, c := range o {
		n += c
	}
	return n
}

// String says what was omitted, for a person, as "and 31,204 more
// (bidi-control 31,000, zero-width 204)", rules sorted by ID; "" when
// nothing was.
func (o Omitted) String() string {
	total := o.Total()
	if total == 0 {
		return ""
	}
	var parts []string
	for _, rule := range slices.Sorted(maps.Keys(o)) {
		if o[rule] > 0 {
			parts = append(parts, rule+" "+thousands(o[rule]))
		}
	}
	return fmt.Sprintf("and %s more (%s)", thousands(total), strings.Join(parts, ", "))
}

// thousands writes n (not negative) with a comma between groups of
// three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Filter returns the report with the findings keep keeps, and the
// omitted counts of each rule whose findings keep keeps, asked of a
// finding of that rule with its severity and no file or line: a verdict
// that depends on a finding's rule and severity alone (a threshold, an
// accepted rule) applies to what was counted as to what was kept.
func (r Report) Filter(keep func(Finding) bool) Report {
	out := r
	out.Findings, out.Omitted = nil, nil
	for _, f := range r.Findings {
		if keep(f) {
			out.Findings = append(out.Findings, f)
		}
	}
	for rule, n := range r.Omitted {
		rl, _ := LookupRule(rule)
		if n > 0 && keep(Finding{Rule: rule, Severity: rl.Severity}) {
			if out.Omitted == nil {
				out.Omitted = Omitted{}
			}
			out.Omitted[rule] = n
		}
	}
	return out
}

// keeper keeps an audit's findings within the caps and counts the rest.
// It is the one place the caps apply: a scan reports every match to
// admit, which decides, and keeps what it admits, so that memory stays
// bounded however many matches a tree holds.
type keeper struct {
	// perFile keeps a file's findings for a [Scanner], which merges the
	// files' findings under both caps: only maxPerRule applies here.
	perFile bool
	kept    []Finding
	// counts counts the findings of each rule by the rule's index
	// (ruleIndex), made on the first finding: a dense text finds a rule
	// tens of thousands of times, and a tree of many files has a keeper
	// a file.
	counts *ruleCounts
	// The file and line of the last finding, and the rules found there:
	// a rule reports a line once. The matches of one line (of each of its
	// pieces) come one after another.
	file   string
	line   int
	onLine []string
}

// admit reports whether a finding of rule at line of file is kept, and
// counts it as omitted past the caps when it is not. A second finding of
// the same rule on the same line is neither kept nor counted.
func (k *keeper) admit(rule, file string, line int) bool {
	if file != k.file || line != k.line {
		k.file, k.line, k.onLine = file, line, k.onLine[:0]
	} else if slices.Contains(k.onLine, rule) {
		return false
	}
	k.onLine = append(k.onLine, rule)
	return k.capped(rule)
}

// capped counts a finding of rule, and reports whether it is kept within
// the caps; a finding past them is counted as omitted.
func (k *keeper) capped(rule string) bool {
	if k.counts == nil {
		k.counts = &ruleCounts{}
	}
	r := ruleIndex(rule)
	n := k.counts.perRule[r]
	k.counts.perRule[r] = n + 1
	if n >= maxPerRule || !k.perFile && n > 0 && len(k.kept) >= maxFindings {
		k.counts.omitted[r]++
		return false
	}
	return true
}

// ruleCounts are a keeper's counts of findings by rule: of each rule
// kept or not (perRule), and past the caps (omitted).
type ruleCounts struct {
	perRule, omitted [numRules]int
}

// omit counts as omitted the findings another keeper omitted.
func (k *keeper) omit(o Omitted) {
	if len(o) == 0 {
		return
	}
	if k.counts == nil {
		k.counts = &ruleCounts{}
	}
	for rule, n := range o {
		k.counts.omitted[ruleIndex(rule)] += n
	}
}

// omitFrom counts as omitted the findings keeper o omitted.
func (k *keeper) omitFrom(o *keeper) {
	if o.counts == nil {
		return
	}
	if k.counts == nil {
		k.counts = &ruleCounts{}
	}
	for r, n := range o.counts.omitted {
		k.counts.omitted[r] += n
	}
}

// omittedCounts returns the findings omitted, by rule; nil when none
// was.
func (k *keeper) omittedCounts() Omitted {
	var o Omitted
	if k.counts == nil {
		return o
	}
	for r, n := range k.counts.omitted {
		if n > 0 {
			if o == nil {
				o = Omitted{}
			}
			o[ruleIDs[r]] = n
		}
	}
	return o
}

// keep keeps f, which admit admitted, its message and excerpt bounded.
func (k *keeper) keep(f Finding) {
	f.Message = truncate(f.Message, maxMessage)
	f.Excerpt = truncate(f.Excerpt, maxExcerpt)
	k.kept = append(k.kept, f)
}

// Trim returns r with at most its first n findings (at least one when r
// has any, so that a report still shows what it is about), the others
// counted in Omitted with those it counted already. A program that holds
// the reports of many skills (a source of thousands) bounds them all so.
func (r Report) Trim(n int) Report {
	n = max(n, 1)
	if len(r.Findings) <= n {
		return r
	}
	out := r
	out.Findings = slices.Clone(r.Findings[:n])
	out.Omitted = maps.Clone(r.Omitted)
	if out.Omitted == nil {
		out.Omitted = Omitted{}
	}
	for _, f := range r.Findings[n:] {
		out.Omitted[f.Rule]++
	}
	return out
}
