package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/drivertest"

	"github.com/google/go-cmp/cmp"
)

// gradeDirs makes a skill folder, a run folder with an empty outputs/,
// and a workspace.
func gradeDirs(t *testing.T) (skillDir, runDir, workspace string) {
	t.Helper()
	skillDir, runDir, workspace = t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(runDir, "outputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return skillDir, runDir, workspace
}

// gradeCommand grades one command expectation with e.
func gradeCommand(t *testing.T, e *Evaluator, argv ...string) GradedExpectation {
	t.Helper()
	x, _ := gradeCommandSettled(t, e, argv...)
	return x
}

// gradeCommandSettled is gradeCommand, and whether the grading is kept.
func gradeCommandSettled(t *testing.T, e *Evaluator, argv ...string) (GradedExpectation, bool) {
	t.Helper()
	skillDir, runDir, ws := gradeDirs(t)
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "check", Command: argv}}}
	g, settled := e.grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	if len(g.Expectations) != 1 {
		t.Fatalf("grade: %d expectations, want 1", len(g.Expectations))
	}
	return g.Expectations[0], settled
}

func TestCommandExpectations(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	e := New()
	tests := []struct {
		name     string
		argv     []string
		passed   bool
		evidence string
		settled  bool // kept: not a failure that may pass another time
	}{
		{"exit 0 passes with its output", []string{"sh", "-c", "echo all good"}, true, "all good", true},
		{"exit 0 without output", []string{"true"}, true, "exit status 0, no output", true},
		{"stdin is empty", []string{"cat"}, true, "exit status 0, no output", true},
		{"a failure with its output", []string{"sh", "-c", "echo 'expected 3 rows, got 2' >&2; exit 3"}, false, "exit status 3: expected 3 rows, got 2", true},
		{"a failure without output", []string{"false"}, false, "exit status 1", true},
		{"killed by a signal", []string{"sh", "-c", "echo bye; kill -TERM $$"}, false, "stopped by signal terminated: bye", true},
		{"a program not on PATH", []string{"no-such-program-7f3a"}, false, "not found: no-such-program-7f3a: not on PATH", false},
		{"a path not in the skill", []string{"./no-such-check.sh"}, false, "not found: ./no-such-check.sh: no such file or directory", false},
		{"an empty program name", []string{""}, false, `not found: "": an empty program name`, false},
		{"an empty command", []string{}, false, "not run: the command is empty", false},
		{"arguments reach the program", []string{"sh", "-c", `printf '%s|' "$@"`, "sh", "a b", "c"}, true, "a b|c|", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, settled := gradeCommandSettled(t, e, tt.argv...)
			if got.Passed != tt.passed || got.Evidence != tt.evidence || got.Graded != nil || settled != tt.settled {
				t.Errorf("grade(%q) = passed %v, evidence %q, graded %v, kept %v; want passed %v, evidence %q, graded nil, kept %v",
					tt.argv, got.Passed, got.Evidence, got.Graded, settled, tt.passed, tt.evidence, tt.settled)
			}
		})
	}
}

func TestCommandStdoutAndStderr(t *testing.T) {
	got := gradeCommand(t, New(), "sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 1")
	lines := strings.Split(strings.TrimPrefix(got.Evidence, "exit status 1: "), "\n")
	if got.Passed || !strings.HasPrefix(got.Evidence, "exit status 1: ") || len(lines) != 2 ||
		!strings.Contains(got.Evidence, "to-stdout") || !strings.Contains(got.Evidence, "to-stderr") {
		t.Errorf("evidence = %q, want exit status 1 and both lines", got.Evidence)
	}
}

