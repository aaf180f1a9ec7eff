package gemini

import (
	"encoding/json"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// parser turns the lines of `gemini -o stream-json` into events, each
// line read as agentjson.Parse says: it never fails on one.
type parser struct {
	emit agentjson.Emit // nil: lines are parsed for the result only

	init    *driver.InitEvent // the first init
	message strings.Builder   // the assistant message being streamed
	last    string            // the last whole assistant message
	result  *driver.ResultEvent
	// skillCalls are the activate_skill calls: tool id to skill name.
	skillCalls map[string]string
}

// stats is the part of the result's stats the parser reads.
type stats struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
	DurationMS   int64 `json:"duration_ms"`
	ToolCalls    int   `json:"tool_calls"`
}

// parse reads one line and reports its events.
func (p *parser) parse(b []byte) { agentjson.Parse(b, p.emit, p.line) }

// line reports the events of one line, and whether it knew the line.
func (p *parser) line(line agentjson.Line) bool {
	l, raw := line.Fields, line.Raw
	switch line.Type {
	case "init":
		if p.init == nil {
			p.init = &driver.InitEvent{SessionID: agentjson.Text(l["session_id"]), Model: agentjson.Text(l["model"]), Raw: raw}
			p.emit.Send(p.init)
			return true
		}
	case "message":
		if agentjson.Text(l["role"]) == "assistant" && p.result == nil {
			text := agentjson.Text(l["content"])
			p.message.WriteString(text)
			p.emit.Send(&driver.TextDeltaEvent{Text: text, Raw: raw})
			return true
		}
	case "tool_use":
		p.endMessage()
		call := &driver.ToolCallEvent{ID: agentjson.Text(l["tool_id"]), Name: agentjson.Text(l["tool_name"]), Input: object(l["parameters"]), Raw: raw}
		p.skillCall(call)
		p.emit.Send(call)
		return true
	case "tool_result":
		ev := &driver.ToolResultEvent{ToolCallID: agentjson.Text(l["tool_id"]), Content: agentjson.Text(l["output"]),
			IsError: agentjson.Text(l["status"]) == "error", Raw: raw}
		if msg := errorMessage(l["error"]); msg != "" && ev.Content == "" {
			ev.Content = msg
		}
		p.emit.Send(ev)
		if name, ok := p.skillCalls[ev.ToolCallID]; ok && !ev.IsError {
			delete(p.skillCalls, ev.ToolCallID)
			p.emit.Send(&driver.SkillEvent{Name: name, ToolCallID: ev.ToolCallID, Path: skillFolder(ev.Content), Raw: raw})
		}
		return true
	case "error":
		p.emit.Send(&driver.ErrorEvent{Message: agentjson.Text(l["message"]), Raw: raw})
		return true
	case "result":
		p.resultLine(l, raw)
		return true
	}
	return false
}

// skillTool is the tool that loads a skill's body; its "name" parameter
// names the skill.
const skillTool = "activate_skill"

// skillCall remembers a call of activate_skill, whose successful result
// is a driver.SkillEvent.
func (p *parser) skillCall(call *driver.ToolCallEvent) {
	var in struct {
		Name string `json:"name"`
	}
	if call.Name != skillTool || json.Unmarshal(call.Input, &in) != nil || in.Name == "" {
		return
	}
	if p.skillCalls == nil {
		p.skillCalls = map[string]string{}
	}
	p.skillCalls[call.ID] = in.Name
}

// skillFolder reads the skill's folder from activate_skill's output
// ("Skill **N** activated. Resources loaded from `DIR`: ..."), "" when
// it does not say.
func skillFolder(output string) string {
	_, rest, ok := strings.Cut(output, "Resources loaded from `")
	if !ok {
		return ""
	}
	dir, _, ok := strings.Cut(rest, "`")
	if !ok {
		return ""
	}
	return dir
}

// endMessage reports the assistant message streamed so far as a whole,
// when there is one.
func (p *parser) endMessage() {
	if p.message.Len() == 0 {
		return
	}
	p.last = p.message.String()
	p.message.Reset()
	p.emit.Send(&driver.TextEvent{Text: p.last})
}

// resultLine reports a result line; the first is the run's. Its text is
// the last assistant message, or the error's message; its session is
// init's, since the result line has none.
func (p *parser) resultLine(l map[string]json.RawMessage, raw json.RawMessage) {
	if p.result != nil {
		p.emit.Send(&driver.RawEvent{Type: "result", Raw: raw})
		return
	}
	p.endMessage()
	status := agentjson.Text(l["status"])
	ev := &driver.ResultEvent{Text: p.last, IsError: status != "success", Subtype: status, Raw: raw}
	if p.init != nil {
		ev.SessionID = p.init.SessionID
	}
	if ev.IsError {
		ev.Text = errorMessage(l["error"])
		if ev.Text == "" {
			ev.Text = "gemini reported the status " + quote(status)
		}
	}
	if s := agentjson.Decode[stats](l["stats"], "the result's stats", p.emit); s != nil {
		ev.Usage = &driver.Usage{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CacheReadInputTokens: s.Cached}
		ev.DurationMS = s.DurationMS
	}
	p.result = ev
	p.emit.Send(ev)
}

// errorMessage reads an error object's message ({"type","message"}), or
// an error given as a string.
func errorMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return agentjson.Text(raw)
}

// object is raw when it is a JSON object, else nil.
func object(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return raw
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
