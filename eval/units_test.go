package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// suiteOf is a suite of cases with the ids given as JSON.
func suiteOf(t *testing.T, ids ...string) *Suite {
	t.Helper()
	s := &Suite{SkillName: "demo"}
	for _, raw := range ids {
		var id CaseID
		if err := json.Unmarshal([]byte(raw), &id); err != nil {
			t.Fatal(err)
		}
		s.Evals = append(s.Evals, Case{ID: id, Prompt: "p"})
	}
	return s
}

func agentsOf(ids ...string) []Agent {
	var as []Agent
	for _, id := range ids {
		as = append(as, Agent{ID: id})
	}
	return as
}

func unitText(u Unit) string {
	return fmt.Sprintf("%d %s %s %s %d %s", u.Index, u.Agent, u.Case, u.Config, u.Run, u.Dir)
}

// TestUnitsOrder pins the order of the package doc's "Units": a Job's
// completion index names a unit by it.
func TestUnitsOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ids    []string
		agents []string
		runs   int
		old    bool
		want   []string
	}{
		{"one agent, one run", []string{`1`, `"b"`}, []string{"a"}, 0, false, []string{
			"0 a 1 with_skill 1 eval-1/with_skill",
			"1 a 1 without_skill 1 eval-1/without_skill",
			"2 a b with_skill 1 eval-b/with_skill",
			"3 a b without_skill 1 eval-b/without_skill",
		}},
		{"file order, not id order", []string{`"z"`, `10`, `2`}, []string{"a"}, 1, true, []string{
			"0 a z with_skill 1 eval-z/with_skill",
			"1 a z old_skill 1 eval-z/old_skill",
			"2 a 10 with_skill 1 eval-10/with_skill",
			"3 a 10 old_skill 1 eval-10/old_skill",
			"4 a 2 with_skill 1 eval-2/with_skill",
			"5 a 2 old_skill 1 eval-2/old_skill",
		}},
		{"agents and runs", []string{`1`, `2`}, []string{"y", "x"}, 2, false, []string{
			"0 y 1 with_skill 1 y/eval-1/with_skill/run-1",
			"1 y 1 with_skill 2 y/eval-1/with_skill/run-2",
			"2 y 1 without_skill 1 y/eval-1/without_skill/run-1",
			"3 y 1 without_skill 2 y/eval-1/without_skill/run-2",
			"4 y 2 with_skill 1 y/eval-2/with_skill/run-1",
			"5 y 2 with_skill 2 y/eval-2/with_skill/run-2",
			"6 y 2 without_skill 1 y/eval-2/without_skill/run-1",
			"7 y 2 without_skill 2 y/eval-2/without_skill/run-2",
			"8 x 1 with_skill 1 x/eval-1/with_skill/run-1",
			"9 x 1 with_skill 2 x/eval-1/with_skill/run-2",
			"10 x 1 without_skill 1 x/eval-1/without_skill/run-1",
			"11 x 1 without_skill 2 x/eval-1/without_skill/run-2",
			"12 x 2 with_skill 1 x/eval-2/with_skill/run-1",
			"13 x 2 with_skill 2 x/eval-2/with_skill/run-2",
			"14 x 2 without_skill 1 x/eval-2/without_skill/run-1",
			"15 x 2 without_skill 2 x/eval-2/without_skill/run-2",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Agents: agentsOf(tt.agents...), Runs: tt.runs}
			if tt.old {
				req.Baseline = skill.Dir("old")
			}
			us, err := Units(suiteOf(t, tt.ids...), req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range us {
				got = append(got, unitText(u))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Units =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestUnitsFormula checks the package doc's formula for unit I over
// shapes of every size up to a few, against the nested loops of rule 1.
func TestUnitsFormula(t *testing.T) {
	t.Parallel()
	for a := 1; a <= 3; a++ {
		for c := 1; c <= 3; c++ {
			for r := 1; r <= 3; r++ {
				var ids, names []string
				for i := range c {
					ids = append(ids, fmt.Sprint(i+1))
				}
				for i := range a {
					names = append(names, fmt.Sprintf("agent%d", i))
				}
				us, err := Units(suiteOf(t, ids...), Request{Agents: agentsOf(names...), Runs: r})
				if err != nil {
					t.Fatal(err)
				}
				if len(us) != a*c*2*r {
					t.Fatalf("%d agents, %d cases, %d runs: %d units, want %d", a, c, r, len(us), a*c*2*r)
				}
				i := 0
				for ai := range a {
					for ci := range c {
						for _, cfg := range []Config{WithSkill, WithoutSkill} {
							for k := 1; k <= r; k++ {
								u := us[i]
								if u.Index != i || u.Agent != names[ai] || u.Case.String() != ids[ci] || u.Config != cfg || u.Run != k {
									t.Fatalf("%d agents, %d cases, %d runs: unit %d = %s, want agent %s case %s %s run %d", a, c, r, i, unitText(u), names[ai], ids[ci], cfg, k)
								}
								// The doc's closed form.
								if names[i/(c*2*r)] != u.Agent || ids[(i/(2*r))%c] != u.Case.String() || (i/r)%2 == 1 != (u.Config == WithoutSkill) || i%r+1 != u.Run {
									t.Fatalf("unit %d = %s: not the doc's formula", i, unitText(u))
								}
								i++
							}
						}
					}
				}
			}
		}
	}
}

func TestUnitsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		suite *Suite
		req   Request
		want  string
	}{
		{"no suite", nil, Request{Agents: agentsOf("a")}, "Skill: invalid evaluation request: the suite holds no case"},
		{"no case", &Suite{}, Request{Agents: agentsOf("a")}, "Skill: invalid evaluation request: the suite holds no case"},
		{"no agent", suiteOf(t, `1`), Request{}, "Agents: invalid evaluation request: at least one agent is required"},
		{"bad id", suiteOf(t, `1`), Request{Agents: agentsOf("a/b")}, `Agents[0].ID: invalid evaluation request: "a/b" cannot name a folder`},
		{"same id", suiteOf(t, `1`), Request{Agents: agentsOf("a", "A")}, `Agents[1].ID: invalid evaluation request: "A" is the id of Agents[0] too`},
		{"too many runs", suiteOf(t, `1`), Request{Agents: agentsOf("a"), Runs: 1001}, "Runs: invalid evaluation request: 1001"},
		{"negative runs", suiteOf(t, `1`), Request{Agents: agentsOf("a"), Runs: -1}, "Runs: invalid evaluation request: -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			us, err := Units(tt.suite, tt.req)
			if !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Units = %d units, %v, want %q", len(us), err, tt.want)
			}
		})
	}
}

