package eval

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// run builds a runResult of agent "a" graded passed of total.
func run(id CaseID, c Config, n, passed, total int, ms, tokens int64) runResult {
	return runResult{
		agent: "a", caseID: id, config: c, run: n,
		grading: Grading{Summary: GradingSummary{Passed: passed, Failed: total - passed, Total: total}},
		timing:  Timing{DurationMS: ms, TotalTokens: tokens},
	}
}

var (
	id1 = CaseID{text: "1", number: true}
	id2 = CaseID{text: "2", number: true}
	idB = CaseID{text: "b"}
)

// handResults are the runs whose statistics the tests compute by hand:
//
//	case 1: with_skill 2/2 2/2 1/2 (flaky), without_skill 0/2 1/2 0/2
//	case 2: every run 0/1 (always fails), with_skill's third failed by the agent
//	case b: every run 3/3 (always passes), without_skill's fourth not graded
//
// with_skill's runs take 1, 2, 3 seconds by case and 100 tokens a
// second; without_skill's 0.5 seconds and 50 tokens.
func handResults() []runResult {
	var rs []runResult
	for i, pt := range [][2]int{{2, 2}, {2, 2}, {1, 2}} {
		rs = append(rs, run(id1, WithSkill, i+1, pt[0], pt[1], int64(i+1)*1000, int64(i+1)*100))
	}
	for i, p := range []int{0, 1, 0} {
		rs = append(rs, run(id1, WithoutSkill, i+1, p, 2, 500, 50))
	}
	rs = append(rs, run(id2, WithSkill, 1, 0, 1, 1000, 100), run(id2, WithSkill, 2, 0, 1, 2000, 200))
	failed := run(id2, WithSkill, 3, 0, 1, 99999, 99999)
	failed.failed = true
	rs = append(rs, failed)
	for i := range 3 {
		rs = append(rs, run(id2, WithoutSkill, i+1, 0, 1, 500, 50))
		rs = append(rs, run(idB, WithSkill, i+1, 3, 3, int64(i+1)*1000, int64(i+1)*100))
		rs = append(rs, run(idB, WithoutSkill, i+1, 3, 3, 500, 50))
	}
	ungraded := run(idB, WithoutSkill, 4, 0, 0, 500, 50)
	ungraded.grading.Summary.NotGraded = 3
	rs = append(rs, ungraded)
	rs[0].grading.Summary.NotGraded = 2
	rs[1].reused, rs[4].reused = true, true
	// A run of a configuration not asked for is left out.
	rs = append(rs, run(id1, OldSkill, 1, 0, 2, 10, 10))
	return rs
}

const tolerance = 1e-12

var approx = cmpopts.EquateApprox(0, tolerance)

