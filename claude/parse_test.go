package claude

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	p := newParser(rec.Emit)
	for _, l := range lines {
		p.Parse([]byte(l))
	}
	return p, rec.Events()
}

func TestParseEvents(t *testing.T) {
	p, evs := parseAll(
		`{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","model":"m","tools":["Skill","Read"],"skills":["review","tone"]}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"He"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}}`,
		`{"type":"stream_event","event":{"type":"message_start"}}`,
		`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"plan"},{"type":"text","text":"Hello"},{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"review"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Base directory"},{"type":"image"}]}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"boom","is_error":true}]}}`,
		`{"type":"system","subtype":"compact_boundary"}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1","num_turns":2,"duration_ms":1500,"total_cost_usd":0.5,"usage":{"input_tokens":12,"output_tokens":5,"cache_read_input_tokens":3}}`,
	)
	want := []string{"init", "text_delta", "thinking", "raw", "thinking", "text", "tool_call", "tool_result", "tool_result", "raw", "result"}
	if diff := cmp.Diff(want, streamtest.Kinds(evs)); diff != "" {
		t.Fatalf("kinds (-want +got):\n%s", diff)
	}
	init := evs[0].(*driver.InitEvent)
	if init.SessionID != "s1" || !cmp.Equal(init.Skills, []string{"review", "tone"}) || init.Cwd != "/w" || len(init.Raw) == 0 {
		t.Errorf("init = %+v", init)
	}
	if d := evs[1].(*driver.TextDeltaEvent); d.Text != "He" {
		t.Errorf("delta = %+v", d)
	}
	call := evs[6].(*driver.ToolCallEvent)
	if call.ID != "t1" || call.Name != "Skill" || string(call.Input) != `{"skill":"review"}` {
		t.Errorf("tool call = %+v", call)
	}
	if r := evs[7].(*driver.ToolResultEvent); r.ToolCallID != "t1" || r.Content != "Base directory" || r.IsError {
		t.Errorf("tool result = %+v", r)
	}
	if r := evs[8].(*driver.ToolResultEvent); r.Content != "boom" || !r.IsError {
		t.Errorf("error tool result = %+v", r)
	}
	res := p.Result
	if res == nil || res.Text != "done" || res.SessionID != "s1" || res.IsError || res.NumTurns != 2 || res.DurationMS != 1500 ||
		*res.CostUSD != 0.5 || *res.Usage != (driver.Usage{InputTokens: 12, OutputTokens: 5, CacheReadInputTokens: 3}) {
		t.Errorf("result = %+v", res)
	}
}

// TestParseRetryAndVersion reads the recorded stream of a run whose API
// answered 529: system/init gives the CLI's version, and system/api_retry
// a retry event with the attempt, the delay and the HTTP status.
func TestParseRetryAndVersion(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "api-retry.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rec streamtest.Recorder
	p := newParser(rec.Emit)
	for _, l := range bytes.Split(data, []byte("\n")) {
		p.Parse(l)
	}
	if p.Init == nil || p.Init.Version != "2.1.328" {
		t.Errorf("init = %+v, want version 2.1.328", p.Init)
	}
	var retries []*driver.RetryEvent
	for _, ev := range rec.Events() {
		if r, ok := ev.(*driver.RetryEvent); ok {
			retries = append(retries, r)
		}
	}
	want := []*driver.RetryEvent{{Attempt: 1, MaxRetries: 1, DelayMS: 538, Status: 529, Message: "overloaded"}}
	if diff := cmp.Diff(want, retries, cmpopts.IgnoreFields(driver.RetryEvent{}, "Raw")); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
	// Another system line is no retry.
	if _, evs := parseAll(`{"type":"system","subtype":"status","status":"requesting"}`); len(evs) != 1 || evs[0].Kind() != driver.KindRaw {
		t.Errorf("system/status = %v, want a raw event", streamtest.Kinds(evs))
	}
}

func TestParseOddLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		kinds []string
	}{
		{"malformed", []string{`{"type":"assistant"`, "\x00\xff garbage", `[1,2]`}, []string{"error", "error", "error"}},
		{"blank", []string{"", "   ", "\t"}, nil},
		{"unknown type", []string{`{"type":"rate_limit_event","x":1}`, `{}`}, []string{"raw", "raw"}},
		{"assistant without content", []string{`{"type":"assistant"}`, `{"type":"assistant","message":{"content":5}}`}, []string{"raw", "raw"}},
		{"user text", []string{`{"type":"user","message":{"content":"hello"}}`, `{"type":"user","isSynthetic":true,"message":{"content":[{"type":"text","text":"Base directory for this skill: /x"}]}}`}, []string{"raw", "raw"}},
		{"assistant string content", []string{`{"type":"assistant","message":{"content":"hello"}}`}, []string{"text"}},
		{"skills as objects", []string{`{"type":"system","subtype":"init","skills":[{"name":"a"},{"name":"b"}]}`}, []string{"init"}},
		{"second init", []string{`{"type":"system","subtype":"init","skills":[]}`, `{"type":"system","subtype":"init","skills":["x"]}`}, []string{"init", "raw"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, evs := parseAll(tt.lines...)
			if diff := cmp.Diff(tt.kinds, streamtest.Kinds(evs)); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
	_, evs := parseAll(`{"type":"system","subtype":"init","skills":[{"name":"a"},{"name":"b"}]}`)
	if got := evs[0].(*driver.InitEvent).Skills; !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("skills from objects = %q", got)
	}
}

func TestParseOddFieldTypes(t *testing.T) {
	// A field of an unexpected type is left out; the rest of the line
	// counts, and the result is never lost.
	p, evs := parseAll(
		`{"type":"system","subtype":"init","session_id":"s","tools":[{"name":"Bash"},7],"skills":["review",{"name":"tone"},null]}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":5},{"type":"text","text":"kept"}]}}`,
		`{"type":"result","subtype":"success","result":"answer","usage":{"input_tokens":"12"},"total_cost_usd":"x","num_turns":"2","session_id":"s"}`,
	)
	if p.Init == nil || !cmp.Equal(p.Init.Skills, []string{"review", "tone"}) || !cmp.Equal(p.Init.Tools, []string{"Bash"}) {
		t.Errorf("init = %+v", p.Init)
	}
	if p.Result == nil || p.Result.Text != "answer" || p.Result.Usage != nil || p.Result.CostUSD != nil {
		t.Errorf("result = %+v, want the text without usage or cost", p.Result)
	}
	want := []string{"init", "text", "error", "error", "result"}
	if diff := cmp.Diff(want, streamtest.Kinds(evs)); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	p, _ = parseAll(`{"type":"result","result":3,"is_error":"yes"}`)
	if p.Result == nil || p.Result.Text != "" || p.Result.IsError {
		t.Errorf("result of odd types = %+v", p.Result)
	}
}

func TestCheckMountedSkipsSkillsNotListedForUsers(t *testing.T) {
	dir := t.TempDir()
	for name, extra := range map[string]string{"shown": "", "hidden": "user-invocable: false\n", "quoted": "user-invocable: \"False\"\n"} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: d\n"+extra+"---\nbody\n"), 0o644)
	}
	var rs driver.ResolvedSkills
	for _, n := range []string{"hidden", "quoted", "shown"} {
		rs.Entries = append(rs.Entries, driver.ResolvedSkill{Key: n, RuntimeName: n, Path: filepath.Join(dir, n)})
	}
	if err := checkMounted([]string{"shown"}, rs); err != nil {
		t.Errorf("checkMounted = %v, want nil: the others are not listed for users", err)
	}
	var nm *driver.NotMountedError
	if err := checkMounted([]string{"other"}, rs); !errors.As(err, &nm) || !cmp.Equal(nm.Missing, []string{"shown"}) {
		t.Errorf("checkMounted = %v, want shown missing", err)
	}
}

func TestParseResultRules(t *testing.T) {
	// The first result is the run's; a later one is an event only.
	p, evs := parseAll(
		`{"type":"result","subtype":"success","result":"first","session_id":"s1"}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"late"}]}}`,
		`{"type":"result","subtype":"success","result":"second","session_id":"s2"}`,
	)
	if p.Result.Text != "first" || len(evs) != 3 {
		t.Errorf("result = %q after %d events, want the first of 3", p.Result.Text, len(evs))
	}
	// Error results, by flag or by subtype; the text falls back to errors.
	for _, l := range []string{
		`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 400"}`,
		`{"type":"result","subtype":"error_max_turns","session_id":"s","errors":["Reached maximum number of turns (1)"]}`,
		`{"type":"result","subtype":"error_during_execution","errors":[{"message":"boom"}]}`,
	} {
		p, _ := parseAll(l)
		if !p.Result.IsError || p.Result.Text == "" {
			t.Errorf("parse(%s) = %+v, want an error result with text", l, p.Result)
		}
	}
}

