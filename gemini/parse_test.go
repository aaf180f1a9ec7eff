package gemini

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// parseAll parses lines and returns the parser and the events it made.
func parseAll(lines ...string) (*parser, []driver.Event) {
	var rec streamtest.Recorder
	p := &parser{emit: rec.Emit}
	for _, l := range lines {
		p.parse([]byte(l))
	}
	return p, rec.Events()
}

func TestParseEvents(t *testing.T) {
	p, evs := parseAll(
		`{"type":"init","session_id":"s1","model":"auto"}`,
		`{"type":"message","role":"user","content":"hi"}`,
		`{"type":"message","role":"assistant","content":"Let me ","delta":true}`,
		`{"type":"message","role":"assistant","content":"look.","delta":true}`,
		`{"type":"tool_use","tool_name":"activate_skill","tool_id":"t1","parameters":{"name":"review"}}`,
		`{"type":"tool_result","tool_id":"t1","status":"success","output":""}`,
		`{"type":"tool_result","tool_id":"t2","status":"error","output":"","error":{"type":"x","message":"boom"}}`,
		`{"type":"error","severity":"warning","message":"slow"}`,
		`{"type":"message","role":"assistant","content":"Done.","delta":true}`,
		`{"type":"result","status":"success","stats":{"input_tokens":12,"output_tokens":5,"cached":3,"duration_ms":1500}}`,
		`{"type":"result","status":"error","error":{"message":"late"}}`,
		`{"type":"message","role":"assistant","content":"after","delta":true}`,
	)
	want := []string{"init", "raw", "text_delta", "text_delta", "text", "tool_call", "tool_result", "skill", "tool_result", "error", "text_delta", "text", "result", "raw", "raw"}
	if diff := cmp.Diff(want, streamtest.Kinds(evs)); diff != "" {
		t.Fatalf("kinds (-want +got):\n%s", diff)
	}
	if text := evs[4].(*driver.TextEvent).Text; text != "Let me look." {
		t.Errorf("first message = %q, want %q", text, "Let me look.")
	}
	call := evs[5].(*driver.ToolCallEvent)
	if call.ID != "t1" || call.Name != "activate_skill" || string(call.Input) != `{"name":"review"}` {
		t.Errorf("tool call = %+v", call)
	}
	if r := evs[8].(*driver.ToolResultEvent); r.ToolCallID != "t2" || r.Content != "boom" || !r.IsError {
		t.Errorf("error tool result = %+v", r)
	}
	res := p.result
	if res == nil || res.Text != "Done." || res.SessionID != "s1" || res.IsError || res.DurationMS != 1500 ||
		*res.Usage != (driver.Usage{InputTokens: 12, OutputTokens: 5, CacheReadInputTokens: 3}) {
		t.Errorf("result = %+v", res)
	}
}

func TestParseOddLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		kinds []string
	}{
		{"malformed", []string{`{"type":"init"`, "\x00\xff garbage", `[1,2]`}, []string{"error", "error", "error"}},
		{"blank", []string{"", "   "}, nil},
		{"unknown type", []string{`{"type":"thought","x":1}`, `{}`}, []string{"raw", "raw"}},
		{"odd fields", []string{`{"type":"message","role":"assistant","content":5}`, `{"type":"tool_use","parameters":[1]}`}, []string{"text_delta", "tool_call"}},
		{"bad stats", []string{`{"type":"result","status":"success","stats":"x"}`}, []string{"error", "result"}},
		{"second init", []string{`{"type":"init","session_id":"a"}`, `{"type":"init","session_id":"b"}`}, []string{"init", "raw"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, evs := parseAll(tt.lines...)
			if diff := cmp.Diff(tt.kinds, streamtest.Kinds(evs)); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseRecorded parses the output of the real Gemini CLI 0.61.0
// (testdata/README.md).
func TestParseRecorded(t *testing.T) {
	type want struct {
		kinds   []string
		text    string
		isError bool
	}
	tests := map[string]want{
		"plain.jsonl":      {kinds: []string{"init", "raw", "text_delta", "text", "result"}, text: "hello"},
		"tool-call.jsonl":  {kinds: []string{"init", "raw", "tool_call", "tool_result", "text_delta", "text", "result"}, text: "reviewed"},
		"api-error.jsonl":  {kinds: []string{"init", "raw", "result"}, text: "bad request here", isError: true},
		"skill-call.jsonl": {kinds: []string{"init", "raw", "tool_call", "tool_result", "skill", "text_delta", "text", "result"}, text: "reviewed"},
	}
	streamtest.ForEachStream(t, tests, func(t *testing.T, w want, data []byte) {
		var rec streamtest.Recorder
		p := &parser{emit: rec.Emit}
		for _, l := range bytes.Split(data, []byte("\n")) {
			p.parse(l)
		}
		if diff := cmp.Diff(w.kinds, streamtest.Kinds(rec.Events())); diff != "" {
			t.Errorf("kinds (-want +got):\n%s", diff)
		}
		code := 0
		if w.isError {
			code = 144
		}
		res, err := outcome("gemini", &driver.Request{}, "/overlay", "/home", p, process.Exit{Code: code}, nil)
		if w.isError {
			var ae *driver.AgentError
			if !errors.As(err, &ae) || !strings.Contains(ae.Message, w.text) || ae.Result.SessionID == "" {
				t.Errorf("outcome = %v, want an AgentError saying %q with the session", err, w.text)
			}
			return
		}
		if err != nil || res.Text != w.text || res.SessionID == "" || res.Usage == nil || res.Usage.InputTokens == 0 {
			t.Errorf("outcome = %+v, %v; want %q with a session and usage", res, err, w.text)
		}
	})
}

// TestOutcome checks how the end of a run maps to its error (rule 3 of
// "Checks").
func TestOutcome(t *testing.T) {
	const id = "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"
	overlay := filepath.Join(string(filepath.Separator), "cache", "homes", "gemini", "k")
	ours := filepath.Join(overlay, ".agents", "skills", "review", "SKILL.md")
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "review", RuntimeName: "review", Path: "/skills/review"}}}
	done := []string{`{"type":"init","session_id":"` + id + `"}`, `{"type":"message","role":"assistant","content":"ok"}`, `{"type":"result","status":"success"}`}
	tests := []struct {
		name   string
		resume string
		lines  []string
		exit   process.Exit
		check  func(error) bool
	}{
		{"unknown session", id, nil, process.Exit{Code: 42, Stderr: "Invalid session identifier"}, func(err error) bool {
			return errors.Is(err, driver.ErrResumeRejected) && errors.Is(err, driver.ErrProcessFailed)
		}},
		{"bad input, no resume", "", nil, process.Exit{Code: 42}, func(err error) bool {
			return errors.Is(err, driver.ErrProcessFailed) && !errors.Is(err, driver.ErrResumeRejected)
		}},
		{"untrusted", "", nil, process.Exit{Code: 55}, func(err error) bool {
			return errors.Is(err, driver.ErrProcessFailed) && strings.Contains(err.Error(), "RespectTrust")
		}},
		{"auth refused", "", nil, process.Exit{Code: 41, Stderr: "Invalid auth method selected."}, func(err error) bool {
			return errors.Is(err, driver.ErrProcessFailed) && errors.Is(err, driver.ErrProviderSetup) &&
				strings.Contains(err.Error(), "/home/.gemini/settings.json") && strings.Contains(err.Error(), `"selectedType": "gemini-api-key"`)
		}},
		{"interrupted, no result", "", done[:2], process.Exit{}, func(err error) bool { return errors.Is(err, driver.ErrNoResult) }},
		{"our skill overridden", "", done, process.Exit{Stderr: `Skill conflict detected: "review" from "/w/.agents/skills/review/SKILL.md" is overriding the same skill from "` + ours + `".`},
			func(err error) bool {
				var nm *driver.NotMountedError
				return errors.As(err, &nm) && cmp.Equal(nm.Missing, []string{"review"})
			}},
		{"another skill overridden", "", done, process.Exit{Stderr: `Skill conflict detected: "x" from "/a/x/SKILL.md" is overriding the same skill from "/b/x/SKILL.md".`},
			func(err error) bool { return err == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := parseAll(tt.lines...)
			_, err := outcome("gemini", &driver.Request{Resume: tt.resume, Skills: rs}, overlay, "/home", p, tt.exit, nil)
			if !tt.check(err) {
				t.Errorf("outcome = %v", err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f,
		`{"type":"result","status":"success","stats":{"input_tokens":1}}`,
		`{"type":"tool_use","parameters":null}`,
		`{"type":"tool_result","error":"x"}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &parser{emit: streamtest.NoNilEvents(t)}
		p.parse(line)
		p.parse(line)
		outcome("gemini", &driver.Request{Resume: "x"}, "/o", "/home", p, process.Exit{Code: 1, Stderr: string(line)}, nil)
	})
}
