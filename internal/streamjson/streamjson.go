// Package streamjson reads the stream-json lines Claude Code writes with
// --output-format stream-json, a shape Qwen Code writes too: system/init,
// assistant and user messages of content blocks, stream_event deltas and a
// result line. A [Parser] turns them into driver events; a [Dialect] holds
// what differs between the agents that write it.
package streamjson

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
	"github.com/agentadaptor/agentadaptor/internal/launch"
)

// Dialect is what one agent's stream-json differs in.
type Dialect struct {
	// SkillsField is the field of system/init that lists the agent's
	// skills ("skills" for Claude Code; Qwen Code lists them among its
	// "slash_commands").
	SkillsField string
	// VersionField is the field of system/init that holds the agent's
	// version ("claude_code_version", "qwen_code_version").
	VersionField string
	// ErrorText is the text of an error result whose "result" is empty:
	// l is the result line, lastText the last assistant text seen.
	ErrorText func(l map[string]json.RawMessage, lastText string) string
	// SkillTool is the tool that loads a skill, its input's "skill"
	// naming it ("Skill" for Claude Code, "skill" for Qwen Code). Its
	// successful result is a driver.SkillEvent.
	SkillTool string
	// SkillBody, when set, is how the user message that brings a loaded
	// skill's body after the tool's result begins, the skill's folder
	// following it on the same line (Claude Code: "Base directory for
	// this skill: "); that message is then the driver.SkillEvent. When
	// empty, the tool's result carries the body and is followed by the
	// event (Qwen Code).
	SkillBody string
}

// Parser turns stream-json lines into events, each line read as
// agentjson.Parse says: it never fails on one. A Parser is not safe for
// concurrent use.
type Parser struct {
	// Emit receives the events; nil: lines are parsed for the result only.
	Emit agentjson.Emit
	// Dialect is the agent's.
	Dialect Dialect
	// Init is the first system/init line's event, once seen.
	Init *driver.InitEvent
	// Result is the first result line's event, once seen: the run's.
	Result *driver.ResultEvent

	lastText   string
	skillCalls map[string]string  // the skill tool's calls: id to skill name
	loading    *driver.SkillEvent // a skill whose body is to follow (Dialect.SkillBody)
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

// CheckInit returns a run's line handler and what it found: each line
// goes to [Parser.Parse], and the skills the init line lists go to
// check, whose error stops the run there; checked returns that error
// for the outcome (nil before the init line).
func (p *Parser) CheckInit(check func(listed []string) error) (line func([]byte) error, checked func() error) {
	var err error
	line = func(b []byte) error {
		if init := p.Parse(b); init != nil {
			err = check(init.Skills)
			return err
		}
		return nil
	}
	return line, func() error { return err }
}

// Parse reads one line and reports its events. It returns the InitEvent
// when the line was the first system/init, so the caller can check it.
// Fields are decoded one by one: a field of an unexpected type is left
// out (and reported as an ErrorEvent when the result needs it), and the
// rest of the line is still used.
func (p *Parser) Parse(b []byte) *driver.InitEvent {
	before := p.Init
	agentjson.Parse(b, p.Emit, p.line)
	if p.Init == before {
		return nil
	}
	return p.Init
}

// line reports the events of one line, and whether it knew the line.
func (p *Parser) line(line agentjson.Line) bool {
	l, raw, typ := line.Fields, line.Raw, line.Type
	subtype := agentjson.Text(l["subtype"])
	switch typ {
	case "system":
		if subtype == "init" && p.Init == nil {
			ev := &driver.InitEvent{
				SessionID: agentjson.Text(l["session_id"]),
				Model:     agentjson.Text(l["model"]),
				Cwd:       agentjson.Text(l["cwd"]),
				Tools:     names(l["tools"]),
				Skills:    names(l[p.Dialect.SkillsField]),
				Raw:       raw,
			}
			if p.Dialect.VersionField != "" {
				ev.Version = agentjson.Text(l[p.Dialect.VersionField])
			}
			p.Init = ev
			p.Emit.Send(ev)
			return true
		}
		if ev := retry(subtype, l, raw); ev != nil {
			p.Emit.Send(ev)
			return true
		}
	case "assistant", "user":
		var m message
		if json.Unmarshal(l["message"], &m) == nil && p.blocks(typ, &m, raw) {
			return true
		}
	case "stream_event":
		var se streamEvent
		if json.Unmarshal(l["event"], &se) == nil && se.Type == "content_block_delta" {
			switch se.Delta.Type {
			case "text_delta":
				p.Emit.Send(&driver.TextDeltaEvent{Text: se.Delta.Text, Raw: raw})
				return true
			case "thinking_delta":
				p.Emit.Send(&driver.ThinkingEvent{Text: se.Delta.Thinking, Raw: raw})
				return true
			}
		}
	case "result":
		p.resultLine(l, subtype, raw)
		return true
	}
	return false
}

// resultLine reports a result line; the first is the run's.
func (p *Parser) resultLine(l map[string]json.RawMessage, subtype string, raw json.RawMessage) {
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
	ev.Usage = agentjson.Decode[driver.Usage](l["usage"], "the result's usage", p.Emit)
	ev.CostUSD = agentjson.Decode[float64](l["total_cost_usd"], "the result's cost", p.Emit)
	if ev.IsError && ev.Text == "" && p.Dialect.ErrorText != nil {
		ev.Text = p.Dialect.ErrorText(l, p.lastText)
	}
	// The first result is the run's; a later one cannot replace it.
	if p.Result == nil {
		p.Result = ev
	}
	p.Emit.Send(ev)
}

// blocks reports the content blocks of an assistant or user message and
// whether it found any. Of a user message only tool results count: its
// text is the agent's own (a loaded skill's body, "[Request interrupted
// by user]"), reported raw.
func (p *Parser) blocks(role string, m *message, raw json.RawMessage) bool {
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
		if role == "user" && b.Type == "text" && p.skillBody(b.Text, raw) {
			found = true
			continue
		}
		if role == "user" && b.Type != "tool_result" {
			continue
		}
		var ev driver.Event
		switch b.Type {
		case "text":
			ev = &driver.TextEvent{Text: b.Text, Raw: raw}
			p.lastText = b.Text
		case "thinking":
			ev = &driver.ThinkingEvent{Text: b.Thinking, Raw: raw}
		case "tool_use", "server_tool_use":
			ev = &driver.ToolCallEvent{ID: b.ID, Name: b.Name, Input: b.Input, Raw: raw}
			p.skillCall(&b)
		case "tool_result":
			ev = &driver.ToolResultEvent{ToolCallID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError, Raw: raw}
		default:
			continue
		}
		found = true
		p.Emit.Send(ev)
		if b.Type == "tool_result" {
			p.skillLoaded(&b, raw)
		}
	}
	return found
}

