package eval

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// variedAgent is an agent whose runs differ: every third fails, every
// other one writes the answer, and the tokens grow with each run.
func variedAgent() *drivertest.Driver {
	var n atomic.Int64
	return &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		k := n.Add(1)
		if k%3 == 0 {
			return nil, errors.New("model overloaded")
		}
		if k%2 == 0 {
			os.WriteFile(filepath.Join(req.Workspace, "answer.txt"), []byte("42\n"), 0o644)
		}
		return &driver.Result{Text: "done", Usage: &driver.Usage{InputTokens: 10 * k, OutputTokens: k}}, nil
	}}
}

// benchmarkFiles reads the benchmarks of the iteration dir, by their
// place in it.
func benchmarkFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range tree(t, dir) {
		if strings.HasSuffix(name, "benchmark.json") {
			out[name] = readString(t, filepath.Join(dir, filepath.FromSlash(name)))
		}
	}
	return out
}

// TestCollectEqualsRun checks rule 6 of "Collecting units": Collect
// over a Run's run folders, benchmark.json removed, writes the bytes Run
// wrote, in each shape of iteration.
func TestCollectEqualsRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		agents   int
		runs     int
		baseline bool
		string   bool // a string expectation, left ungraded
	}{
		{"one agent", 1, 1, false, false},
		{"runs", 1, 3, false, true},
		{"agents and runs", 2, 2, false, false},
		{"old skill", 2, 1, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.string {
				suite := strings.Replace(testSuite, `"expectations": [{"text": "answered"`, `"expectations": ["polite", {"text": "answered"`, 1)
				if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var ds []*drivertest.Driver
			for range tt.agents {
				ds = append(ds, variedAgent())
			}
			req := f.request(ds...)
			req.Runs = tt.runs
			if tt.baseline {
				old := writeSkill(t, t.TempDir(), "Answer without writing.")
				req.Baseline = skill.Dir(old)
			}
			bench, err := f.evaluator().Run(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if bench.Failed == 0 {
				t.Fatal("no run failed: the test covers failed runs")
			}
			iter := filepath.Join(f.out, "iteration-1")
			want := benchmarkFiles(t, iter)
			if len(want) != map[bool]int{false: 1, true: 1 + tt.agents}[tt.agents > 1] {
				t.Fatalf("Run wrote %d benchmarks", len(want))
			}
			for name := range want {
				if err := os.Remove(filepath.Join(iter, filepath.FromSlash(name))); err != nil {
					t.Fatal(err)
				}
			}
			cols, err := Collect(f.out)
			if err != nil {
				t.Fatalf("Collect = %v", err)
			}
			if got := benchmarkFiles(t, iter); !reflect.DeepEqual(got, want) {
				t.Errorf("Collect wrote\n%v\nRun wrote\n%v", got, want)
			}
			if len(cols) != 1 || cols[0].Iteration != iter || cols[0].Units != len(ds)*2*2*max(tt.runs, 1) ||
				!reflect.DeepEqual(cols[0].Benchmark, bench) || len(cols[0].Agents) != tt.agents {
				t.Errorf("Collect = %+v, want the iteration and Run's benchmark %+v", cols, bench)
			}
			// The iteration itself, as DIR, is collected alike.
			if cols, err := Collect(iter); err != nil || len(cols) != 1 || !reflect.DeepEqual(cols[0].Benchmark, bench) {
				t.Errorf("Collect(the iteration) = %+v, %v", cols, err)
			}
		})
	}
}

