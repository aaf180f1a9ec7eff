package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// The suite of the test skill: case 1 starts from two files, one of which
// the agent changes; case "b" from none. Each has a command expectation
// that passes when answer.txt is in the workspace.
const testSuite = `{"skill_name": "demo", "evals": [
 {"id": 1, "prompt": "answer one", "files": ["evals/files/data/in.txt", "evals/files/data/edit.txt", "notes.md"],
  "expectations": [{"text": "answered", "command": ["test", "-f", "answer.txt"]}]},
 {"id": "b", "prompt": "answer b",
  "expectations": [{"text": "answered", "command": ["test", "-f", "answer.txt"]}]}
]}`

// writeSkill writes the skill demo into parent, with body as its
// instructions, and returns its folder.
func writeSkill(t *testing.T, parent, body string) string {
	t.Helper()
	dir := filepath.Join(parent, "demo")
	files := map[string]string{
		"SKILL.md":                  "---\nname: demo\ndescription: Answers questions by writing answer.txt.\n---\n" + body + "\n",
		"notes.md":                  "notes\n",
		"evals/evals.json":          testSuite,
		"evals/files/data/in.txt":   "input\n",
		"evals/files/data/edit.txt": "to edit\n",
		"evals/eval_queries.json":   `[{"query": "answer with demo", "should_trigger": true}, {"query": "what is the weather", "should_trigger": false}]`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hasSkill reports whether req gives the agent the skill of key.
func hasSkill(req *driver.Request, key string) (driver.ResolvedSkill, bool) {
	for _, e := range req.Skills.Entries {
		if e.Key == key {
			return e, true
		}
	}
	return driver.ResolvedSkill{}, false
}

// helpfulAgent is an agent the skill helps: with it, it writes answer.txt
// and changes data/edit.txt; it always writes notes/seen.txt the same.
func helpfulAgent(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	req.Events(&driver.TextEvent{Text: "working"})
	if _, ok := hasSkill(req, "demo"); ok {
		if err := os.WriteFile(filepath.Join(req.Workspace, "answer.txt"), []byte("42\n"), 0o600); err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(req.Workspace, "data", "edit.txt")); err == nil {
			if err := os.WriteFile(filepath.Join(req.Workspace, "data", "edit.txt"), []byte("edited\n"), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(req.Workspace, "sub", "dir"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(req.Workspace, "sub", "dir", "run.sh"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		return nil, err
	}
	return &driver.Result{Text: "the answer", Usage: &driver.Usage{InputTokens: 30, OutputTokens: 12}}, nil
}

type fixture struct {
	t        *testing.T
	skillDir string
	out      string
	mat      skill.Materializer
	mu       sync.Mutex
	progress []Progress
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	return &fixture{
		t:        t,
		skillDir: writeSkill(t, filepath.Join(base, "skills"), "Write the answer to answer.txt."),
		out:      filepath.Join(base, "out"),
		mat:      skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache"))),
	}
}

func (f *fixture) evaluator() *Evaluator {
	return New(WithMaterializer(f.mat), WithProgress(func(p Progress) {
		f.mu.Lock()
		f.progress = append(f.progress, p)
		f.mu.Unlock()
	}))
}

func (f *fixture) request(drivers ...*drivertest.Driver) Request {
	req := Request{Skill: skill.Dir(f.skillDir), Out: f.out}
	for i, d := range drivers {
		req.Agents = append(req.Agents, Agent{ID: fmt.Sprintf("agent%d", i+1), Driver: d, Version: "1.0"})
	}
	return req
}

// tree lists the files below dir, slash-separated, folders with a
// trailing slash when empty.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func runFiles(prefix string, outputs ...string) []string {
	out := []string{prefix + "grading.json", prefix + "response.md", prefix + "timing.json", prefix + "transcript.jsonl"}
	for _, o := range outputs {
		out = append(out, prefix+"outputs/"+o)
	}
	return out
}

func sorted(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	slices.Sort(out)
	return out
}

func TestRunLayoutOneAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	bench, err := f.evaluator().Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	iter := filepath.Join(f.out, "iteration-1")
	if bench.Iteration != iter {
		t.Errorf("Iteration = %q, want %q", bench.Iteration, iter)
	}
	want := sorted(
		[]string{"benchmark.json", "iteration.json"},
		runFiles("eval-1/with_skill/", "answer.txt", "data/edit.txt", "sub/dir/run.sh"),
		runFiles("eval-1/without_skill/", "sub/dir/run.sh"),
		runFiles("eval-b/with_skill/", "answer.txt", "sub/dir/run.sh"),
		runFiles("eval-b/without_skill/", "sub/dir/run.sh"),
	)
	if got := tree(t, iter); !slices.Equal(got, want) {
		t.Errorf("iteration-1 holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	run := filepath.Join(iter, "eval-1", "with_skill")
	checkFile(t, filepath.Join(run, "response.md"), "the answer")
	checkFile(t, filepath.Join(run, "outputs", "answer.txt"), "42\n")
	checkFile(t, filepath.Join(run, "outputs", "data", "edit.txt"), "edited\n")
	checkFile(t, filepath.Join(run, "transcript.jsonl"), `{"type":"text","text":"working"}`+"\n")
	for name, want := range map[string]fs.FileMode{"answer.txt": 0o644, "sub/dir/run.sh": 0o755} {
		fi, err := os.Stat(filepath.Join(run, "outputs", filepath.FromSlash(name)))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("outputs/%s: %v, %v, want mode %v", name, fi.Mode(), err, want)
		}
	}
	var timing Timing
	readJSONT(t, filepath.Join(run, "timing.json"), &timing)
	if timing.TotalTokens != 42 || timing.DurationMS < 0 {
		t.Errorf("timing.json = %+v, want 42 tokens", timing)
	}
	var g Grading
	readJSONT(t, filepath.Join(run, "grading.json"), &g)
	if g.Summary.Passed != 1 || g.Summary.Total != 1 {
		t.Errorf("with_skill grading = %+v, want 1 of 1", g)
	}
	readJSONT(t, filepath.Join(iter, "eval-1", "without_skill", "grading.json"), &g)
	if g.Summary.Passed != 0 || g.Summary.Total != 1 {
		t.Errorf("without_skill grading = %+v, want 0 of 1", g)
	}
	if d.Calls() != 4 {
		t.Errorf("driver called %d times, want 4", d.Calls())
	}
	for _, r := range d.Requests() {
		_, with := hasSkill(&r, "demo")
		if len(r.Skills.Entries) != map[bool]int{true: 1, false: 0}[with] {
			t.Errorf("run %q had skills %+v", r.Prompt, r.Skills.Entries)
		}
		if _, err := os.Stat(r.Workspace); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("workspace %s left behind: %v", r.Workspace, err)
		}
	}
	states := map[string]int{}
	for _, p := range f.progress {
		states[p.State]++
	}
	if states["started"] != 4 || states["passed"] != 2 || states["failed"] != 2 {
		t.Errorf("progress states %v, want 4 started, 2 passed, 2 failed", states)
	}
}

func TestRunLayoutAgentsAndRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d1, d2 := &drivertest.Driver{Handler: helpfulAgent}, &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d1, d2)
	req.Runs = 2
	bench, err := f.evaluator().Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agent1/benchmark.json", "agent2/benchmark.json", "benchmark.json", "iteration.json"}
	for _, a := range []string{"agent1", "agent2"} {
		for _, k := range []string{"run-1", "run-2"} {
			want = append(want, runFiles(a+"/eval-1/with_skill/"+k+"/", "answer.txt", "data/edit.txt", "sub/dir/run.sh")...)
			want = append(want, runFiles(a+"/eval-1/without_skill/"+k+"/", "sub/dir/run.sh")...)
			want = append(want, runFiles(a+"/eval-b/with_skill/"+k+"/", "answer.txt", "sub/dir/run.sh")...)
			want = append(want, runFiles(a+"/eval-b/without_skill/"+k+"/", "sub/dir/run.sh")...)
		}
	}
	slices.Sort(want)
	iter := filepath.Join(f.out, "iteration-1")
	if got := tree(t, iter); !slices.Equal(got, want) {
		t.Errorf("iteration-1 holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var top map[string]json.RawMessage
	readJSONT(t, filepath.Join(iter, "benchmark.json"), &top)
	var agents map[string]json.RawMessage
	if err := json.Unmarshal(top["agents"], &agents); err != nil || len(agents) != 2 || agents["agent1"] == nil {
		t.Errorf("benchmark.json agents = %s, %v", top["agents"], err)
	}
	if len(bench.PerAgent) != 2 {
		t.Errorf("PerAgent = %v", bench.PerAgent)
	}
	if d1.Calls() != 8 || d2.Calls() != 8 {
		t.Errorf("calls %d and %d, want 8 each", d1.Calls(), d2.Calls())
	}

	// The same skill again, one agent, one run: the iteration is written
	// again, and nothing of the earlier layout remains.
	req = f.request(d1)
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	got := tree(t, iter)
	for _, name := range got {
		if strings.HasPrefix(name, "agent") || strings.Contains(name, "run-") || strings.HasPrefix(name, ".") {
			t.Errorf("stale %s left in the iteration", name)
		}
	}
	if !slices.Contains(got, "eval-1/with_skill/response.md") {
		t.Errorf("iteration rewritten without eval-1/with_skill: %v", got)
	}
	if d1.Calls() != 8 {
		t.Errorf("the kept runs were run again: %d calls", d1.Calls())
	}
	if _, err := os.Stat(filepath.Join(f.out, "iteration-2")); err == nil {
		t.Error("the same skill started iteration-2")
	}
}

func TestRunKeepsRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	bench, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 4 || bench.Reused != 4 {
		t.Errorf("second Run: %d calls, %d reused, want 4 and 4", d.Calls(), bench.Reused)
	}
	checkFile(t, filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "outputs", "answer.txt"), "42\n")

	req := f.request(d)
	req.Runs = 3
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 4+8 {
		t.Errorf("Runs 3 after Runs 1: %d calls, want 12 (the 8 new runs)", d.Calls())
	}
	req.Fresh = true
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 12+12 {
		t.Errorf("Fresh: %d calls, want 24", d.Calls())
	}
	// Another version of the agent is another run.
	req = f.request(d)
	req.Agents[0].Version = "2.0"
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 28 {
		t.Errorf("another version: %d calls, want 28", d.Calls())
	}
	entries, _ := os.ReadDir(filepath.Join(f.out, runsDir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), ".old-") {
			t.Errorf("staging folder %s left in .runs", e.Name())
		}
	}
}

