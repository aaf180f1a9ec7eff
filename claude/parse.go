package claude

import (
	"encoding/json"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/agentjson"
	"github.com/agentadaptor/agentadaptor/internal/streamjson"
)

// parser reads the lines of `claude -p --output-format stream-json`
// (internal/streamjson, whose shape is Claude Code's).
type parser = streamjson.Parser

// newParser returns a parser that sends its events to emit (nil: lines
// are parsed for the result only).
// Its dialect is Claude Code's stream-json: skills listed in system/init's
// "skills", loaded by the Skill tool whose result is followed by the
// skill's body ("Base directory for this skill: DIR ..."), and an error result's text, when it has none, from its
// "errors".
func newParser(emit agentjson.Emit) *parser {
	return &parser{Emit: emit, Dialect: streamjson.Dialect{
		VersionField: "claude_code_version",
		SkillsField:  "skills",
		SkillTool:    "Skill",
		SkillBody:    "Base directory for this skill: ",
		ErrorText: func(l map[string]json.RawMessage, _ string) string {
			return errorsText(l["errors"])
		},
	}}
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