// TestCollectUnits checks Collect over the folders of units made
// concurrently: the benchmark counts every unit, with the pass rates and
// tokens a Run gives (the time differs, measured).
func TestCollectUnits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d, d)
	req.Runs = 2
	us, err := Units(mustSuite(t, f.skillDir), req)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, len(us))
	for i := range us {
		go func() {
			_, err := f.evaluator().RunUnit(t.Context(), req, i)
			errs <- err
		}()
	}
	for range us {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	cols, err := Collect(f.out)
	if err != nil || len(cols) != 1 || cols[0].Benchmark == nil {
		t.Fatalf("Collect = %+v, %v", cols, err)
	}
	got := cols[0].Benchmark
	whole := &fixture{t: t, skillDir: f.skillDir, out: filepath.Join(t.TempDir(), "whole"), mat: f.mat}
	wreq := req
	wreq.Out = whole.out
	want, err := whole.evaluator().Run(t.Context(), wreq)
	if err != nil {
		t.Fatal(err)
	}
	if got.Incomplete != 0 || !reflect.DeepEqual(got.Cases, want.Cases) || !reflect.DeepEqual(got.RunSummary.WithSkill.PassRate, want.RunSummary.WithSkill.PassRate) ||
		got.RunSummary.WithSkill.Tokens != want.RunSummary.WithSkill.Tokens || !reflect.DeepEqual(got.PassAtK, want.PassAtK) || len(got.PerAgent) != 2 {
		t.Errorf("Collect of the units = %+v\nRun = %+v", got, want)
	}
	for _, a := range []string{"agent1", "agent2"} {
		if _, err := os.Stat(filepath.Join(f.out, "iteration-1", a, "benchmark.json")); err != nil {
			t.Errorf("Collect wrote no benchmark of %s: %v", a, err)
		}
	}
}