func TestBenchmarkOfByHand(t *testing.T) {
	got := benchmarkOf(handResults(), WithoutSkill)
	// Pass rates, with: 1 1 .5 | 0 0 0 | 1 1 1, mean 11/18; without:
	// 0 .5 0 | 0 0 0 | 1 1 1, mean 7/18; both have the sum of squared
	// deviations 612/324, so the stddev sqrt(612/324/8).
	prStddev := math.Sqrt(612.0 / 324 / 8)
	// Seconds, with (the failed run left out): 1 2 3 1 2 1 2 3, mean
	// 15/8, squared deviations 4.875.
	secStddev := math.Sqrt(4.875 / 7)
	want := &Benchmark{
		RunSummary: RunSummary{
			WithSkill: &ConfigSummary{
				PassRate:    &Stat{11.0 / 18, prStddev},
				TimeSeconds: Stat{15.0 / 8, secStddev},
				Tokens:      Stat{1500.0 / 8, 100 * secStddev},
			},
			WithoutSkill: &ConfigSummary{
				PassRate:    &Stat{7.0 / 18, prStddev},
				TimeSeconds: Stat{0.5, 0},
				Tokens:      Stat{50, 0},
			},
			Delta: Delta{PassRate: ptr(4.0 / 18), TimeSeconds: 15.0/8 - 0.5, Tokens: 1500.0/8 - 50},
		},
		// Deltas 2/3, 0, 0: a resampled mean is 0 with chance 8/27 and
		// 2/3 with chance 1/27, both beyond 2.5%.
		DeltaCI95: [2]float64{0, 2.0 / 3},
		PassAtK: map[Config][]float64{
			// Cases (n, c): with (3,2) (3,0) (3,3); without (3,0) (3,0) (3,3).
			WithSkill:    {(2.0/3 + 0 + 1) / 3, 2.0 / 3, 2.0 / 3},
			WithoutSkill: {1.0 / 3, 1.0 / 3, 1.0 / 3},
		},
		Cases: []CaseResult{
			{ID: id1, PassRate: map[Config]float64{WithSkill: 2.5 / 3, WithoutSkill: 0.5 / 3}, Delta: 2.0 / 3,
				Runs: map[Config]int{WithSkill: 3, WithoutSkill: 3}, Passed: map[Config]int{WithSkill: 2, WithoutSkill: 0}, Flags: []string{"flaky"}},
			{ID: id2, PassRate: map[Config]float64{WithSkill: 0, WithoutSkill: 0}, Delta: 0,
				Runs: map[Config]int{WithSkill: 3, WithoutSkill: 3}, Passed: map[Config]int{WithSkill: 0, WithoutSkill: 0}, Flags: []string{"always_fails"}},
			{ID: idB, PassRate: map[Config]float64{WithSkill: 1, WithoutSkill: 1}, Delta: 0,
				Runs: map[Config]int{WithSkill: 3, WithoutSkill: 4}, Passed: map[Config]int{WithSkill: 3, WithoutSkill: 3}, Flags: []string{"always_passes"}},
		},
		NotGraded: 5,
		Failed:    1,
		Reused:    2,
	}
	if diff := cmp.Diff(want, got, approx, cmp.AllowUnexported(CaseID{})); diff != "" {
		t.Errorf("benchmarkOf(hand-computed runs) mismatch (-want +got):\n%s", diff)
	}

	// The order of the runs changes nothing, to the last bit.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		rs := handResults()
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		if diff := cmp.Diff(got, benchmarkOf(rs, WithoutSkill), cmp.AllowUnexported(CaseID{})); diff != "" {
			t.Fatalf("benchmarkOf(shuffled runs) differs (-first +shuffled):\n%s", diff)
		}
	}
}

func TestBenchmarkOfOldSkill(t *testing.T) {
	rs := []runResult{run(id1, WithSkill, 1, 1, 1, 1000, 10), run(id1, OldSkill, 1, 0, 1, 3000, 30), run(id1, WithoutSkill, 1, 1, 1, 0, 0)}
	got := benchmarkOf(rs, OldSkill)
	if got.RunSummary.WithoutSkill != nil || got.RunSummary.OldSkill == nil {
		t.Fatalf("benchmarkOf(old_skill) = %+v, want old_skill and no without_skill", got.RunSummary)
	}
	want := Delta{PassRate: ptr(1.0), TimeSeconds: -2, Tokens: -20}
	if diff := cmp.Diff(want, got.RunSummary.Delta); diff != "" {
		t.Errorf("benchmarkOf(old_skill).Delta = %+v, want %+v", got.RunSummary.Delta, want)
	}
	if c := got.Cases[0]; c.Delta != 1 || c.Runs[OldSkill] != 1 || c.Flags != nil {
		t.Errorf("benchmarkOf(old_skill).Cases[0] = %+v, want delta 1, one old_skill run, no flag", c)
	}
}