// TestUnitsAreRunsOrder checks that Evaluator.Units reads the skill's
// suite and that Run, one job at a time, starts its runs in the units'
// order.
func TestUnitsAreRunsOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d, d)
	req.Runs = 2
	us, err := f.evaluator().Units(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 2*2*2*2 {
		t.Fatalf("Units = %d units, want 16", len(us))
	}
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	var started []string
	for _, p := range f.progress {
		if p.State == "started" {
			started = append(started, fmt.Sprintf("%s %s %s %d", p.Agent, p.Case, p.Config, p.Run))
		}
	}
	var want []string
	for _, u := range us {
		want = append(want, fmt.Sprintf("%s %s %s %d", u.Agent, u.Case, u.Config, u.Run))
	}
	if strings.Join(started, "\n") != strings.Join(want, "\n") {
		t.Errorf("Run started\n%s\nwant the units' order\n%s", strings.Join(started, "\n"), strings.Join(want, "\n"))
	}

	none := Request{Skill: skill.Dir(t.TempDir()), Agents: agentsOf("a"), Out: f.out}
	if _, err := f.evaluator().Units(t.Context(), none); err == nil {
		t.Error("Evaluator.Units of a folder without a skill = nil error")
	}
	if _, err := f.evaluator().Units(t.Context(), Request{Agents: agentsOf("a")}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("Evaluator.Units without a skill = %v, want ErrInvalidRequest", err)
	}
}

// unitRequest is f's request on one agent, or two with runs.
func unitRequest(f *fixture, several bool, ds ...*drivertest.Driver) Request {
	req := f.request(ds...)
	if several {
		req.Runs = 2
	}
	return req
}

// runTree lists the files of the iteration dir but its benchmarks.
func runTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, name := range tree(t, dir) {
		if !strings.HasSuffix(name, "benchmark.json") {
			out = append(out, name)
		}
	}
	return out
}

