package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// maxEvidence is the most of a command's output, or of a judge's
// evidence, kept as an expectation's evidence, in bytes; the rest is
// counted ("… (N more bytes)").
const maxEvidence = 4 << 10

// maxCommandLine is the longest line of a command's standard output
// read; a longer line is skipped and counted among the bytes left out.
const maxCommandLine = 1 << 20

// commandGrace is the time between SIGINT and SIGKILL when a command
// outlasts its timeout: a check has no state worth a long goodbye.
const commandGrace = time.Second

// errCommandTimeout and errJudgeTimeout are the causes of the contexts
// that bound a command and a judge, so that their end is told apart from
// the caller's.
var (
	errCommandTimeout = errors.New("command timeout")
	errJudgeTimeout   = errors.New("judge timeout")
)

// grade grades one finished run: each command expectation by its
// command, run in workspace, and every string expectation by one run of
// judge (none when judge is nil: they are left ungraded). runDir holds
// the run's outputs/ and response.md; res is the agent's result. It
// never fails: a grading that cannot be done is a failed expectation
// whose evidence says why. final is false when such a failure may pass
// another time (a judge that failed or outlasted its timeout, a command
// not found, not run or stopped): that grading is not kept.
func (e *Evaluator) grade(ctx context.Context, judge *Agent, skillDir string, c Case, runDir, workspace string, res *adaptor.Result) (g Grading, final bool) {
	g = Grading{Expectations: make([]GradedExpectation, len(c.Expectations))}
	final = true
	if abs, err := filepath.Abs(skillDir); err == nil {
		skillDir = abs // a program's relative path is taken in its folder
	}
	if abs, err := filepath.Abs(workspace); err == nil {
		workspace = abs
	}
	var judged []int
	var env []string
	var copyErr error
	for i, x := range c.Expectations {
		if x.Command == nil {
			judged = append(judged, i)
			continue
		}
		if env == nil && copyErr == nil {
			var outputs string
			outputs, copyErr = commandOutputs(runDir)
			if outputs != "" {
				defer removeWorkspace(outputs) // whatever the commands did to it
			}
			env = commandEnv(skillDir, filepath.Join(outputs, "outputs"))
		}
		if copyErr != nil {
			g.Expectations[i] = GradedExpectation{Text: expectationText(x), Evidence: "not run: the copy of the outputs: " + copyErr.Error()}
			final = false
			continue
		}
		var ok bool
		g.Expectations[i], ok = e.runCommand(ctx, x, skillDir, workspace, env)
		final = final && ok
	}
	if len(judged) > 0 {
		texts := make([]string, len(judged))
		for k, i := range judged {
			texts[k] = c.Expectations[i].Text
		}
		var verdicts []GradedExpectation
		if judge == nil {
			verdicts = notGraded(texts)
		} else {
			var ok bool
			verdicts, ok = e.judgeRun(ctx, judge, c, texts, runDir, res)
			final = final && ok
		}
		for k, i := range judged {
			g.Expectations[i] = verdicts[k]
		}
	}
	g.Summary = summarize(g.Expectations)
	return g, final
}

// commandOutputs makes the commands' copy of runDir/outputs, as the
// outputs/ folder of a fresh temporary folder, and returns that folder
// ("" when none was made; the caller removes it).
func commandOutputs(runDir string) (string, error) {
	dir, err := os.MkdirTemp("", "agentskills-outputs-")
	if err != nil {
		return "", err
	}
	_, err = copyOutputsTo(dir, filepath.Join(runDir, "outputs"))
	return dir, err
}

// failedGrading is the grading of a run the agent failed: every
// expectation failed, the failure as the evidence, but for a string one
// without a judge, left ungraded as on a run that succeeded.
func failedGrading(c Case, judge *Agent, err error) Grading {
	g := Grading{Expectations: []GradedExpectation{}}
	for _, x := range c.Expectations {
		if x.Command == nil && judge == nil {
			g.Expectations = append(g.Expectations, notGraded([]string{x.Text})...)
			continue
		}
		g.Expectations = append(g.Expectations, GradedExpectation{Text: expectationText(x), Evidence: "the run failed: " + err.Error()})
	}
	g.Summary = summarize(g.Expectations)
	g.RunError = err.Error()
	return g
}

// expectationText is the text a grading gives x: its own, or its
// command's words.
func expectationText(x Expectation) string {
	if x.Text == "" && x.Command != nil {
		return strings.Join(x.Command, " ")
	}
	return x.Text
}

// notGraded lists texts as left ungraded.
func notGraded(texts []string) []GradedExpectation {
	out := make([]GradedExpectation, len(texts))
	for i, t := range texts {
		graded := false
		out[i] = GradedExpectation{Text: t, Evidence: "not graded: no judge", Graded: &graded}
	}
	return out
}

// summarize counts the graded expectations of xs.
func summarize(xs []GradedExpectation) GradingSummary {
	var s GradingSummary
	for _, x := range xs {
		switch {
		case x.Graded != nil && !*x.Graded:
			s.NotGraded++
		case x.Passed:
			s.Passed++
		default:
			s.Failed++
		}
	}
	s.Total = s.Passed + s.Failed
	if s.Total > 0 {
		s.PassRate = float64(s.Passed) / float64(s.Total)
	}
	return s
}