func TestBenchmarkOfEmptyAndUngraded(t *testing.T) {
	b := benchmarkOf(nil, WithoutSkill)
	zero := &ConfigSummary{}
	if diff := cmp.Diff(&Benchmark{RunSummary: RunSummary{WithSkill: zero, WithoutSkill: zero}, PassAtK: map[Config][]float64{}, Cases: []CaseResult{}}, b); diff != "" {
		t.Errorf("benchmarkOf(nil) mismatch (-want +got):\n%s", diff)
	}
	if _, err := json.Marshal(b); err != nil {
		t.Errorf("Marshal(benchmarkOf(nil)) = %v", err)
	}

	// A case whose runs grade nothing (no judge, string expectations) has
	// no pass rate, no delta, no flag, and is not in the interval; the
	// graded case is the interval alone.
	rs := []runResult{
		run(id1, WithSkill, 1, 0, 0, 1000, 1), run(id1, WithoutSkill, 1, 0, 0, 1000, 1),
		run(id2, WithSkill, 1, 1, 2, 1000, 1), run(id2, WithoutSkill, 1, 0, 2, 1000, 1),
		run(idB, WithSkill, 1, 1, 1, 1000, 1), // no baseline run yet
	}
	b = benchmarkOf(rs, WithoutSkill)
	c := b.Cases[0]
	if len(c.PassRate) != 0 || c.Delta != 0 || c.Flags != nil || c.Runs[WithSkill] != 1 {
		t.Errorf("an ungraded case = %+v, want runs counted, no pass rate, delta or flag", c)
	}
	if b.DeltaCI95 != [2]float64{0.5, 0.5} {
		t.Errorf("DeltaCI95 = %v, want [0.5 0.5], the one paired case's", b.DeltaCI95)
	}
	if got := b.RunSummary.WithSkill.PassRate; got.Mean != 0.75 {
		t.Errorf("with_skill pass rate = %+v, want mean 0.75 over the two graded runs", got)
	}
	if got := b.Cases[2]; got.Delta != 0 || len(got.PassRate) != 1 || got.Flags[0] != "always_passes" {
		t.Errorf("a case without a baseline run = %+v, want its pass rate alone, delta 0", got)
	}
	if got := b.PassAtK[WithSkill]; !cmp.Equal(got, []float64{(0.0 + 1) / 2}) {
		t.Errorf("pass@k = %v, want [0.5]", got)
	}
}

func TestStat(t *testing.T) {
	tests := []struct {
		xs   []float64
		want Stat
	}{
		{nil, Stat{}},
		{[]float64{3}, Stat{3, 0}},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, Stat{5, math.Sqrt(32.0 / 7)}},
		{[]float64{1, 1, 1}, Stat{1, 0}},
		{[]float64{0, 1}, Stat{0.5, math.Sqrt(0.5)}},
	}
	for _, tt := range tests {
		if got := stat(tt.xs); !cmp.Equal(got, tt.want, approx) {
			t.Errorf("stat(%v) = %+v, want %+v", tt.xs, got, tt.want)
		}
	}
}

func TestPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{5, 2, 1, 0.4},
		{5, 2, 2, 1 - 3.0/10}, // 1 - C(3,2)/C(5,2)
		{5, 2, 3, 1 - 1.0/10}, // 1 - C(3,3)/C(5,3)
		{5, 2, 4, 1},
		{5, 0, 3, 0},
		{5, 5, 1, 1},
		{10, 3, 5, 1 - 21.0/252}, // 1 - C(7,5)/C(10,5)
	}
	for _, tt := range tests {
		if got := passAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > tolerance {
			t.Errorf("passAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
	// Against the definition: the share of the k-subsets of n runs that
	// hold a passing run, counted.
	for n := 1; n <= 8; n++ {
		for c := 0; c <= n; c++ {
			prev := 0.0
			for k := 1; k <= n; k++ {
				subsets, hit := 0, 0
				for mask := 0; mask < 1<<n; mask++ {
					if bitCount(mask) != k {
						continue
					}
					subsets++
					if mask&(1<<c-1) != 0 { // runs 0..c-1 pass
						hit++
					}
				}
				want := float64(hit) / float64(subsets)
				got := passAtK(n, c, k)
				if math.Abs(got-want) > tolerance {
					t.Errorf("passAtK(%d, %d, %d) = %v, want %v by counting", n, c, k, got, want)
				}
				if got < prev-tolerance {
					t.Errorf("passAtK(%d, %d, %d) = %v, below pass@%d = %v", n, c, k, got, k-1, prev)
				}
				prev = got
			}
			if got, want := passAtK(n, c, 1), float64(c)/float64(n); math.Abs(got-want) > tolerance {
				t.Errorf("passAtK(%d, %d, 1) = %v, want c/n = %v", n, c, got, want)
			}
		}
	}
	// No overflow where the binomials would: 1 - C(150,100)/C(200,100).
	num := new(big.Rat).SetFrac(new(big.Int).Binomial(150, 100), new(big.Int).Binomial(200, 100))
	r, _ := num.Float64()
	if got := passAtK(200, 50, 100); math.Abs(got-(1-r)) > 1e-9 {
		t.Errorf("passAtK(200, 50, 100) = %v, want %v", got, 1-r)
	}
}

func bitCount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestMeanPassAtK(t *testing.T) {
	got := meanPassAtK([][2]int{{2, 1}, {4, 0}, {3, 3}})
	want := []float64{(0.5 + 0 + 1) / 3, (1 + 0 + 1) / 3.0} // k up to 2, the fewest runs
	if !cmp.Equal(got, want, approx) {
		t.Errorf("meanPassAtK = %v, want %v", got, want)
	}
	if got := meanPassAtK(nil); got != nil {
		t.Errorf("meanPassAtK(nil) = %v, want nil", got)
	}
}

func TestBootstrapCI(t *testing.T) {
	if got := bootstrapCI(nil); got != [2]float64{} {
		t.Errorf("bootstrapCI(none) = %v, want [0 0]", got)
	}
	if got := bootstrapCI([]float64{-0.25}); got != [2]float64{-0.25, -0.25} {
		t.Errorf("bootstrapCI(one case) = %v, want [d d]", got)
	}
	// One delta for every case: exactly [d, d], though the mean of seven
	// 0.1s is not 0.1 in floating point.
	if got := bootstrapCI(slices.Repeat([]float64{0.1}, 7)); got != [2]float64{0.1, 0.1} {
		t.Errorf("bootstrapCI(seven cases of 0.1) = %v, want [0.1 0.1]", got)
	}

	// Half the cases 0, half 1: the resampled mean is about normal, of
	// mean 0.5 and deviation sqrt(0.25/100) = 0.05, so the interval is
	// about 0.5 ± 1.96 × 0.05, [0.402, 0.598].
	half := append(slices.Repeat([]float64{0}, 50), slices.Repeat([]float64{1}, 50)...)
	got := bootstrapCI(half)
	if math.Abs(got[0]-0.402) > 0.015 || math.Abs(got[1]-0.598) > 0.015 {
		t.Errorf("bootstrapCI(50 zeros, 50 ones) = %v, want about [0.402 0.598]", got)
	}

	// A clear effect: the interval holds the true delta and not 0.
	var clear []float64
	for i := range 20 {
		clear = append(clear, 0.5+float64(i%5-2)*0.1)
	}
	if got := bootstrapCI(clear); !(got[0] <= 0.5 && 0.5 <= got[1] && got[0] > 0) {
		t.Errorf("bootstrapCI(deltas about 0.5) = %v, want it to hold 0.5 and not 0", got)
	}

	// One input, one interval, whatever the cases' order; and always
	// within the least and the greatest delta.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		n := 1 + rng.IntN(12)
		ds := make([]float64, n)
		for i := range ds {
			ds[i] = float64(rng.IntN(11)-5) / 5
		}
		first := bootstrapCI(ds)
		shuffled := slices.Clone(ds)
		rng.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if again := bootstrapCI(shuffled); again != first {
			t.Fatalf("bootstrapCI(%v) = %v, but %v shuffled", ds, first, again)
		}
		if first[0] > first[1] || first[0] < slices.Min(ds) || first[1] > slices.Max(ds) {
			t.Fatalf("bootstrapCI(%v) = %v, want lo ≤ hi within [min, max]", ds, first)
		}
	}
}

// guideBenchmark is the guide's benchmark.json ("Aggregating results").
const guideBenchmark = `{
  "run_summary": {
    "with_skill": {
      "pass_rate": { "mean": 0.83, "stddev": 0.06 },
      "time_seconds": { "mean": 45.0, "stddev": 12.0 },
      "tokens": { "mean": 3800, "stddev": 400 }
    },
    "without_skill": {
      "pass_rate": { "mean": 0.33, "stddev": 0.10 },
      "time_seconds": { "mean": 32.0, "stddev": 8.0 },
      "tokens": { "mean": 2100, "stddev": 300 }
    },
    "delta": {
      "pass_rate": 0.50,
      "time_seconds": 13.0,
      "tokens": 1700
    }
  }
}`

func TestBenchmarkJSON(t *testing.T) {
	// The guide's file reads into a Benchmark, every field known.
	dec := json.NewDecoder(bytes.NewReader([]byte(guideBenchmark)))
	dec.DisallowUnknownFields()
	var b Benchmark
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("decoding the guide's benchmark.json = %v", err)
	}
	want := RunSummary{
		WithSkill:    &ConfigSummary{PassRate: &Stat{0.83, 0.06}, TimeSeconds: Stat{45, 12}, Tokens: Stat{3800, 400}},
		WithoutSkill: &ConfigSummary{PassRate: &Stat{0.33, 0.10}, TimeSeconds: Stat{32, 8}, Tokens: Stat{2100, 300}},
		Delta:        Delta{PassRate: ptr(0.5), TimeSeconds: 13, Tokens: 1700},
	}
	if diff := cmp.Diff(want, b.RunSummary); diff != "" {
		t.Errorf("the guide's benchmark.json mismatch (-want +got):\n%s", diff)
	}

	// What benchmarkOf writes has the guide's shape, with its values.
	got := benchmarkOf(handResults(), WithoutSkill)
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	lookup := func(path ...string) any {
		var v any = m
		for _, p := range path {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = obj[p]
		}
		return v
	}
	for _, c := range []string{"with_skill", "without_skill"} {
		for _, f := range []string{"pass_rate", "time_seconds", "tokens"} {
			for _, s := range []string{"mean", "stddev"} {
				if _, ok := lookup("run_summary", c, f, s).(float64); !ok {
					t.Errorf("benchmark.json has no number at run_summary.%s.%s.%s: %s", c, f, s, out)
				}
			}
		}
	}
	for _, f := range []string{"pass_rate", "time_seconds", "tokens"} {
		if _, ok := lookup("run_summary", "delta", f).(float64); !ok {
			t.Errorf("benchmark.json has no number at run_summary.delta.%s: %s", f, out)
		}
	}
	if v := lookup("run_summary", "with_skill", "pass_rate", "mean"); v != 11.0/18 {
		t.Errorf("run_summary.with_skill.pass_rate.mean = %v, want %v", v, 11.0/18)
	}
	if v := lookup("run_summary", "old_skill"); v != nil {
		t.Errorf("run_summary.old_skill = %v, want none with the without_skill baseline", v)
	}
	for _, k := range []string{"delta_ci95", "pass_at_k", "cases", "not_graded", "failed_runs", "reused_runs"} {
		if _, ok := m[k]; !ok {
			t.Errorf("benchmark.json has no %s: %s", k, out)
		}
	}
	cases, _ := m["cases"].([]any)
	if len(cases) != 3 {
		t.Fatalf("benchmark.json cases = %v, want 3", m["cases"])
	}
	if id := cases[0].(map[string]any)["id"]; id != 1.0 {
		t.Errorf("cases[0].id = %#v, want the number 1", id)
	}
	if id := cases[2].(map[string]any)["id"]; id != "b" {
		t.Errorf("cases[2].id = %#v, want the string b", id)
	}
	if v := lookup("pass_at_k", "with_skill"); len(v.([]any)) != 3 {
		t.Errorf("pass_at_k.with_skill = %v, want 3 values", v)
	}

	// And it reads back as it was.
	var back Benchmark
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("Unmarshal(benchmark.json) = %v", err)
	}
	if diff := cmp.Diff(got, &back, cmp.AllowUnexported(CaseID{})); diff != "" {
		t.Errorf("benchmark.json read back mismatch (-written +read):\n%s", diff)
	}
}

