package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// runLineType is one type of line of `run --json`: its "type", what it
// says, and the Go value it is written from, whose JSON fields are its
// fields (a field without omitempty or omitzero is always present).
type runLineType struct {
	Type string
	Doc  string
	of   any
}

// runSchema is the schema of `run --json`, printed by run --help
// (runSchemaHelp) and checked against every agent's real output by the
// tests.
func runSchema() []runLineType {
	return []runLineType{
		{driver.KindInit, "the agent started: its session, model, folder, tools, version and, when it lists them (Claude Code, Qwen Code, Cursor CLI), the skills it loaded", driver.InitEvent{}},
		{driver.KindText, "a whole block of the assistant's text", driver.TextEvent{}},
		{driver.KindTextDelta, "a piece of text as it is written; the pieces of a block come before its text line", driver.TextDeltaEvent{}},
		{driver.KindThinking, "the assistant's reasoning, when the agent shows it", driver.ThinkingEvent{}},
		{driver.KindToolCall, "the assistant calls a tool", driver.ToolCallEvent{}},
		{driver.KindToolResult, "what the tool call of tool_call_id returned", driver.ToolResultEvent{}},
		{driver.KindSkill, "the agent loaded a skill's body (Claude Code's and Qwen Code's skill tool, Gemini CLI's activate_skill, Codex reading the SKILL.md); path when the agent says", driver.SkillEvent{}},
		{driver.KindRetry, "the agent retries a failed model API call: the attempt, how many it makes, the wait, the HTTP status and error when it says (Claude Code, Codex, Gemini CLI, Qwen Code)", driver.RetryEvent{}},
		{kindAgentError, "an error the agent reports without ending the run (a line that is not JSON, an API error it goes on after)", driver.ErrorEvent{}},
		{driver.KindRaw, "a line of the agent's the run does not interpret, as it is, with the agent's own type", driver.RawEvent{}},
		{driver.KindResult, "the run's result: the last line of a run that succeeded (with its skills, fingerprint and workspace), or, with is_error true, what the agent said before the error line of a run it ended with an error", resultJSON{}},
		{driver.KindError, "the last line of a run that failed, and the only error line: code is usage, input, check, policy, integrity, agent, failed, timeout or interrupted; session_id when a session is known, to resume it", errorLine{}},
	}
}

// jsonField is one field of a line type.
type jsonField struct {
	Name     string
	Required bool
}

// fields returns the JSON fields of the line type, "type" first.
func (l runLineType) fields() []jsonField {
	out := []jsonField{{Name: "type", Required: true}}
	t := reflect.TypeOf(l.of)
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || name == "type" || !t.Field(i).IsExported() {
			continue
		}
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		out = append(out, jsonField{Name: name, Required: !optional})
	}
	return out
}

// runSchemaHelp is the schema of run --json for run --help.
func runSchemaHelp() string {
	var b strings.Builder
	b.WriteString(`With --json, stdout is one JSON object per line, each with a "type"; no
other line types and no other fields appear. Fields marked * are always
present, the others only when known. A run that succeeded ends with a
result line; a run that failed, whatever the cause, ends with exactly one
error line ({"type":"error","code":...,"message":...,"exit_code":...}):
`)
	for _, l := range runSchema() {
		var names []string
		for _, f := range l.fields() {
			if f.Required {
				names = append(names, f.Name+"*")
			} else {
				names = append(names, f.Name)
			}
		}
		fmt.Fprintf(&b, "  %-12s %s\n", l.Type, strings.Join(names, " "))
		line := ""
		for _, w := range strings.Fields(l.Doc) {
			if line != "" && len(line)+1+len(w) > 60 {
				fmt.Fprintf(&b, "  %-12s %s\n", "", line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		fmt.Fprintf(&b, "  %-12s %s\n", "", line)
	}
	return b.String()
}