// commandEnv is the environment of a run's commands: this process's,
// with SKILL_DIR and OUTPUTS_DIR (the commands' copy of outputs/), both
// absolute.
func commandEnv(skillDir, outputs string) []string {
	if abs, err := filepath.Abs(outputs); err == nil {
		outputs = abs
	}
	return process.MergeEnv(os.Environ(), []string{"SKILL_DIR=" + skillDir, "OUTPUTS_DIR=" + outputs})
}

// runCommand grades x by its command: ARGV run in workspace with env and
// empty standard input, passing when it exits 0 within the command
// timeout, its program a name on the PATH or a path in skillDir. Its
// standard output and standard error, line by line as they come, are
// the evidence. The program runs in a process group of its own, killed
// when it exits or is stopped, so a child it leaves behind holding the
// output open cannot keep the grading waiting. final is false for a
// command not found, not run or stopped: the next grading runs it again.
func (e *Evaluator) runCommand(ctx context.Context, x Expectation, skillDir, workspace string, env []string) (out GradedExpectation, final bool) {
	out = GradedExpectation{Text: expectationText(x)}
	if len(x.Command) == 0 {
		out.Evidence = "not run: the command is empty" // LoadSuite refuses it
		return out, false
	}
	path, err := commandPath(x.Command[0], skillDir, env)
	if err != nil {
		out.Evidence = "not found: " + err.Error()
		return out, false
	}
	var buf capture
	cmd := process.Command{
		Path:       path,
		Args:       x.Command[1:],
		Dir:        workspace,
		Env:        env,
		Grace:      commandGrace,
		StderrTail: 1, // the lines are kept in buf
		MaxLine:    maxCommandLine,
		Overlong:   buf.skipped,
		StderrLine: func(line string) { buf.add([]byte(line)) },
	}
	cctx, cancel := context.WithTimeoutCause(ctx, e.cfg.commandTimeout, errCommandTimeout)
	defer cancel()
	exit, err := process.Run(cctx, cmd, func(line []byte) error {
		buf.add(line)
		return nil
	})
	output := buf.String()
	final = true
	switch {
	case err != nil && errors.Is(context.Cause(cctx), errCommandTimeout):
		out.Evidence, final = join(fmt.Sprintf("stopped after %v", e.cfg.commandTimeout), output), false
	case err != nil && cctx.Err() != nil:
		out.Evidence, final = join("stopped: "+context.Cause(cctx).Error(), output), false
	case err != nil:
		out.Evidence, final = join("not run: "+err.Error(), output), false
	case exit.Signal != "":
		out.Evidence = join("stopped by signal "+exit.Signal, output)
	case exit.Code != 0:
		out.Evidence = join(fmt.Sprintf("exit status %d", exit.Code), output)
	default:
		out.Passed = true
		out.Evidence = output
		if output == "" {
			out.Evidence = "exit status 0, no output"
		}
	}
	return out, final
}

// join puts the output, if any, after what happened.
func join(what, output string) string {
	if output == "" {
		return what
	}
	return what + ": " + output
}

// commandPath finds a command's program: a name without a slash on the
// PATH of env, any other path relative to skillDir (the staged skill,
// which the agent cannot write: a path in the workspace would run what
// the agent left there).
func commandPath(name, skillDir string, env []string) (string, error) {
	if name == "" {
		return "", errors.New(`"": an empty program name`)
	}
	if !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, filepath.Separator) {
		p, err := process.LookPath(name, env)
		if err != nil {
			return "", fmt.Errorf("%s: not on PATH", name)
		}
		return p, nil
	}
	p := filepath.FromSlash(name)
	if !filepath.IsAbs(p) {
		p = filepath.Join(skillDir, p)
	}
	if _, err := exec.LookPath(p); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("%s: %v", name, err)
	}
	return p, nil
}

// capture keeps the first maxEvidence bytes of a command's output lines,
// and counts the rest. It is safe for concurrent use: standard output
// and standard error arrive from two goroutines.
type capture struct {
	mu   sync.Mutex
	b    []byte
	more int64
}

// add keeps line and its newline, as far as there is room.
func (c *capture) add(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(line) + 1
	room := maxEvidence - len(c.b)
	if n <= room {
		c.b = append(append(c.b, line...), '\n')
		return
	}
	kept := cutUTF8(line, room)
	c.b = append(c.b, kept...)
	c.more += int64(n - len(kept))
}

// skipped counts a line too long to read.
func (c *capture) skipped(size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.more += int64(size) + 1
}

// String is the output kept, as valid UTF-8 without a final newline,
// followed by the count of the bytes left out.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.ToValidUTF8(strings.TrimRight(string(c.b), "\n"), "\uFFFD")
	if c.more > 0 {
		s += moreBytes(c.more)
	}
	return s
}

// cutUTF8 is the longest prefix of s of at most n bytes that does not
// split a character: the one cut of every text this package shortens.
func cutUTF8[T ~string | ~[]byte](s T, n int) T {
	if n <= 0 {
		return s[:0]
	}
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut > n-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if !utf8.RuneStart(s[cut]) {
		cut = n // not UTF-8 there: cut where the limit says
	}
	return s[:cut]
}

// clip is s cut to at most n bytes by cutUTF8, the rest counted ("… (N
// more bytes)").
func clip(s string, n int) string {
	kept := cutUTF8(s, n)
	if len(kept) == len(s) {
		return s
	}
	return kept + moreBytes(int64(len(s)-len(kept)))
}

// moreBytes counts the bytes a cut left out.
func moreBytes(n int64) string {
	return fmt.Sprintf("… (%d more bytes)", n)
}