// TestRunUnitLayoutMatchesRun checks that the units, each made alone
// (in reverse order, each by an Evaluator of its own), write the
// iteration a Run writes, benchmark.json aside: the same folders, files,
// gradings and iteration.json.
func TestRunUnitLayoutMatchesRun(t *testing.T) {
	t.Parallel()
	for _, several := range []bool{false, true} {
		t.Run(fmt.Sprint("several=", several), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			d := &drivertest.Driver{Handler: helpfulAgent}
			ds := []*drivertest.Driver{d}
			if several {
				ds = append(ds, d)
			}
			req := unitRequest(f, several, ds...)
			whole := &fixture{t: t, skillDir: f.skillDir, out: filepath.Join(t.TempDir(), "whole"), mat: f.mat}
			wreq := req
			wreq.Out = whole.out
			if _, err := whole.evaluator().Run(t.Context(), wreq); err != nil {
				t.Fatal(err)
			}
			us, err := Units(mustSuite(t, f.skillDir), req)
			if err != nil {
				t.Fatal(err)
			}
			for i := len(us) - 1; i >= 0; i-- {
				res, err := f.evaluator().RunUnit(t.Context(), req, i)
				if err != nil {
					t.Fatal(err)
				}
				if want := filepath.Join(f.out, "iteration-1", filepath.FromSlash(us[i].Dir)); res.Dir != want || res.Unit != us[i] {
					t.Errorf("RunUnit(%d) = %s, %+v, want %s, %+v", i, res.Dir, res.Unit, want, us[i])
				}
			}
			a, b := filepath.Join(whole.out, "iteration-1"), filepath.Join(f.out, "iteration-1")
			got, want := runTree(t, b), runTree(t, a)
			if !slices.Equal(got, want) {
				t.Fatalf("units wrote\n%s\nRun wrote\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, name := range got {
				if strings.HasSuffix(name, "grading.json") || name == "iteration.json" || strings.Contains(name, "outputs/") {
					checkFile(t, filepath.Join(b, name), readString(t, filepath.Join(a, name)))
				}
			}
			if _, err := os.Stat(filepath.Join(b, "benchmark.json")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a unit wrote benchmark.json: %v", err)
			}
		})
	}
}

