// Package launch is what every agent-CLI driver does around the process
// runner: check the request, find the program on the agent's PATH, settle
// the workspace, run the program on the prompt, and turn how it ended and
// its result line into the run's result or error.
package launch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Program describes the agent CLI a driver runs.
type Program struct {
	// Name prefixes the driver's errors ("claude").
	Name string
	// Command is the program: a path, or a name looked up on the agent's
	// PATH.
	Command string
	// Env is added to this process's environment for the agent.
	Env []string
	// Install says how to get the program, for the error when it is
	// missing.
	Install string
}

// NewProgram returns the Program of the driver name for its Config's
// command (default: name) and env, which it copies, so that changes the
// caller makes later do not reach the driver's runs.
func NewProgram(name, command string, env []string, install string) Program {
	if command == "" {
		command = name
	}
	return Program{Name: name, Command: command, Env: slices.Clone(env), Install: install}
}

// CacheRoot is a driver Config's CacheRoot: root, else the root of the
// default skill cache, where the default materializer keeps skills.
func CacheRoot(root string) string {
	if root == "" {
		return skill.NewCache().Root()
	}
	return root
}

// Launch is a run ready to start.
type Launch struct {
	// Path is the absolute path of the program.
	Path string
	// Env is the agent's whole environment.
	Env []string
	// Workspace is the absolute folder the agent works in: the request's,
	// else the current one.
	Workspace string
}

// Prepare refuses a nil request and a context already done (wrapping
// both the context's error and its cause), finds the program on the PATH
// of the agent's environment, and settles the workspace. A missing program
// is a *driver.ProcessError that says how to install it.
func Prepare(ctx context.Context, req *driver.Request, p Program) (*Launch, error) {
	if req == nil {
		return nil, fmt.Errorf("%s: nil request", p.Name)
	}
	if err := ctx.Err(); err != nil {
		if cause := context.Cause(ctx); cause != err {
			return nil, fmt.Errorf("%s: %w: %w", p.Name, err, cause)
		}
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	l := &Launch{Env: process.MergeEnv(os.Environ(), p.Env), Workspace: req.Workspace}
	var err error
	if l.Path, err = process.LookPath(p.Command, l.Env); err != nil {
		return nil, &driver.ProcessError{Command: p.Command, ExitCode: -1, Err: fmt.Errorf("%w (%s)", err, p.Install)}
	}
	if l.Workspace == "" {
		if l.Workspace, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Run runs the program with args in the request's workspace, in the
// environment env, with the request's prompt on its standard input and
// grace between SIGINT and SIGKILL when it is stopped; each line of its
// output goes to line, as [process.Run] says.
func (l *Launch) Run(ctx context.Context, req *driver.Request, args, env []string, grace time.Duration, line func([]byte) error) (process.Exit, error) {
	return process.Run(ctx, process.Command{
		Path:  l.Path,
		Args:  args,
		Dir:   req.Workspace,
		Env:   env,
		Stdin: req.Prompt,
		Grace: grace,
	}, line)
}

// Ended is how a run's process ended.
type Ended struct {
	// Name prefixes the driver's errors ("claude").
	Name string
	// Path is the program that ran.
	Path string
	// Exit is how the process exited.
	Exit process.Exit
	// Err is the error of [process.Run]: the run was cancelled, or its
	// output could not be read.
	Err error
}

// ProcessError describes the process, for a run that failed as a process.
func (e Ended) ProcessError() *driver.ProcessError {
	return &driver.ProcessError{Command: e.Path, ExitCode: e.Exit.Code, Signal: e.Exit.Signal, Stderr: e.Exit.Stderr, Err: e.Err}
}

// Result turns how the process ended and the run's result line (nil: none
// came) into the run's result. A run stopped (Err) is a process error,
// whatever it said; one without a result line is a process error when the
// process failed, else [NoResult]; an error result is a
// *driver.AgentError holding the result; a result with a non-zero exit is
// a process error. The result's session is the result line's, else
// sessionID.
func (e Ended) Result(ev *driver.ResultEvent, sessionID string) (*driver.Result, error) {
	if e.Err != nil {
		return nil, e.ProcessError()
	}
	if ev == nil {
		if e.Exit.Code != 0 || e.Exit.Signal != "" {
			return nil, e.ProcessError()
		}
		return nil, NoResult(e.Name, e.Exit.Stderr)
	}
	res := &driver.Result{Text: ev.Text, SessionID: ev.SessionID, Usage: ev.Usage, CostUSD: ev.CostUSD, ExitCode: e.Exit.Code}
	if res.SessionID == "" {
		res.SessionID = sessionID
	}
	if ev.IsError {
		return nil, &driver.AgentError{Subtype: ev.Subtype, Message: ev.Text, Result: res}
	}
	if e.Exit.Code != 0 {
		return nil, e.ProcessError()
	}
	return res, nil
}

// NoResult is the error of a run whose output ended without a result
// although the program exited 0: it wraps driver.ErrNoResult (and is not a
// process failure) and shows the end of the program's stderr.
func NoResult(name, stderr string) error {
	msg := name + ": " + driver.ErrNoResult.Error()
	if tail := strings.TrimSpace(stderr); tail != "" {
		msg += "; stderr: " + tail
	}
	return &noResultError{msg}
}

type noResultError struct{ msg string }

func (e *noResultError) Error() string { return e.msg }
func (e *noResultError) Unwrap() error { return driver.ErrNoResult }
