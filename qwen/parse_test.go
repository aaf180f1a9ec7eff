package qwen

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	p := newParser(rec.Emit)
	for _, l := range lines {
		p.Parse([]byte(l))
	}
	return p, rec.Events()
}

// The lines have the shapes Qwen Code 0.24.4 writes (see the reference
// notes, and the real runs of the conformance suite).
func TestParseEvents(t *testing.T) {
	p, evs := parseAll(
		`{"type":"system","subtype":"init","uuid":"u","session_id":"s1","cwd":"/w","tools":["skill","read_file"],"mcp_servers":[],"model":"m","permission_mode":"auto","slash_commands":["auth","greet"],"qwen_code_version":"0.24.4"}`,
		`{"type":"stream_event","event":{"type":"goal_state","active":false}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"He"}}}`,
		`{"type":"assistant","session_id":"s1","parent_tool_use_id":null,"message":{"id":"a","role":"assistant","model":"m","content":[{"type":"text","text":"Hello"},{"type":"tool_use","id":"t1","name":"skill","input":{"skill":"greet"}}],"stop_reason":null}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"content":"Greets."}]}}`,
		`{"type":"result","subtype":"success","session_id":"s1","is_error":false,"duration_ms":1500,"num_turns":2,"result":"done","usage":{"input_tokens":12,"output_tokens":5,"cache_read_input_tokens":3,"total_tokens":17},"permission_denials":[]}`,
	)
	want := []string{"init", "raw", "text_delta", "text", "tool_call", "tool_result", "skill", "result"}
	if diff := cmp.Diff(want, streamtest.Kinds(evs)); diff != "" {
		t.Fatalf("kinds (-want +got):\n%s", diff)
	}
	init := evs[0].(*driver.InitEvent)
	if init.SessionID != "s1" || !cmp.Equal(init.Skills, []string{"auth", "greet"}) || init.Model != "m" || len(init.Raw) == 0 {
		t.Errorf("init = %+v", init)
	}
	if call := evs[4].(*driver.ToolCallEvent); call.ID != "t1" || call.Name != "skill" || string(call.Input) != `{"skill":"greet"}` {
		t.Errorf("tool call = %+v", call)
	}
	if r := evs[5].(*driver.ToolResultEvent); r.ToolCallID != "t1" || r.Content != "Greets." || r.IsError {
		t.Errorf("tool result = %+v", r)
	}
	res := p.Result
	if res == nil || res.Text != "done" || res.SessionID != "s1" || res.IsError || res.NumTurns != 2 || res.DurationMS != 1500 ||
		*res.Usage != (driver.Usage{InputTokens: 12, OutputTokens: 5, CacheReadInputTokens: 3}) {
		t.Errorf("result = %+v", res)
	}
}

// TestParseRetryAndVersion reads Qwen Code's system/retry lines: the one
// that starts a wait is a retry event, the one that ends it (no attempt)
// a raw event; system/init gives the version.
func TestParseRetryAndVersion(t *testing.T) {
	var rec streamtest.Recorder
	p := newParser(rec.Emit)
	for _, l := range []string{
		`{"type":"system","subtype":"init","session_id":"s","slash_commands":[],"qwen_code_version":"0.24.4"}`,
		`{"type":"system","subtype":"retry","data":{"reason":"retry","attempt":2,"maxRetries":10,"delayMs":120000}}`,
		`{"type":"system","subtype":"retry","data":{"reason":"retry","discardedToolCalls":0}}`,
		`{"type":"system","subtype":"retry","data":"odd"}`,
	} {
		p.Parse([]byte(l))
	}
	evs := rec.Events()
	if diff := cmp.Diff([]string{"init", "retry", "raw", "raw"}, streamtest.Kinds(evs)); diff != "" {
		t.Fatalf("kinds (-want +got):\n%s", diff)
	}
	if p.Init.Version != "0.24.4" {
		t.Errorf("init version = %q, want 0.24.4", p.Init.Version)
	}
	if r := evs[1].(*driver.RetryEvent); r.Attempt != 2 || r.MaxRetries != 10 || r.DelayMS != 120000 {
		t.Errorf("retry = %+v, want attempt 2 of 10 after 120000 ms", r)
	}
}

func TestParseOddLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		kinds []string
	}{
		{"malformed", []string{`{"type":"assistant"`, "\x00\xff garbage", `[1,2]`}, []string{"error", "error", "error"}},
		{"blank", []string{"", "   "}, nil},
		{"unknown type", []string{`{"type":"goal","x":1}`, `{}`}, []string{"raw", "raw"}},
		{"assistant without content", []string{`{"type":"assistant"}`, `{"type":"assistant","message":{"content":5}}`}, []string{"raw", "raw"}},
		{"user text", []string{`{"type":"user","message":{"content":"hello"}}`}, []string{"raw"}},
		{"second init", []string{`{"type":"system","subtype":"init","session_id":"a"}`, `{"type":"system","subtype":"init","session_id":"b"}`}, []string{"init", "raw"}},
		{"usage of a wrong type", []string{`{"type":"result","subtype":"success","result":"x","usage":"lots"}`}, []string{"error", "result"}},
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

func TestOutcome(t *testing.T) {
	init := `{"type":"system","subtype":"init","session_id":"s1","slash_commands":["greet"]}`
	dir := t.TempDir()
	greet := filepath.Join(dir, "greet")
	os.MkdirAll(greet, 0o755)
	os.WriteFile(filepath.Join(greet, "SKILL.md"), []byte("---\nname: greet\ndescription: d\n---\nbody\n"), 0o644)
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "SKILL.md"), []byte("---\nname: listed-as\ndescription: d\n---\nbody\n"), 0o644)
	skills := func(paths ...string) driver.ResolvedSkills {
		var rs driver.ResolvedSkills
		for _, p := range paths {
			rs.Entries = append(rs.Entries, driver.ResolvedSkill{Key: filepath.Base(p), RuntimeName: filepath.Base(p), Path: p})
		}
		return rs
	}
	tests := []struct {
		name  string
		req   driver.Request
		lines []string
		exit  process.Exit
		check func(t *testing.T, res *driver.Result, err error)
	}{
		{"success", driver.Request{Skills: skills(greet)}, []string{init, `{"type":"result","subtype":"success","session_id":"s1","is_error":false,"result":"ok"}`}, process.Exit{},
			func(t *testing.T, res *driver.Result, err error) {
				if err != nil || res.Text != "ok" || res.SessionID != "s1" {
					t.Errorf("outcome = %+v, %v; want ok in session s1", res, err)
				}
			}},
		{"api error", driver.Request{}, []string{init,
			`{"type":"assistant","message":{"content":[{"type":"text","text":"[API Error: 400 bad model]"}]}}`,
			`{"type":"result","subtype":"error_during_execution","session_id":"s1","is_error":true}`}, process.Exit{Code: 1},
			func(t *testing.T, _ *driver.Result, err error) {
				var ae *driver.AgentError
				if !errors.As(err, &ae) || ae.Message != "[API Error: 400 bad model]" || ae.Result.SessionID != "s1" {
					t.Errorf("outcome = %v; want an AgentError with the API error's text", err)
				}
			}},
		{"error message", driver.Request{}, []string{init, `{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"boom"}}`}, process.Exit{Code: 1},
			func(t *testing.T, _ *driver.Result, err error) {
				var ae *driver.AgentError
				if !errors.As(err, &ae) || ae.Message != "boom" {
					t.Errorf("outcome = %v; want an AgentError saying boom", err)
				}
			}},
		{"resume refused", driver.Request{Resume: "3f0c6a8e-8d1f-4c4e-9a55-2a1d6f0b7c11"}, nil, process.Exit{Code: 1, Stderr: "No saved session found with ID"},
			func(t *testing.T, _ *driver.Result, err error) {
				if !errors.Is(err, driver.ErrResumeRejected) || !errors.Is(err, driver.ErrProcessFailed) {
					t.Errorf("outcome = %v; want ErrResumeRejected wrapping the process failure", err)
				}
			}},
		{"no result", driver.Request{}, []string{init}, process.Exit{},
			func(t *testing.T, _ *driver.Result, err error) {
				if !errors.Is(err, driver.ErrNoResult) {
					t.Errorf("outcome = %v; want ErrNoResult", err)
				}
			}},
		{"no init", driver.Request{Skills: skills(greet)}, []string{`{"type":"result","subtype":"success","result":"ok"}`}, process.Exit{},
			func(t *testing.T, _ *driver.Result, err error) {
				var nm *driver.NotMountedError
				if !errors.As(err, &nm) || !cmp.Equal(nm.Missing, []string{"greet"}) {
					t.Errorf("outcome = %v; want greet not mounted", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := parseAll(tt.lines...)
			res, err := outcome("qwen", &tt.req, p, tt.exit, nil, nil)
			tt.check(t, res, err)
		})
	}

	t.Run("listed by front matter name", func(t *testing.T) {
		if err := checkMounted([]string{"greet", "listed-as"}, skills(greet, other)); err != nil {
			t.Errorf("checkMounted = %v, want nil", err)
		}
		var nm *driver.NotMountedError
		if err := checkMounted([]string{"greet", "other"}, skills(greet, other)); !errors.As(err, &nm) || !cmp.Equal(nm.Missing, []string{"other"}) {
			t.Errorf("checkMounted = %v, want other missing (Qwen Code lists it as listed-as)", err)
		}
	})
}

func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f,
		`{"type":"system","subtype":"init","session_id":"s","slash_commands":["a",{"name":"b"},3]}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"x"},"usage":{"input_tokens":1}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":null}]}}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := newParser(streamtest.NoNilEvents(t))
		p.Parse(line)
		p.Parse(line)
		outcome("qwen", &driver.Request{Resume: "x"}, p, process.Exit{Code: 1}, nil, nil)
	})
}

// TestParseRecorded parses the streams recorded from the real Qwen Code
// 0.24.4 (TestRealStreams -record): no line is malformed, and each has
// the events and the outcome expected.
func TestParseRecorded(t *testing.T) {
	type want struct {
		kinds []string
		text  string
		err   bool
	}
	streamtest.ForEachStream(t, map[string]want{
		"plain.jsonl":      {[]string{"init", "text", "result"}, "Hello from the stand-in.", false},
		"partial.jsonl":    {[]string{"init", "text_delta", "text", "result"}, "Hello from the stand-in.", false},
		"skill-call.jsonl": {[]string{"init", "tool_call", "tool_result", "skill", "text", "result"}, "Greeted.", false},
		"api-error.jsonl":  {[]string{"init", "text", "result"}, "[API Error: 400 unknown model]", true},
		// Cut at the first retry, a minute and a half into a run against
		// an API that answers 429: no result.
		"api-retry.jsonl": {[]string{"init", "retry"}, "", false},
	}, func(t *testing.T, w want, stream []byte) {
		var rec streamtest.Recorder
		p := newParser(rec.Emit)
		for _, l := range strings.Split(string(stream), "\n") {
			p.Parse([]byte(l))
		}
		streamtest.CheckStreamEvents(t, rec.Events(), w.kinds, func(*driver.ErrorEvent) bool { return true })
		if p.Init == nil || !slices.Contains(p.Init.Skills, "greet") {
			t.Errorf("init = %+v, want greet among its skills", p.Init)
		}
		exit := process.Exit{}
		if w.err {
			exit.Code = 1
		}
		res, err := outcome("qwen", &driver.Request{}, p, exit, nil, nil)
		var ae *driver.AgentError
		switch {
		case w.text == "":
			if !errors.Is(err, driver.ErrNoResult) {
				t.Errorf("outcome = %v, %v; want ErrNoResult", res, err)
			}
		case w.err && (!errors.As(err, &ae) || ae.Message != w.text):
			t.Errorf("outcome = %v, want an AgentError saying %q", err, w.text)
		case !w.err && (err != nil || res.Text != w.text || res.SessionID != p.Init.SessionID || res.Usage == nil):
			t.Errorf("outcome = %+v, %v; want %q in the init's session, with usage", res, err, w.text)
		}
	})
}
