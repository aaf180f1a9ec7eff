package qwen

import (
	"encoding/json"

	"github.com/agentadaptor/agentadaptor/internal/agentjson"
	"github.com/agentadaptor/agentadaptor/internal/streamjson"
)

// parser reads the lines of `qwen --output-format=stream-json`, which
// follow Claude Code's shape (internal/streamjson).
type parser = streamjson.Parser

// newParser returns a parser that sends its events to emit (nil: lines
// are parsed for the result only).
// Its dialect is Qwen Code's stream-json: skills listed among system/init's
// "slash_commands", loaded by the skill tool (whose result carries the
// body), and an error result's text, when it has none, its
// error's message, else the last assistant text (Qwen Code writes an API
// error there as "[API Error: ...]").
func newParser(emit agentjson.Emit) *parser {
	return &parser{Emit: emit, Dialect: streamjson.Dialect{
		VersionField: "qwen_code_version",
		SkillsField:  "slash_commands",
		SkillTool:    "skill",
		ErrorText: func(l map[string]json.RawMessage, lastText string) string {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(l["error"], &e) == nil && e.Message != "" {
				return e.Message
			}
			return lastText
		},
	}}
}
