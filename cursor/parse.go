package cursor

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// parser turns the lines of `agent -p --output-format stream-json` into
// events (see "The run" in the package doc), each line read as
// agentjson.Parse says: it never fails on one.
type parser struct {
	emit agentjson.Emit // nil: lines are parsed for the result only

	init   *driver.InitEvent // the first init
	last   string            // the last assistant message
	result *driver.ResultEvent
}

// parse reads one line and reports its events.
func (p *parser) parse(b []byte) { agentjson.Parse(b, p.emit, p.line) }

// line reports the events of one line, and whether it knew the line.
func (p *parser) line(line agentjson.Line) bool {
	l, raw := line.Fields, line.Raw
	switch line.Type {
	case "system":
		if agentjson.Text(l["subtype"]) == "init" && p.init == nil {
			p.init = &driver.InitEvent{SessionID: agentjson.Text(l["session_id"]), Model: agentjson.Text(l["model"]),
				Cwd: agentjson.Text(l["cwd"]), Raw: raw}
			if s := agentjson.Decode[[]string](l["skills"], "the init line's skills", p.emit); s != nil {
				p.init.Skills = *s
			}
			p.emit.Send(p.init)
			return true
		}
	case "assistant":
		if text := messageText(l["message"]); text != "" && p.result == nil {
			p.last = text
			p.emit.Send(&driver.TextEvent{Text: text, Raw: raw})
			return true
		}
	case "tool_call":
		if p.toolCall(l, raw) {
			return true
		}
	case "result":
		if p.result == nil {
			p.resultLine(l, raw)
			return true
		}
	}
	return false
}

// toolCall reports a tool_call line, started or completed; it returns
// false for a line of neither kind.
func (p *parser) toolCall(l map[string]json.RawMessage, raw json.RawMessage) bool {
	var call map[string]struct {
		Args   json.RawMessage            `json:"args"`
		Result map[string]json.RawMessage `json:"result"`
	}
	if json.Unmarshal(l["tool_call"], &call) != nil || len(call) != 1 {
		return false
	}
	id := agentjson.Text(l["call_id"])
	for key, c := range call {
		name := strings.TrimSuffix(key, "ToolCall")
		switch agentjson.Text(l["subtype"]) {
		case "started":
			p.emit.Send(&driver.ToolCallEvent{ID: id, Name: name, Input: object(c.Args), Raw: raw})
		case "completed":
			ok, isOK := c.Result["success"]
			content := agentjson.Text(ok)
			var s struct {
				Content string `json:"content"`
			}
			if json.Unmarshal(ok, &s) == nil && s.Content != "" {
				content = s.Content
			}
			if !isOK {
				content = errorText(c.Result)
			}
			p.emit.Send(&driver.ToolResultEvent{ToolCallID: id, Content: content, IsError: !isOK, Raw: raw})
			if dir := skillRead(name, c.Args); dir != "" && isOK {
				p.emit.Send(&driver.SkillEvent{Name: filepath.Base(dir), ToolCallID: id, Path: dir, Raw: raw})
			}
		default:
			return false
		}
	}
	return true
}

// skillRead is the folder of the skill whose SKILL.md the read tool's
// args name, or "" when the call reads something else.
func skillRead(tool string, args json.RawMessage) string {
	var a struct {
		Path string `json:"path"`
	}
	if tool != "read" || json.Unmarshal(args, &a) != nil {
		return ""
	}
	p := filepath.FromSlash(a.Path)
	if filepath.Base(p) != "SKILL.md" {
		return ""
	}
	dir := filepath.Dir(p)
	if filepath.Base(filepath.Dir(dir)) != "skills" {
		return ""
	}
	return dir
}

// errorText is the message of a tool's failed result: its error's
// "message" or "errorMessage", else the result as JSON.
func errorText(result map[string]json.RawMessage) string {
	for _, raw := range result {
		var e struct {
			Message      string `json:"message"`
			ErrorMessage string `json:"errorMessage"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Message+e.ErrorMessage != "" {
			return e.Message + e.ErrorMessage
		}
		if s, ok := agentjson.String(raw); ok {
			return s
		}
	}
	b, _ := json.Marshal(result)
	return string(b)
}

// resultLine reports the run's result line.
func (p *parser) resultLine(l map[string]json.RawMessage, raw json.RawMessage) {
	ev := &driver.ResultEvent{SessionID: agentjson.Text(l["session_id"]), Text: agentjson.Text(l["result"]),
		Subtype: agentjson.Text(l["subtype"]), Raw: raw}
	ev.IsError = string(l["is_error"]) == "true" || ev.Subtype != "" && ev.Subtype != "success"
	if ev.SessionID == "" && p.init != nil {
		ev.SessionID = p.init.SessionID
	}
	if ev.Text == "" && !ev.IsError {
		ev.Text = p.last
	}
	if ev.Text == "" && ev.IsError {
		ev.Text = "Cursor reported the result " + string(raw)
	}
	if d := agentjson.Decode[int64](l["duration_ms"], "the result's duration_ms", p.emit); d != nil {
		ev.DurationMS = *d
	}
	p.result = ev
	p.emit.Send(ev)
}

// messageText joins the text blocks of a message
// ({"role","content":[{"type":"text","text"}]}).
func messageText(raw json.RawMessage) string {
	var m struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "")
}

// object is raw when it is a JSON object, else nil.
func object(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return raw
}
