package claude

import (
	"encoding/json"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// parser turns the lines of `claude -p --output-format stream-json` into
// events. It never fails on a line: one that is not JSON becomes an
// ErrorEvent, one it does not know a RawEvent.
type parser struct {
	emit   agentjson.Emit    // nil: events are parsed for the result only
	init   *driver.InitEvent // the first system/init
	result *driver.ResultEvent
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
// Fields are decoded one by one: a field of an unexpected type is left
// out (and reported as an ErrorEvent when the result needs it), and the
// rest of the line is still used.
func (p *parser) parse(b []byte) *driver.InitEvent {
	l, raw, ok := agentjson.Object(b, p.emit)
	if !ok {
		return nil
	}
	typ, subtype := agentjson.Text(l["type"]), agentjson.Text(l["subtype"])
	switch typ {
	case "system":
		if subtype == "init" && p.init == nil {
			ev := &driver.InitEvent{
				SessionID: agentjson.Text(l["session_id"]),
				Model:     agentjson.Text(l["model"]),
				Cwd:       agentjson.Text(l["cwd"]),
				Tools:     names(l["tools"]),
				Skills:    names(l["skills"]),
				Raw:       raw,
			}
			p.init = ev
			p.emit.Send(ev)
			return ev
		}
	case "assistant", "user":
		var m message
		if json.Unmarshal(l["message"], &m) == nil && p.blocks(typ, &m, raw) {
			return nil
		}
	case "stream_event":
		var se streamEvent
		if json.Unmarshal(l["event"], &se) == nil && se.Type == "content_block_delta" {
			switch se.Delta.Type {
			case "text_delta":
				p.emit.Send(&driver.TextDeltaEvent{Text: se.Delta.Text, Raw: raw})
				return nil
			case "thinking_delta":
				p.emit.Send(&driver.ThinkingEvent{Text: se.Delta.Thinking, Raw: raw})
				return nil
			}
		}
	case "result":
		p.resultLine(l, subtype, raw)
		return nil
	}
	p.emit.Send(&driver.RawEvent{Type: typ, Raw: raw})
	return nil
}

// resultLine reports a result line; the first is the run's.
func (p *parser) resultLine(l map[string]json.RawMessage, subtype string, raw json.RawMessage) {
	var isError bool
	json.Unmarshal(l["is_error"], &isError)
	ev := &driver.ResultEvent{
		SessionID: agentjson.Text(l["session_id"]),
		Text:      agentjson.Text(l["result"]),
		IsError:   isError || strings.HasPrefix(subtype, "error"),
		Subtype:   subtype,
		Raw:       raw,
	}
	json.Unmarshal(l["num_turns"], &ev.NumTurns)
	json.Unmarshal(l["duration_ms"], &ev.DurationMS)
	ev.Usage = agentjson.Decode[driver.Usage](l["usage"], "the result's usage", p.emit)
	ev.CostUSD = agentjson.Decode[float64](l["total_cost_usd"], "the result's cost", p.emit)
	if ev.IsError && ev.Text == "" {
		ev.Text = errorsText(l["errors"])
	}
	// The first result is the run's; a later one cannot replace it.
	if p.result == nil {
		p.result = ev
	}
	p.emit.Send(ev)
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
	var items []json.RawMessage
	if json.Unmarshal(m.Content, &items) == nil {
		// Each block on its own: one of an odd shape does not hide the rest.
		for _, item := range items {
			var b block
			if json.Unmarshal(item, &b) == nil {
				blocks = append(blocks, b)
			}
		}
	} else if s, ok := agentjson.String(m.Content); ok {
		blocks = []block{{Type: "text", Text: s}}
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
		p.emit.Send(ev)
	}
	return found
}

// names reads a list of names (system/init's skills and tools): strings,
// or objects with a name. Anything else reads as no names.
func names(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		var obj struct {
			Name string `json:"name"`
		}
		if n := agentjson.Text(item); n != "" {
			out = append(out, n)
		} else if json.Unmarshal(item, &obj) == nil && obj.Name != "" {
			out = append(out, obj.Name)
		}
	}
	return out
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
