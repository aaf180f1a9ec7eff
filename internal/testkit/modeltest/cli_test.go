package modeltest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// What the tests that run the real Claude Code and Codex CLIs share: a
// run's outcome and the ways of running the CLI.

// cliRun is the outcome of one run of a CLI.
type cliRun struct {
	Stdout, Stderr string
	Code           int
	Took           time.Duration
	Lines          []map[string]any // stdout, one JSON object a line
}

// cliCmd is a command that runs a CLI, keeping its output.
type cliCmd struct {
	*exec.Cmd
	stdout, stderr bytes.Buffer
}

// newCLICmd returns a command that runs cli with args in dir, with env
// and the prompt on stdin.
func newCLICmd(ctx context.Context, cli string, env []string, dir, prompt string, args ...string) *cliCmd {
	c := &cliCmd{Cmd: exec.CommandContext(ctx, cli, args...)}
	c.Env, c.Dir, c.Stdin = env, dir, strings.NewReader(prompt)
	c.Stdout, c.Stderr = &c.stdout, &c.stderr
	return c
}

// outcome returns the outcome of the finished command, which ran for
// took, and an error for the first stdout line that is not a JSON object
// (the line is in Lines all the same, as nil or as far as it parsed).
func (c *cliCmd) outcome(took time.Duration) (*cliRun, error) {
	r := &cliRun{Stdout: c.stdout.String(), Stderr: c.stderr.String(), Code: c.ProcessState.ExitCode(), Took: took}
	var bad error
	for l := range strings.Lines(r.Stdout) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil && bad == nil {
			bad = fmt.Errorf("stdout line %q: %v", l, err)
		}
		r.Lines = append(r.Lines, m)
	}
	return r, bad
}

// finish is [cliCmd.outcome], failing the test for a stdout line that is
// not a JSON object.
func (c *cliCmd) finish(t *testing.T, took time.Duration) *cliRun {
	t.Helper()
	r, err := c.outcome(took)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// signal sends sig to the started command, waits for it to exit and
// returns its outcome, Took counting from the signal.
func (c *cliCmd) signal(t *testing.T, sig os.Signal) *cliRun {
	t.Helper()
	start := time.Now()
	if err := c.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	return c.finish(t, time.Since(start))
}

// runCLI runs cli with args in dir, with env and the prompt on stdin, for
// at most a minute. It fails the test when the CLI cannot be run or runs
// out of time.
func runCLI(t *testing.T, cli string, env []string, dir, prompt string, args ...string) *cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCLICmd(ctx, cli, env, dir, prompt, args...)
	c.WaitDelay = 5 * time.Second
	start := time.Now()
	err := c.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil {
		t.Fatalf("%s %v: %v (%v)\nstderr: %s", filepath.Base(cli), args, err, ctx.Err(), c.stderr.String())
	}
	return c.finish(t, time.Since(start))
}

// runAtOnce starts n runs of cli with args at once, all in dir with env
// and the prompt on stdin, each for at most a minute, and returns their
// outcomes in the order they ended. Stdout lines that are not JSON are
// kept as nil.
func runAtOnce(t *testing.T, n int, cli string, env []string, dir, prompt string, args ...string) []*cliRun {
	done := make(chan *cliRun, n)
	for range n {
		go func() {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			c := newCLICmd(ctx, cli, env, dir, prompt, args...)
			c.Run()
			r, _ := c.outcome(0)
			done <- r
		}()
	}
	out := make([]*cliRun, 0, n)
	for range n {
		out = append(out, <-done)
	}
	return out
}

// countMatches checks how many of files match each pattern: the number
// it maps to, or at least one for -1.
func countMatches(t *testing.T, files []string, patterns map[string]int) {
	t.Helper()
	for pattern, want := range patterns {
		re := regexp.MustCompile(pattern)
		n := len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return !re.MatchString(f) }))
		if want < 0 && n == 0 || want >= 0 && n != want {
			t.Errorf("%d files match %s, want %d", n, pattern, want)
		}
	}
}
