package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// parser turns the lines of `claude -p --output-format stream-json` into
// events. It never fails on a line: one that is not JSON becomes an
// ErrorEvent, one it does not know a RawEvent.
type parser struct {
	emit   func(driver.Event) // nil: events are parsed for the result only
	init   *driver.InitEvent  // the first system/init
	result *driver.ResultEvent
}

// line is the union of the fields the parser reads from any line.
type line struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	SessionID string          `json:"session_id"`
	Message   *message        `json:"message"`
	Event     json.RawMessage `json:"event"`

	// system/init
	Model  string          `json:"model"`
	Cwd    string          `json:"cwd"`
	Tools  []string        `json:"tools"`
	Skills json.RawMessage `json:"skills"`

	// result
	IsError      bool            `json:"is_error"`
	Result       string          `json:"result"`
	Usage        *driver.Usage   `json:"usage"`
	TotalCostUSD *float64        `json:"total_cost_usd"`
	NumTurns     int             `json:"num_turns"`
	DurationMS   int64           `json:"duration_ms"`
	Errors       json.RawMessage `json:"errors"`
}

type message struct {
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type streamEvent struct {
	Type  string `json:"type"`
	Delta struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
	} `json:"delta"`
}

// parse reads one line and reports its events. It returns the InitEvent
// when the line was the first system/init, so the caller can check it.
func (p *parser) parse(b []byte) *driver.InitEvent {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	raw := json.RawMessage(bytes.Clone(b))
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		p.send(&driver.ErrorEvent{Message: fmt.Sprintf("agent output line is not JSON (%v): %s", err, excerpt(b)), Raw: raw})
		return nil
	}
	switch l.Type {
	case "system":
		if l.Subtype == "init" && p.init == nil {
			ev := &driver.InitEvent{SessionID: l.SessionID, Model: l.Model, Cwd: l.Cwd, Tools: l.Tools, Skills: skillNames(l.Skills), Raw: raw}
			p.init = ev
			p.send(ev)
			return ev
		}
	case "assistant", "user":
		if p.blocks(l.Type, l.Message, raw) {
			return nil
		}
	case "stream_event":
		var se streamEvent
		if json.Unmarshal(l.Event, &se) == nil && se.Type == "content_block_delta" {
			switch se.Delta.Type {
			case "text_delta":
				p.send(&driver.TextDeltaEvent{Text: se.Delta.Text, Raw: raw})
				return nil
			case "thinking_delta":
				p.send(&driver.ThinkingEvent{Text: se.Delta.Thinking, Raw: raw})
				return nil
			}
		}
	case "result":
		ev := &driver.ResultEvent{
			SessionID:  l.SessionID,
			Text:       l.Result,
			IsError:    l.IsError || strings.HasPrefix(l.Subtype, "error"),
			Subtype:    l.Subtype,
			Usage:      l.Usage,
			CostUSD:    l.TotalCostUSD,
			NumTurns:   l.NumTurns,
			DurationMS: l.DurationMS,
			Raw:        raw,
		}
		if ev.IsError && ev.Text == "" {
			ev.Text = errorsText(l.Errors)
		}
		// The first result is the run's; a later one cannot replace it.
		if p.result == nil {
			p.result = ev
		}
		p.send(ev)
		return nil
	}
	p.send(&driver.RawEvent{Type: l.Type, Raw: raw})
	return nil
}

// blocks reports the content blocks of an assistant or user message and
// whether it found any. Of a user message only tool results count: its
// text is Claude Code's own (a loaded skill's body, "[Request interrupted
// by user]"), reported raw.
func (p *parser) blocks(role string, m *message, raw json.RawMessage) bool {
	if m == nil {
		return false
	}
	var blocks []block
	if json.Unmarshal(m.Content, &blocks) != nil {
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			return false
		}
		blocks = []block{{Type: "text", Text: text}}
	}
	found := false
	for _, b := range blocks {
		if role == "user" && b.Type != "tool_result" {
			continue
		}
		var ev driver.Event
		switch b.Type {
		case "text":
			ev = &driver.TextEvent{Text: b.Text, Raw: raw}
		case "thinking":
			ev = &driver.ThinkingEvent{Text: b.Thinking, Raw: raw}
		case "tool_use", "server_tool_use":
			ev = &driver.ToolCallEvent{ID: b.ID, Name: b.Name, Input: b.Input, Raw: raw}
		case "tool_result":
			ev = &driver.ToolResultEvent{ToolCallID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError, Raw: raw}
		default:
			continue
		}
		found = true
		p.send(ev)
	}
	return found
}

func (p *parser) send(ev driver.Event) {
	if p.emit != nil {
		p.emit(ev)
	}
}

// skillNames reads system/init's skills: a list of names, or of objects
// with a name.
func skillNames(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var names []string
	if json.Unmarshal(raw, &names) == nil {
		return names
	}
	var objs []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &objs) == nil {
		names = make([]string, 0, len(objs))
		for _, o := range objs {
			names = append(names, o.Name)
		}
	}
	return names
}

// contentText reads a tool result's content: a string, or a list of
// blocks whose text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// errorsText reads an error result's "errors": strings or objects.
func errorsText(raw json.RawMessage) string {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var parts []string
	for _, item := range list {
		var s string
		if json.Unmarshal(item, &s) == nil {
			parts = append(parts, s)
			continue
		}
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(item, &obj) == nil && obj.Message != "" {
			parts = append(parts, obj.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// excerpt shows the start of a line in an error message.
func excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
