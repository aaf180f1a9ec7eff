package codex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
)

// parser turns the lines of `codex exec --json` into events, each line
// read as agentjson.Parse says: it never fails on one.
type parser struct {
	emit agentjson.Emit // nil: lines are parsed for the result only

	threadID string // from thread.started
	started  bool   // thread.started was seen
	lastText string // the last agent message
	done     bool   // turn.completed was seen
	failed   string // turn.failed's message, when one came
	didFail  bool
	result   *driver.ResultEvent
}

// item is the part of an item the parser reads.
type item struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Message          string          `json:"message"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Query            string          `json:"query"`
	Changes          json.RawMessage `json:"changes"`
	Result           json.RawMessage `json:"result"`
	Error            json.RawMessage `json:"error"`
}

// usage is turn.completed's usage.
type usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
}

// parse reads one line and reports its events.
func (p *parser) parse(b []byte) { agentjson.Parse(b, p.emit, p.line) }

// line reports the events of one line, and whether it knew the line.
func (p *parser) line(line agentjson.Line) bool {
	l, raw, typ := line.Fields, line.Raw, line.Type
	switch typ {
	case "thread.started":
		if !p.started {
			p.started = true
			p.threadID = agentjson.Text(l["thread_id"])
			p.emit.Send(&driver.InitEvent{SessionID: p.threadID, Raw: raw})
			return true
		}
	case "item.started", "item.completed":
		var it item
		if json.Unmarshal(l["item"], &it) == nil && p.item(typ == "item.completed", &it, raw) {
			return true
		}
	case "turn.completed":
		if !p.done && !p.didFail {
			p.done = true
			ev := &driver.ResultEvent{SessionID: p.threadID, Text: p.lastText, Raw: raw}
			if u := agentjson.Decode[usage](l["usage"], "the turn's usage", p.emit); u != nil {
				ev.Usage = &driver.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
					CacheReadInputTokens: u.CachedInputTokens, CacheCreationInputTokens: u.CacheWriteInputTokens}
			}
			p.result = ev
			p.emit.Send(ev)
			return true
		}
	case "turn.failed":
		if !p.done && !p.didFail {
			p.didFail = true
			p.failed = errorMessage(l["error"])
			ev := &driver.ResultEvent{SessionID: p.threadID, Text: p.failed, IsError: true, Subtype: "turn.failed", Raw: raw}
			p.result = ev
			p.emit.Send(ev)
			return true
		}
	case "error":
		// Also used for passing notes such as "Reconnecting... 1/5": an
		// event, not the end of the run.
		msg := agentjson.Text(l["message"])
		if ev := reconnecting(msg, raw); ev != nil {
			p.emit.Send(ev)
			return true
		}
		p.emit.Send(&driver.ErrorEvent{Message: msg, Raw: raw})
		return true
	}
	return false
}

// item reports one item event and whether it made an event of its own.
func (p *parser) item(completed bool, it *item, raw json.RawMessage) bool {
	var ev driver.Event
	switch it.Type {
	case "agent_message":
		if !completed {
			return false
		}
		p.lastText = it.Text
		ev = &driver.TextEvent{Text: it.Text, Raw: raw}
	case "reasoning":
		if !completed {
			return false
		}
		ev = &driver.ThinkingEvent{Text: it.Text, Raw: raw}
	case "command_execution":
		if !completed {
			input, _ := json.Marshal(map[string]string{"command": it.Command})
			ev = &driver.ToolCallEvent{ID: it.ID, Name: "command_execution", Input: input, Raw: raw}
		} else {
			failed := it.Status == "failed" || it.ExitCode != nil && *it.ExitCode != 0
			ev = &driver.ToolResultEvent{ToolCallID: it.ID, Content: it.AggregatedOutput, IsError: failed, Raw: raw}
			if file := skillFile(it.Command); file != "" && !failed {
				// Codex loads a skill by reading its SKILL.md.
				p.emit.Send(ev)
				ev = &driver.SkillEvent{Name: skillName(file), ToolCallID: it.ID, Path: file, Raw: raw}
			}
		}
	case "mcp_tool_call":
		if !completed {
			ev = &driver.ToolCallEvent{ID: it.ID, Name: it.Server + "/" + it.Tool, Input: it.Arguments, Raw: raw}
		} else {
			content := string(it.Result)
			if len(it.Error) > 0 && string(it.Error) != "null" {
				content = errorMessage(it.Error)
			}
			ev = &driver.ToolResultEvent{ToolCallID: it.ID, Content: content, IsError: it.Status == "failed", Raw: raw}
		}
	case "file_change":
		if !completed {
			ev = &driver.ToolCallEvent{ID: it.ID, Name: "file_change", Input: it.Changes, Raw: raw}
		} else {
			ev = &driver.ToolResultEvent{ToolCallID: it.ID, Content: it.Status, IsError: it.Status == "failed", Raw: raw}
		}
	case "web_search":
		if completed {
			return false
		}
		input, _ := json.Marshal(map[string]string{"query": it.Query})
		ev = &driver.ToolCallEvent{ID: it.ID, Name: "web_search", Input: input, Raw: raw}
	case "error":
		ev = &driver.ErrorEvent{Message: it.Message, Raw: raw}
	default:
		return false
	}
	p.emit.Send(ev)
	return true
}

// reconnecting reads Codex's note of a retry, an error line whose message
// is "Reconnecting... N/M (ERROR)" or "Reconnecting... waiting for network
// (ERROR)" (Codex 0.169.0), where ERROR may hold "unexpected status 401
// Unauthorized: ...". It returns nil for any other message.
func reconnecting(msg string, raw json.RawMessage) *driver.RetryEvent {
	rest, ok := strings.CutPrefix(msg, "Reconnecting... ")
	if !ok {
		return nil
	}
	ev := &driver.RetryEvent{Raw: raw}
	head, cause, _ := strings.Cut(rest, " (")
	ev.Message = strings.TrimSuffix(cause, ")")
	if n, m, ok := strings.Cut(head, "/"); ok {
		ev.Attempt, _ = strconv.Atoi(n)
		ev.MaxRetries, _ = strconv.Atoi(m)
	}
	if _, after, ok := strings.Cut(ev.Message, "unexpected status "); ok && len(after) >= 3 {
		ev.Status, _ = strconv.Atoi(after[:3])
	}
	return ev
}

// errorMessage reads an error object's message, or an error given as a
// string. A message that is itself an API error body
// ({"error":{"message":...}}, as Codex passes a 400's body on) gives that
// body's message.
func errorMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
	}
	msg := agentjson.Text(raw)
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		msg = obj.Message
	}
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if strings.HasPrefix(msg, "{") && json.Unmarshal([]byte(msg), &body) == nil && body.Error.Message != "" {
		return body.Error.Message
	}
	return msg
}

// skillFile returns the SKILL.md a command names, "" when it names none:
// Codex loads a skill by reading the SKILL.md its listing gives
// ("- NAME: DESCRIPTION (file: r0/NAME/SKILL.md)"), with a command such
// as /bin/bash -lc 'cat /root/skills/NAME/SKILL.md'.
func skillFile(command string) string {
	for _, word := range strings.FieldsFunc(command, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\'' || r == '"' || r == ';' || r == '|' || r == '&' || r == '<' || r == '>' || r == '(' || r == ')'
	}) {
		if word == skillMD || strings.HasSuffix(word, "/"+skillMD) || strings.HasSuffix(word, `\`+skillMD) {
			return word
		}
	}
	return ""
}

// skillMD is the name of a skill's file.
const skillMD = "SKILL.md"

// skillName is the name of the skill whose SKILL.md is file: its
// folder's name.
func skillName(file string) string {
	dir := strings.TrimSuffix(file, skillMD)
	dir = strings.TrimRight(dir, `/\`)
	if i := strings.LastIndexAny(dir, `/\`); i >= 0 {
		dir = dir[i+1:]
	}
	return dir
}
