package opencode

import (
	"encoding/json"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// skillTool is OpenCode's tool that loads a skill's body; its "name"
// parameter names the skill.
const skillTool = "skill"

// parser turns the lines of `opencode run --format json` into events and
// builds the run's result from them, since OpenCode prints no result line
// (rule 3 of "Checks"), each line read as agentjson.Parse says: it never
// fails on one. A parser is not safe for concurrent use.
type parser struct {
	emit agentjson.Emit // nil: lines are parsed for the result only

	init      *driver.InitEvent // sent at the first line with a session id
	sessionID string
	step      []string // the text parts of the current step
	last      string   // the text of the last step that had text
	steps     int      // finished steps
	usage     driver.Usage
	cost      float64
	err       *driver.ResultEvent // the first error line, as a result
}

// part is the fields of a line's "part" the parser reads.
type part struct {
	Text   string          `json:"text"`
	Tool   string          `json:"tool"`
	CallID string          `json:"callID"`
	State  json.RawMessage `json:"state"`
	Reason string          `json:"reason"`
	Tokens json.RawMessage `json:"tokens"`
	Cost   float64         `json:"cost"`
}

// toolState is a finished tool call's state.
type toolState struct {
	Status string          `json:"status"`
	Input  json.RawMessage `json:"input"`
	Output string          `json:"output"`
	Error  string          `json:"error"`
}

// tokens is a step's token count.
type tokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// parse reads one line and reports its events.
func (p *parser) parse(b []byte) { agentjson.Parse(b, p.emit, p.line) }

// line reports the events of one line, and whether it knew the line: a
// step's start or end is sent as it is (a driver.RawEvent), unless the
// start named the session.
func (p *parser) line(line agentjson.Line) bool {
	l, raw := line.Fields, line.Raw
	var init *driver.InitEvent
	if id := agentjson.Text(l["sessionID"]); id != "" && p.init == nil {
		p.sessionID = id
		p.init = &driver.InitEvent{SessionID: id, Raw: raw}
		p.emit.Send(p.init)
		init = p.init
	}
	pt := agentjson.Decode[part](l["part"], "the line's part", p.emit)
	if pt == nil {
		pt = &part{}
	}
	switch line.Type {
	case "step_start":
		p.step = nil
		return init != nil
	case "text":
		p.step = append(p.step, pt.Text)
		p.last = strings.Join(p.step, "\n")
		p.emit.Send(&driver.TextEvent{Text: pt.Text, Raw: raw})
	case "reasoning":
		p.emit.Send(&driver.ThinkingEvent{Text: pt.Text, Raw: raw})
	case "tool_use":
		p.tool(pt, raw)
	case "step_finish":
		p.steps++
		if t := agentjson.Decode[tokens](pt.Tokens, "the step's tokens", p.emit); t != nil {
			p.usage.InputTokens += t.Input
			p.usage.OutputTokens += t.Output + t.Reasoning
			p.usage.CacheReadInputTokens += t.Cache.Read
			p.usage.CacheCreationInputTokens += t.Cache.Write
		}
		p.cost += pt.Cost
		return false
	case "error":
		name, msg := errorOf(l["error"])
		p.emit.Send(&driver.ErrorEvent{Message: msg, Raw: raw})
		if p.err == nil {
			p.err = &driver.ResultEvent{IsError: true, Subtype: name, Text: msg, Raw: raw}
		}
	default:
		return false
	}
	return true
}

// tool reports a finished tool call: its call, its result and, for a
// successful call of the skill tool, a SkillEvent.
func (p *parser) tool(pt *part, raw json.RawMessage) {
	st := agentjson.Decode[toolState](pt.State, "the tool's state", p.emit)
	if st == nil {
		st = &toolState{}
	}
	p.emit.Send(&driver.ToolCallEvent{ID: pt.CallID, Name: pt.Tool, Input: object(st.Input), Raw: raw})
	res := &driver.ToolResultEvent{ToolCallID: pt.CallID, Content: st.Output, IsError: st.Status == "error", Raw: raw}
	if res.IsError && res.Content == "" {
		res.Content = st.Error
	}
	p.emit.Send(res)
	if pt.Tool != skillTool || st.Status != "completed" {
		return
	}
	var in struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(st.Input, &in) != nil || in.Name == "" {
		return
	}
	p.emit.Send(&driver.SkillEvent{Name: in.Name, ToolCallID: pt.CallID, Path: skillFolder(st.Output), Raw: raw})
}

// skillFolder reads the skill's folder from the skill tool's output
// ("... Base directory for this skill: DIR\n..."), "" when it does not
// say.
func skillFolder(output string) string {
	_, rest, ok := strings.Cut(output, "Base directory for this skill: ")
	if !ok {
		return ""
	}
	dir, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(dir)
}

// errorOf reads an error line's error: {"name", "data": {"message"}}.
func errorOf(raw json.RawMessage) (name, msg string) {
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return "", agentjson.Text(raw)
	}
	msg = e.Data.Message
	if msg == "" {
		msg = e.Message
	}
	if msg == "" {
		msg = "opencode reported an error " + e.Name
	}
	return e.Name, msg
}

// result returns the run's result built from its lines, or nil when no
// step finished and no error was reported: the text of the last step
// that had text, the session id and the usage and cost summed over the
// steps. An error line makes it an error result, with the usage so far.
func (p *parser) result() *driver.ResultEvent {
	if p.err == nil && p.steps == 0 {
		return nil
	}
	ev := &driver.ResultEvent{Text: p.last, SessionID: p.sessionID, NumTurns: p.steps}
	if p.err != nil {
		ev = p.err
		ev.SessionID = p.sessionID
	}
	if p.steps > 0 {
		u := p.usage
		ev.Usage = &u
		c := p.cost
		ev.CostUSD = &c
	}
	return ev
}

// object is raw when it is a JSON object, else nil.
func object(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return raw
}
