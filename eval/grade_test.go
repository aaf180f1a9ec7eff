package eval

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	skillDir, runDir, ws := gradeDirs(t)
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "check", Command: argv}}}
	g := e.grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	if len(g.Expectations) != 1 {
		t.Fatalf("grade: %d expectations, want 1", len(g.Expectations))
	}
	return g.Expectations[0]
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
	}{
		{"exit 0 passes with its output", []string{"sh", "-c", "echo all good"}, true, "all good"},
		{"exit 0 without output", []string{"true"}, true, "exit status 0, no output"},
		{"stdin is empty", []string{"cat"}, true, "exit status 0, no output"},
		{"a failure with its output", []string{"sh", "-c", "echo 'expected 3 rows, got 2' >&2; exit 3"}, false, "exit status 3: expected 3 rows, got 2"},
		{"a failure without output", []string{"false"}, false, "exit status 1"},
		{"killed by a signal", []string{"sh", "-c", "echo bye; kill -TERM $$"}, false, "stopped by signal terminated: bye"},
		{"a program not on PATH", []string{"no-such-program-7f3a"}, false, "not found: no-such-program-7f3a: not on PATH"},
		{"a path not in the workspace", []string{"./no-such-check.sh"}, false, "not found: ./no-such-check.sh: no such file or directory"},
		{"an empty program name", []string{""}, false, `not found: "": an empty program name`},
		{"an empty command", []string{}, false, "not run: the command is empty"},
		{"arguments reach the program", []string{"sh", "-c", `printf '%s|' "$@"`, "sh", "a b", "c"}, true, "a b|c|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gradeCommand(t, e, tt.argv...)
			if got.Passed != tt.passed || got.Evidence != tt.evidence || got.Graded != nil {
				t.Errorf("grade(%q) = passed %v, evidence %q, graded %v; want passed %v, evidence %q, graded nil",
					tt.argv, got.Passed, got.Evidence, got.Graded, tt.passed, tt.evidence)
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
	skillDir, runDir, ws := gradeDirs(t)
	script := filepath.Join(ws, "bin", "check.sh")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "#!/bin/sh\npwd\necho \"$SKILL_DIR\"\necho \"$OUTPUTS_DIR\"\ntest -f result.txt && echo has-result\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "plain.sh"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "result.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "garbage"), []byte("\x00\x01\x02 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Case{Prompt: "p", Expectations: []Expectation{
		{Text: "relative to the workspace", Command: []string{"bin/check.sh"}},
		{Text: "dot-relative", Command: []string{"./bin/check.sh"}},
		{Text: "not executable", Command: []string{"./plain.sh"}},
		{Text: "not a program", Command: []string{"./garbage"}},
	}}
	g := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
	want := strings.Join([]string{ws, skillDir, filepath.Join(runDir, "outputs"), "has-result"}, "\n")
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
}

func TestCommandRelativeFolders(t *testing.T) {
	// Relative folders are taken in this process's folder: the command
	// gets SKILL_DIR absolute, and a program's relative path is found in
	// the workspace.
	parent := t.TempDir()
	t.Chdir(parent)
	for _, dir := range []string{"myskill", "run/outputs", "ws"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("ws/check.sh", []byte("#!/bin/sh\npwd\necho \"$SKILL_DIR\"\necho \"$OUTPUTS_DIR\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "t", Command: []string{"./check.sh"}}}}
	g := New().grade(t.Context(), nil, "myskill", c, "run", "ws", nil)
	want := strings.Join([]string{filepath.Join(parent, "ws"), filepath.Join(parent, "myskill"), filepath.Join(parent, "run", "outputs")}, "\n")
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
		{"a lingering child that left the group", "setsid sleep 100 & echo escaped", true, "escaped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.script, "setsid") {
				if _, err := exec.LookPath("setsid"); err != nil {
					t.Skip("no setsid")
				}
			}
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

func TestCommandCancelled(t *testing.T) {
	skillDir, runDir, ws := gradeDirs(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c := Case{Prompt: "p", Expectations: []Expectation{{Text: "t", Command: []string{"true"}}}}
	g := New().grade(ctx, nil, skillDir, c, runDir, ws, nil)
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
	g := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
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
	g := New().grade(t.Context(), nil, skillDir, c, runDir, ws, nil)
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
