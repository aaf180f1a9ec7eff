package main

import (
	"encoding/json"
	"errors"

	"github.com/spf13/cobra"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/source"
)

// The codes of the error line that ends the --json output of a failed
// command (errorLine.Code). They are stable: programs switch on them.
const (
	codeUsage       = "usage"       // bad usage: an unknown flag, a missing argument (exit 2)
	codeInput       = "input"       // bad input: a missing skill source, a bad session id (exit 2)
	codeCheck       = "check"       // a check refused the run or found a difference: a shadowed or unseen skill, skills folders nested in the workspace, a provider set-up the agent would fail on, a session resumed with other skills, an invalid skill, drift (exit 1)
	codePolicy      = "policy"      // the trust checks refused a source or skill (trust.ErrRefused), before anything changed or the agent started; or a skill the policy requires is not installed as it says, or would be removed (install.ErrPolicyRequired) (exit 1)
	codeIntegrity   = "integrity"   // content does not match the digest that names it: a web index's, a URL's #sha256=, a registry's; something altered it (exit 1)
	codeAgent       = "agent"       // the agent failed: it could not start, exited with a failure, reported an error or refused the session (exit 1)
	codeFailed      = "failed"      // any other failure: a download, the file system (exit 1)
	codeTimeout     = "timeout"     // --run-timeout passed (exit 124)
	codeInterrupted = "interrupted" // Ctrl-C or SIGTERM (exit 130)
)

// errorLine is the last line of the --json output of every command that
// fails: {"type":"error","code":...,"message":...,"exit_code":...}, with
// "session_id" when a run's session is known.
type errorLine struct {
	Type      string `json:"type"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	ExitCode  int    `json:"exit_code"`
	SessionID string `json:"session_id,omitempty"`
}

// sessionError is the error of a run whose agent session is known: the
// error line names it, so the run can be resumed.
type sessionError struct {
	id  string
	err error
}

func (e *sessionError) Error() string { return e.err.Error() }
func (e *sessionError) Unwrap() error { return e.err }

// reported is a failure the command has already printed (it is
// errFailed), with a message for the error line of --json.
type reported string

func (e reported) Error() string        { return string(e) }
func (e reported) Is(target error) bool { return target == errFailed }

// wantsJSON reports whether cmd was given --json, also when the command
// line failed after it was read.
func wantsJSON(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("json")
	return f != nil && f.Value.String() == "true"
}

// jsonError ends the output of a command run with --json that failed
// with err and the exit code code: one error line on stdout. It prints
// nothing for a command that succeeded or was not given --json.
func (s *streams) jsonError(cmd *cobra.Command, err error, code int) {
	if err == nil || code == exitOK || !wantsJSON(cmd) {
		return
	}
	line := errorLine{Type: driver.KindError, Code: errorCode(err, code), Message: err.Error(), ExitCode: code}
	var se *sessionError
	if errors.As(err, &se) {
		line.SessionID = se.id
	}
	b, merr := json.Marshal(line)
	if merr != nil {
		return
	}
	s.data.Write(append(b, '\n'))
}

// errorCode is the code of the error line for err, which exits with
// exit.
func errorCode(err error, exit int) string {
	var input inputError
	var usage usageError
	switch {
	case exit == exitTimedOut:
		return codeTimeout
	case exit == exitInterrupted:
		return codeInterrupted
	case errors.As(err, &input):
		return codeInput
	case errors.As(err, &usage), exit == exitUsage:
		return codeUsage
	case errors.Is(err, source.ErrIntegrity):
		return codeIntegrity
	case isTrustRefusal(err), errors.Is(err, install.ErrPolicyRequired):
		return codePolicy
	case errors.Is(err, driver.ErrSkillShadowed), errors.Is(err, driver.ErrSkillsNotMounted), errors.Is(err, driver.ErrNestedSkills),
		errors.Is(err, driver.ErrProviderSetup), errors.Is(err, adaptor.ErrThreadChanged), errors.Is(err, errFailed):
		return codeCheck
	case errors.Is(err, driver.ErrProcessFailed), errors.Is(err, driver.ErrAgentFailed),
		errors.Is(err, driver.ErrNoResult), errors.Is(err, driver.ErrResumeRejected):
		return codeAgent
	}
	return codeFailed
}
