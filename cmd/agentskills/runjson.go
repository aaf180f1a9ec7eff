package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
)

// eventWriter prints events as JSON lines.
type eventWriter struct {
	w   io.Writer
	err error
}

// event prints ev, except the agent's own result line: the run's result
// is printed last, by result.
func (e *eventWriter) event(ev driver.Event) {
	if ev.Kind() == driver.KindResult {
		return
	}
	e.write(ev.Kind(), ev)
}

func (e *eventWriter) write(kind string, v any) {
	if e.err != nil {
		return
	}
	body, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	line := []byte(`{"type":` + fmt.Sprintf("%q", kind))
	if len(body) > 2 {
		line = append(line, ',')
		line = append(line, body[1:]...)
	} else {
		line = append(line, '}')
	}
	_, e.err = e.w.Write(append(line, '\n'))
}

// resultJSON is the last line of --json output.
type resultJSON struct {
	SessionID   string        `json:"session_id"`
	Text        string        `json:"text"`
	IsError     bool          `json:"is_error"`
	Subtype     string        `json:"subtype,omitempty"`
	Usage       *driver.Usage `json:"usage,omitempty"`
	CostUSD     *float64      `json:"cost_usd,omitempty"`
	ExitCode    int           `json:"exit_code"`
	Skills      []string      `json:"skills"`
	Fingerprint string        `json:"fingerprint"`
	Workspace   string        `json:"workspace"`
}

func (e *eventWriter) result(res *adaptor.Result) error {
	r := resultJSON{
		SessionID: res.SessionID, Text: res.Text, Usage: res.Usage, CostUSD: res.CostUSD,
		ExitCode: res.ExitCode, Skills: []string{}, Fingerprint: res.Skills.Fingerprint, Workspace: res.Workspace,
	}
	for _, s := range res.Skills.Entries {
		r.Skills = append(r.Skills, s.RuntimeName)
	}
	e.write(driver.KindResult, r)
	return e.err
}

// failure ends the output of a failed run: a result with is_error when the
// agent reported the error, else an error line.
func (e *eventWriter) failure(err error) {
	var agentErr *driver.AgentError
	if errors.As(err, &agentErr) && agentErr.Result != nil {
		r := agentErr.Result
		e.write(driver.KindResult, resultJSON{
			SessionID: r.SessionID, Text: agentErr.Message, IsError: true, Subtype: agentErr.Subtype,
			Usage: r.Usage, CostUSD: r.CostUSD, ExitCode: r.ExitCode, Skills: []string{},
		})
		return
	}
	e.write(driver.KindError, driver.ErrorEvent{Message: err.Error()})
}