func TestRunInterruptedResumes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var calls int
	var mu sync.Mutex
	d := &drivertest.Driver{Handler: func(c context.Context, req *driver.Request) (*driver.Result, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 3 {
			cancel()
			<-c.Done() // the context reaches the agent
			return nil, c.Err()
		}
		return helpfulAgent(c, req)
	}}
	bench, err := f.evaluator().Run(ctx, f.request(d))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want the context's error", err)
	}
	if bench == nil || d.Calls() != 3 {
		t.Fatalf("interrupted Run: %v, %d calls, want a benchmark and 3 calls", bench, d.Calls())
	}
	iter := filepath.Join(f.out, "iteration-1")
	if got := tree(t, iter); !slices.Contains(got, "eval-1/with_skill/response.md") || !slices.Contains(got, "eval-1/without_skill/response.md") || slices.Contains(got, "eval-b/with_skill/response.md") {
		t.Errorf("the iteration of the interrupted Run holds %v, want the 2 runs that finished", got)
	}
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 5 {
		t.Errorf("the resumed Run made %d calls, want 2 (the stopped one and the one never started)", d.Calls()-3)
	}
	if got := tree(t, iter); !slices.Contains(got, "eval-b/without_skill/response.md") {
		t.Errorf("the resumed iteration holds %v", got)
	}
}

func TestRunFailedRunNotKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fail := true
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if req.Prompt == "answer b" && fail {
			return nil, errors.New("model overloaded")
		}
		return helpfulAgent(ctx, req)
	}}
	bench, err := f.evaluator().Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if bench.Failed != 2 {
		t.Errorf("Failed = %d, want 2", bench.Failed)
	}
	var g Grading
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-b", "with_skill", "grading.json"), &g)
	if g.Summary.Failed != 1 || g.Summary.Total != 1 || len(g.Expectations) != 1 || !strings.Contains(g.Expectations[0].Evidence, "model overloaded") {
		t.Errorf("grading of the failed run = %+v, want every expectation failed with the error", g)
	}
	fail = false
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 6 {
		t.Errorf("%d calls, want 6: the failed runs again, the others kept", d.Calls())
	}
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-b", "with_skill", "grading.json"), &g)
	if g.Summary.Passed != 1 {
		t.Errorf("grading after the retry = %+v", g)
	}
	entries, _ := os.ReadDir(filepath.Join(f.out, runsDir))
	if n := len(entries); n != 6 { // 4 runs, the lock and .gitignore
		t.Errorf(".runs holds %d entries, want 4 runs, the lock and .gitignore", n)
	}
}

func TestRunJobs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d, &drivertest.Driver{Handler: helpfulAgent})
	req.Runs, req.Jobs = 3, 4
	bench, err := f.evaluator().Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(bench.PerAgent) != 2 || d.Calls() != 12 {
		t.Errorf("%d calls, per agent %v", d.Calls(), bench.PerAgent)
	}
	if n := len(f.progress); n != 48 {
		t.Errorf("%d progress steps, want 48", n)
	}
	got := tree(t, filepath.Join(f.out, "iteration-1"))
	// 3 benchmarks and iteration.json; 4 files in each of the 24 runs; 7
	// outputs a run index and agent.
	if n := len(got); n != 4+24*4+7*3*2 {
		t.Errorf("iteration holds %d files", n)
	}
}

func TestRunOutputsHostile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		ws := req.Workspace
		if err := os.Symlink(secret, filepath.Join(ws, "link")); err != nil {
			return nil, err
		}
		if err := os.Symlink(filepath.Dir(secret), filepath.Join(ws, "dirlink")); err != nil {
			return nil, err
		}
		if err := makeFIFO(filepath.Join(ws, "fifo")); err != nil {
			return nil, err
		}
		if req.Prompt == "answer b" {
			// Over the lowered byte limit.
			if err := os.WriteFile(filepath.Join(ws, "huge"), make([]byte, 5000), 0o644); err != nil {
				return nil, err
			}
		}
		if req.Prompt == "answer one" {
			// A case file replaced by a link: it is not an output.
			os.Remove(filepath.Join(ws, "notes.md"))
			if err := os.Symlink(secret, filepath.Join(ws, "notes.md")); err != nil {
				return nil, err
			}
		}
		return &driver.Result{Text: "done"}, nil
	}}
	ev := f.evaluator()
	ev.cfg.outputs = outputLimits{files: 10, bytes: 4096}
	bench, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	iter := filepath.Join(f.out, "iteration-1")
	for _, cfg := range []string{"with_skill", "without_skill"} {
		if got := tree(t, filepath.Join(iter, "eval-1", cfg, "outputs")); len(got) != 0 {
			t.Errorf("eval-1/%s/outputs holds %v, want nothing: links and FIFOs are no outputs", cfg, got)
		}
		var g Grading
		readJSONT(t, filepath.Join(iter, "eval-b", cfg, "grading.json"), &g)
		if len(g.Expectations) != 1 || !strings.Contains(g.Expectations[0].Evidence, "more than 4096 bytes") {
			t.Errorf("eval-b/%s grading = %+v, want the run failed over the limit", cfg, g)
		}
		if got := tree(t, filepath.Join(iter, "eval-b", cfg, "outputs")); len(got) != 0 {
			t.Errorf("eval-b/%s/outputs of a run over the limit holds %v", cfg, got)
		}
	}
	if bench.Failed != 2 {
		t.Errorf("Failed = %d, want the 2 runs over the limit", bench.Failed)
	}

	// Too many files.
	d2 := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		for i := range 4 {
			os.WriteFile(filepath.Join(req.Workspace, fmt.Sprint("f", i)), []byte("x"), 0o644)
		}
		return &driver.Result{Text: "done"}, nil
	}}
	ev.cfg.outputs = outputLimits{files: 3, bytes: 4096}
	req := f.request(d2)
	req.Agents[0].ID = "other"
	bench, err = ev.Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if bench.Failed != 4 {
		t.Errorf("Failed = %d, want every run over the file limit", bench.Failed)
	}
}