func TestCommandRunsInWorkspace(t *testing.T) {
	// The program runs in the workspace; a relative path names a program
	// of the skill (SKILL_DIR), never one of the workspace, which the
	// agent wrote; OUTPUTS_DIR is a copy of the run's outputs/.
	skillDir, runDir, ws := gradeDirs(t)
	body := "#!/bin/sh\npwd\necho \"$SKILL_DIR\"\ncat \"$OUTPUTS_DIR/made.txt\"\ntest -f result.txt && echo has-result\n"
	for dir, files := range map[string]map[string]string{
		skillDir: {"bin/check.sh": body},
		ws:       {"bin/check.sh": "#!/bin/sh\necho the agent's\n", "result.txt": "x"},
		runDir:   {"outputs/made.txt": "made by the agent\n"},
	} {
		for name, text := range files {
			writeEvals(t, dir, name, text)
			if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(skillDir, "plain.sh"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skillDir, "garbage"), []byte("\x00\x01\x02 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Case{Prompt: "p", Expectations: []Expectation{
		{Text: "relative to the skill", Command: []string{"bin/check.sh"}},
		{Text: "dot-relative", Command: []string{"./bin/check.sh"}},
		{Text: "not executable", Command: []string{"./plain.sh"}},
		{Text: "not a program", Command: []string{"./garbage"}},
		{Text: "writes OUTPUTS_DIR", Command: []string{"sh", "-c", `echo changed > "$OUTPUTS_DIR/made.txt"; echo new > "$OUTPUTS_DIR/new.txt"; echo "$OUTPUTS_DIR"`}},
	}}
	g, _ := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	want := strings.Join([]string{ws, skillDir, "made by the agent", "has-result"}, "\n")
	for _, x := range g.Expectations[:2] {
		if !x.Passed || x.Evidence != want {
			t.Errorf("%s: passed %v, evidence %q; want passed, %q", x.Text, x.Passed, x.Evidence, want)
		}
	}
	if x := g.Expectations[2]; x.Passed || x.Evidence != "not found: ./plain.sh: permission denied" {
		t.Errorf("%s: passed %v, evidence %q; want a failure, not found: ./plain.sh: permission denied", x.Text, x.Passed, x.Evidence)
	}
	if x := g.Expectations[3]; x.Passed || !strings.HasPrefix(x.Evidence, "not run: ") || !strings.Contains(x.Evidence, "exec format error") {
		t.Errorf("%s: passed %v, evidence %q; want a failure, not run: ...: exec format error", x.Text, x.Passed, x.Evidence)
	}
	x := g.Expectations[4]
	if !x.Passed || !filepath.IsAbs(x.Evidence) || strings.HasPrefix(x.Evidence, runDir) {
		t.Errorf("%s: passed %v, OUTPUTS_DIR %q; want a folder of its own, not in %s", x.Text, x.Passed, x.Evidence, runDir)
	}
	if _, err := os.Stat(x.Evidence); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the commands' copy of outputs/ %s is left behind (%v)", x.Evidence, err)
	}
	if diff := cmp.Diff([]string{"outputs/made.txt"}, tree(t, runDir)); diff != "" {
		t.Errorf("the run's folder after the commands (-want +got):\n%s", diff)
	}
	checkFile(t, filepath.Join(runDir, "outputs", "made.txt"), "made by the agent\n")
}

func TestCommandRelativeFolders(t *testing.T) {
	// Relative folders are taken in this process's folder: the command
	// gets SKILL_DIR and OUTPUTS_DIR absolute, and a program's relative
	// path is found in the skill's folder.
	parent := t.TempDir()
	t.Chdir(parent)
	for _, dir := range []string{"myskill", "run/outputs", "ws"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("myskill/check.sh", []byte("#!/bin/sh\npwd\necho \"$SKILL_DIR\"\ncase $OUTPUTS_DIR in /*) echo absolute;; esac\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "t", Command: []string{"./check.sh"}}}}
	g, _ := New().grade(t.Context(), nil, "myskill", c, "run", "ws", nil)
	want := strings.Join([]string{filepath.Join(parent, "ws"), filepath.Join(parent, "myskill"), "absolute"}, "\n")
	if x := g.Expectations[0]; !x.Passed || x.Evidence != want {
		t.Errorf("grade in relative folders = passed %v, %q; want a pass, %q", x.Passed, x.Evidence, want)
	}
}

func TestCommandOutputLimit(t *testing.T) {
	t.Run("lines past 4 KiB are counted", func(t *testing.T) {
		// 1,000 lines of 10 bytes: 409 whole lines and 6 bytes of the next.
		got := gradeCommand(t, New(), "sh", "-c", "yes abcdefghi | head -n 1000")
		want := strings.Repeat("abcdefghi\n", 409) + "abcdef… (5904 more bytes)"
		if !got.Passed || got.Evidence != want {
			t.Errorf("evidence = %.60q... (%d bytes), want %d bytes ending in (5904 more bytes)", got.Evidence, len(got.Evidence), len(want))
		}
	})
	t.Run("a line past the reading limit is counted", func(t *testing.T) {
		got := gradeCommand(t, New(), "sh", "-c", "head -c 2000000 /dev/zero | tr '\\000' a; echo; echo after")
		if want := "after… (2000001 more bytes)"; got.Evidence != want {
			t.Errorf("evidence = %.80q, want %q", got.Evidence, want)
		}
	})
	t.Run("a cut does not split a character", func(t *testing.T) {
		// 4,095 bytes of "a" then "é" (2 bytes): the cut falls inside it.
		got := gradeCommand(t, New(), "sh", "-c", "head -c 4095 /dev/zero | tr '\\000' a; printf '\\303\\251z\\n'")
		want := strings.Repeat("a", 4095) + "… (4 more bytes)"
		if got.Evidence != want {
			t.Errorf("evidence ends %q, want it to end %q", got.Evidence[max(0, len(got.Evidence)-30):], want[len(want)-30:])
		}
	})
	t.Run("invalid UTF-8 is replaced", func(t *testing.T) {
		got := gradeCommand(t, New(), "sh", "-c", "printf 'a\\377b\\n'")
		if got.Evidence != "a\uFFFDb" {
			t.Errorf("evidence = %q, want %q", got.Evidence, "a\uFFFDb")
		}
	})
}

func TestCommandTimeout(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		passed   bool
		evidence string
	}{
		// The shell exits at once; its background child keeps the output
		// open and dies with the group.
		{"a lingering child", "sleep 100 & echo started", true, "started"},
		{"a command that outlasts the limit", "echo waiting; sleep 100", false, "stopped after 300ms: waiting"},
		{"one that ignores SIGINT", "trap '' INT; echo stubborn; sleep 100", false, "stopped after 300ms: stubborn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(WithCommandTimeout(300 * time.Millisecond))
			start := time.Now()
			got := gradeCommand(t, e, "sh", "-c", tt.script)
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("grade took %v, want it bounded by the timeout and the grace", took)
			}
			if got.Passed != tt.passed || got.Evidence != tt.evidence {
				t.Errorf("grade = passed %v, evidence %q; want passed %v, %q", got.Passed, got.Evidence, tt.passed, tt.evidence)
			}
		})
	}
}

