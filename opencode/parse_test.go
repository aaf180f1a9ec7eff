package opencode

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// parseAll runs the parser over the lines of stream and returns its
// events, the result it builds last.
func parseAll(stream string) ([]driver.Event, *driver.ResultEvent) {
	var evs []driver.Event
	p := &parser{emit: func(ev driver.Event) { evs = append(evs, ev) }}
	for _, l := range strings.Split(stream, "\n") {
		p.parse([]byte(l))
	}
	return evs, p.result()
}

// TestRecordedStreams parses the streams recorded from OpenCode 1.18.33
// (testdata/*.jsonl, written by the real-CLI tests with OPENCODE_RECORD).
func TestRecordedStreams(t *testing.T) {
	type want struct {
		kinds  []string
		skills []string
		text   string
		isErr  bool
		input  int64
	}
	streamtest.ForEachStream(t, map[string]want{
		"skill.jsonl": {kinds: []string{driver.KindInit, driver.KindToolCall, driver.KindToolResult, driver.KindSkill, driver.KindText}, skills: []string{"greet"}, text: "loaded it", input: 20},
		"error.jsonl": {kinds: []string{driver.KindInit, driver.KindError}, isErr: true, text: "QUOTA-MARK"},
	}, func(t *testing.T, w want, stream []byte) {
		evs, res := parseAll(string(stream))
		streamtest.CheckStreamEvents(t, evs, w.kinds, func(e *driver.ErrorEvent) bool { return strings.Contains(e.Message, "not a JSON object") })
		var skills []string
		for _, s := range streamtest.Skills(evs) {
			skills = append(skills, s.Name)
			if !strings.HasSuffix(s.Path, s.Name) {
				t.Errorf("skill %s path %q, want its folder", s.Name, s.Path)
			}
		}
		if strings.Join(skills, ",") != strings.Join(w.skills, ",") {
			t.Errorf("skills = %q, want %q", skills, w.skills)
		}
		if res == nil || res.Text != w.text || res.IsError != w.isErr || !strings.HasPrefix(res.SessionID, "ses_") {
			t.Fatalf("result = %+v, want text %q, error %v and a session", res, w.text, w.isErr)
		}
		if w.input > 0 && (res.Usage == nil || res.Usage.InputTokens != w.input) {
			t.Errorf("usage = %+v, want %d input tokens summed over the steps", res.Usage, w.input)
		}
	})
}

