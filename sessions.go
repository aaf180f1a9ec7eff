package adaptor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// sessionKeyPrefix begins the [ThreadStore] keys under which an agent
// records its sessions; thread keys may not begin with it.
const sessionKeyPrefix = "session:"

// SessionKey returns the key under which an Agent records, in its
// [ThreadStore], the skills and workspace a session ran with: "session:"
// followed by the session id. [WithResume] reads it to check a resume.
func SessionKey(sessionID string) string { return sessionKeyPrefix + sessionID }

// checkResume refuses a run that resumes a session the agent's store
// knows, when the run's skills or workspace are not the session's: the
// rule of "Thread compatibility" on [Thread], for [WithResume]. A session
// the store does not know is not checked.
func (a *Agent) checkResume(ctx context.Context, p *prepared) error {
	id := p.req.Resume
	st, err := a.threads.Load(ctx, SessionKey(id))
	if err != nil {
		return fmt.Errorf("agentadaptor: session %s: reading what it ran with: %w", id, err)
	}
	if st == nil || st.SessionID != id {
		return nil
	}
	return st.Check(p.req.Skills, p.workspace)
}

// recordSession records, under [SessionKey], the skills and workspace of
// the session of a run: one that succeeded, or one the agent ended with an
// error (a *driver.AgentError holding its session), which can be resumed
// too. It returns the run's result and error, with a failure to record
// added to the error.
func (a *Agent) recordSession(ctx context.Context, p *prepared, res *Result, runErr error) (*Result, error) {
	var st *ThreadState
	var agentErr *driver.AgentError
	switch {
	case runErr == nil && res.SessionID != "":
		st = res.ThreadState()
	case errors.As(runErr, &agentErr) && agentErr.Result != nil && agentErr.Result.SessionID != "" && !errors.Is(runErr, driver.ErrResumeRejected):
		st = (&Result{Skills: p.req.Skills, Workspace: p.workspace, SessionID: agentErr.Result.SessionID}).ThreadState()
	default:
		return res, runErr
	}
	if err := a.threads.Save(ctx, SessionKey(st.SessionID), st); err != nil {
		err = fmt.Errorf("agentadaptor: session %s: recording what it ran with: %w", st.SessionID, err)
		if runErr != nil {
			return res, fmt.Errorf("%w; %w", runErr, err)
		}
		return res, err
	}
	return res, runErr
}

// checkThreadKey refuses a blank thread key and one that could be taken
// for a session's record.
func checkThreadKey(key string) error {
	if strings.TrimSpace(key) == "" {
		return errors.New("agentadaptor: a thread needs a non-blank key")
	}
	if strings.HasPrefix(key, sessionKeyPrefix) {
		return fmt.Errorf("agentadaptor: thread key %q begins with %q, which the agent keeps for its records of sessions (SessionKey); choose another key", key, sessionKeyPrefix)
	}
	return nil
}
