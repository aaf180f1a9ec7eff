package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Errors every driver reports the same way; test for them with errors.Is.
// A run stopped by its context also wraps the context's error, so
// errors.Is(err, context.Canceled) and errors.Is(err,
// context.DeadlineExceeded) hold.
var (
	// ErrProcessFailed: the agent's process could not start, exited with a
	// failure or a signal, or was stopped (its context was done). The error
	// is a *ProcessError.
	ErrProcessFailed = errors.New("agent process failed")
	// ErrAgentFailed: the agent ran and reported that the run failed. The
	// error is an *AgentError.
	ErrAgentFailed = errors.New("agent reported an error")
	// ErrNoResult: the agent's output ended without a final result.
	ErrNoResult = errors.New("agent output ended without a result")
	// ErrResumeRejected: the agent refused to resume the requested
	// session (unknown, expired, or from another folder).
	ErrResumeRejected = errors.New("agent rejected the session to resume")
	// ErrInvalidSessionID: the session id to resume does not have the
	// form of the agent's ids (a UUID for most agents, "ses_..." for
	// OpenCode: the driver's Descriptor says, in SessionIDs). It is
	// refused before the agent starts, and always comes with
	// [ErrResumeRejected], so a caller that starts a new session when a
	// resume is rejected does so here too; test for it to tell bad input
	// from a session the agent no longer has.
	ErrInvalidSessionID = errors.New("invalid session id")
	// ErrSkillsNotMounted: the agent does not report seeing every skill the
	// driver mounted. The error is a *NotMountedError.
	ErrSkillsNotMounted = errors.New("agent does not see every mounted skill")
	// ErrSkillShadowed: a skill of the user's or the project's, with the
	// same name as one of the run's and other content, would hide it from
	// the agent. The error is a *ShadowError.
	ErrSkillShadowed = errors.New("a same-named skill with other content would shadow the run's")
	// ErrNestedSkills: the workspace holds, in a folder below its top, a
	// skills folder that the agent would load beside the run's skills
	// (Claude Code loads pkg/.claude/skills as soon as it reads a file
	// in pkg). A run is refused before the agent starts, so that it
	// sees exactly the run's skills. The error is a *NestedSkillsError.
	ErrNestedSkills = errors.New("the workspace holds skill folders the agent would load beside the run's")
	// ErrProgramNotFound: the agent's program is not on the agent's PATH
	// (or the path given is not a program). The error is a
	// *ProgramNotFoundError, held by a *ProcessError, so
	// [ErrProcessFailed] holds too.
	ErrProgramNotFound = errors.New("agent program not found")
	// ErrArgRefused: an argument to pass through to the agent on someone
	// else's behalf (a command line's user) could be read as something
	// else than the option it names, or names an option the driver sets
	// itself. It is refused before the agent starts. The error is an
	// *ArgError.
	ErrArgRefused = errors.New("argument cannot be passed to the agent")
	// ErrProviderSetup: the agent is not set up to reach a model API as
	// its environment and settings stand (a variable missing, a setting
	// it needs, a base URL where nothing listens). A driver checks what
	// it can before the agent starts, and words what the agent says when
	// it refuses to start for such a reason; the error says what to set,
	// and where.
	ErrProviderSetup = errors.New("agent is not set up to reach a model")
)

// ProgramNotFoundError reports an agent program that is not there, with
// how to get it and how to name another.
type ProgramNotFoundError struct {
	// Command is the program looked for: a name or a path.
	Command string
	// Agent names the agent ("Claude Code").
	Agent string
	// Package is the npm package that installs it
	// ("@anthropic-ai/claude-code").
	Package string
	// Field is the Config field that names another program
	// ("claude.Config.Command").
	Field string
	// Err is the cause, from looking the program up.
	Err error
}

// Error describes the failure and says what to do.
func (e *ProgramNotFoundError) Error() string {
	return fmt.Sprintf("%v (install %s with `npm install -g %s`, or set %s)", e.Err, e.Agent, e.Package, e.Field)
}

// Is reports whether target is [ErrProgramNotFound].
func (e *ProgramNotFoundError) Is(target error) bool { return target == ErrProgramNotFound }

// Unwrap returns the cause.
func (e *ProgramNotFoundError) Unwrap() error { return e.Err }

// ArgError reports an argument refused before the agent starts (see
// [ErrArgRefused]).
type ArgError struct {
	// Agent is the driver's name ("claude").
	Agent string
	// Arg is the argument as given.
	Arg string
	// Option is the option the driver sets that it names
	// ("--output-format"); empty when it is refused for its form.
	Option string
	// Field is the Config field that sets that option ("Model"), when
	// one does: set the field instead. Empty when the driver sets the
	// option itself, or the argument is refused for its form.
	Field string
	// Reason says why it is refused.
	Reason string
}

// Error describes the failure.
func (e *ArgError) Error() string {
	return fmt.Sprintf("%s: argument %q refused: %s", e.Agent, e.Arg, e.Reason)
}

