package claude

import (
	"encoding/json"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentjson"
	"github.com/agentadaptor/agentadaptor/internal/process"
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

// defaultAPI is the model API Claude Code calls without
// ANTHROPIC_BASE_URL.
const defaultAPI = "https://api.anthropic.com"

// apiURL is the model API Claude Code calls in env.
func apiURL(env []string) string {
	if u := process.Getenv(env, "ANTHROPIC_BASE_URL"); u != "" {
		return u
	}
	return defaultAPI
}

// unanswered passes events on to emit, rewording the retries Claude Code
// reports with the error "unknown" and no HTTP status (its word for a
// call that got no HTTP answer: a refused or dropped connection, a
// timeout) to name the API called: "no HTTP answer from URL".
func unanswered(emit agentjson.Emit, url string) agentjson.Emit {
	if emit == nil {
		return nil
	}
	return func(ev driver.Event) {
		if r, ok := ev.(*driver.RetryEvent); ok && r.Status == 0 && r.Message == "unknown" {
			named := *r
			named.Message = "no HTTP answer from " + url
			ev = &named
		}
		emit(ev)
	}
}