// TestCollectHostile checks rules 3 to 5: units missing or malformed,
// links, a FIFO, an oversized file and stray entries are each reported
// naming the folder, and the benchmark counts the others, with
// "incomplete".
func TestCollectHostile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d, d)
	req.Runs = 2
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	iter := filepath.Join(f.out, "iteration-1")
	at := func(rel string) string { return filepath.Join(iter, filepath.FromSlash(rel)) }
	outside := filepath.Join(t.TempDir(), "run")
	if err := os.Rename(at("agent2/eval-b/with_skill/run-2"), outside); err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		if err := os.WriteFile(at(rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := make([]byte, keptFileLimit+1)
	for _, step := range []func() error{
		func() error { return os.RemoveAll(at("agent1/eval-1/with_skill/run-1")) },
		func() error {
			write("agent1/eval-1/with_skill/run-2/grading.json", `{"expectations": [], "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1}}`)
			return nil
		},
		func() error {
			write("agent1/eval-1/without_skill/run-1/timing.json", `{"total_tokens": -1, "duration_ms": 5}`)
			return nil
		},
		func() error {
			write("agent1/eval-1/without_skill/run-2/timing.json", `{"total_tokens": 1, "duration_ms": 5, "cost": 3}`)
			return nil
		},
		func() error {
			write("agent1/eval-b/with_skill/run-1/grading.json", `{"expectations": [], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0}, "summary": {}}`)
			return nil
		},
		func() error { return os.WriteFile(at("agent1/eval-b/with_skill/run-2/grading.json"), big, 0o644) },
		func() error {
			os.Remove(at("agent1/eval-b/without_skill/run-1/grading.json"))
			return makeFIFO(at("agent1/eval-b/without_skill/run-1/grading.json"))
		},
		func() error {
			os.Remove(at("agent1/eval-b/without_skill/run-2/timing.json"))
			return os.Symlink(filepath.Join(outside, "timing.json"), at("agent1/eval-b/without_skill/run-2/timing.json"))
		},
		func() error { return os.Symlink(outside, at("agent2/eval-b/with_skill/run-2")) },
		func() error { return os.Mkdir(at("agent2/eval-zzz"), 0o755) },
		func() error { write("stray.txt", "x"); return nil },
		func() error { return os.Mkdir(at("agent2/eval-1/with_skill/run-3"), 0o755) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	cols, err := Collect(f.out)
	if !errors.Is(err, ErrInvalidRun) {
		t.Fatalf("Collect = %v, want ErrInvalidRun", err)
	}
	for _, want := range []string{
		at("agent1/eval-1/with_skill/run-1") + ": invalid run folder: missing: the unit did not write it (eval --index 0)",
		at("agent1/eval-1/with_skill/run-2") + ": invalid run folder: grading.json: the summary",
		at("agent1/eval-1/without_skill/run-1") + ": invalid run folder: timing.json: total_tokens -1 and duration_ms 5: neither may be negative",
		at("agent1/eval-1/without_skill/run-2") + `: invalid run folder: timing.json: json: unknown field "cost"`,
		at("agent1/eval-b/with_skill/run-1") + ": invalid run folder: grading.json: the key summary is given twice",
		at("agent1/eval-b/with_skill/run-2") + ": invalid run folder: grading.json: too large: larger than 16777216 bytes",
		at("agent1/eval-b/without_skill/run-1") + ": invalid run folder: grading.json: a named pipe, not a regular file",
		at("agent1/eval-b/without_skill/run-2") + ": invalid run folder: timing.json: a link, not a regular file",
		at("agent2/eval-b/with_skill/run-2") + ": invalid run folder: a link, not followed: a folder is wanted",
		at("agent2/eval-zzz") + ": invalid run folder: no unit of the plan in iteration.json is there: left out",
		at("stray.txt") + ": invalid run folder: no unit of the plan in iteration.json is there: left out",
		at("agent2/eval-1/with_skill/run-3") + ": invalid run folder: no unit of the plan in iteration.json is there: left out",
	} {
		if !strings.Contains(err.Error()+"\n", want) {
			t.Errorf("Collect's error lacks %q:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 12 {
		t.Errorf("Collect reported %d problems, want 12:\n%v", n, err)
	}
	if len(cols) != 1 || cols[0].Benchmark == nil {
		t.Fatalf("Collect = %+v, want the benchmark of the units counted", cols)
	}
	b := cols[0].Benchmark
	if b.Incomplete != 9 || b.PerAgent["agent1"].Incomplete != 8 || b.PerAgent["agent2"].Incomplete != 1 {
		t.Errorf("incomplete %d (agent1 %d, agent2 %d), want 9 (8 and 1)", b.Incomplete, b.PerAgent["agent1"].Incomplete, b.PerAgent["agent2"].Incomplete)
	}
	var written Benchmark
	readJSONT(t, at("benchmark.json"), &written)
	if written.Incomplete != 9 {
		t.Errorf("benchmark.json incomplete = %d, want 9", written.Incomplete)
	}
	runs := 0
	for _, c := range b.Cases {
		for _, n := range c.Runs {
			runs += n
		}
	}
	if runs != 16-9 {
		t.Errorf("the benchmark counts %d runs, want 7", runs)
	}
	// Nothing outside DIR was written through the link.
	if _, err := os.Stat(filepath.Join(outside, "benchmark.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Collect wrote through a link: %v", err)
	}
}

// TestCollectAgentFolderLink checks that an agent's folder that is a
// link is reported once, its units left out, and no benchmark written
// through it.
func TestCollectAgentFolderLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	if _, err := f.evaluator().Run(t.Context(), f.request(d, d)); err != nil {
		t.Fatal(err)
	}
	iter := filepath.Join(f.out, "iteration-1")
	elsewhere := filepath.Join(t.TempDir(), "agent2")
	if err := os.Rename(filepath.Join(iter, "agent2"), elsewhere); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(elsewhere, "benchmark.json"))
	if err := os.Symlink(elsewhere, filepath.Join(iter, "agent2")); err != nil {
		t.Fatal(err)
	}
	cols, err := Collect(f.out)
	want := filepath.Join(iter, "agent2") + ": invalid run folder: a link, not followed: a folder is wanted"
	if !errors.Is(err, ErrInvalidRun) || err.Error() != want {
		t.Errorf("Collect = %v, want only %q", err, want)
	}
	if len(cols) != 1 || cols[0].Benchmark.Incomplete != 4 {
		t.Errorf("Collect = %+v, want 4 units left out", cols)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "benchmark.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Collect wrote through the agent folder's link: %v", err)
	}
}

// TestCollectIterations checks rules 1 and 2: each iteration of an Out
// is collected, one without a plan reported (or passed over, with no
// eval folder), a malformed plan reported, the problems past 20
// counted.
func TestCollectIterations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	mk := func(rel, text string) {
		p := filepath.Join(f.out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("iteration-2/iteration.json", `{"skill_digest": "x"}`)
	mk("iteration-2/triggers.json", `{}`)
	mk("iteration-3/iteration.json", `{"skill_digest": "x"}`)
	mk("iteration-3/eval-1/with_skill/grading.json", `{}`)
	mk("iteration-4/iteration.json", `{"skill_digest": "x", "plan": {"agents": ["a"], "cases": [1], "baseline": "other", "runs": 1}}`)
	mk("iteration-5/iteration.json", `{"skill_digest": "x", "plan": {"agents": ["a"], "cases": [1, "x"], "baseline": "without_skill", "runs": 1000}}`)
	mk("iteration-6/iteration.json", `{"skill_digest": "x", "plan": {"agents": ["a"], "cases": [1], "baseline": "without_skill", "runs": 0}}`)
	mk("iteration-7/iteration.json", `{"skill_digest": "x", "plan": {"agents": ["a", "A"], "cases": [1], "baseline": "without_skill", "runs": 1}}`)
	if err := os.Symlink(filepath.Join(f.out, "iteration-1"), filepath.Join(f.out, "iteration-8")); err != nil {
		t.Fatal(err)
	}
	many := `{"skill_digest": "x", "plan": {"agents": ["a"], "cases": [`
	for i := range 30 {
		if i > 0 {
			many += ", "
		}
		many += strconv.Itoa(i + 1)
	}
	mk("iteration-9/iteration.json", many+`], "baseline": "without_skill", "runs": 1}}`)
	cols, err := Collect(f.out)
	if len(cols) != 3 || cols[0].Benchmark == nil || cols[1].Benchmark != nil || cols[1].Units != 4000 || cols[2].Units != 60 {
		t.Errorf("Collect = %+v, want iteration-1 collected, iteration-5 and 9 with no unit", cols)
	}
	if _, err := os.Stat(filepath.Join(f.out, "iteration-5", "benchmark.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Collect wrote the benchmark of no unit: %v", err)
	}
	for _, want := range []string{
		filepath.Join(f.out, "iteration-3", "iteration.json") + ": invalid run folder: records no plan",
		filepath.Join(f.out, "iteration-4", "iteration.json") + `: invalid run folder: plan: baseline "other"`,
		filepath.Join(f.out, "iteration-5", "eval-1") + ": invalid run folder: missing: 2000 units did not write it (eval --index 0 and others)",
		filepath.Join(f.out, "iteration-5", "eval-x") + ": invalid run folder: missing: 2000 units did not write it (eval --index 2000 and others)",
		filepath.Join(f.out, "iteration-8") + ": invalid run folder: a link, not followed",
		filepath.Join(f.out, "iteration-9", "eval-1") + ": invalid run folder: missing: 2 units did not write it (eval --index 0 and others)",
		filepath.Join(f.out, "iteration-6", "iteration.json") + ": invalid run folder: plan: runs 0",
		filepath.Join(f.out, "iteration-7", "iteration.json") + `: invalid run folder: plan: Agents[1].ID: "A" is the id of Agents[0] too`,
		"invalid run folder: and ",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Collect = %v, want %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "iteration-2") {
		t.Errorf("Collect reported the trigger iteration: %v", err)
	}
	if n := len(strings.Split(err.Error(), "\n")); n != maxProblems+1 {
		t.Errorf("Collect named %d problems, want %d and a count", n, maxProblems)
	}

	if _, err := Collect(filepath.Join(f.out, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Collect(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestParseRunFiles(t *testing.T) {
	t.Parallel()
	ok := `{"expectations": [{"text": "a", "passed": true, "evidence": "e"}, {"text": "b", "passed": false, "evidence": "", "graded": false}],
	 "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1, "not_graded": 1}}`
	if _, problem := parseGrading([]byte(ok)); problem != "" {
		t.Errorf("parseGrading(valid) = %q", problem)
	}
	// graded false is not graded, whatever passed says.
	notGradedPassed := `{"expectations": [{"text": "b", "passed": true, "evidence": "", "graded": false}], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0, "not_graded": 1}}`
	if _, problem := parseGrading([]byte(notGradedPassed)); problem != "" {
		t.Errorf("parseGrading(graded false, passed true, counted not graded) = %q", problem)
	}
	tests := []struct{ name, in, want string }{
		{"not JSON", `{`, "unexpected EOF"},
		{"array", `[]`, "cannot unmarshal array"},
		{"unknown key", `{"expectations": [], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0}, "score": 1}`, `unknown field "score"`},
		{"null expectations", `{"expectations": null, "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0}}`, "expectations is missing"},
		{"no summary", `{"expectations": []}`, "summary is missing"},
		{"no passed", `{"expectations": [{"text": "a", "evidence": ""}], "summary": {"passed": 0, "failed": 1, "total": 1, "pass_rate": 0}}`, "expectations[0]: passed is missing"},
		{"evidence a number", `{"expectations": [{"text": "a", "passed": false, "evidence": 3}], "summary": {"passed": 0, "failed": 1, "total": 1, "pass_rate": 0}}`, "cannot unmarshal number"},
		{"no pass rate", `{"expectations": [], "summary": {"passed": 0, "failed": 0, "total": 0}}`, "summary: pass_rate is missing"},
		{"wrong pass rate", `{"expectations": [{"text": "a", "passed": true, "evidence": "e"}], "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 0.5}}`, "does not count the expectations"},
		{"graded false counted passed", `{"expectations": [{"text": "b", "passed": true, "evidence": "", "graded": false}], "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1}}`, "does not count the expectations"},
		{"more after", `{"expectations": [], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0}} {}`, "more after the JSON object"},
		{"nested key twice", `{"expectations": [{"text": "a", "text": "b", "passed": true, "evidence": "e"}], "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1}}`, "expectations[0].text is given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, problem := parseGrading([]byte(tt.in)); !strings.Contains(problem, tt.want) {
				t.Errorf("parseGrading(%s) = %q, want %q", tt.in, problem, tt.want)
			}
		})
	}
	for _, tt := range []struct{ in, want string }{
		{`{"total_tokens": 1, "duration_ms": 2}`, ""},
		{`{"total_tokens": 1}`, "duration_ms is missing"},
		{`{"total_tokens": 1.5, "duration_ms": 2}`, "cannot unmarshal number 1.5"},
		{`{"total_tokens": 1, "duration_ms": -2}`, "neither may be negative"},
		{`{"total_tokens": "1", "duration_ms": 2}`, "cannot unmarshal string"},
	} {
		if _, problem := parseTiming([]byte(tt.in)); (tt.want == "") != (problem == "") || !strings.Contains(problem, tt.want) {
			t.Errorf("parseTiming(%s) = %q, want %q", tt.in, problem, tt.want)
		}
	}
}

// BenchmarkCollect collects an iteration of 2 agents, 100 cases and 5
// runs (4,000 units), each with a grading of 3 expectations.
func BenchmarkCollect(b *testing.B) {
	dir := b.TempDir()
	p := &plan{Agents: []string{"a1", "a2"}, Baseline: WithoutSkill, Runs: 5}
	for i := range 100 {
		p.Cases = append(p.Cases, CaseID{text: strconv.Itoa(i + 1), number: true})
	}
	if err := writeJSON(filepath.Join(dir, "iteration.json"), &iterationFile{SkillDigest: "x", Agents: p.Agents, Plan: p}); err != nil {
		b.Fatal(err)
	}
	for i, u := range p.units() {
		run := filepath.Join(dir, filepath.FromSlash(u.Dir))
		if err := os.MkdirAll(run, 0o755); err != nil {
			b.Fatal(err)
		}
		g := Grading{Expectations: []GradedExpectation{{Text: "a", Passed: i%2 == 0, Evidence: "e"}, {Text: "b", Passed: true, Evidence: "e"}, {Text: "c", Evidence: "e"}}}
		g.Summary = summarize(g.Expectations)
		if err := writeJSON(filepath.Join(run, "grading.json"), g); err != nil {
			b.Fatal(err)
		}
		if err := writeJSON(filepath.Join(run, "timing.json"), Timing{TotalTokens: int64(i), DurationMS: int64(1000 + i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		cols, err := Collect(dir)
		if err != nil || len(cols) != 1 || cols[0].Benchmark.Incomplete != 0 {
			b.Fatalf("Collect = %+v, %v", cols, err)
		}
	}
}

// FuzzParseGrading checks that parseGrading never panics, and that a
// grading it accepts is one it accepts again as Run writes it, with the
// same summary.
func FuzzParseGrading(f *testing.F) {
	f.Add(`{"expectations": [{"text": "a", "passed": true, "evidence": "e"}], "summary": {"passed": 1, "failed": 0, "total": 1, "pass_rate": 1}}`)
	f.Add(`{"expectations": [{"text": "b", "passed": false, "evidence": "", "graded": false}], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0, "not_graded": 1}, "run_error": "x"}`)
	f.Add(`{"expectations": [], "summary": {"passed": 0, "failed": 0, "total": 0, "pass_rate": 0}} {}`)
	f.Fuzz(func(t *testing.T, in string) {
		g, problem := parseGrading([]byte(in))
		if problem != "" {
			return
		}
		b, err := json.MarshalIndent(g, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		again, problem := parseGrading(b)
		if problem != "" || again.Summary != g.Summary || again.RunError != g.RunError {
			t.Errorf("parseGrading(%s) = %+v, but its JSON %s gives %+v, %q", in, g, b, again, problem)
		}
	})
}