func TestCommandChildLeftItsGroup(t *testing.T) {
	// A child in a session of its own is out of the command's group: on
	// Linux the process package stops it all the same (it carries the
	// run's tag); elsewhere it is not stopped, and the test ends it.
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	got := gradeCommand(t, New(WithCommandTimeout(10*time.Second)), "sh", "-c",
		"setsid sh -c 'echo $$ > \""+pidFile+"\"; exec sleep 100' </dev/null & sleep 0.3; echo escaped")
	if took := time.Since(start); !got.Passed || got.Evidence != "escaped" || took > 8*time.Second {
		t.Errorf("grade = passed %v, %q after %v; want a pass, escaped, without waiting for the child", got.Passed, got.Evidence, took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	alive := func() bool {
		if runtime.GOOS != "linux" {
			return true // no /proc to ask: take it for alive, and end it
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		// pid (comm) STATE ...: a zombie is dead, waiting to be reaped.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
	}
	if alive() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		if runtime.GOOS == "linux" {
			t.Errorf("the command's child %d in a session of its own outlives the grading", pid)
		}
	}
}

func TestCommandCancelled(t *testing.T) {
	skillDir, runDir, ws := gradeDirs(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "t", Command: []string{"true"}}}}
	g, _ := New().grade(ctx, nil, skillDir, c, runDir, ws, nil)
	if x := g.Expectations[0]; x.Passed || x.Evidence != "stopped: context canceled" {
		t.Errorf("grade under a done context = passed %v, %q; want a failure, stopped: context canceled", x.Passed, x.Evidence)
	}
}

func TestCommandTextDefault(t *testing.T) {
	got := gradeCommand(t, New(), "true")
	if got.Text != "check" {
		t.Errorf("text = %q, want %q", got.Text, "check")
	}
	skillDir, runDir, ws := gradeDirs(t)
	c := Case{Prompt: "p", Expectations: []Expectation{{Command: []string{"test", "-d", "."}}}}
	g, _ := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	if x := g.Expectations[0]; x.Text != "test -d ." {
		t.Errorf("text of a command without one = %q, want %q", x.Text, "test -d .")
	}
}

