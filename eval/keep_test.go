package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

func setSuite(t *testing.T, f *fixture, suite string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A kept run graded again (its expectations changed) is rebuilt without
// the case files its agent deleted: the grade is the one it had.
func TestRegradeRestoresNoDeletedFile(t *testing.T) {
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one", "files": ["notes.md"],
	 "expectations": [{"text": "TEXT", "command": ["sh", "-c", "! test -e notes.md"]}]}]}`
	setSuite(t, f, strings.Replace(suite, "TEXT", "notes removed", 1))
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		return &driver.Result{Text: "done"}, os.Remove(filepath.Join(req.Workspace, "notes.md"))
	}}
	ev := f.evaluator()
	b1, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	calls := d.Calls()
	// The suite is part of the skill: with_skill runs again, without_skill
	// is graded again.
	setSuite(t, f, strings.Replace(suite, "TEXT", "the notes are removed", 1))
	b2, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if d.Calls() != calls+1 || b2.Reused != 1 {
		t.Fatalf("graded again with %d agent calls and %d reused runs, want 1 and 1", d.Calls()-calls, b2.Reused)
	}
	w1, w2 := b1.RunSummary.WithoutSkill.PassRate.Mean, b2.RunSummary.WithoutSkill.PassRate.Mean
	if w1 != 1 || w2 != 1 {
		t.Errorf("without_skill: pass rate %v when run, %v when graded again, want 1 and 1", w1, w2)
	}
	// The record stays in the kept run, not in the iteration.
	if _, err := os.Stat(filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", deletedFile)); err == nil {
		t.Errorf("%s copied into the iteration", deletedFile)
	}
}

// A kept run whose agent put a folder where a case file was is graded
// again as it ran: the folder, no case file.
func TestRegradeFolderOverCaseFile(t *testing.T) {
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one", "files": ["notes.md"],
	 "expectations": [{"text": "TEXT", "command": ["test", "-f", "notes.md/x.txt"]}]}]}`
	setSuite(t, f, strings.Replace(suite, "TEXT", "a", 1))
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		p := filepath.Join(req.Workspace, "notes.md")
		os.Remove(p)
		os.Mkdir(p, 0o755)
		return &driver.Result{Text: "done"}, os.WriteFile(filepath.Join(p, "x.txt"), []byte("x"), 0o644)
	}}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	calls := d.Calls()
	setSuite(t, f, strings.Replace(suite, "TEXT", "b", 1))
	b, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatalf("regrading a kept run: Run failed: %v", err)
	}
	if d.Calls() != calls+1 || b.Reused != 1 || b.RunSummary.WithoutSkill.PassRate.Mean != 1 {
		t.Errorf("regraded with %d agent calls, %d reused, without_skill pass rate %v: want 1, 1, 1", d.Calls()-calls, b.Reused, b.RunSummary.WithoutSkill.PassRate.Mean)
	}
}

// An answer over keptFileLimit fails its run (response.md is not
// written whole), and the next Run, which cannot reuse it, runs it again.
func TestHugeResponseFailsRun(t *testing.T) {
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
	 "expectations": [{"text": "TEXT", "command": ["true"]}]}]}`
	setSuite(t, f, strings.Replace(suite, "TEXT", "a", 1))
	big := strings.Repeat("x", keptFileLimit+1)
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		return &driver.Result{Text: big}, nil
	}}
	ev := f.evaluator()
	b, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed != 2 {
		t.Errorf("%d failed runs, want 2", b.Failed)
	}
	var g Grading
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "grading.json"), &g)
	if len(g.Expectations) != 1 || !strings.Contains(g.Expectations[0].Evidence, "larger than 16777216 bytes") {
		t.Errorf("grading %+v does not say the answer is too large", g)
	}
	if fi, err := os.Stat(filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "response.md")); err != nil || fi.Size() != 0 {
		t.Errorf("response.md of a too large answer: %v, %v", fi, err)
	}
	setSuite(t, f, strings.Replace(suite, "TEXT", "b", 1))
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Errorf("second Run: %v", err)
	}
}

// A transcript over keptFileLimit is cut there and fails its run.
func TestHugeTranscriptFailsRun(t *testing.T) {
	f := newFixture(t)
	line := strings.Repeat("y", 1<<20)
	var evs []driver.Event
	for range 17 {
		evs = append(evs, &driver.TextEvent{Text: line})
	}
	d := &drivertest.Driver{Events: evs, Result: &driver.Result{Text: "done"}}
	b, err := f.evaluator().Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed != len(b.Cases)*2 {
		t.Errorf("%d failed runs, want %d", b.Failed, len(b.Cases)*2)
	}
	fi, err := os.Stat(filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "transcript.jsonl"))
	if err != nil || fi.Size() > keptFileLimit {
		t.Errorf("transcript.jsonl: %v, %v: want at most %d bytes", fi, err, keptFileLimit)
	}
}

// A damaged kept run (response.md gone) is made again.
func TestDamagedKeptRunMadeAgain(t *testing.T) {
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
	 "expectations": [{"text": "TEXT", "command": ["true"]}]}]}`
	setSuite(t, f, strings.Replace(suite, "TEXT", "a", 1))
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	calls := d.Calls()
	// The without_skill run's response removed (with_skill runs again
	// anyway: the suite is part of the skill).
	ms, _ := filepath.Glob(filepath.Join(f.out, ".runs", "*", runMarker))
	removed := 0
	for _, m := range ms {
		if b, _ := os.ReadFile(m); strings.Contains(strings.ReplaceAll(string(b), " ", ""), `"skill":""`) {
			os.Remove(filepath.Join(filepath.Dir(m), "response.md"))
			removed++
		}
	}
	if removed != 1 {
		t.Fatalf("%d kept without_skill runs, want 1", removed)
	}
	setSuite(t, f, strings.Replace(suite, "TEXT", "b", 1))
	b, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatalf("regrading a kept run without response.md: Run failed: %v", err)
	}
	if d.Calls() != calls+2 || b.Reused != 0 || b.Failed != 0 {
		t.Errorf("%d agent calls, %d reused runs, %d failed, want 2, 0, 0", d.Calls()-calls, b.Reused, b.Failed)
	}
}

