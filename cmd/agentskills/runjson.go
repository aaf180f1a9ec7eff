package main

import (
	"errors"
	"io"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
)

// eventWriter prints events as JSON lines (the schema is in run --help,
// runSchema).
type eventWriter struct {
	w   io.Writer
	err error
	// session is the session id of the agent's init event, once seen.
	session string
}

// event prints ev, except the agent's own result line: the run's result
// is printed last, by result. An error the agent reports without ending
// the run is an "agent_error" line: "error" is the line that ends a
// failed run.
func (e *eventWriter) event(ev driver.Event) {
	switch v := ev.(type) {
	case *driver.ResultEvent:
		return
	case *driver.InitEvent:
		if e.session == "" {
			e.session = v.SessionID
		}
	case *driver.ErrorEvent:
		ev = agentErrorLine{v}
	}
	e.write(ev)
}

// kindAgentError is the type of the line of an error the agent reports
// without ending the run (a driver.ErrorEvent).
const kindAgentError = "agent_error"

// agentErrorLine is a driver.ErrorEvent as its line shows it.
type agentErrorLine struct{ *driver.ErrorEvent }

func (agentErrorLine) Kind() string { return kindAgentError }

// write prints ev as driver.MarshalEvent encodes it, one line.
func (e *eventWriter) write(ev driver.Event) {
	if e.err != nil {
		return
	}
	line, err := driver.MarshalEvent(ev)
	if err != nil {
		e.err = err
		return
	}
	_, e.err = e.w.Write(append(line, '\n'))
}

// resultJSON is the result line of --json output: the last line of a run
// that succeeded, or the line before the error line of a run the agent
// ended with an error. Skills, fingerprint and workspace are the run's,
// so they are given only when it succeeded.
type resultJSON struct {
	SessionID string        `json:"session_id,omitempty"`
	Text      string        `json:"text"`
	IsError   bool          `json:"is_error"`
	Subtype   string        `json:"subtype,omitempty"`
	Usage     *driver.Usage `json:"usage,omitempty"`
	CostUSD   *float64      `json:"cost_usd,omitempty"`
	// SessionCostUSD is the cost of the whole session so far, earlier
	// runs of a resumed session included, when the agent reports it.
	SessionCostUSD *float64 `json:"session_cost_usd,omitempty"`
	ExitCode       int      `json:"exit_code"`
	Skills         []string `json:"skills,omitzero"`
	Fingerprint    string   `json:"fingerprint,omitempty"`
	Workspace      string   `json:"workspace,omitempty"`
}

// Kind returns driver.KindResult: the result line is printed as an event.
func (resultJSON) Kind() string { return driver.KindResult }

func (e *eventWriter) result(res *adaptor.Result) error {
	r := resultJSON{
		SessionID: res.SessionID, Text: res.Text, Usage: res.Usage, CostUSD: res.CostUSD, SessionCostUSD: res.SessionCostUSD,
		ExitCode: res.ExitCode, Skills: []string{}, Fingerprint: res.Skills.Fingerprint, Workspace: res.Workspace,
	}
	for _, s := range res.Skills.Entries {
		r.Skills = append(r.Skills, s.RuntimeName)
	}
	e.write(r)
	return e.err
}

// failure prints the result of a run the agent ended with an error, when
// it reported one; the error line that ends the output is printed for
// every failed command alike (jsonError). It returns the run's session
// id, "" when none is known.
func (e *eventWriter) failure(err error) string {
	var agentErr *driver.AgentError
	if errors.As(err, &agentErr) && agentErr.Result != nil {
		r := agentErr.Result
		e.write(resultJSON{
			SessionID: r.SessionID, Text: agentErr.Message, IsError: true, Subtype: agentErr.Subtype,
			Usage: r.Usage, CostUSD: r.CostUSD, SessionCostUSD: r.SessionCostUSD, ExitCode: r.ExitCode,
		})
		if r.SessionID != "" {
			return r.SessionID
		}
	}
	return e.session
}

// withSession returns classified, the classified form of the error err
// of a failed run, naming the run's session when one is known: the
// agent's, else the one asked to resume. With --json it first prints the
// result the agent ended with, if any.
func (r *agentRun) withSession(classified, err error) error {
	id := ""
	if r.out != nil {
		id = r.out.failure(err)
	}
	if id == "" && r.opts.resume != "" && !errors.Is(err, driver.ErrInvalidSessionID) {
		id = r.opts.resume
	}
	if id == "" {
		return classified
	}
	return &sessionError{id: id, err: classified}
}