func mustSuite(t *testing.T, dir string) *Suite {
	t.Helper()
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunUnitsConcurrent runs every unit at once, each by an Evaluator
// with a skill cache of its own (as pods of one Job), into one Out
// whose newest iteration is of other content: they all take one new
// iteration, and write every unit's folder.
func TestRunUnitsConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := unitRequest(f, true, d, d)
	old := filepath.Join(f.out, "iteration-1")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "iteration.json"), []byte(`{"skill_digest": "sha256:other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	us, err := Units(mustSuite(t, f.skillDir), req)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(us))
	for i := range us {
		wg.Go(func() {
			ev := New(WithMaterializer(skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))))
			_, errs[i] = ev.RunUnit(t.Context(), req, i)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(f.out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".runs", "iteration-1", "iteration-2"}; !slices.Equal(names, want) {
		t.Errorf("Out holds %v, want %v", names, want)
	}
	iter := filepath.Join(f.out, "iteration-2")
	for _, u := range us {
		if _, err := os.Stat(filepath.Join(iter, filepath.FromSlash(u.Dir), "grading.json")); err != nil {
			t.Errorf("unit %d: %v", u.Index, err)
		}
	}
	for _, name := range tree(t, iter) {
		if strings.Contains(name, "/.") || strings.HasPrefix(name, ".") {
			t.Errorf("left in the iteration: %s", name)
		}
	}
	if d.Calls() != len(us) {
		t.Errorf("%d agent calls, want %d", d.Calls(), len(us))
	}
}

// TestRunUnitProcesses runs units in processes of their own at once
// into a new Out: they race to create iteration-1 and to write beside
// each other.
func TestRunUnitProcesses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	us, err := Units(mustSuite(t, f.skillDir), unitRequest(f, false, &drivertest.Driver{}))
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, len(us))
	outs := make([]strings.Builder, len(us))
	for i := range us {
		cmds[i] = exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestUnitHelperProcess$")
		cmds[i].Env = append(os.Environ(), "EVAL_UNIT_SKILL="+f.skillDir, "EVAL_UNIT_OUT="+f.out,
			"EVAL_UNIT_CACHE="+filepath.Join(t.TempDir(), "cache"), fmt.Sprintf("EVAL_UNIT_INDEX=%d", i))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("unit %d: %v\n%s", i, err, outs[i].String())
		}
	}
	entries, _ := os.ReadDir(f.out)
	if len(entries) != 2 { // .runs and iteration-1
		t.Errorf("Out holds %d entries, want .runs and iteration-1", len(entries))
	}
	want := sorted(
		[]string{"iteration.json"},
		runFiles("eval-1/with_skill/", "answer.txt", "data/edit.txt", "sub/dir/run.sh"),
		runFiles("eval-1/without_skill/", "sub/dir/run.sh"),
		runFiles("eval-b/with_skill/", "answer.txt", "sub/dir/run.sh"),
		runFiles("eval-b/without_skill/", "sub/dir/run.sh"),
	)
	if got := tree(t, filepath.Join(f.out, "iteration-1")); !slices.Equal(got, want) {
		t.Errorf("iteration-1 holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUnitHelperProcess is one unit of TestRunUnitProcesses, run in a
// process of its own; without its environment it does nothing.
func TestUnitHelperProcess(t *testing.T) {
	dir := os.Getenv("EVAL_UNIT_SKILL")
	if dir == "" {
		return
	}
	var i int
	fmt.Sscan(os.Getenv("EVAL_UNIT_INDEX"), &i)
	ev := New(WithMaterializer(skill.NewCache(skill.WithSkillCacheRoot(os.Getenv("EVAL_UNIT_CACHE")))))
	req := Request{Skill: skill.Dir(dir), Out: os.Getenv("EVAL_UNIT_OUT"),
		Agents: []Agent{{ID: "agent1", Driver: &drivertest.Driver{Handler: helpfulAgent}, Version: "1.0"}}}
	if _, err := ev.RunUnit(t.Context(), req, i); err != nil {
		t.Fatal(err)
	}
}

func TestRunUnitIndexRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	for _, i := range []int{-1, 4, 1 << 40} {
		_, err := f.evaluator().RunUnit(t.Context(), f.request(d), i)
		want := fmt.Sprintf("Index: invalid evaluation request: %d: the evaluation has 4 units, 0 to 3", i)
		if !errors.Is(err, ErrInvalidRequest) || err.Error() != want {
			t.Errorf("RunUnit(%d) = %v, want %q", i, err, want)
		}
	}
	if d.Calls() != 0 {
		t.Errorf("%d agent calls, want none", d.Calls())
	}
	if _, err := os.Stat(f.out); err == nil {
		t.Error("a refused unit created Out")
	}
}

// TestRunUnitAgain checks that a unit made again replaces its folder
// whole, and that a unit the agent failed is written, graded as
// failing with the failure, and not kept.
func TestRunUnitAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	answer := "42\n"
	fail := false
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if fail {
			return nil, errors.New("model overloaded")
		}
		os.WriteFile(filepath.Join(req.Workspace, "answer.txt"), []byte(answer), 0o644)
		os.WriteFile(filepath.Join(req.Workspace, answer[:1]+".txt"), nil, 0o644)
		return &driver.Result{Text: "done"}, nil
	}}
	req := f.request(d)
	res, err := f.evaluator().RunUnit(t.Context(), req, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"grading.json", "outputs/4.txt", "outputs/answer.txt", "response.md", "timing.json", "transcript.jsonl"}
	if got := tree(t, res.Dir); !slices.Equal(got, want) {
		t.Errorf("unit 0 holds %v, want %v", got, want)
	}
	answer, req.Fresh = "7\n", true
	if res, err = f.evaluator().RunUnit(t.Context(), req, 0); err != nil {
		t.Fatal(err)
	}
	want = []string{"grading.json", "outputs/7.txt", "outputs/answer.txt", "response.md", "timing.json", "transcript.jsonl"}
	if got := tree(t, res.Dir); !slices.Equal(got, want) {
		t.Errorf("unit 0 made again holds %v, want %v", got, want)
	}
	checkFile(t, filepath.Join(res.Dir, "outputs", "answer.txt"), "7\n")

	fail = true
	res, err = f.evaluator().RunUnit(t.Context(), req, 1)
	if err != nil {
		t.Fatal(err)
	}
	var g Grading
	readJSONT(t, filepath.Join(res.Dir, "grading.json"), &g)
	if !strings.Contains(g.RunError, "model overloaded") || g.Summary.Failed != 1 || res.Grading.RunError != g.RunError {
		t.Errorf("failed unit's grading = %+v, result %+v, want run_error and every expectation failed", g, res.Grading)
	}
	fail = false
	if res, err = f.evaluator().RunUnit(t.Context(), f.request(d), 1); err != nil || res.Reused {
		t.Errorf("the failed unit again = %+v, %v: want it made, not reused", res, err)
	}
	if res, err = f.evaluator().RunUnit(t.Context(), f.request(d), 1); err != nil || !res.Reused {
		t.Errorf("the unit a third time = %+v, %v: want it reused", res, err)
	}
}

// TestRunUnitWaitsForRun checks rule 5: a unit waits while a Run holds
// Out, and writes once it is done.
func TestRunUnitWaitsForRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	unlock, err := lockOut(t.Context(), f.out, false)
	if err != nil {
		t.Fatal(err)
	}
	// The unit cannot take the lock while it is held: it waits (an hour
	// of the bubble's clock) until stopped, and runs nothing.
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		start := time.Now()
		_, err := f.evaluator().RunUnit(ctx, f.request(d), 0)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Hour {
			t.Errorf("RunUnit while Out is locked = %v after %v, want context.DeadlineExceeded after 1h", err, time.Since(start))
		}
	})
	if d.Calls() != 0 {
		t.Errorf("%d agent calls while Out was locked", d.Calls())
	}
	unlock()
	if _, err := f.evaluator().RunUnit(t.Context(), f.request(d), 0); err != nil {
		t.Fatal(err)
	}
	// Units share the lock with each other, not with a Run.
	u1, err := lockOut(t.Context(), f.out, true)
	if err != nil {
		t.Fatal(err)
	}
	defer u1()
	if _, err := f.evaluator().RunUnit(t.Context(), f.request(d), 1); err != nil {
		t.Errorf("RunUnit beside a unit holding Out = %v", err)
	}
}

// TestRunUnitOtherPlan checks rule 6: a unit of another plan for the
// same content records its plan, and the agent folders of the plans
// before stay listed, so that the next Run removes them.
func TestRunUnitOtherPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	if _, err := f.evaluator().Run(t.Context(), f.request(d, d)); err != nil {
		t.Fatal(err)
	}
	one := f.request(d)
	one.Runs = 2
	if _, err := f.evaluator().RunUnit(t.Context(), one, 0); err != nil {
		t.Fatal(err)
	}
	iter := filepath.Join(f.out, "iteration-1")
	var it iterationFile
	readJSONT(t, filepath.Join(iter, "iteration.json"), &it)
	if it.Plan == nil || it.Plan.Runs != 2 || len(it.Plan.Agents) != 1 || !slices.Equal(it.Agents, []string{"agent1", "agent2"}) {
		t.Errorf("iteration.json = %+v, plan %+v; want the unit's plan, the agents before kept", it, it.Plan)
	}
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	for _, name := range tree(t, iter) {
		if strings.HasPrefix(name, "agent") || strings.Contains(name, "run-") {
			t.Errorf("left of an earlier plan: %s", name)
		}
	}
}

// TestRunInterruptedKeepsUnits checks that an interrupted Run does not
// replace an iteration of units (which write no benchmark.json) with
// fewer runs.
func TestRunInterruptedKeepsUnits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	for i := range 3 {
		if _, err := f.evaluator().RunUnit(t.Context(), f.request(d), i); err != nil {
			t.Fatal(err)
		}
	}
	iter := filepath.Join(f.out, "iteration-1")
	before := tree(t, iter)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var calls atomic.Int64
	stop := &drivertest.Driver{Handler: func(c context.Context, req *driver.Request) (*driver.Result, error) {
		if calls.Add(1) == 1 {
			return helpfulAgent(c, req) // one run finishes: fewer than the units'
		}
		cancel()
		<-c.Done()
		return nil, c.Err()
	}}
	req := f.request(stop)
	req.Fresh = true
	bench, err := f.evaluator().Run(ctx, req)
	if !errors.Is(err, context.Canceled) || bench == nil || calls.Load() != 2 {
		t.Fatalf("Run = %v, %v after %d runs, want the context's error after 2", bench, err, calls.Load())
	}
	if got := tree(t, iter); !slices.Equal(got, before) {
		t.Errorf("an interrupted Run replaced the units' iteration:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(before, "\n"))
	}
}

// TestOpenIterationWhileItsFileIsReplaced opens the iteration of a
// content again and again while other units replace its iteration.json
// (each records its plan as it finishes): every open takes that
// iteration, and none makes another. A read that found the file
// replaced as it was opened took the iteration for another content's.
func TestOpenIterationWhileItsFileIsReplaced(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, runsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, _, err := openIteration(out, "sha256:this", true)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				it := &iterationFile{SkillDigest: "sha256:this", Plan: &plan{Runs: 1 + (i+w)%3}}
				if err := writeJSON(filepath.Join(dir, "iteration.json"), it); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		got, _, err := openIteration(out, "sha256:this", true)
		if err != nil {
			t.Error(err)
			break
		}
		if got != dir {
			t.Errorf("opened %s, want %s", got, dir)
			break
		}
	}
	close(stop)
	wg.Wait()
}