// Out/.runs holds a .gitignore of "*": the kept runs are not committed
// by accident. One the user wrote is left as it is.
func TestRunsGitIgnored(t *testing.T) {
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(f.out, ".runs", ".gitignore")
	if b, err := os.ReadFile(name); err != nil || string(b) != "*\n" {
		t.Fatalf(".runs/.gitignore = %q, %v", b, err)
	}
	os.WriteFile(name, []byte("mine\n"), 0o644)
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "mine\n" {
		t.Errorf("the user's .gitignore replaced by %q", b)
	}
}

// Ctrl-C early in a re-Run of a complete iteration leaves its files as
// they are, and returns the partial benchmark saying how many runs it
// misses.
func TestInterruptKeepsCompleteIteration(t *testing.T) {
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	var before Benchmark
	readJSONT(t, filepath.Join(f.out, "iteration-1", "benchmark.json"), &before)
	ctx, cancel := context.WithCancel(t.Context())
	ev := New(WithMaterializer(f.mat), WithProgress(func(p Progress) {
		if p.State == "reused" {
			cancel()
		}
	}))
	req := f.request(d)
	b, err := ev.Run(ctx, req)
	if !errors.Is(err, context.Canceled) || b == nil {
		t.Fatalf("interrupted Run = %v, %v", b, err)
	}
	var got Benchmark
	readJSONT(t, filepath.Join(f.out, "iteration-1", "benchmark.json"), &got)
	if n := iterationRuns(filepath.Join(f.out, "iteration-1")); n != 4 || got.Incomplete != 0 {
		t.Errorf("iteration-1/benchmark.json now counts %d runs of 4, incomplete %d", n, got.Incomplete)
	}
	n := 0
	for _, c := range b.Cases {
		for _, k := range c.Runs {
			n += k
		}
	}
	if n+b.Incomplete != 4 || b.Incomplete == 0 {
		t.Errorf("returned benchmark: %d runs and %d incomplete, want 4 in all, some incomplete", n, b.Incomplete)
	}
}

// Interrupted before any baseline run finished: no pass rate for the
// baseline, no delta, and benchmark.json says runs are missing.
func TestInterruptedNoDeltaAgainstNothing(t *testing.T) {
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	ctx, cancel := context.WithCancel(t.Context())
	ev := New(WithMaterializer(f.mat), WithProgress(func(p Progress) {
		if p.State == "passed" {
			cancel()
		}
	}))
	req := f.request(d)
	b, err := ev.Run(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run: %v", err)
	}
	var got Benchmark
	readJSONT(t, filepath.Join(f.out, "iteration-1", "benchmark.json"), &got)
	if got.RunSummary.Delta.PassRate != nil || b.RunSummary.Delta.PassRate != nil {
		t.Errorf("benchmark.json delta %v with %d baseline runs (returned delta %v)", got.RunSummary.Delta.PassRate, got.Cases[0].Runs[WithoutSkill], b.RunSummary.Delta.PassRate)
	}
	if ws := got.RunSummary.WithoutSkill; ws != nil && ws.PassRate != nil {
		t.Errorf("without_skill pass rate %v over no run", ws.PassRate)
	}
	if got.Incomplete == 0 {
		t.Errorf("benchmark.json of an interrupted Run does not say it is incomplete: %+v", got)
	}
	raw, _ := os.ReadFile(filepath.Join(f.out, "iteration-1", "benchmark.json"))
	if !strings.Contains(string(raw), `"incomplete": `) {
		t.Errorf("benchmark.json has no incomplete field:\n%s", raw)
	}
}

