package qwen

import (
	"encoding/json"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// parser turns the lines of `qwen --output-format=stream-json` into
// events. It never fails on a line: one that is not a JSON object becomes
// an ErrorEvent, one it does not know a RawEvent, and a field of an
// unexpected type is left out.
type parser struct {
	emit     agentjson.Emit    // nil: lines are parsed for the result only
	init     *driver.InitEvent // the first system/init
	result   *driver.ResultEvent
	lastText string // the last assistant text, for an error result without a message
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
	l, raw, ok := agentjson.Object(b, p.emit)
	if !ok {
		return nil
	}
	typ, subtype := agentjson.Text(l["type"]), agentjson.Text(l["subtype"])
	switch typ {
	case "system":
		if subtype == "init" && p.init == nil {
			// Qwen Code lists its skills among its slash commands.
			ev := &driver.InitEvent{
				SessionID: agentjson.Text(l["session_id"]),
				Model:     agentjson.Text(l["model"]),
				Cwd:       agentjson.Text(l["cwd"]),
				Tools:     names(l["tools"]),
				Skills:    names(l["slash_commands"]),
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

// resultLine reports a result line; the first is the run's. An error
// result's text is its error's message, else the last assistant text
// (Qwen Code writes an API error there as "[API Error: ...]").
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
	if ev.IsError && ev.Text == "" {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(l["error"], &e) == nil && e.Message != "" {
			ev.Text = e.Message
		} else {
			ev.Text = p.lastText
		}
	}
	if p.result == nil {
		p.result = ev
	}
	p.emit.Send(ev)
}

// blocks reports the content blocks of an assistant or user message and
// whether it found any. Of a user message only tool results count.
func (p *parser) blocks(role string, m *message, raw json.RawMessage) bool {
	var blocks []block
	var items []json.RawMessage
	if json.Unmarshal(m.Content, &items) == nil {
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
			p.lastText = b.Text
			ev = &driver.TextEvent{Text: b.Text, Raw: raw}
		case "thinking":
			ev = &driver.ThinkingEvent{Text: b.Thinking, Raw: raw}
		case "tool_use":
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

// names reads a list of names: strings, or objects with a name. Anything
// else reads as no names.
func names(raw json.RawMessage) []string {
	var items []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &items) != nil {
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