func TestBenchmarkOfAgents(t *testing.T) {
	a := handResults()
	var other []runResult
	for _, r := range handResults() {
		r.agent = "b"
		r.grading.Summary.Passed = r.grading.Summary.Total // every run passes
		other = append(other, r)
	}
	stray := run(id1, WithSkill, 9, 0, 1, 1000, 1)
	stray.agent = "not-asked"
	all := append(append(slices.Clone(a), other...), stray)

	got := benchmarkOfAgents([]string{"a", "b", "idle"}, all, WithoutSkill)
	pooled := benchmarkOf(append(slices.Clone(a), other...), WithoutSkill)
	if diff := cmp.Diff(pooled.RunSummary, got.RunSummary); diff != "" {
		t.Errorf("the pooled run_summary mismatch (-want +got):\n%s", diff)
	}
	if len(got.Cases) != 3 || got.Cases[0].Runs[WithSkill] != 6 {
		t.Errorf("pooled cases = %+v, want 3, each with both agents' runs", got.Cases)
	}
	opts := []cmp.Option{cmp.AllowUnexported(CaseID{})}
	if diff := cmp.Diff(benchmarkOf(a, WithoutSkill), got.PerAgent["a"], opts...); diff != "" {
		t.Errorf("PerAgent[a] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(benchmarkOf(other, WithoutSkill).RunSummary, got.Agents["b"], opts...); diff != "" {
		t.Errorf("Agents[b] mismatch (-want +got):\n%s", diff)
	}
	if got.Agents["b"].WithSkill.PassRate.Mean != 1 {
		t.Errorf("Agents[b] with_skill pass rate = %v, want 1", got.Agents["b"].WithSkill.PassRate)
	}
	if s, ok := got.Agents["idle"]; !ok || s.WithSkill == nil || *s.WithSkill != (ConfigSummary{}) {
		t.Errorf("Agents[idle] = %+v, %v, want an empty summary", s, ok)
	}
	if _, ok := got.Agents["not-asked"]; ok || len(got.Agents) != 3 {
		t.Errorf("Agents = %v, want a, b and idle", slices.Collect(maps.Keys(got.Agents)))
	}

	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Agents map[string]map[string]json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("agents of benchmark.json = %v: %s", err, out)
	}
	var withB map[string]map[string]float64
	if err := json.Unmarshal(m.Agents["b"]["with_skill"], &withB); err != nil || withB["pass_rate"]["mean"] != 1 {
		t.Errorf("agents.b.with_skill = %s, %v, want pass_rate.mean 1", m.Agents["b"]["with_skill"], err)
	}
	if _, ok := m.Agents["b"]["delta"]; !ok {
		t.Errorf("agents.b has no delta: %s", out)
	}

	// One agent: its own benchmark, without agents.
	one := benchmarkOfAgents([]string{"a"}, a, WithoutSkill)
	if one.Agents != nil || one.PerAgent != nil {
		t.Errorf("benchmarkOfAgents(one agent) has Agents %v, PerAgent %v; want none", one.Agents, one.PerAgent)
	}
	if diff := cmp.Diff(benchmarkOf(a, WithoutSkill), one, opts...); diff != "" {
		t.Errorf("benchmarkOfAgents(one agent) mismatch (-want +got):\n%s", diff)
	}
}