// Windows device names are refused as agent ids, in any case and with
// an extension.
func TestAgentIDDeviceName(t *testing.T) {
	for _, id := range []string{"NUL", "con", "aux.json1", "COM1", "lpt1.x", "conin$"} {
		if err := checkAgents([]Agent{{ID: id, Driver: &drivertest.Driver{}}}); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("agent id %q: %v, want ErrInvalidRequest", id, err)
		}
	}
	for _, id := range []string{"console", "com10", "nulls", "lpt"} {
		if err := checkAgents([]Agent{{ID: id, Driver: &drivertest.Driver{}}}); err != nil {
			t.Errorf("agent id %q: %v", id, err)
		}
	}
}

// Runs is at most maxRuns; a negative Jobs is blamed on Jobs.
func TestRunCounts(t *testing.T) {
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	for _, c := range []struct {
		runs, jobs int
		want       string
	}{{maxRuns + 1, 0, "Runs: "}, {-1, 0, "Runs: "}, {1, -1, "Jobs: "}} {
		req := f.request(d)
		req.Runs, req.Jobs = c.runs, c.jobs
		_, err := f.evaluator().Run(t.Context(), req)
		if !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Runs %d Jobs %d: %v, want %s...", c.runs, c.jobs, err, c.want)
		}
		_, err = f.evaluator().Triggers(t.Context(), TriggerRequest{Skill: req.Skill, Agents: req.Agents, Out: req.Out, Runs: c.runs, Jobs: c.jobs})
		if !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Triggers: Runs %d Jobs %d: %v, want %s...", c.runs, c.jobs, err, c.want)
		}
	}
	if d.Calls() != 0 {
		t.Errorf("%d agent calls", d.Calls())
	}
}

// A SKILL.md an agent cannot load, of the skill or of the baseline,
// refuses the request before any agent starts, as adaptor would refuse
// every run of it.
func TestRunRefusesBrokenSkillMD(t *testing.T) {
	for _, which := range []string{"Skill", "Baseline"} {
		t.Run(which, func(t *testing.T) {
			f := newFixture(t)
			d := &drivertest.Driver{Handler: helpfulAgent}
			req := f.request(d)
			broken := f.skillDir
			if which == "Baseline" {
				broken = writeSkill(t, t.TempDir(), "The old version.")
				req.Baseline = skill.Dir(broken)
			}
			if err := os.WriteFile(filepath.Join(broken, "SKILL.md"), []byte("no front matter\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := f.evaluator().Run(t.Context(), req)
			if !errors.Is(err, ErrInvalidRequest) || !errors.Is(err, adaptor.ErrInvalidSkill) || !strings.HasPrefix(err.Error(), which+": ") {
				t.Errorf("Run with a broken SKILL.md: %v, want %s: ErrInvalidRequest wrapping adaptor.ErrInvalidSkill", err, which)
			}
			if d.Calls() != 0 {
				t.Errorf("%d agent calls", d.Calls())
			}
		})
	}
}

// openUp opens a folder closed at any depth (there is no cap), so the
// workspace can be removed.
func TestOpenUpDeep(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, strings.Repeat("d/", 300))
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p, "f"), nil, 0o644)
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, 0o755) })
	openUp(ws)
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm()&0o700 != 0o700 {
		t.Fatalf("the folder 300 deep after openUp: %v, %v", fi, err)
	}
	removeWorkspace(ws)
	if _, err := os.Stat(ws); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("workspace left: %v", err)
	}
}

// An agent that leaves folders deeper than maxDepth, or more files and
// folders than the limit, has its run failed saying so.
func TestOutputsDepthAndFolders(t *testing.T) {
	f := newFixture(t)
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if req.Prompt == "answer one" {
			return &driver.Result{Text: "done"}, os.MkdirAll(filepath.Join(req.Workspace, strings.Repeat("d/", maxDepth+1)), 0o755)
		}
		for i := range 101 {
			if err := os.Mkdir(filepath.Join(req.Workspace, fmt.Sprint("empty", i)), 0o755); err != nil {
				return nil, err
			}
		}
		return &driver.Result{Text: "done"}, nil
	}}
	ev := f.evaluator()
	ev.cfg.outputs = outputLimits{files: 100, bytes: 4096}
	b, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed != 4 {
		t.Errorf("%d failed runs, want 4", b.Failed)
	}
	for id, want := range map[string]string{"1": "more than 64 folders deep", "b": "more than 100 files and folders"} {
		var g Grading
		readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-"+id, "with_skill", "grading.json"), &g)
		if len(g.Expectations) == 0 || !strings.Contains(g.Expectations[0].Evidence, want) {
			t.Errorf("eval-%s grading %+v does not say %q", id, g, want)
		}
	}
}