// Is reports whether target is [ErrArgRefused].
func (e *ArgError) Is(target error) bool { return target == ErrArgRefused }

// ProcessError reports an agent process that could not start, failed, or
// was stopped.
type ProcessError struct {
	// Command is the program that was run.
	Command string
	// ExitCode is the exit status, or -1 when the process did not exit on
	// its own (a signal) or did not start.
	ExitCode int
	// Signal names the signal that ended the process ("interrupt",
	// "killed"), if one did.
	Signal string
	// Stderr is the end of what the process wrote to its standard error.
	Stderr string
	// Err is the cause: the error from starting or waiting, or the
	// context's error when the run was cancelled.
	Err error
}

// Error describes the failure.
func (e *ProcessError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", e.Command)
	switch {
	case errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded):
		fmt.Fprintf(&b, "stopped: %v", e.Err)
	case e.Signal != "":
		fmt.Fprintf(&b, "stopped by signal %s", e.Signal)
	case e.ExitCode >= 0:
		fmt.Fprintf(&b, "exit status %d", e.ExitCode)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString("failed")
	}
	if e.Err != nil && !errors.Is(e.Err, context.Canceled) && !errors.Is(e.Err, context.DeadlineExceeded) && (e.Signal != "" || e.ExitCode >= 0) {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	if tail := strings.TrimSpace(e.Stderr); tail != "" {
		fmt.Fprintf(&b, "; stderr: %s", tail)
	}
	return b.String()
}

// Is reports whether target is [ErrProcessFailed].
func (e *ProcessError) Is(target error) bool { return target == ErrProcessFailed }

// Unwrap returns the cause.
func (e *ProcessError) Unwrap() error { return e.Err }

// AgentError reports a run the agent itself ended with an error result.
type AgentError struct {
	// Subtype is the agent's kind of error ("error_max_turns",
	// "error_during_execution", ...), when it gives one.
	Subtype string
	// Message is what the agent said.
	Message string
	// Result holds what the run produced anyway: session id, usage, cost.
	Result *Result
}

// Error describes the failure.
func (e *AgentError) Error() string {
	msg := "agent reported an error"
	if e.Subtype != "" {
		msg += " (" + e.Subtype + ")"
	}
	if m := strings.TrimSpace(e.Message); m != "" {
		msg += ": " + m
	}
	return msg
}

// Is reports whether target is [ErrAgentFailed].
func (e *AgentError) Is(target error) bool { return target == ErrAgentFailed }

// NotMountedError reports mounted skills the agent did not load.
type NotMountedError struct {
	// Missing are the runtime names the agent did not report.
	Missing []string
	// Reported are the skill names the agent did report.
	Reported []string
}

// Error describes the failure.
func (e *NotMountedError) Error() string {
	if e.Reported == nil {
		return fmt.Sprintf("agent reported no skills (no system/init), so the mounted skills %s are not known to be loaded",
			strings.Join(e.Missing, ", "))
	}
	return fmt.Sprintf("agent does not see the mounted skills %s (it reports %s)",
		strings.Join(e.Missing, ", "), listOrNone(e.Reported))
}

// Is reports whether target is [ErrSkillsNotMounted].
func (e *NotMountedError) Is(target error) bool { return target == ErrSkillsNotMounted }

// ShadowError reports a skill of the user's or the project's that has the
// name of one of the run's skills and other content.
type ShadowError struct {
	// Name is the skill's runtime name.
	Name string
	// Ours is the folder of the run's skill.
	Ours string
	// Theirs is the folder of the other skill that the agent would load.
	Theirs string
}

// Error describes the failure.
func (e *ShadowError) Error() string {
	return fmt.Sprintf("skill %q in %s has other content than the run's skill in %s and would shadow it; rename one of them (skill.MetadataRuntimeName) or remove %s",
		e.Name, e.Theirs, e.Ours, e.Theirs)
}

// Is reports whether target is [ErrSkillShadowed].
func (e *ShadowError) Is(target error) bool { return target == ErrSkillShadowed }

// NestedSkillsError reports the skills folders below the top of a run's
// workspace that the agent would load beside the run's skills (see
// [ErrNestedSkills]).
type NestedSkillsError struct {
	// Agent names the agent ("Claude Code").
	Agent string
	// Workspace is the folder the agent would work in.
	Workspace string
	// Folders are the skills folders, absolute and sorted
	// (<workspace>/pkg/.claude/skills).
	Folders []string
}

// Error describes the failure and says what to do.
func (e *NestedSkillsError) Error() string {
	return fmt.Sprintf("workspace %s holds skill folders that %s would load beside the run's skills as soon as it reads a file near them: %s; move or rename them (or git-ignore their folders where the agent skips ignored ones), or run in a workspace without them",
		e.Workspace, e.Agent, strings.Join(e.Folders, ", "))
}

// Is reports whether target is [ErrNestedSkills].
func (e *NestedSkillsError) Is(target error) bool { return target == ErrNestedSkills }

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