func TestOutcome(t *testing.T) {
	ok := process.Exit{Code: 0}
	failed := process.Exit{Code: 1, Stderr: "boom"}
	withResult := func(line string) *parser { p, _ := parseAll(line); return p }
	success := withResult(`{"type":"result","subtype":"success","result":"hi","session_id":"s1","total_cost_usd":0.1}`)
	errResult := withResult(`{"type":"result","subtype":"error_max_turns","is_error":true,"result":"","errors":["too many"],"session_id":"s1"}`)

	res, err := outcome("claude", &driver.Request{}, success, ok, nil, nil)
	if err != nil || res.Text != "hi" || res.SessionID != "s1" || *res.CostUSD != 0.1 {
		t.Errorf("success = %+v, %v", res, err)
	}
	_, err = outcome("claude", &driver.Request{}, errResult, failed, nil, nil)
	var ae *driver.AgentError
	if !errors.As(err, &ae) || !errors.Is(err, driver.ErrAgentFailed) || ae.Subtype != "error_max_turns" || ae.Result.SessionID != "s1" || !strings.Contains(err.Error(), "too many") {
		t.Errorf("error result = %v", err)
	}
	_, err = outcome("claude", &driver.Request{}, newParser(nil), process.Exit{Code: 0, Stderr: "said this"}, nil, nil)
	var pe *driver.ProcessError
	if !errors.Is(err, driver.ErrNoResult) || errors.Is(err, driver.ErrProcessFailed) || !strings.Contains(err.Error(), "said this") {
		t.Errorf("no result, exit 0 = %v, want ErrNoResult (not ErrProcessFailed) with the stderr tail", err)
	}
	_, err = outcome("claude", &driver.Request{}, newParser(nil), failed, nil, nil)
	if !errors.As(err, &pe) || pe.ExitCode != 1 || !strings.Contains(err.Error(), "boom") {
		t.Errorf("no result, exit 1 = %v, want a ProcessError with the stderr tail", err)
	}
	_, err = outcome("claude", &driver.Request{}, success, failed, nil, nil)
	if !errors.Is(err, driver.ErrProcessFailed) {
		t.Errorf("result then exit 1 = %v, want ErrProcessFailed", err)
	}
	stop := errors.New("stopped")
	_, err = outcome("claude", &driver.Request{}, success, process.Exit{Code: -1, Signal: "interrupt"}, stop, nil)
	if !errors.Is(err, stop) || !errors.Is(err, driver.ErrProcessFailed) {
		t.Errorf("run error = %v, want it wrapped in a ProcessError", err)
	}
	// A resume refused: an error result and no init line.
	refused := withResult(`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["No conversation found with session ID: 0f"],"session_id":"0f"}`)
	_, err = outcome("claude", &driver.Request{Resume: "0f"}, refused, failed, nil, nil)
	if !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), "No conversation found") {
		t.Errorf("refused resume = %v, want ErrResumeRejected with the agent's words", err)
	}
	var inner *driver.AgentError
	if !errors.As(err, &inner) || inner.Result.SessionID != "0f" {
		t.Errorf("refused resume = %v, want it to wrap the agent's error", err)
	}
	// A resume whose process dies before it says anything is a process
	// failure, not a refusal: a thread must not drop its session for it.
	_, err = outcome("claude", &driver.Request{Resume: "0f"}, newParser(nil), process.Exit{Code: -1, Signal: "killed", Stderr: "out of memory"}, nil, nil)
	if errors.Is(err, driver.ErrResumeRejected) || !errors.As(err, &pe) || pe.Signal != "killed" {
		t.Errorf("resume that crashed = %v, want a *driver.ProcessError", err)
	}
	// Skills were mounted but no init came: nothing shows they were loaded.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: a\ndescription: d\n---\n"), 0o644)
	mountedOne := &driver.Request{Skills: driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "a", RuntimeName: "a", Path: dir}}}}
	if _, err = outcome("claude", mountedOne, success, ok, nil, nil); !errors.Is(err, driver.ErrSkillsNotMounted) {
		t.Errorf("success without init = %v, want ErrSkillsNotMounted", err)
	}
	// The same result without a resume is the agent's error.
	if _, err = outcome("claude", &driver.Request{}, refused, failed, nil, nil); !errors.Is(err, driver.ErrAgentFailed) {
		t.Errorf("error result = %v, want ErrAgentFailed", err)
	}
	check := &driver.NotMountedError{Missing: []string{"a"}}
	if _, err = outcome("claude", &driver.Request{}, success, ok, stop, check); !errors.Is(err, driver.ErrSkillsNotMounted) {
		t.Errorf("check error = %v, want ErrSkillsNotMounted", err)
	}
}

