package eval

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The delta's bootstrap interval: its resamplings, and the seed that
// makes one input give one interval.
const (
	bootstrapResamples = 10000
	bootstrapSeed1     = 0x736b696c6c // "skill"
	bootstrapSeed2     = 0x6576616c   // "eval"
)

// The flags of a case that may tell nothing (CaseResult.Flags).
const (
	flagAlwaysPasses = "always_passes"
	flagAlwaysFails  = "always_fails"
	flagFlaky        = "flaky"
)

// benchmarkOf computes the benchmark of results, one agent's runs (or
// several agents' pooled, for [benchmarkOfAgents]), in the configurations
// WithSkill and baseline (WithoutSkill or OldSkill); runs of another
// configuration are left out. The order of results does not matter: they
// are taken in the order of their case, configuration, agent and run, so
// that one set of runs gives one benchmark to the last bit.
//
// What it computes, beyond the package doc's "Statistics":
//
//   - A run with no graded expectation (Total 0: none, or string ones
//     without a judge) has no pass rate: it is left out of the pass rate
//     mean and stddev, of its case's pass rate, of pass@k, and of the
//     flags. Its time and tokens count.
//   - A run the agent failed counts in the pass rate as graded (failing
//     every expectation), but not in the time and tokens, which measure
//     the failure and not the configuration.
//   - A case's Runs counts every run of a configuration, Passed those
//     whose graded expectations all passed. PassRate has an entry for a
//     configuration with a graded run; Delta is the difference when both
//     have one, and 0 (the case left out of the interval) when not.
//   - DeltaCI95 is the percentile interval (nearest rank: the 250th and
//     the 9,750th of 10,000 sorted means) of the mean over the paired
//     cases of their Delta, resampling the cases with replacement. It is
//     the mean of the per-case deltas, which is not RunSummary's delta
//     when cases have unequal numbers of graded runs. With no paired
//     case it is [0, 0]; with one, or with every case of one delta d, it
//     is [d, d]: resampling cannot tell the noise a single delta hides.
//   - PassAtK[c][k-1] is the mean over the cases with a graded run in c
//     of the unbiased estimator 1 - C(n-c,k)/C(n,k) (n graded runs, c
//     passing), for k from 1 to the fewest graded runs of such a case; a
//     configuration with no graded run has no entry.
//   - Flags: always_passes when every graded run of the case, in every
//     configuration, passed; always_fails when none did; flaky when a
//     configuration has graded runs both passing and failing. A case with
//     no graded run has none.
func benchmarkOf(results []runResult, baseline Config) *Benchmark {
	rs := make([]runResult, 0, len(results))
	for _, r := range results {
		if r.config == WithSkill || r.config == baseline {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b runResult) int {
		return cmp.Or(compareCaseIDs(a.caseID, b.caseID), strings.Compare(string(a.config), string(b.config)),
			strings.Compare(a.agent, b.agent), cmp.Compare(a.run, b.run))
	})

	b := &Benchmark{PassAtK: map[Config][]float64{}, Cases: []CaseResult{}}
	byConfig := map[Config][]runResult{}
	for _, r := range rs {
		byConfig[r.config] = append(byConfig[r.config], r)
		b.NotGraded += r.grading.Summary.NotGraded
		if r.failed {
			b.Failed++
		}
		if r.reused {
			b.Reused++
		}
	}
	with, base := configSummary(byConfig[WithSkill]), configSummary(byConfig[baseline])
	b.RunSummary.WithSkill = with
	if baseline == OldSkill {
		b.RunSummary.OldSkill = base
	} else {
		b.RunSummary.WithoutSkill = base
	}
	b.RunSummary.Delta = Delta{
		TimeSeconds: with.TimeSeconds.Mean - base.TimeSeconds.Mean,
		Tokens:      with.Tokens.Mean - base.Tokens.Mean,
	}
	if with.PassRate != nil && base.PassRate != nil {
		d := with.PassRate.Mean - base.PassRate.Mean
		b.RunSummary.Delta.PassRate = &d
	}

	// The cases, in order; each case's runs of one configuration are
	// consecutive in rs.
	type tally struct{ runs, graded, passed int }
	var deltas []float64
	tallies := map[Config][][2]int{} // per configuration, each case's graded and passed runs
	for start := 0; start < len(rs); {
		end := start
		for end < len(rs) && rs[end].caseID == rs[start].caseID {
			end++
		}
		cr := CaseResult{ID: rs[start].caseID, PassRate: map[Config]float64{}, Runs: map[Config]int{}, Passed: map[Config]int{}}
		var graded, passed int
		flaky := false
		for _, c := range []Config{WithSkill, baseline} {
			var t tally
			var rates []float64
			for _, r := range rs[start:end] {
				if r.config != c {
					continue
				}
				t.runs++
				if s := r.grading.Summary; s.Total > 0 {
					t.graded++
					rates = append(rates, float64(s.Passed)/float64(s.Total))
					if s.Passed == s.Total {
						t.passed++
					}
				}
			}
			cr.Runs[c], cr.Passed[c] = t.runs, t.passed
			if t.graded > 0 {
				cr.PassRate[c] = mean(rates)
				tallies[c] = append(tallies[c], [2]int{t.graded, t.passed})
			}
			graded += t.graded
			passed += t.passed
			flaky = flaky || 0 < t.passed && t.passed < t.graded
		}
		w, okW := cr.PassRate[WithSkill]
		o, okO := cr.PassRate[baseline]
		if okW && okO {
			cr.Delta = w - o
			deltas = append(deltas, cr.Delta)
		}
		switch {
		case graded == 0:
		case passed == graded:
			cr.Flags = append(cr.Flags, flagAlwaysPasses)
		case passed == 0:
			cr.Flags = append(cr.Flags, flagAlwaysFails)
		}
		if flaky {
			cr.Flags = append(cr.Flags, flagFlaky)
		}
		b.Cases = append(b.Cases, cr)
		start = end
	}
	for c, ts := range tallies {
		b.PassAtK[c] = meanPassAtK(ts)
	}
	b.DeltaCI95 = bootstrapCI(deltas)
	return b
}

