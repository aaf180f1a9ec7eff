// Package launch is what every agent-CLI driver does around the process
// runner: check the request, find the program on the agent's PATH, settle
// the workspace, and say what a run that ended without a result left.
package launch

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
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