func TestGradeWithoutJudge(t *testing.T) {
	skillDir, runDir, ws := gradeDirs(t)
	c := Case{Prompt: "p", Expectations: []Expectation{
		{Text: "the answer is polite"},
		{Text: "passes", Command: []string{"true"}},
		{Text: "fails", Command: []string{"false"}},
		{Text: "the answer is short"},
	}}
	g, _ := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	f := false
	want := Grading{
		Expectations: []GradedExpectation{
			{Text: "the answer is polite", Evidence: "not graded: no judge", Graded: &f},
			{Text: "passes", Passed: true, Evidence: "exit status 0, no output"},
			{Text: "fails", Evidence: "exit status 1"},
			{Text: "the answer is short", Evidence: "not graded: no judge", Graded: &f},
		},
		Summary: GradingSummary{Passed: 1, Failed: 1, Total: 2, PassRate: 0.5, NotGraded: 2},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("grade without a judge (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"expectations":[{"text":"the answer is polite","passed":false,"evidence":"not graded: no judge","graded":false},` +
		`{"text":"passes","passed":true,"evidence":"exit status 0, no output"},{"text":"fails","passed":false,"evidence":"exit status 1"},` +
		`{"text":"the answer is short","passed":false,"evidence":"not graded: no judge","graded":false}],` +
		`"summary":{"passed":1,"failed":1,"total":2,"pass_rate":0.5,"not_graded":2}}`
	if string(b) != wantJSON {
		t.Errorf("grading.json = %s\nwant %s", b, wantJSON)
	}
}

func TestSummarize(t *testing.T) {
	f := false
	tests := []struct {
		name string
		xs   []GradedExpectation
		want GradingSummary
	}{
		{"none", nil, GradingSummary{}},
		{"all ungraded", []GradedExpectation{{Graded: &f}, {Graded: &f}}, GradingSummary{NotGraded: 2}},
		{"all pass", []GradedExpectation{{Passed: true}, {Passed: true}}, GradingSummary{Passed: 2, Total: 2, PassRate: 1}},
		{"mixed", []GradedExpectation{{Passed: true}, {}, {}, {Graded: &f}}, GradingSummary{Passed: 1, Failed: 2, Total: 3, PassRate: 1.0 / 3, NotGraded: 1}},
		{"all fail", []GradedExpectation{{}}, GradingSummary{Failed: 1, Total: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize(tt.xs); got != tt.want {
				t.Errorf("summarize = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"abc", 0, ""},
		{"aé", 2, "a"},
		{"a日本", 3, "a"},
		{"a日本", 4, "a日"},
		{"a😀", 4, "a"},
		{"\x80\x80\x80\x80\x80\x80", 5, "\x80\x80\x80\x80\x80"},
	}
	for _, tt := range tests {
		if got := string(cutUTF8([]byte(tt.in), tt.n)); got != tt.want {
			t.Errorf("cutUTF8(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestTimeoutDefaults(t *testing.T) {
	tests := []struct {
		name           string
		opts           []Option
		command, judge time.Duration
	}{
		{"none", nil, 2 * time.Minute, 10 * time.Minute},
		{"zero", []Option{WithCommandTimeout(0), WithJudgeTimeout(0)}, 2 * time.Minute, 10 * time.Minute},
		{"negative", []Option{WithCommandTimeout(-time.Second), WithJudgeTimeout(-time.Second)}, 2 * time.Minute, 10 * time.Minute},
		{"set", []Option{WithCommandTimeout(time.Second), WithJudgeTimeout(3 * time.Second)}, time.Second, 3 * time.Second},
		{"the last wins", []Option{WithCommandTimeout(time.Second), nil, WithCommandTimeout(5 * time.Second)}, 5 * time.Second, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(tt.opts...)
			if e.cfg.commandTimeout != tt.command || e.cfg.judgeTimeout != tt.judge {
				t.Errorf("New: command timeout %v, judge timeout %v; want %v, %v", e.cfg.commandTimeout, e.cfg.judgeTimeout, tt.command, tt.judge)
			}
		})
	}
}

func TestFailedRunGrading(t *testing.T) {
	// A run the agent failed fails every expectation it would grade; a
	// string one without a judge is left ungraded, as on a run that
	// succeeded.
	c := Case{Expectations: []Expectation{{Text: "polite"}, {Command: []string{"true"}}}}
	f := false
	tests := []struct {
		name  string
		judge *Agent
		want  Grading
	}{
		{"without a judge", nil, Grading{
			Expectations: []GradedExpectation{
				{Text: "polite", Evidence: "not graded: no judge", Graded: &f},
				{Text: "true", Evidence: "the run failed: boom"},
			},
			Summary:  GradingSummary{Failed: 1, Total: 1, NotGraded: 1},
			RunError: "boom",
		}},
		{"with a judge", &Agent{ID: "judge"}, Grading{
			Expectations: []GradedExpectation{
				{Text: "polite", Evidence: "the run failed: boom"},
				{Text: "true", Evidence: "the run failed: boom"},
			},
			Summary:  GradingSummary{Failed: 2, Total: 2},
			RunError: "boom",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, failedGrading(c, tt.judge, errors.New("boom"))); diff != "" {
				t.Errorf("failedGrading (-want +got):\n%s", diff)
			}
		})
	}
	// The review's case: a string expectation, no judge: nothing graded.
	if g := failedGrading(Case{Expectations: []Expectation{{Text: "polite"}}}, nil, errors.New("boom")); g.Summary.Total != 0 {
		t.Errorf("failed run without a judge: %+v, want the string expectation not graded", g.Summary)
	}
}

// cheatingAgent answers nothing, and writes evals/check.sh, passing, into
// its workspace: the checker it would be graded by, were a relative path
// taken in the workspace.
func cheatingAgent(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	if err := os.MkdirAll(filepath.Join(req.Workspace, "evals"), 0o755); err != nil {
		return nil, err
	}
	return &driver.Result{Text: "no answer"}, os.WriteFile(filepath.Join(req.Workspace, "evals", "check.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
}

func TestRunAgentCannotWriteItsChecker(t *testing.T) {
	// A checker of the skill, named by a path relative to SKILL_DIR as
	// the program, or through "$SKILL_DIR" as an argument, is the
	// skill's: the agent's evals/check.sh in the workspace is not run.
	for _, argv := range []string{
		`["evals/check.sh"]`,
		`["./evals/check.sh"]`,
		`["sh", "-c", "sh \"$SKILL_DIR/evals/check.sh\""]`,
	} {
		t.Run(argv, func(t *testing.T) {
			f := newFixture(t)
			writeEvals(t, f.skillDir, "evals/evals.json", `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
	 "expectations": [{"text": "answered correctly", "command": `+argv+`}]}]}`)
			writeEvals(t, f.skillDir, "evals/check.sh", "#!/bin/sh\ntest \"$(cat answer.txt)\" = 42\n")
			if err := os.Chmod(filepath.Join(f.skillDir, "evals", "check.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := f.evaluator().Run(t.Context(), f.request(&drivertest.Driver{Handler: cheatingAgent}))
			if err != nil {
				t.Fatal(err)
			}
			if got := b.RunSummary.WithSkill.PassRate.Mean; got != 0 {
				t.Errorf("an agent that wrote no answer.txt but its own evals/check.sh: pass rate %v, want 0", got)
			}
			// The skill's checker does run: an agent that answers passes.
			b, err = f.evaluator().Run(t.Context(), Request{Skill: f.request().Skill, Out: t.TempDir(),
				Agents: []Agent{{ID: "a", Driver: &drivertest.Driver{Handler: helpfulAgent}}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.RunSummary.WithSkill.PassRate.Mean; got != 1 {
				t.Errorf("an agent that answered: pass rate %v, want 1", got)
			}
		})
	}
}

func TestRunTransientGradingNotKept(t *testing.T) {
	// A judge that failed once (a rate limit) fails the run's string
	// expectations in that Run, and the next Run asks it again; so does
	// a command not found. An answer that does not parse is kept.
	f := newFixture(t)
	writeEvals(t, f.skillDir, "evals/evals.json", `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one", "expectations": ["polite"]}]}`)
	var calls atomic.Int32
	judge := &drivertest.Driver{Handler: func(ctx context.Context, req *driver.Request) (*driver.Result, error) {
		switch calls.Add(1) {
		case 1, 2:
			return nil, errors.New("429 rate limited")
		case 3, 4:
			return &driver.Result{Text: "I cannot decide"}, nil
		}
		return &driver.Result{Text: `{"expectations": [{"text": "polite", "passed": true, "evidence": "it says please"}]}`}, nil
	}}
	req := f.request(&drivertest.Driver{Handler: helpfulAgent})
	req.Judge = &Agent{ID: "judge", Driver: judge}
	ev := f.evaluator()
	iteration := "iteration-1"
	grading := func() GradedExpectation {
		var g Grading
		readJSONT(t, filepath.Join(f.out, iteration, "eval-1", "with_skill", "grading.json"), &g)
		return g.Expectations[0]
	}
	for i, want := range []string{
		"the judge failed: 429 rate limited",
		`the judge's answer did not parse: no JSON object with an "expectations" field (the answer began "I cannot decide")`,
		`the judge's answer did not parse: no JSON object with an "expectations" field (the answer began "I cannot decide")`,
	} {
		if _, err := ev.Run(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if x := grading(); x.Passed || x.Evidence != want {
			t.Errorf("Run %d: %+v, want a failure, %q", i+1, x, want)
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("%d judge runs, want 4: twice failed, twice not parsed, then kept", n)
	}

	// A command not found is graded again once it is there.
	writeEvals(t, f.skillDir, "evals/evals.json", `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
	 "expectations": [{"text": "checked", "command": ["agentskills-check-7f3a"]}]}]}`)
	req.Judge, iteration = nil, "iteration-2" // another evals.json: another version
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if x := grading(); x.Passed || x.Evidence != "not found: agentskills-check-7f3a: not on PATH" {
		t.Errorf("a command not on PATH: %+v", x)
	}
	bin := t.TempDir()
	writeEvals(t, bin, "agentskills-check-7f3a", "#!/bin/sh\necho found\n")
	if err := os.Chmod(filepath.Join(bin, "agentskills-check-7f3a"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := ev.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if x := grading(); !x.Passed || x.Evidence != "found" {
		t.Errorf("the command once on PATH: %+v, want it run, found", x)
	}
}

func TestRunCommandTimeoutInGradingKey(t *testing.T) {
	f := newFixture(t)
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(f.out, ".runs", "*", gradingsDir, "*.json"))
	ev2 := New(WithMaterializer(f.mat), WithCommandTimeout(time.Minute))
	if _, err := ev2.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(f.out, ".runs", "*", gradingsDir, "*.json"))
	if len(before) != 4 || len(after) != 8 || d.Calls() != 4 {
		t.Errorf("gradings %d then %d, %d agent runs; want 4 then 8 (each run graded again under another command timeout), 4", len(before), len(after), d.Calls())
	}
}

func TestRunCommandCannotWriteKeptOutputs(t *testing.T) {
	// A command graded on a kept run writes to a copy of its outputs:
	// neither the kept run nor an iteration's files (hard links to it)
	// change, and what it writes is no output of the agent's.
	f := newFixture(t)
	suite := `{"skill_name": "demo", "evals": [{"id": 1, "prompt": "answer one",
	 "expectations": [{"text": "TEXT", "command": ["sh", "-c", "echo graded >> \"$OUTPUTS_DIR/sub/dir/run.sh\"; echo x > \"$OUTPUTS_DIR/planted.txt\""]}]}]}`
	writeEvals(t, f.skillDir, "evals/evals.json", strings.Replace(suite, "TEXT", "a", 1))
	d := &drivertest.Driver{Handler: helpfulAgent}
	ev := f.evaluator()
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	outputs := filepath.Join(f.out, "iteration-1", "eval-1", "without_skill", "outputs")
	checkFile(t, filepath.Join(outputs, "sub", "dir", "run.sh"), "#!/bin/sh\n")
	writeEvals(t, f.skillDir, "evals/evals.json", strings.Replace(suite, "TEXT", "b", 1))
	if _, err := ev.Run(t.Context(), f.request(d)); err != nil {
		t.Fatal(err)
	}
	checkFile(t, filepath.Join(outputs, "sub", "dir", "run.sh"), "#!/bin/sh\n")
	for _, dir := range []string{outputs, filepath.Join(f.out, "iteration-2", "eval-1", "without_skill", "outputs")} {
		if diff := cmp.Diff([]string{"sub/dir/run.sh"}, tree(t, dir)); diff != "" {
			t.Errorf("%s after grading (-want +got):\n%s", dir, diff)
		}
	}
}

func TestCommandOutputsCopyFails(t *testing.T) {
	// outputs/ that cannot be copied (here a file, not a folder): every
	// command fails, not run, and the grading is not kept; no copy is
	// left behind.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	skillDir, runDir, ws := gradeDirs(t)
	if err := os.Remove(filepath.Join(runDir, "outputs")); err != nil {
		t.Fatal(err)
	}
	writeEvals(t, runDir, "outputs", "a file")
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "a", Command: []string{"true"}}, {Text: "b", Command: []string{"true"}}}}
	g, settled := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	for _, x := range g.Expectations {
		if x.Passed || !strings.HasPrefix(x.Evidence, "not run: the copy of the outputs: ") {
			t.Errorf("%s: passed %v, %q; want a failure, not run: the copy of the outputs: ...", x.Text, x.Passed, x.Evidence)
		}
	}
	if settled {
		t.Error("the grading is kept, want it graded again")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}
