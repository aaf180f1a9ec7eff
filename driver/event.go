package driver

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Event is one thing that happened during a run, as a driver reports it
// through [Request.Events]. The concrete types are this package's *Event
// types; switch on them:
//
//	switch e := ev.(type) {
//	case *driver.TextDeltaEvent:
//		fmt.Print(e.Text)
//	case *driver.ToolCallEvent:
//		log.Printf("tool %s", e.Name)
//	}
//
// Every event keeps the agent's own JSON for it in Raw (empty for events a
// driver or the SDK makes up itself), for callers who need more than the
// typed fields. Other packages may define events of their own (the root
// package reports thread restarts); Kind tells them apart in logs and in
// JSON output.
type Event interface {
	// Kind is the event's name in JSON output: "init", "text", ...
	Kind() string
}

// Event kinds, as [Event.Kind] returns them.
const (
	KindInit       = "init"
	KindText       = "text"
	KindTextDelta  = "text_delta"
	KindThinking   = "thinking"
	KindToolCall   = "tool_call"
	KindToolResult = "tool_result"
	KindSkill      = "skill"
	KindResult     = "result"
	KindError      = "error"
	KindRaw        = "raw"
	KindRetry      = "retry"
)

// InitEvent starts a session: the agent says which session it is and what
// it sees, including the skills it loaded.
type InitEvent struct {
	SessionID string   `json:"session_id,omitempty"`
	Model     string   `json:"model,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	// Version is the agent's version, when its first event reports one
	// (Claude Code's and Qwen Code's do; the others do not).
	Version string `json:"version,omitempty"`
	// Skills are the names of the skills the agent reports it loaded;
	// nil when the agent does not list its skills (only Claude Code, Qwen
	// Code and Cursor CLI list them),
	// which JSON leaves out.
	Skills []string        `json:"skills,omitzero"`
	Raw    json.RawMessage `json:"-"`
}

// TextEvent is a complete block of the assistant's text.
type TextEvent struct {
	Text string          `json:"text"`
	Raw  json.RawMessage `json:"-"`
}

// TextDeltaEvent is a piece of assistant text as it is generated; the
// pieces of one block, joined, are the block's [TextEvent] that follows.
type TextDeltaEvent struct {
	Text string          `json:"text"`
	Raw  json.RawMessage `json:"-"`
}

// ThinkingEvent is the assistant's reasoning, when the agent shows it.
type ThinkingEvent struct {
	Text string          `json:"text"`
	Raw  json.RawMessage `json:"-"`
}

// ToolCallEvent is the assistant calling a tool.
type ToolCallEvent struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	Raw   json.RawMessage `json:"-"`
}

// ToolResultEvent is what a tool call returned.
type ToolResultEvent struct {
	// ToolCallID is the [ToolCallEvent.ID] this answers.
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Content    string          `json:"content"`
	IsError    bool            `json:"is_error,omitempty"`
	Raw        json.RawMessage `json:"-"`
}

// SkillEvent is the agent loading a skill's body (the instructions of
// its SKILL.md) into the conversation, as each agent does it: Claude
// Code's Skill tool, Qwen Code's skill tool, Gemini CLI's activate_skill,
// Codex running a command that reads the skill's SKILL.md. It follows the
// [ToolCallEvent] and [ToolResultEvent] of that call, once the call has
// succeeded.
type SkillEvent struct {
	// Name is the skill's name as the agent knows it (its runtime name).
	Name string `json:"name"`
	// ToolCallID is the [ToolCallEvent.ID] of the call that loaded it.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Path is the skill's folder or SKILL.md, when the agent says.
	Path string          `json:"path,omitempty"`
	Raw  json.RawMessage `json:"-"`
}

// ResultEvent ends a run: the final answer, or the error the agent
// reports, with the session and its usage. CostUSD is the cost as the
// agent's result line reports it: for Claude Code that is the session's
// running total ([Result.SessionCostUSD]), not the run's own
// ([Result.CostUSD]).
type ResultEvent struct {
	SessionID string `json:"session_id,omitempty"`
	Text      string `json:"text"`
	// IsError is true when the agent reports that the run failed; Subtype
	// then says how (Claude Code: "error_max_turns", ...).
	IsError  bool     `json:"is_error,omitempty"`
	Subtype  string   `json:"subtype,omitempty"`
	Usage    *Usage   `json:"usage,omitempty"`
	CostUSD  *float64 `json:"cost_usd,omitempty"`
	NumTurns int      `json:"num_turns,omitempty"`
	// DurationMS is the run's length as the agent measures it.
	DurationMS int64           `json:"duration_ms,omitempty"`
	Raw        json.RawMessage `json:"-"`
}

// ErrorEvent is an error the agent reports, or one the driver finds in the
// agent's output (a line that is not JSON), without ending the run.
type ErrorEvent struct {
	Message string          `json:"message"`
	Raw     json.RawMessage `json:"-"`
}

// RetryEvent is a call of the agent to its model API that failed and
// that the agent will make again, as the agent reports it while it waits:
// Claude Code's system/api_retry, Qwen Code's system/retry, Codex's
// "Reconnecting..." notes. A run that keeps failing may retry for
// minutes before it ends; these events say why it takes long. Fields the
// agent does not report are zero. Gemini CLI reports its retries on its
// standard error only; its driver reads them there.
type RetryEvent struct {
	// Attempt is the retry's number, 1 for the first.
	Attempt int `json:"attempt,omitempty"`
	// MaxRetries is how many retries the agent makes before it gives up.
	MaxRetries int `json:"max_retries,omitempty"`
	// DelayMS is how long the agent waits before the retry.
	DelayMS int64 `json:"delay_ms,omitempty"`
	// Status is the HTTP status of the failed call.
	Status int `json:"status,omitempty"`
	// Message is the error of the failed call, as the agent reports it.
	Message string          `json:"message,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

// RawEvent is a line of the agent's output the driver does not interpret.
type RawEvent struct {
	// Type is the agent's own name for the event ("" when it has none).
	Type string          `json:"agent_type,omitempty"`
	Raw  json.RawMessage `json:"raw"`
}

// Kind returns [KindInit].
func (*InitEvent) Kind() string { return KindInit }

// Kind returns [KindText].
func (*TextEvent) Kind() string { return KindText }

// Kind returns [KindTextDelta].
func (*TextDeltaEvent) Kind() string { return KindTextDelta }

// Kind returns [KindThinking].
func (*ThinkingEvent) Kind() string { return KindThinking }

// Kind returns [KindToolCall].
func (*ToolCallEvent) Kind() string { return KindToolCall }

// Kind returns [KindToolResult].
func (*ToolResultEvent) Kind() string { return KindToolResult }

// Kind returns [KindSkill].
func (*SkillEvent) Kind() string { return KindSkill }

// Kind returns [KindResult].
func (*ResultEvent) Kind() string { return KindResult }

// Kind returns [KindError].
func (*ErrorEvent) Kind() string { return KindError }

// Kind returns [KindRaw].
func (*RawEvent) Kind() string { return KindRaw }

// Kind returns [KindRetry].
func (*RetryEvent) Kind() string { return KindRetry }

// MarshalEvent returns ev as one JSON object, the form of an event in
// JSON output: {"type": KIND, ...the event's own fields}, KIND being
// ev.Kind() and the fields those of ev's JSON encoding (the agent's own
// JSON, Raw, is left out, but for a [RawEvent], which is nothing else).
// An event whose encoding is not a JSON object (a nil pointer) is an
// error.
func MarshalEvent(ev Event) ([]byte, error) {
	if ev == nil {
		return nil, errors.New("nil event")
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("event %s is not a JSON object: %.40s", ev.Kind(), body)
	}
	kind, err := json.Marshal(ev.Kind())
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(body)+len(kind)+10)
	line = append(line, `{"type":`...)
	line = append(line, kind...)
	if len(body) > 2 {
		line = append(line, ',')
		line = append(line, body[1:]...)
	} else {
		line = append(line, '}')
	}
	return line, nil
}