// skillCall remembers a call of the dialect's skill tool.
func (p *Parser) skillCall(b *block) {
	if p.Dialect.SkillTool == "" || b.Name != p.Dialect.SkillTool {
		return
	}
	var in struct {
		Skill string `json:"skill"`
	}
	if json.Unmarshal(b.Input, &in) != nil || in.Skill == "" {
		return
	}
	if p.skillCalls == nil {
		p.skillCalls = map[string]string{}
	}
	p.skillCalls[b.ID] = in.Skill
}

// skillLoaded reports the skill of a successful result of the skill
// tool, or waits for its body (Dialect.SkillBody).
func (p *Parser) skillLoaded(b *block, raw json.RawMessage) {
	name, ok := p.skillCalls[b.ToolUseID]
	if !ok || b.IsError {
		return
	}
	delete(p.skillCalls, b.ToolUseID)
	ev := &driver.SkillEvent{Name: name, ToolCallID: b.ToolUseID, Raw: raw}
	if p.Dialect.SkillBody != "" {
		p.loading = ev
		return
	}
	p.Emit.Send(ev)
}

// skillBody reports the skill whose body text is, when it is the body
// that follows a skill tool's result (Dialect.SkillBody).
func (p *Parser) skillBody(text string, raw json.RawMessage) bool {
	if p.loading == nil || p.Dialect.SkillBody == "" || !strings.HasPrefix(text, p.Dialect.SkillBody) {
		return false
	}
	ev := p.loading
	p.loading = nil
	ev.Path, _, _ = strings.Cut(strings.TrimPrefix(text, p.Dialect.SkillBody), "\n")
	ev.Raw = raw
	p.Emit.Send(ev)
	return true
}

// retry reads a system line that reports a retry of a failed model API
// call: Claude Code's system/api_retry
// {"attempt","max_retries","retry_delay_ms","error_status","error"}, or
// Qwen Code's system/retry {"data":{"attempt","maxRetries","delayMs"}}.
// Qwen Code writes a second system/retry without an attempt when the wait
// is over; that one, like any other line, is not a retry (nil).
func retry(subtype string, l map[string]json.RawMessage, raw json.RawMessage) *driver.RetryEvent {
	ev := &driver.RetryEvent{Raw: raw}
	switch subtype {
	case "api_retry":
		json.Unmarshal(l["attempt"], &ev.Attempt)
		json.Unmarshal(l["max_retries"], &ev.MaxRetries)
		json.Unmarshal(l["retry_delay_ms"], &ev.DelayMS)
		json.Unmarshal(l["error_status"], &ev.Status)
		ev.Message = agentjson.Text(l["error"])
	case "retry":
		var data struct {
			Attempt    int   `json:"attempt"`
			MaxRetries int   `json:"maxRetries"`
			DelayMS    int64 `json:"delayMs"`
		}
		if json.Unmarshal(l["data"], &data) != nil || data.Attempt == 0 {
			return nil
		}
		ev.Attempt, ev.MaxRetries, ev.DelayMS = data.Attempt, data.MaxRetries, data.DelayMS
	default:
		return nil
	}
	return ev
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

// Outcome turns how a run ended (e) and the lines read into the run's
// result, as [launch.Ended.Result] says, the session taken from
// system/init when the result line has none. Two rules of the shape come
// on top: a run asked to resume that failed before any system/init is
// driver.ErrResumeRejected when rejected(err) says the agent refused the
// session; and a run with skills that ended without system/init fails
// with notListed(nil), since nothing shows the skills were loaded.
func (p *Parser) Outcome(e launch.Ended, req *driver.Request, rejected func(error) bool, notListed func([]string) error) (*driver.Result, error) {
	var initSession string
	if p.Init != nil {
		initSession = p.Init.SessionID
	}
	res, err := e.Result(p.Result, initSession)
	if err != nil && req.Resume != "" && p.Init == nil && rejected(err) {
		return nil, fmt.Errorf("session %s: %w: %w", req.Resume, driver.ErrResumeRejected, err)
	}
	if err != nil {
		return nil, err
	}
	if p.Init == nil && len(req.Skills.Entries) > 0 {
		return nil, notListed(nil)
	}
	return res, nil
}