// TestBenchmarkOfProperties checks, on random sets of runs, what holds
// of every benchmark: rates within [0, 1], deltas the differences of
// their means, pass@k rising with k, the interval within the cases'
// deltas, flags that do not contradict each other, and JSON that encodes.
func TestBenchmarkOfProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ids := []CaseID{id1, id2, idB, {text: "10", number: true}, {text: "a"}}
	for iter := range 200 {
		baseline := []Config{WithoutSkill, OldSkill}[rng.IntN(2)]
		var rs []runResult
		for _, id := range ids[:1+rng.IntN(len(ids))] {
			for _, c := range []Config{WithSkill, baseline} {
				for k := range rng.IntN(5) {
					total := rng.IntN(4)
					r := run(id, c, k+1, rng.IntN(total+1), total, rng.Int64N(100000), rng.Int64N(10000))
					r.failed, r.reused = rng.IntN(5) == 0, rng.IntN(3) == 0
					rs = append(rs, r)
				}
			}
		}
		b := benchmarkOf(rs, baseline)
		base := b.RunSummary.WithoutSkill
		if baseline == OldSkill {
			base = b.RunSummary.OldSkill
		}
		with := b.RunSummary.WithSkill
		if with == nil || base == nil {
			t.Fatalf("#%d: run_summary %+v lacks a configuration", iter, b.RunSummary)
		}
		for _, s := range []*ConfigSummary{with, base} {
			if s.PassRate != nil && (s.PassRate.Mean < 0 || s.PassRate.Mean > 1 || s.PassRate.Stddev < 0) || s.TimeSeconds.Stddev < 0 || s.Tokens.Stddev < 0 {
				t.Fatalf("#%d: summary %+v out of range", iter, s)
			}
		}
		// A pass rate exactly when a run of the configuration is graded.
		graded := map[Config]bool{}
		for _, r := range rs {
			if r.grading.Summary.Total > 0 {
				graded[r.config] = true
			}
		}
		if (with.PassRate != nil) != graded[WithSkill] || (base.PassRate != nil) != graded[baseline] {
			t.Fatalf("#%d: pass rates %v %v, graded runs %v", iter, with.PassRate, base.PassRate, graded)
		}
		d := b.RunSummary.Delta
		if (d.PassRate != nil) != (with.PassRate != nil && base.PassRate != nil) || d.Tokens != with.Tokens.Mean-base.Tokens.Mean {
			t.Fatalf("#%d: delta %+v is not the means' difference", iter, d)
		}
		if d.PassRate != nil && *d.PassRate != with.PassRate.Mean-base.PassRate.Mean {
			t.Fatalf("#%d: delta %v is not the pass rates' difference", iter, *d.PassRate)
		}
		var deltas []float64
		for _, c := range b.Cases {
			w, okW := c.PassRate[WithSkill]
			o, okO := c.PassRate[baseline]
			if okW && okO {
				deltas = append(deltas, c.Delta)
				if c.Delta != w-o {
					t.Fatalf("#%d: case %s delta %v, want %v", iter, c.ID, c.Delta, w-o)
				}
			} else if c.Delta != 0 {
				t.Fatalf("#%d: case %s unpaired with delta %v", iter, c.ID, c.Delta)
			}
			if slices.Contains(c.Flags, "always_passes") && slices.Contains(c.Flags, "always_fails") ||
				slices.Contains(c.Flags, "flaky") && (slices.Contains(c.Flags, "always_passes") || slices.Contains(c.Flags, "always_fails")) {
				t.Fatalf("#%d: case %s flags %v contradict each other", iter, c.ID, c.Flags)
			}
			for cfg, p := range c.Passed {
				if p > c.Runs[cfg] {
					t.Fatalf("#%d: case %s passed %d of %d runs", iter, c.ID, p, c.Runs[cfg])
				}
			}
		}
		if len(deltas) == 0 && b.DeltaCI95 != [2]float64{} ||
			len(deltas) > 0 && (b.DeltaCI95[0] > b.DeltaCI95[1] || b.DeltaCI95[0] < slices.Min(deltas) || b.DeltaCI95[1] > slices.Max(deltas)) {
			t.Fatalf("#%d: interval %v outside the deltas %v", iter, b.DeltaCI95, deltas)
		}
		for cfg, ps := range b.PassAtK {
			for k, p := range ps {
				if p < 0 || p > 1 || k > 0 && p < ps[k-1]-tolerance {
					t.Fatalf("#%d: pass@k of %s = %v, not rising within [0, 1]", iter, cfg, ps)
				}
			}
		}
		if _, err := json.Marshal(b); err != nil {
			t.Fatalf("#%d: Marshal(benchmark) = %v", iter, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
