package copilot

import (
	"encoding/json"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// skillTool is Copilot CLI's tool that loads a skill's body; its "skill"
// parameter names the skill.
const skillTool = "skill"

// parser turns the lines of `copilot --output-format=json` into events,
// each line read as agentjson.Parse says: it never fails on one. The
// result is kept, not sent: the driver sends it once it has added the
// usage.
type parser struct {
	emit agentjson.Emit // nil: lines are parsed for the result only
	// session is the run's session id, which the driver chose (or
	// resumes) and the InitEvent carries; Copilot CLI reports it only
	// with the result.
	session string

	started bool   // the InitEvent was sent
	last    string // the last assistant message with text
	failure string // the message of the last session.error
	result  *driver.ResultEvent
	// skillCalls are the calls of the skill tool: call id to skill name.
	skillCalls map[string]string
}

// toolRequest is one tool call of an assistant.message.
type toolRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
}

// parse reads one line and reports its events.
func (p *parser) parse(b []byte) { agentjson.Parse(b, p.emit, p.line) }

// line reports the events of one line, and whether it knew the line.
func (p *parser) line(line agentjson.Line) bool {
	l, raw := line.Fields, line.Raw
	if !p.started {
		p.started = true
		p.emit.Send(&driver.InitEvent{SessionID: p.session})
	}
	data := fields(l["data"])
	switch line.Type {
	case "assistant.message_delta":
		p.emit.Send(&driver.TextDeltaEvent{Text: agentjson.Text(data["deltaContent"]), Raw: raw})
		return true
	case "assistant.message":
		if text := agentjson.Text(data["content"]); text != "" {
			p.last = text
			p.emit.Send(&driver.TextEvent{Text: text, Raw: raw})
		}
		var calls []toolRequest
		if json.Unmarshal(data["toolRequests"], &calls) == nil {
			for _, c := range calls {
				call := &driver.ToolCallEvent{ID: c.ToolCallID, Name: c.Name, Input: object(c.Arguments), Raw: raw}
				p.skillCall(call)
				p.emit.Send(call)
			}
		}
		return true
	case "tool.execution_complete":
		p.toolResult(data, raw)
		return true
	case "session.error":
		p.failure = agentjson.Text(data["message"])
		p.emit.Send(&driver.ErrorEvent{Message: p.failure, Raw: raw})
		return true
	case "result":
		p.resultLine(l, raw)
		return true
	}
	return false
}

// toolResult reports a tool.execution_complete line, and a skill event
// when it ends a successful call of the skill tool.
func (p *parser) toolResult(data map[string]json.RawMessage, raw json.RawMessage) {
	var success bool
	_ = json.Unmarshal(data["success"], &success)
	id := agentjson.Text(data["toolCallId"])
	ev := &driver.ToolResultEvent{ToolCallID: id, Content: agentjson.Text(fields(data["result"])["content"]), IsError: !success, Raw: raw}
	if !success {
		if msg := agentjson.Text(fields(data["error"])["message"]); msg != "" {
			ev.Content = msg
		}
	}
	p.emit.Send(ev)
	if name, ok := p.skillCalls[id]; ok {
		delete(p.skillCalls, id)
		if success {
			p.emit.Send(&driver.SkillEvent{Name: name, ToolCallID: id, Raw: raw})
		}
	}
}

// skillCall remembers a call of the skill tool, whose successful result
// is a driver.SkillEvent.
func (p *parser) skillCall(call *driver.ToolCallEvent) {
	var in struct {
		Skill string `json:"skill"`
	}
	if call.Name != skillTool || json.Unmarshal(call.Input, &in) != nil || in.Skill == "" {
		return
	}
	if p.skillCalls == nil {
		p.skillCalls = map[string]string{}
	}
	p.skillCalls[call.ID] = in.Skill
}

// resultLine keeps the first result line as the run's: its text is the
// last assistant message, or the last session.error's message when its
// exitCode is not 0.
func (p *parser) resultLine(l map[string]json.RawMessage, raw json.RawMessage) {
	if p.result != nil {
		p.emit.Send(&driver.RawEvent{Type: "result", Raw: raw})
		return
	}
	var code int
	_ = json.Unmarshal(l["exitCode"], &code)
	ev := &driver.ResultEvent{SessionID: agentjson.Text(l["sessionId"]), Text: p.last, IsError: code != 0, Raw: raw}
	var usage struct {
		SessionDurationMS int64 `json:"sessionDurationMs"`
	}
	if json.Unmarshal(l["usage"], &usage) == nil {
		ev.DurationMS = usage.SessionDurationMS
	}
	if ev.IsError {
		ev.Subtype = "error"
		ev.Text = p.failure
		if ev.Text == "" {
			ev.Text = "copilot reported the exit code " + string(l["exitCode"])
		}
	}
	p.result = ev
}

// fields decodes raw as a JSON object, or returns nil.
func fields(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// object is raw when it is a JSON object, else nil.
func object(raw json.RawMessage) json.RawMessage {
	if fields(raw) == nil {
		return nil
	}
	return raw
}