// TestParseResult checks how the result is built from the lines (rule 4
// of "Checks" and "The run").
func TestParseResult(t *testing.T) {
	const sid = `"sessionID":"ses_0123456789abcdefABCDEFGHIJ"`
	step := func(in, out, reasoning, read int) string {
		return `{"type":"step_finish",` + sid + `,"part":{"reason":"stop","tokens":{"input":` + strconv.Itoa(in) + `,"output":` + strconv.Itoa(out) + `,"reasoning":` + strconv.Itoa(reasoning) + `,"cache":{"read":` + strconv.Itoa(read) + `,"write":1}},"cost":0.5}}`
	}
	text := func(s string) string { return `{"type":"text",` + sid + `,"part":{"type":"text","text":"` + s + `"}}` }
	start := `{"type":"step_start",` + sid + `,"part":{"type":"step-start"}}`
	tests := []struct {
		name   string
		lines  []string
		want   *driver.ResultEvent
		usage  driver.Usage
		errors int
	}{
		{"no lines", nil, nil, driver.Usage{}, 0},
		{"started, no step finished", []string{start, text("half")}, nil, driver.Usage{}, 0},
		{"usage summed over steps, text of the last step with text",
			[]string{start, text("first"), step(10, 2, 1, 3), start, text("a"), text("b"), step(5, 1, 0, 0), start, step(1, 1, 0, 0)},
			&driver.ResultEvent{Text: "a\nb", NumTurns: 3}, driver.Usage{InputTokens: 16, OutputTokens: 5, CacheReadInputTokens: 3, CacheCreationInputTokens: 3}, 0},
		{"an error line makes an error result",
			[]string{start, step(1, 1, 0, 0), `{"type":"error",` + sid + `,"error":{"name":"APIError","data":{"message":"boom"}}}`},
			&driver.ResultEvent{Text: "boom", IsError: true, Subtype: "APIError"}, driver.Usage{InputTokens: 1, OutputTokens: 1, CacheCreationInputTokens: 1}, 1},
		{"an error without a message says its name",
			[]string{`{"type":"error",` + sid + `,"error":{"name":"UnknownError"}}`},
			&driver.ResultEvent{Text: "opencode reported an error UnknownError", IsError: true, Subtype: "UnknownError"}, driver.Usage{}, 1},
		{"a line that is not JSON is an error event",
			[]string{"not json", start, text("ok"), step(1, 1, 0, 0)},
			&driver.ResultEvent{Text: "ok", NumTurns: 1}, driver.Usage{InputTokens: 1, OutputTokens: 1, CacheCreationInputTokens: 1}, 1},
		{"fields of the wrong type are left out",
			[]string{`{"type":"text",` + sid + `,"part":"x"}`, `{"type":"step_finish",` + sid + `,"part":{"tokens":"many"}}`},
			&driver.ResultEvent{NumTurns: 1}, driver.Usage{}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, res := parseAll(strings.Join(tc.lines, "\n"))
			errs := 0
			for _, ev := range evs {
				if _, ok := ev.(*driver.ErrorEvent); ok {
					errs++
				}
			}
			if errs != tc.errors {
				t.Errorf("%d error events, want %d", errs, tc.errors)
			}
			if tc.want == nil {
				if res != nil {
					t.Errorf("result = %+v, want none", res)
				}
				return
			}
			if res == nil {
				t.Fatal("no result")
			}
			if res.Text != tc.want.Text || res.IsError != tc.want.IsError || res.Subtype != tc.want.Subtype || res.NumTurns != tc.want.NumTurns && !tc.want.IsError {
				t.Errorf("result = %+v, want %+v", res, tc.want)
			}
			if res.SessionID != "ses_0123456789abcdefABCDEFGHIJ" {
				t.Errorf("session = %q", res.SessionID)
			}
			var got driver.Usage
			if res.Usage != nil {
				got = *res.Usage
			}
			if got != tc.usage {
				t.Errorf("usage = %+v, want %+v", got, tc.usage)
			}
		})
	}
}

// TestParseSkillTool checks that only a completed call of the skill tool
// with a name is a SkillEvent.
func TestParseSkillTool(t *testing.T) {
	tool := func(name, status, input string) string {
		return `{"type":"tool_use","sessionID":"ses_x","part":{"type":"tool","tool":"` + name + `","callID":"c1","state":{"status":"` + status + `","input":` + input + `,"output":"<skill_content name=\"r\">\nBase directory for this skill: /s/r\n"}}}`
	}
	tests := []struct {
		line string
		want []driver.SkillEvent
	}{
		{tool("skill", "completed", `{"name":"r"}`), []driver.SkillEvent{{Name: "r", ToolCallID: "c1", Path: "/s/r"}}},
		{tool("skill", "error", `{"name":"r"}`), nil},
		{tool("skill", "completed", `{"skill":"r"}`), nil},
		{tool("read", "completed", `{"name":"r"}`), nil},
	}
	for _, tc := range tests {
		evs, _ := parseAll(tc.line)
		got := streamtest.Skills(evs)
		if len(got) != len(tc.want) || len(got) == 1 && (got[0].Name != tc.want[0].Name || got[0].ToolCallID != tc.want[0].ToolCallID || got[0].Path != tc.want[0].Path) {
			t.Errorf("parse(%q) skills = %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

// FuzzParse feeds the parser lines seeded from the recorded streams: it
// never panics, and every event it sends marshals.
func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f, `{"type":"error","error":"x"}`, `{"type":"tool_use","part":{"state":[]}}`, `{"type":"step_finish","part":{"tokens":{"cache":1}}}`)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &parser{emit: streamtest.NoNilEvents(t)}
		p.parse(line)
		p.parse(line)
		p.result()
	})
}