// passThrough materializes a folder skill as the folder itself, so that
// a test can change it under the Run.
type passThrough struct{}

func (passThrough) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	return filepath.Abs(s.Source.(skill.PathSource).Path)
}

func TestCaseFileLinkRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	inside := filepath.Join(f.skillDir, "evals", "files", "data", "in.txt")
	// A link out of the skill, and one to a file of the skill.
	for _, target := range []string{secret, "../../../notes.md"} {
		os.Remove(inside)
		if err := os.Symlink(target, inside); err != nil {
			t.Fatal(err)
		}
		c := Case{ID: CaseID{text: "1"}, Files: []string{"evals/files/data/in.txt"}}
		if _, err := filesDigest(t.Context(), f.skillDir, c, 0); !errors.Is(err, ErrInvalidSuite) {
			t.Errorf("filesDigest of a link to %s = %v, want %v", target, err, ErrInvalidSuite)
		}
		ws := t.TempDir()
		if err := copyCaseFiles(f.skillDir, ws, c, 0); !errors.Is(err, ErrInvalidSuite) || !strings.Contains(err.Error(), "evals[0] (id 1).files[0]") {
			t.Errorf("copyCaseFiles of a link to %s = %v, want %v naming the case and file", target, err, ErrInvalidSuite)
		}
		if _, err := os.Lstat(filepath.Join(ws, "data", "in.txt")); err == nil {
			t.Errorf("a link to %s was copied", target)
		}
		d := &drivertest.Driver{Handler: helpfulAgent}
		f.mat = passThrough{}
		if _, err := f.evaluator().Run(t.Context(), f.request(d)); !errors.Is(err, ErrInvalidSuite) || d.Calls() != 0 {
			t.Errorf("Run with a case file linked to %s = %v after %d calls, want an error before any", target, err, d.Calls())
		}
	}
	// A file below a linked folder, the link staying in the skill: the
	// file is not read through it either.
	data := filepath.Dir(inside)
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(f.skillDir, "realdata")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "in.txt"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../realdata", data); err != nil {
		t.Fatal(err)
	}
	c := Case{ID: CaseID{text: "1"}, Files: []string{"evals/files/data/in.txt"}}
	if _, err := filesDigest(t.Context(), f.skillDir, c, 0); !errors.Is(err, ErrInvalidSuite) {
		t.Errorf("filesDigest of a file below a linked folder = %v, want %v", err, ErrInvalidSuite)
	}
	ws := t.TempDir()
	if err := copyCaseFiles(f.skillDir, ws, c, 0); !errors.Is(err, ErrInvalidSuite) {
		t.Errorf("copyCaseFiles of a file below a linked folder = %v, want %v", err, ErrInvalidSuite)
	}
	if _, err := os.Lstat(filepath.Join(ws, "data", "in.txt")); err == nil {
		t.Error("a file below a linked folder was copied")
	}
}

func TestRunIterations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	for range 2 {
		if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.out, "iteration-2")); err == nil {
		t.Fatal("the same skill started iteration-2")
	}
	if err := os.WriteFile(filepath.Join(f.skillDir, "SKILL.md"), []byte("---\nname: demo\ndescription: Answers questions.\n---\nA new version.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bench, err := ev.Run(t.Context(), f.request(d))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(f.out, "iteration-2"); bench.Iteration != want {
		t.Errorf("a changed skill wrote %s, want %s", bench.Iteration, want)
	}
	if d.Calls() != 6 {
		t.Errorf("%d calls, want 6: a changed skill's with_skill runs are new, its without_skill runs kept", d.Calls())
	}
	var it1, it2 iterationFile
	readJSONT(t, filepath.Join(f.out, "iteration-1", "iteration.json"), &it1)
	readJSONT(t, filepath.Join(f.out, "iteration-2", "iteration.json"), &it2)
	if it1.SkillDigest == "" || it1.SkillDigest == it2.SkillDigest {
		t.Errorf("iteration digests %q and %q", it1.SkillDigest, it2.SkillDigest)
	}
	// The old skill as the baseline: its runs are old_skill, and the
	// without_skill runs are not made.
	req := f.request(d)
	old := writeSkill(t, t.TempDir(), "The old version.")
	req.Baseline = skill.Dir(old)
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	got := tree(t, filepath.Join(f.out, "iteration-2"))
	if !slices.Contains(got, "eval-1/old_skill/response.md") || slices.Contains(got, "eval-1/without_skill/response.md") {
		t.Errorf("iteration with a baseline holds %v", got)
	}
}

func TestRunRequestRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(f.skillDir, link)
	d := &drivertest.Driver{}
	tests := []struct {
		name  string
		edit  func(*Request)
		field string
	}{
		{"no skill", func(r *Request) { r.Skill = skill.Skill{} }, "Skill"},
		{"no agents", func(r *Request) { r.Agents = nil }, "Agents"},
		{"no out", func(r *Request) { r.Out = "" }, "Out"},
		{"out a file", func(r *Request) { r.Out = file }, "Out"},
		{"out in the skill", func(r *Request) { r.Out = filepath.Join(f.skillDir, "evals", "out") }, "Out"},
		{"out in the skill through a link", func(r *Request) { r.Out = filepath.Join(link, "out") }, "Out"},
		{"out the skill", func(r *Request) { r.Out = f.skillDir }, "Out"},
		{"same ids", func(r *Request) { r.Agents = append(r.Agents, Agent{ID: "AGENT1", Driver: d}) }, "Agents[1].ID"},
		{"id with a slash", func(r *Request) { r.Agents[0].ID = "a/b" }, "Agents[0].ID"},
		{"id dot dot", func(r *Request) { r.Agents[0].ID = ".." }, "Agents[0].ID"},
		{"id of a file", func(r *Request) { r.Agents[0].ID = "benchmark.json" }, "Agents[0].ID"},
		{"id of a case folder", func(r *Request) { r.Agents[0].ID = "eval-1" }, "Agents[0].ID"},
		{"no driver", func(r *Request) { r.Agents[0].Driver = nil }, "Agents[0].Driver"},
		{"judge without driver", func(r *Request) { r.Judge = &Agent{ID: "j"} }, "Judge.Driver"},
		{"negative runs", func(r *Request) { r.Runs = -1 }, "Runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := f.request(d)
			tt.edit(&req)
			_, err := f.evaluator().Run(t.Context(), req)
			if !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), tt.field+": ") {
				t.Errorf("Run = %v, want %s: %v", err, tt.field, ErrInvalidRequest)
			}
		})
	}
	// A suite of another skill, a suite that does not parse.
	for _, suite := range []string{strings.Replace(testSuite, `"skill_name": "demo"`, `"skill_name": "other"`, 1), `{"evals": []}`} {
		if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := f.evaluator().Run(t.Context(), f.request(d)); !errors.Is(err, ErrInvalidSuite) {
			t.Errorf("Run of the suite %.40s... = %v, want %v", suite, err, ErrInvalidSuite)
		}
	}
	os.Remove(filepath.Join(f.skillDir, "evals", "evals.json"))
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); !errors.Is(err, ErrNoEvals) {
		t.Errorf("Run without evals.json = %v, want %v", err, ErrNoEvals)
	}
	if d.Calls() != 0 {
		t.Errorf("%d agent calls for refused requests", d.Calls())
	}
	if _, err := os.Stat(f.out); err == nil {
		t.Errorf("a refused request created %s", f.out)
	}
	if _, err := os.Stat(filepath.Join(f.skillDir, "evals", "out")); err == nil {
		t.Error("a refused Out was created in the skill")
	}
}