// Two cases of one prompt and files share one run: it is made once,
// and graded per case; with Jobs 4 and Fresh too, and the next Run
// reuses both gradings.
func TestSameKeyRunOnce(t *testing.T) {
	f := newFixture(t)
	setSuite(t, f, `{"skill_name": "demo", "evals": [
	 {"id": 1, "prompt": "same", "expectations": ["polite"]},
	 {"id": 2, "prompt": "same", "expectations": ["short"]}]}`)
	var n atomic.Int32
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		return &driver.Result{Text: fmt.Sprintf("answer %d", n.Add(1))}, nil
	}}
	judge := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		return &driver.Result{Text: `{"expectations": [{"text": "", "passed": true, "evidence": "ok"}]}`}, nil
	}}
	for _, fresh := range []bool{false, true} {
		req := f.request(d)
		req.Jobs, req.Fresh = 4, fresh
		req.Judge = &Agent{ID: "judge", Driver: judge}
		ev := f.evaluator()
		calls, jcalls := d.Calls(), judge.Calls()
		if _, err := ev.Run(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if d.Calls()-calls != 2 || judge.Calls()-jcalls != 4 {
			t.Errorf("fresh %v: %d agent calls and %d judge calls, want 2 (one a configuration) and 4 (one a case and configuration)", fresh, d.Calls()-calls, judge.Calls()-jcalls)
		}
		r1, _ := os.ReadFile(filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "response.md"))
		r2, _ := os.ReadFile(filepath.Join(f.out, "iteration-1", "eval-2", "with_skill", "response.md"))
		if string(r1) != string(r2) {
			t.Errorf("fresh %v: the cases' shared run answered %q and %q", fresh, r1, r2)
		}
	}
	calls, jcalls := d.Calls(), judge.Calls()
	req := f.request(d)
	req.Jobs = 4
	req.Judge = &Agent{ID: "judge", Driver: judge}
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != calls || judge.Calls() != jcalls {
		t.Errorf("third Run: %d agent calls and %d judge calls, want none: a kept grading was lost", d.Calls()-calls, judge.Calls()-jcalls)
	}
}

// sweepWorkspaces removes a workspace left by a killed process (its lock
// file over a day old and unlocked), and leaves one in use (locked) and
// a recent one.
func TestSweepWorkspaces(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ws, release, err := newWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if !strings.HasPrefix(ws, filepath.Join(tmp, workspacePrefix)) {
		t.Fatalf("workspace %s not in %s", ws, tmp)
	}
	old := time.Now().Add(-2 * staleAfter)
	mk := func(name string, when time.Time) string {
		p := filepath.Join(tmp, name)
		os.MkdirAll(filepath.Join(p, "d"), 0o755)
		os.WriteFile(filepath.Join(p, "d", "f"), nil, 0o644)
		os.Chmod(filepath.Join(p, "d"), 0)
		os.WriteFile(p+lockSuffix, nil, 0o644)
		os.Chtimes(p+lockSuffix, when, when)
		return p
	}
	stale, recent := mk(workspacePrefix+"stale", old), mk(workspacePrefix+"recent", time.Now())
	other := mk("other-stale", old)
	os.Chtimes(ws+lockSuffix, old, old) // in use, however old
	sweepWorkspaces()
	for p, want := range map[string]bool{stale: false, recent: true, other: true, ws: true} {
		_, err := os.Stat(p)
		if got := err == nil; got != want {
			t.Errorf("%s there: %v, want %v", filepath.Base(p), got, want)
		}
		_, err = os.Stat(p + lockSuffix)
		if got := err == nil; got != want {
			t.Errorf("%s%s there: %v, want %v", filepath.Base(p), lockSuffix, got, want)
		}
	}
	os.Chmod(filepath.Join(recent, "d"), 0o755)
	os.Chmod(filepath.Join(other, "d"), 0o755)
	release()
	if _, err := os.Stat(ws); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("released workspace left: %v", err)
	}
	if _, err := os.Stat(ws + lockSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("released workspace's lock left: %v", err)
	}
}

// A finished run with no graded expectation is reported "not graded",
// not "passed".
func TestProgressNotGraded(t *testing.T) {
	f := newFixture(t)
	setSuite(t, f, `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "p"}, {"id": 2, "prompt": "q", "expectations": ["judged"]}]}`)
	if _, err := f.evaluator().Run(t.Context(), f.request(&drivertest.Driver{Handler: helpfulAgent})); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range f.progress {
		switch p.State {
		case "not graded":
			n++
		case "passed", "failed":
			t.Errorf("%+v: a run with no graded expectation reported %q", p, p.State)
		}
	}
	if n != 4 {
		t.Errorf("%d runs reported not graded, want 4", n)
	}
}