// TestRecordedStreams parses the streams recorded from the real CLI
// (testdata/*.jsonl) and checks what each must give.
func TestRecordedStreams(t *testing.T) {
	type want struct {
		init      bool
		result    string // the result's text, "" when there is none
		isError   bool
		subtype   string
		kinds     []string // kinds that must be among the events
		noneOf    []string // kinds that must not
		rejection bool     // outcome with a resume request is ErrResumeRejected
	}
	tests := map[string]want{
		"plain.jsonl":               {init: true, result: "Hello from the stand-in.", subtype: "success", kinds: []string{"text"}},
		"skill-call.jsonl":          {init: true, result: "Reviewed.", subtype: "success", kinds: []string{"tool_call", "tool_result", "skill", "text"}},
		"partial.jsonl":             {init: true, result: "Reviewed.", subtype: "success", kinds: []string{"text_delta", "tool_call", "raw"}},
		"resume.jsonl":              {init: true, result: "Answer to a conversation of 4 messages.", subtype: "success"},
		"api-error.jsonl":           {init: true, result: "API Error: 400 The stand-in refuses this request.", isError: true, subtype: "success"},
		"api-retry.jsonl":           {init: true, result: "API Error: 529", isError: true, subtype: "success", kinds: []string{"retry"}},
		"max-turns.jsonl":           {init: true, result: "Reached maximum number of turns (1)", isError: true, subtype: "error_max_turns", kinds: []string{"tool_call"}},
		"interrupt.jsonl":           {init: true, result: "[ede_diagnostic]", isError: true, subtype: "error_during_execution"},
		"interrupt-no-result.jsonl": {init: true, noneOf: []string{"text", "result"}},
		"unknown-resume.jsonl":      {result: "No conversation found", isError: true, subtype: "error_during_execution", rejection: true},
	}
	streamtest.ForEachStream(t, tests, func(t *testing.T, w want, data []byte) {
		var rec streamtest.Recorder
		p := newParser(rec.Emit)
		for _, l := range bytes.Split(data, []byte("\n")) {
			p.Parse(l)
		}
		got := streamtest.CheckStreamEvents(t, rec.Events(), w.kinds, func(*driver.ErrorEvent) bool { return true })
		for _, k := range w.noneOf {
			if slices.Contains(got, k) {
				t.Errorf("a %s event among %q", k, got)
			}
		}
		if (p.Init != nil) != w.init {
			t.Errorf("init found = %v, want %v", p.Init != nil, w.init)
		}
		if p.Init != nil && (p.Init.SessionID == "" || len(p.Init.Skills) == 0) {
			t.Errorf("init = %+v, want a session and skills", p.Init)
		}
		switch {
		case w.result == "" && p.Result != nil:
			t.Errorf("result = %+v, want none", p.Result)
		case w.result != "" && p.Result == nil:
			t.Fatalf("no result, want %q", w.result)
		case w.result != "":
			r := p.Result
			if !strings.Contains(r.Text, w.result) || r.IsError != w.isError || r.Subtype != w.subtype || r.SessionID == "" {
				t.Errorf("result = %+v, want text %q, error %v, subtype %q, a session", r, w.result, w.isError, w.subtype)
			}
			if !w.isError && (r.Usage == nil || r.Usage.InputTokens == 0 || r.CostUSD == nil) {
				t.Errorf("result usage %+v, cost %v; want both", r.Usage, r.CostUSD)
			}
		}
		_, err := outcome("claude", &driver.Request{Resume: "x"}, p, process.Exit{Code: 1}, nil, nil)
		if errors.Is(err, driver.ErrResumeRejected) != w.rejection {
			t.Errorf("outcome of a resume = %v; want a rejection: %v", err, w.rejection)
		}
	})
}

func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f,
		`{"type":"result","subtype":"success","result":"x","usage":{"input_tokens":1}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":null}]}}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := newParser(streamtest.NoNilEvents(t))
		p.Parse(line)
		p.Parse(line)
		outcome("claude", &driver.Request{Resume: "x"}, p, process.Exit{Code: 1}, nil, nil)
	})
}

// TestUnansweredRetry checks that a retry Claude Code reports without an
// HTTP status ("unknown") names the API it called, and that other
// events pass as they are.
func TestUnansweredRetry(t *testing.T) {
	var got []driver.Event
	emit := unanswered(func(ev driver.Event) { got = append(got, ev) }, apiURL([]string{"ANTHROPIC_BASE_URL=http://llm.example.com"}))
	p := newParser(emit)
	p.Parse([]byte(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":null,"error":"unknown"}`))
	p.Parse([]byte(`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":500,"error_status":401,"error":"authentication_failed"}`))
	var msgs []string
	for _, ev := range got {
		if r, ok := ev.(*driver.RetryEvent); ok {
			msgs = append(msgs, r.Message)
		}
	}
	if want := []string{"no HTTP answer from http://llm.example.com", "authentication_failed"}; !slices.Equal(msgs, want) {
		t.Errorf("retry messages = %q, want %q", msgs, want)
	}
	if apiURL(nil) != defaultAPI || unanswered(nil, "x") != nil {
		t.Errorf("apiURL(nil) = %q, or unanswered(nil) is not nil", apiURL(nil))
	}
}