func TestTriggers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := writeSkill(t, t.TempDir(), "x")
	os.Rename(other, filepath.Join(filepath.Dir(other), "other"))
	os.WriteFile(filepath.Join(filepath.Dir(other), "other", "SKILL.md"), []byte("---\nname: other\ndescription: Another skill.\n---\nx\n"), 0o644)
	triggering := func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if e, ok := hasSkill(req, "demo"); ok && strings.Contains(req.Prompt, "demo") {
			req.Events(&driver.SkillEvent{Name: e.RuntimeName})
		}
		if _, ok := hasSkill(req, "other"); !ok {
			return nil, errors.New("the other skill is missing")
		}
		if entries, err := os.ReadDir(req.Workspace); err != nil || len(entries) != 0 {
			return nil, fmt.Errorf("the workspace is not empty: %v, %v", entries, err)
		}
		return &driver.Result{Text: "ok"}, nil
	}
	never := func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		req.Events(&driver.SkillEvent{Name: "other"})
		return &driver.Result{Text: "ok"}, nil
	}
	d1, d2 := &drivertest.Driver{Handler: triggering}, &drivertest.Driver{Handler: never}
	req := TriggerRequest{
		Skill:  skill.Dir(f.skillDir),
		Others: []skill.Ref{skill.Dir(filepath.Join(filepath.Dir(other), "other"))},
		Agents: []Agent{{ID: "good", Driver: d1}, {ID: "blind", Driver: d2}},
		Out:    f.out,
		Jobs:   2,
	}
	ev := f.evaluator()
	got, err := ev.Triggers(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	good := got.Agents["good"]
	if good.Precision != 1 || good.Recall != 1 || len(good.Queries) != 2 || good.Queries[0].TriggerRate != 1 || good.Queries[0].Runs != 3 || !good.Queries[0].Passed || !good.Queries[1].Passed || good.Queries[1].TriggerRate != 0 {
		t.Errorf("good agent: %+v", good)
	}
	blind := got.Agents["blind"]
	if blind.Precision != 0 || blind.Recall != 0 || blind.Queries[0].Passed || !blind.Queries[1].Passed {
		t.Errorf("blind agent: %+v", blind)
	}
	var file Triggers
	readJSONT(t, filepath.Join(f.out, "iteration-1", "triggers.json"), &file)
	if len(file.Agents) != 2 || file.Agents["good"].Recall != 1 {
		t.Errorf("triggers.json = %+v", file)
	}
	if d1.Calls() != 6 || d2.Calls() != 6 {
		t.Errorf("calls %d, %d, want 6 each", d1.Calls(), d2.Calls())
	}
	if _, err := ev.Triggers(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d1.Calls() != 6 {
		t.Errorf("kept trigger runs run again: %d calls", d1.Calls())
	}
	f.mu.Lock()
	reused := 0
	for _, p := range f.progress[len(f.progress)-12:] {
		if p.State == "reused" && p.Config == WithSkill && p.Run >= 1 {
			reused++
		}
	}
	f.mu.Unlock()
	if reused != 12 {
		t.Errorf("%d of the last 12 progress steps say reused, want 12", reused)
	}
	req.Fresh = true
	if _, err := ev.Triggers(t.Context(), req); err != nil || d1.Calls() != 12 {
		t.Errorf("Fresh: %v, %d calls, want 12", err, d1.Calls())
	}
	out := req.Out
	req.Out = filepath.Join(filepath.Dir(other), "other", "out")
	if _, err := ev.Triggers(t.Context(), req); !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), "Out: ") {
		t.Errorf("Triggers with Out in another skill = %v", err)
	}
	req.Out = out
	req.Others = []skill.Ref{skill.Key("other")}
	if _, err := ev.Triggers(t.Context(), req); !errors.Is(err, ErrInvalidRequest) || !strings.HasPrefix(err.Error(), "Others[0]: ") {
		t.Errorf("Triggers with a provider key = %v", err)
	}
}

func checkFile(t *testing.T, name, want string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v, want %q", name, b, err, want)
	}
}

func readJSONT(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestRunGradesKeptRunsAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	var g Grading
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-b", "without_skill", "grading.json"), &g)
	if g.Summary.Passed != 0 {
		t.Fatalf("without_skill passed before the change: %+v", g)
	}
	// Case b now expects the script every run writes: the skill changed
	// (its evals.json), so its with_skill runs are new; the without_skill
	// runs are kept and graded again on their outputs.
	suite := strings.Replace(testSuite, `"answer b",
  "expectations": [{"text": "answered", "command": ["test", "-f", "answer.txt"]}]`, `"answer b",
  "expectations": [{"text": "scripted", "command": ["test", "-f", "sub/dir/run.sh"]}]`, 1)
	if suite == testSuite {
		t.Fatal("the suite did not change")
	}
	if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 6 {
		t.Errorf("%d calls, want 6: the without_skill runs kept", d.Calls())
	}
	readJSONT(t, filepath.Join(f.out, "iteration-2", "eval-b", "without_skill", "grading.json"), &g)
	if g.Summary.Passed != 1 || g.Expectations[0].Text != "scripted" {
		t.Errorf("the kept run graded again = %+v, want the new expectation passed", g)
	}
	readJSONT(t, filepath.Join(f.out, "iteration-2", "eval-1", "without_skill", "grading.json"), &g)
	if g.Summary.Passed != 0 || g.Expectations[0].Text != "answered" {
		t.Errorf("eval-1 without_skill = %+v, want its grading as it was", g)
	}
}

func TestProgressOneAtATime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var inside, overlaps, steps int32
	var mu sync.Mutex
	ev := New(WithMaterializer(f.mat), WithProgress(func(p Progress) {
		mu.Lock()
		inside++
		if inside > 1 {
			overlaps++
		}
		steps++
		mu.Unlock()
		mu.Lock()
		inside--
		mu.Unlock()
	}))
	req := f.request(&drivertest.Driver{Handler: helpfulAgent})
	req.Jobs, req.Runs = 4, 2
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if overlaps != 0 || steps != 16 {
		t.Errorf("%d progress steps, %d overlapping, want 16 one at a time", steps, overlaps)
	}
}

func TestTriggersFailedRunsNotKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fail := true
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		if fail && strings.Contains(req.Prompt, "weather") {
			return nil, errors.New("rate limited")
		}
		return &driver.Result{Text: "ok"}, nil
	}}
	req := TriggerRequest{Skill: skill.Dir(f.skillDir), Agents: []Agent{{ID: "a", Driver: d}}, Out: f.out, Runs: 2}
	got, err := f.evaluator().Triggers(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	a := got.Agents["a"]
	if a.Failed != 2 || a.Queries[1].Runs != 0 || a.Queries[1].Passed || a.Queries[0].Runs != 2 {
		t.Errorf("with failed runs: %+v", a)
	}
	fail = false
	if got, err = f.evaluator().Triggers(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 6 || got.Agents["a"].Failed != 0 || !got.Agents["a"].Queries[1].Passed {
		t.Errorf("%d calls, %+v, want the 2 failed runs again", d.Calls(), got.Agents["a"])
	}
	os.Remove(filepath.Join(f.skillDir, "evals", "eval_queries.json"))
	if _, err := f.evaluator().Triggers(t.Context(), req); !errors.Is(err, ErrNoEvals) || d.Calls() != 6 {
		t.Errorf("Triggers without eval_queries.json = %v after %d calls, want %v", err, d.Calls(), ErrNoEvals)
	}
}

func TestRunDamagedKeptRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(f.out, runsDir)
	entries, err := os.ReadDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range entries {
		if e.IsDir() {
			kept = append(kept, filepath.Join(runs, e.Name()))
		}
	}
	if len(kept) != 4 {
		t.Fatalf(".runs holds %v", kept)
	}
	// One run without its marker (as a crash would leave it, were it not
	// renamed whole), one without its timing, and what a crash leaves.
	os.Remove(filepath.Join(kept[0], runMarker))
	os.Remove(filepath.Join(kept[1], "timing.json"))
	os.Mkdir(filepath.Join(runs, ".tmp-123"), 0o755)
	os.Mkdir(filepath.Join(f.out, "iteration-1", ".new-123"), 0o755)
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 6 {
		t.Errorf("%d calls, want 6: the 2 damaged runs again", d.Calls())
	}
	for _, k := range kept[:2] {
		if _, err := os.Stat(filepath.Join(k, runMarker)); err != nil {
			t.Errorf("the run made again is not kept: %v", err)
		}
		if _, err := os.Stat(filepath.Join(k, "timing.json")); err != nil {
			t.Errorf("the run made again is not kept whole: %v", err)
		}
	}
	for _, left := range []string{filepath.Join(runs, ".tmp-123"), filepath.Join(f.out, "iteration-1", ".new-123")} {
		if _, err := os.Stat(left); err == nil {
			t.Errorf("%s left", left)
		}
	}
	if got := tree(t, filepath.Join(f.out, "iteration-1")); len(got) != 2+4*4+7 {
		t.Errorf("iteration holds %v", got)
	}
}

func TestRunJudgesAndKeepsGradings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
  "expectations": ["the answer is polite", {"text": "answered", "command": ["test", "-f", "answer.txt"]}]}]}`
	if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &drivertest.Driver{Handler: helpfulAgent}
	judge := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		_, err := os.Stat(filepath.Join(req.Workspace, "response.md"))
		return &driver.Result{Text: fmt.Sprintf(`{"expectations": [{"text": "the answer is polite", "passed": %t, "evidence": "response.md says so"}]}`, err == nil)}, nil
	}}
	req := f.request(d)
	req.Judge = &Agent{ID: "judge", Driver: judge}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	var g Grading
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "grading.json"), &g)
	if g.Summary.Passed != 2 || g.Summary.Total != 2 || g.Expectations[0].Evidence != "response.md says so" {
		t.Errorf("with_skill grading = %+v, want both passed, the first by the judge", g)
	}
	judging := 0
	for _, p := range f.progress {
		if p.State == "judging" {
			judging++
		}
	}
	if judging != 2 || judge.Calls() != 2 {
		t.Errorf("%d judging steps, %d judge runs, want 2 and 2", judging, judge.Calls())
	}
	// Kept runs and their gradings: neither the agent nor the judge again.
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 2 || judge.Calls() != 2 {
		t.Errorf("again: %d agent and %d judge runs, want 2 and 2", d.Calls(), judge.Calls())
	}
	// Another judge grades the kept runs again, without the agent.
	req.Judge.Version = "2"
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 2 || judge.Calls() != 4 {
		t.Errorf("another judge: %d agent and %d judge runs, want 2 and 4", d.Calls(), judge.Calls())
	}
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-1", "without_skill", "grading.json"), &g)
	if !g.Expectations[0].Passed || g.Expectations[1].Passed {
		t.Errorf("without_skill graded again = %+v, want the judge's pass and the command's failure", g)
	}
}

func TestRunInterruptedWithJobs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	stop := errors.New("stopped by the test")
	var mu sync.Mutex
	calls, interrupting := 0, true
	d := &drivertest.Driver{Handler: func(c context.Context, req *driver.Request) (*driver.Result, error) {
		mu.Lock()
		calls++
		n, stopping := calls, interrupting && calls >= 2
		mu.Unlock()
		if n == 2 {
			cancel(stop)
		}
		if stopping {
			<-c.Done()
			return nil, c.Err()
		}
		return helpfulAgent(c, req)
	}}
	req := f.request(d)
	req.Jobs, req.Runs = 3, 2
	_, err := f.evaluator().Run(ctx, req)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, stop) {
		t.Fatalf("Run = %v, want the context's error and its cause", err)
	}
	if n := d.Calls(); n > 4 { // the one finished, the canceller, and at most 2 running beside it
		t.Errorf("%d runs started, want no new run once stopped", n)
	}
	mu.Lock()
	interrupting = false
	mu.Unlock()
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	d2 := &drivertest.Driver{Handler: helpfulAgent}
	req.Agents[0].Driver = d2
	if _, err := f.evaluator().Run(t.Context(), req); err != nil || d2.Calls() != 0 {
		t.Errorf("a third Run: %v, %d calls, want every run kept", err, d2.Calls())
	}
	if got := tree(t, filepath.Join(f.out, "iteration-1")); len(got) != 2+8*4+7*2 {
		t.Errorf("iteration holds %d files: %v", len(got), got)
	}
}

func TestRunGradesAgainWhenSkillDirChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
  "expectations": [{"text": "the skill has its flag", "command": ["sh", "-c", "test -f \"$SKILL_DIR/flag\""]}]}]}`
	if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.skillDir, "flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 3 {
		t.Errorf("%d calls, want 3: the without_skill run kept", d.Calls())
	}
	var g Grading
	readJSONT(t, filepath.Join(f.out, "iteration-2", "eval-1", "without_skill", "grading.json"), &g)
	if g.Summary.Passed != 1 {
		t.Errorf("the kept run's command grading under the new SKILL_DIR = %+v, want passed", g)
	}
}