// benchmarkOfAgents computes the benchmark.json of an iteration run on
// agents: with one agent, that agent's ([benchmarkOf]); with several, every
// listed agent's runs pooled (each case's runs of every agent are that
// case's runs), with Agents and PerAgent giving each agent's own (an
// agent without a run has an empty one). Runs of an agent not listed
// are left out.
func benchmarkOfAgents(agents []string, results []runResult, baseline Config) *Benchmark {
	if len(agents) <= 1 {
		return benchmarkOf(results, baseline)
	}
	perAgent := map[string][]runResult{}
	var listed []runResult
	for _, r := range results {
		if slices.Contains(agents, r.agent) {
			perAgent[r.agent] = append(perAgent[r.agent], r)
			listed = append(listed, r)
		}
	}
	b := benchmarkOf(listed, baseline)
	b.Agents = map[string]RunSummary{}
	b.PerAgent = map[string]*Benchmark{}
	for _, a := range agents {
		per := benchmarkOf(perAgent[a], baseline)
		b.Agents[a] = per.RunSummary
		b.PerAgent[a] = per
	}
	return b
}

// compareCaseIDs orders ids: numbers by their value (then their text),
// before strings in their text's order.
func compareCaseIDs(a, b CaseID) int {
	switch {
	case a.number && b.number:
		x, _ := strconv.ParseFloat(a.text, 64)
		y, _ := strconv.ParseFloat(b.text, 64)
		return cmp.Or(cmp.Compare(x, y), strings.Compare(a.text, b.text))
	case a.number:
		return -1
	case b.number:
		return 1
	}
	return strings.Compare(a.text, b.text)
}

// configSummary is the statistics of one configuration's runs (see
// benchmarkOf for which runs count in which).
func configSummary(rs []runResult) *ConfigSummary {
	var rates, secs, tokens []float64
	for _, r := range rs {
		if s := r.grading.Summary; s.Total > 0 {
			rates = append(rates, float64(s.Passed)/float64(s.Total))
		}
		if !r.failed {
			secs = append(secs, float64(r.timing.DurationMS)/1000)
			tokens = append(tokens, float64(r.timing.TotalTokens))
		}
	}
	cs := &ConfigSummary{TimeSeconds: stat(secs), Tokens: stat(tokens)}
	if len(rates) > 0 {
		st := stat(rates)
		cs.PassRate = &st
	}
	return cs
}

// mean is the mean of xs, 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// stat is the mean and the sample standard deviation of xs (0 for fewer
// than two values).
func stat(xs []float64) Stat {
	s := Stat{Mean: mean(xs)}
	if len(xs) < 2 {
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.Stddev = math.Sqrt(ss / float64(len(xs)-1))
	return s
}

// passAtK is the unbiased estimator of pass@k of a case with n runs, c
// of them passing: 1 - C(n-c,k)/C(n,k), the chance that k runs drawn
// without replacement hold a passing one; computed as a product, which
// neither overflows nor loses the small ratios.
func passAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := range k {
		p *= float64(n-c-i) / float64(n-i)
	}
	return 1 - p
}

// meanPassAtK is pass@k averaged over cases, each given as its graded
// and passing runs, for k from 1 to the fewest graded runs of a case.
func meanPassAtK(cases [][2]int) []float64 {
	if len(cases) == 0 {
		return nil
	}
	kmax := cases[0][0]
	for _, c := range cases {
		kmax = min(kmax, c[0])
	}
	out := make([]float64, kmax)
	for k := 1; k <= kmax; k++ {
		var sum float64
		for _, c := range cases {
			sum += passAtK(c[0], c[1], k)
		}
		out[k-1] = sum / float64(len(cases))
	}
	return out
}

// bootstrapCI is the 95% percentile interval of the mean of deltas, by
// resampling them with replacement (see benchmarkOf).
func bootstrapCI(deltas []float64) [2]float64 {
	if len(deltas) == 0 {
		return [2]float64{}
	}
	// Sorted, the resampling does not depend on the cases' order.
	d := slices.Sorted(slices.Values(deltas))
	lo, hi := d[0], d[len(d)-1]
	if lo == hi {
		return [2]float64{lo, hi}
	}
	rng := rand.New(rand.NewPCG(bootstrapSeed1, bootstrapSeed2))
	means := make([]float64, bootstrapResamples)
	for i := range means {
		var sum float64
		for range d {
			sum += d[rng.IntN(len(d))]
		}
		means[i] = sum / float64(len(d))
	}
	slices.Sort(means)
	l := means[bootstrapResamples*25/1000-1]
	h := means[bootstrapResamples*975/1000-1]
	// A mean lies between the least and the greatest value; rounding
	// must not put it outside.
	return [2]float64{min(max(l, lo), hi), min(max(h, lo), hi)}
}
