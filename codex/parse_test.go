package codex

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

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
		`{"type":"thread.started","thread_id":"th-1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"i0","type":"reasoning","text":"plan"}}`,
		`{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"cat SKILL.md","status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"cat SKILL.md","aggregated_output":"body","exit_code":0,"status":"completed"}}`,
		`{"type":"item.started","item":{"id":"i2","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":1},"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"i2","type":"mcp_tool_call","server":"s","tool":"t","status":"failed","error":{"message":"nope"}}}`,
		`{"type":"item.started","item":{"id":"i3","type":"web_search","query":"go"}}`,
		`{"type":"item.completed","item":{"id":"i4","type":"todo_list","items":[]}}`,
		`{"type":"error","message":"Reconnecting... 1/5"}`,
		`{"type":"item.completed","item":{"id":"i5","type":"agent_message","text":"first"}}`,
		`{"type":"item.completed","item":{"id":"i6","type":"agent_message","text":"final answer"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3}}`,
	)
	want := []string{"init", "raw", "thinking", "tool_call", "tool_result", "skill", "tool_call", "tool_result", "tool_call", "raw", "retry", "text", "text", "result"}
	if diff := cmp.Diff(want, streamtest.Kinds(evs)); diff != "" {
		t.Fatalf("kinds (-want +got):\n%s", diff)
	}
	if r := evs[7].(*driver.ToolResultEvent); !r.IsError || r.Content != "nope" {
		t.Errorf("failed MCP call = %+v", r)
	}
	res, err := outcome("codex", &driver.Request{}, p, process.Exit{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want2 := &driver.Result{Text: "final answer", SessionID: "th-1", Usage: &driver.Usage{InputTokens: 10, OutputTokens: 3, CacheReadInputTokens: 4}}
	if diff := cmp.Diff(want2, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestParseRetry reads Codex's notes of a retry (error lines starting
// "Reconnecting... ", as Codex 0.169.0 writes them) as retry events, and
// every other error line as an error event.
func TestParseRetry(t *testing.T) {
	tests := []struct {
		line string
		want driver.Event
	}{
		{`{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: bad key, url: http://h/v1/responses)"}`,
			&driver.RetryEvent{Attempt: 1, MaxRetries: 5, Status: 401, Message: "unexpected status 401 Unauthorized: bad key, url: http://h/v1/responses"}},
		{`{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)"}`,
			&driver.RetryEvent{Attempt: 2, MaxRetries: 5, Message: "stream disconnected before completion: failed to lookup address information: Name does not resolve"}},
		{`{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}`,
			&driver.RetryEvent{Message: "Connection failed: error sending request"}},
		{`{"type":"error","message":"Reconnecting... x/y (unexpected status 4)"}`,
			&driver.RetryEvent{Message: "unexpected status 4"}},
		{`{"type":"error","message":"unexpected status 401 Unauthorized: bad key"}`,
			&driver.ErrorEvent{Message: "unexpected status 401 Unauthorized: bad key"}},
	}
	for _, tt := range tests {
		_, evs := parseAll(tt.line)
		if diff := cmp.Diff([]driver.Event{tt.want}, evs, cmpopts.IgnoreFields(driver.RetryEvent{}, "Raw"), cmpopts.IgnoreFields(driver.ErrorEvent{}, "Raw")); diff != "" {
			t.Errorf("parse(%s) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestParseOddLines(t *testing.T) {
	p, evs := parseAll(
		`{"type":"thread.started","thread_id":7}`,
		`not json`,
		`[1]`,
		`{"type":"item.completed","item":"x"}`,
		`{"type":"item.completed","item":{"type":"agent_message","text":5}}`,
		`{"type":"turn.completed","usage":"lots"}`,
		`{"type":"turn.completed","usage":{}}`,
	)
	want := []string{"init", "error", "error", "raw", "raw", "error", "result", "raw"}
	if diff := cmp.Diff(want, streamtest.Kinds(evs)); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if p.result == nil || p.result.Usage != nil {
		t.Errorf("result = %+v, want one without usage", p.result)
	}
}

func TestOutcome(t *testing.T) {
	failed, _ := parseAll(`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.failed","error":{"message":"quota"}}`)
	_, err := outcome("codex", &driver.Request{}, failed, process.Exit{Code: 1}, nil)
	var ae *driver.AgentError
	if !errors.As(err, &ae) || ae.Message != "quota" || ae.Result.SessionID != "th" {
		t.Errorf("turn.failed = %v, want an AgentError with the session", err)
	}
	_, err = outcome("codex", &driver.Request{}, &parser{}, process.Exit{Code: 0, Stderr: "hm"}, nil)
	if !errors.Is(err, driver.ErrNoResult) || errors.Is(err, driver.ErrProcessFailed) {
		t.Errorf("no result = %v, want ErrNoResult", err)
	}
	_, err = outcome("codex", &driver.Request{Resume: "x"}, &parser{}, process.Exit{Code: 1, Stderr: "Error: no rollout found for thread id x"}, nil)
	if !errors.Is(err, driver.ErrResumeRejected) || !errors.Is(err, driver.ErrProcessFailed) {
		t.Errorf("unknown session = %v, want ErrResumeRejected wrapping the process error", err)
	}
	_, err = outcome("codex", &driver.Request{Resume: "x"}, &parser{}, process.Exit{Code: -1, Signal: "killed"}, nil)
	if errors.Is(err, driver.ErrResumeRejected) || !errors.Is(err, driver.ErrProcessFailed) {
		t.Errorf("crash during a resume = %v, want a process error only", err)
	}
	done, _ := parseAll(`{"type":"turn.completed","usage":{}}`)
	if _, err = outcome("codex", &driver.Request{}, done, process.Exit{Code: 2}, nil); !errors.Is(err, driver.ErrProcessFailed) {
		t.Errorf("result then exit 2 = %v, want ErrProcessFailed", err)
	}
}

// TestRecordedStreams parses the streams recorded from the real CLI
// (testdata/*.jsonl) and checks what each must give.
func TestRecordedStreams(t *testing.T) {
	type want struct {
		text    string // the result's text; "" for no result
		isError bool
		kinds   []string // kinds that must be among the events
		usage   bool
	}
	tests := map[string]want{
		"plain.jsonl":          {text: "Hello from the stand-in.", usage: true},
		"command.jsonl":        {text: "Read it.", kinds: []string{"tool_call", "tool_result"}, usage: true},
		"skill-call.jsonl":     {text: "Reviewed.", kinds: []string{"tool_call", "tool_result", "skill"}, usage: true},
		"failed-command.jsonl": {text: "No file.", kinds: []string{"tool_result"}, usage: true},
		"unknown-model.jsonl":  {text: "Hi.", kinds: []string{"error"}, usage: true},
		"resume.jsonl":         {text: "Answer to 9 input items.", usage: true},
		"api-error.jsonl":      {text: "The stand-in refuses this request.", isError: true, kinds: []string{"error"}},
		"api-retry.jsonl":      {text: "unexpected status 401", isError: true, kinds: []string{"retry", "error"}},
		"idle-timeout.jsonl":   {text: "idle timeout", isError: true, kinds: []string{"text", "error"}},
		"interrupt.jsonl":      {},
		"unknown-resume.jsonl": {},
	}
	streamtest.ForEachStream(t, tests, func(t *testing.T, w want, data []byte) {
		var rec streamtest.Recorder
		p := &parser{emit: rec.Emit}
		for _, l := range bytes.Split(data, []byte("\n")) {
			p.parse(l)
		}
		streamtest.CheckStreamEvents(t, rec.Events(), w.kinds, func(e *driver.ErrorEvent) bool { return strings.Contains(e.Message, "not a JSON object") })
		if len(bytes.TrimSpace(data)) > 0 && (!p.started || p.threadID == "") {
			t.Errorf("no thread id found")
		}
		res, err := outcome("codex", &driver.Request{}, p, process.Exit{}, nil)
		switch {
		case w.text == "":
			if !errors.Is(err, driver.ErrNoResult) {
				t.Errorf("outcome = %v, %v; want ErrNoResult", res, err)
			}
		case w.isError:
			var ae *driver.AgentError
			if !errors.As(err, &ae) || !strings.Contains(ae.Message, w.text) || strings.HasPrefix(ae.Message, "{") {
				t.Errorf("outcome = %v, want an AgentError saying %q", err, w.text)
			}
		default:
			if err != nil || res.Text != w.text || res.SessionID == "" || (w.usage && (res.Usage == nil || res.Usage.InputTokens == 0)) {
				t.Errorf("outcome = %+v, %v; want %q with a session and usage", res, err, w.text)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f,
		`{"type":"item.completed","item":{"type":"command_execution","exit_code":null}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1}}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &parser{emit: streamtest.NoNilEvents(t)}
		p.parse(line)
		p.parse(line)
		outcome("codex", &driver.Request{Resume: "x"}, p, process.Exit{Code: 1}, nil)
	})
}