func TestRunInterruptedWhileJudging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one", "expectations": ["the answer is polite"]}]}`
	if err := os.WriteFile(filepath.Join(f.skillDir, "evals", "evals.json"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	interrupt := true
	judge := &drivertest.Driver{Handler: func(c context.Context, req *driver.Request) (*driver.Result, error) {
		if interrupt {
			cancel()
			<-c.Done()
			return nil, c.Err()
		}
		return &driver.Result{Text: `{"expectations": [{"passed": true, "evidence": "it says please"}]}`}, nil
	}}
	d := &drivertest.Driver{Handler: helpfulAgent}
	req := f.request(d)
	req.Judge = &Agent{ID: "judge", Driver: judge}
	if _, err := f.evaluator().Run(ctx, req); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want the context's error", err)
	}
	if d.Calls() != 1 || judge.Calls() != 1 {
		t.Fatalf("%d agent and %d judge runs, want 1 and 1", d.Calls(), judge.Calls())
	}
	if got := tree(t, filepath.Join(f.out, "iteration-1")); slices.Contains(got, "eval-1/with_skill/grading.json") {
		t.Errorf("a run whose grading was stopped is in the iteration: %v", got)
	}
	interrupt = false
	if _, err := f.evaluator().Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 2 || judge.Calls() != 3 {
		t.Errorf("%d agent and %d judge runs, want 2 and 3: the run kept, graded now", d.Calls(), judge.Calls())
	}
	var g Grading
	readJSONT(t, filepath.Join(f.out, "iteration-1", "eval-1", "with_skill", "grading.json"), &g)
	if g.Summary.Passed != 1 {
		t.Errorf("grading = %+v", g)
	}
}

func TestTriggersInterruptedResumes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	calls := 0
	d := &drivertest.Driver{Handler: func(c context.Context, req *driver.Request) (*driver.Result, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 {
			cancel()
			<-c.Done()
			return nil, c.Err()
		}
		return &driver.Result{Text: "ok"}, nil
	}}
	req := TriggerRequest{Skill: skill.Dir(f.skillDir), Agents: []Agent{{ID: "a", Driver: d}}, Out: f.out}
	got, err := f.evaluator().Triggers(ctx, req)
	if !errors.Is(err, context.Canceled) || got == nil || got.Agents["a"].Queries[0].Runs != 1 {
		t.Fatalf("Triggers = %+v, %v, want the one finished run and the context's error", got, err)
	}
	var file Triggers
	readJSONT(t, filepath.Join(f.out, "iteration-1", "triggers.json"), &file)
	if file.Agents["a"].Queries[0].Runs != 1 {
		t.Errorf("triggers.json of the stopped call = %+v", file)
	}
	if got, err = f.evaluator().Triggers(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if d.Calls() != 2+5 || got.Agents["a"].Queries[0].Runs != 3 || got.Agents["a"].Queries[1].Runs != 3 {
		t.Errorf("resumed: %d calls, %+v, want 7 calls and 3 runs a query", d.Calls(), got.Agents["a"])
	}
}

// An agent that takes its permissions away from what it wrote: its
// outputs are collected all the same, and its workspace removed. (Run as
// root, the test cannot tell: root reads and removes them anyway.)
func TestRunOutputsClosed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		locked := filepath.Join(req.Workspace, "locked")
		if err := os.MkdirAll(filepath.Join(locked, "in"), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(locked, "in", "a.txt"), []byte("a"), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(req.Workspace, "hidden.txt"), []byte("h"), 0o000); err != nil {
			return nil, err
		}
		for _, p := range []string{filepath.Join(locked, "in"), locked} {
			if err := os.Chmod(p, 0o000); err != nil {
				return nil, err
			}
		}
		return &driver.Result{Text: "done"}, nil
	}}
	if _, err := f.evaluator().Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	got := tree(t, filepath.Join(f.out, "iteration-1", "eval-b", "with_skill", "outputs"))
	if want := []string{"hidden.txt", "locked/in/a.txt"}; !slices.Equal(got, want) {
		t.Errorf("outputs = %v, want %v", got, want)
	}
	for _, r := range d.Requests() {
		if _, err := os.Stat(r.Workspace); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("workspace %s left behind: %v", r.Workspace, err)
		}
	}
}
