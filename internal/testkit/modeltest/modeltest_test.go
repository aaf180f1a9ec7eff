package modeltest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/google/go-cmp/cmp"
)

// post sends body to path on s with an Anthropic API key and returns the
// response, closed when the test ends.
func post(t *testing.T, ctx context.Context, s *modeltest.Server, path, body string) *http.Response {
	t.Helper()
	return send(t, ctx, s.URL+path, body, "X-Api-Key", "sk-test")
}

// send posts the JSON body to url with the header key set to value and
// returns the response, closed when the test ends.
func send(t *testing.T, ctx context.Context, url, body, key, value string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(key, value)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type event struct {
	Name string
	Data map[string]any
}

// readEvents reads server-sent events until the stream ends or n events
// have arrived (n < 0: no limit).
func readEvents(t *testing.T, r io.Reader, n int) []event {
	t.Helper()
	var evs []event
	var name string
	sc := bufio.NewScanner(r)
	for n < 0 || len(evs) < n {
		if !sc.Scan() {
			break
		}
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("event %s: %v", name, err)
			}
			if data["type"] != name {
				t.Errorf("event %q has data of type %v", name, data["type"])
			}
			evs = append(evs, event{name, data})
		}
	}
	return evs
}

func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// get returns the value at a path of map keys and slice indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// eventCheck is a value expected at a path in the data of an event.
type eventCheck struct {
	ev   int
	path []any
	want any
}

func checkEvents(t *testing.T, evs []event, checks []eventCheck) {
	t.Helper()
	for _, c := range checks {
		if got := get(evs[c.ev].Data, c.path...); got != c.want {
			t.Errorf("%s %v = %v, want %v", evs[c.ev].Name, c.path, got, c.want)
		}
	}
}

const hello = `{"model":"claude-test","stream":%v,"max_tokens":10,"messages":[{"role":"user","content":"hello"}]}`

func TestStreamedText(t *testing.T) {
	s := modeltest.NewAnthropic(t, modeltest.Always(modeltest.Text("Hi there.")))
	resp := post(t, t.Context(), s, "/v1/messages", fmt.Sprintf(hello, true))
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("status %d, content type %q, want 200 and text/event-stream", resp.StatusCode, ct)
	}
	evs := readEvents(t, resp.Body, -1)
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, names(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	checkEvents(t, evs, []eventCheck{
		{0, []any{"message", "model"}, "claude-test"},
		{0, []any{"message", "role"}, "assistant"},
		{0, []any{"message", "usage", "input_tokens"}, 100.0},
		{1, []any{"content_block", "type"}, "text"},
		{2, []any{"delta", "type"}, "text_delta"},
		{2, []any{"delta", "text"}, "Hi there."},
		{4, []any{"delta", "stop_reason"}, "end_turn"},
		{4, []any{"usage", "output_tokens"}, 10.0},
	})
}

func TestStreamedToolUse(t *testing.T) {
	rep := modeltest.SkillCall("review")
	rep.Usage = modeltest.Usage{InputTokens: 7, OutputTokens: 3}
	s := modeltest.NewAnthropic(t, modeltest.Always(rep))
	evs := readEvents(t, post(t, t.Context(), s, "/v1/messages", fmt.Sprintf(hello, true)).Body, -1)
	if len(evs) != 6 {
		t.Fatalf("events %v, want 6", names(evs))
	}
	block := evs[1].Data["content_block"]
	if get(block, "type") != "tool_use" || get(block, "name") != "Skill" || !strings.HasPrefix(get(block, "id").(string), "toolu_") {
		t.Errorf("content_block_start block = %v, want a Skill tool_use with a toolu_ id", block)
	}
	delta := evs[2].Data["delta"]
	if get(delta, "type") != "input_json_delta" || get(delta, "partial_json") != `{"skill":"review"}` {
		t.Errorf("delta = %v, want input_json_delta {\"skill\":\"review\"}", delta)
	}
	if got := get(evs[4].Data, "delta", "stop_reason"); got != "tool_use" {
		t.Errorf("stop_reason = %v, want tool_use", got)
	}
	if got := get(evs[0].Data, "message", "usage", "input_tokens"); got != 7.0 {
		t.Errorf("input_tokens = %v, want 7", got)
	}
	if got := get(evs[4].Data, "usage", "output_tokens"); got != 3.0 {
		t.Errorf("output_tokens = %v, want 3", got)
	}
	if a, b := modeltest.SkillCall("review"), modeltest.SkillCall("review"); a.Content[0].ID != b.Content[0].ID {
		t.Errorf("SkillCall ids %q and %q differ, want the same", a.Content[0].ID, b.Content[0].ID)
	}
}

func TestJSONReply(t *testing.T) {
	rep := modeltest.Text("first")
	rep.Content = append(rep.Content, modeltest.ToolUse("Read", map[string]string{"file_path": "/x"}).Content...)
	s := modeltest.NewAnthropic(t, modeltest.Always(rep))
	resp := post(t, t.Context(), s, "/v1/messages", fmt.Sprintf(hello, false))
	var msg map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"type":       msg["type"],
		"role":       msg["role"],
		"model":      msg["model"],
		"stop":       msg["stop_reason"],
		"text":       get(msg, "content", 0, "text"),
		"tool":       get(msg, "content", 1, "name"),
		"input":      get(msg, "content", 1, "input", "file_path"),
		"out tokens": get(msg, "usage", "output_tokens"),
	}
	want := map[string]any{
		"type": "message", "role": "assistant", "model": "claude-test", "stop": "tool_use",
		"text": "first", "tool": "Read", "input": "/x", "out tokens": 10.0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

func TestAPIError(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			s := modeltest.NewAnthropic(t, modeltest.Always(modeltest.APIError(403, "permission_error", "no access")))
			resp := post(t, t.Context(), s, "/v1/messages", fmt.Sprintf(hello, stream))
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			got := []any{resp.StatusCode, body["type"], get(body, "error", "type"), get(body, "error", "message")}
			want := []any{403, "error", "permission_error", "no access"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error reply (-want +got):\n%s", diff)
			}
		})
	}
	s := modeltest.NewAnthropic(t, modeltest.Always(modeltest.Reply{Status: 500}))
	var body map[string]any
	json.NewDecoder(post(t, t.Context(), s, "/v1/messages", fmt.Sprintf(hello, true)).Body).Decode(&body)
	if got := get(body, "error", "type"); got != "api_error" {
		t.Errorf("error type of Reply{Status: 500} = %v, want api_error", got)
	}
}

func TestStallEndsWithClient(t *testing.T) {
	s := modeltest.NewAnthropic(t, modeltest.Always(modeltest.Stall()))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", strings.NewReader(fmt.Sprintf(hello, true)))
	start := time.Now()
	_, err := http.DefaultClient.Do(req)
	if err == nil {
		t.Fatal("a stalled request got a response")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stalled request ended after %v, want about 200ms", d)
	}
	if n := len(s.MessageRequests()); n != 1 {
		t.Errorf("recorded %d requests, want 1", n)
	}
}

func TestStallEndsWithTest(t *testing.T) {
	done := make(chan error, 1)
	ok := t.Run("inner", func(t *testing.T) {
		asked := make(chan struct{}, 1)
		s := modeltest.NewAnthropic(t, func(*modeltest.Request) modeltest.Reply {
			asked <- struct{}{}
			return modeltest.Stall()
		})
		go func() {
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(fmt.Sprintf(hello, false)))
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			done <- err
		}()
		<-asked // the request is in, and stalls
	})
	if !ok {
		t.Fatal("inner test failed")
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled request outlived its test")
	}
}

func TestStallAfterContent(t *testing.T) {
	rep := modeltest.Text("partial")
	rep.Stall = true
	s := modeltest.NewAnthropic(t, modeltest.Always(rep))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := post(t, ctx, s, "/v1/messages", fmt.Sprintf(hello, true))
	evs := readEvents(t, resp.Body, 4)
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop"}
	if diff := cmp.Diff(want, names(evs)); diff != "" {
		t.Fatalf("events before the stall (-want +got):\n%s", diff)
	}
	more := make(chan []event, 1)
	go func() { more <- readEvents(t, resp.Body, -1) }()
	select {
	case evs := <-more:
		t.Fatalf("stream went on with %v", names(evs))
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	<-more
}

func TestRecordsRequest(t *testing.T) {
	body := `{
		"model": "claude-opus-5-5",
		"stream": true,
		"system": [{"type": "text", "text": "You are a test."}, {"type": "text", "text": "Be brief."}],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": "use review"}]},
			{"role": "system", "content": "- review: Reviews code"},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Skill", "input": {"skill": "review"}}]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Launching skill: review"},
				{"type": "text", "text": "Base directory for this skill: /s/review"}
			]}
		],
		"tools": [{"name": "Bash", "input_schema": {}}, {"name": "Skill", "input_schema": {}}]
	}`
	s := modeltest.NewAnthropic(t, nil)
	resp := post(t, t.Context(), s, "/v1/messages", body)
	io.Copy(io.Discard, resp.Body)
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("recorded %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-test" || string(r.Body) != body {
		t.Errorf("recorded %s %s, key %q, body %d bytes; want POST /v1/messages, key sk-test, the body sent", r.Method, r.Path, r.Header.Get("X-Api-Key"), len(r.Body))
	}
	got := struct {
		Model  string
		Stream bool
		System string
		Roles  []string
		Texts  []string
		Tools  []string
		Prompt string
	}{Model: r.Model, Stream: r.Stream, System: r.System, Tools: r.Tools, Prompt: r.Prompt()}
	for _, m := range r.Messages {
		got.Roles = append(got.Roles, m.Role)
		got.Texts = append(got.Texts, m.Text())
	}
	want := got
	want.Model, want.Stream, want.System = "claude-opus-5-5", true, "You are a test.\nBe brief."
	want.Roles = []string{"user", "system", "assistant", "user"}
	want.Texts = []string{"<system-reminder>x</system-reminder>\nuse review", "- review: Reviews code", "", "Launching skill: review\nBase directory for this skill: /s/review"}
	want.Tools = []string{"Bash", "Skill"}
	want.Prompt = "<system-reminder>x</system-reminder>\nuse review"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded request (-want +got):\n%s", diff)
	}
	use := r.Messages[2].Content[0]
	if use.Type != "tool_use" || use.ID != "toolu_1" || use.Name != "Skill" || string(use.Input) != `{"skill": "review"}` {
		t.Errorf("tool_use block = %+v", use)
	}
	res, ok := r.ToolResult()
	if !ok || res.ToolUseID != "toolu_1" || res.Text != "Launching skill: review" {
		t.Errorf("ToolResult() = %+v, %v; want the result for toolu_1", res, ok)
	}
}

func TestRequestHelpers(t *testing.T) {
	user := func(blocks ...modeltest.Block) modeltest.Message {
		return modeltest.Message{Role: "user", Content: blocks}
	}
	text := func(s string) modeltest.Block { return modeltest.Block{Type: "text", Text: s} }
	result := modeltest.Block{Type: "tool_result", ToolUseID: "t1", Text: "out"}
	assistant := modeltest.Message{Role: "assistant", Content: []modeltest.Block{{Type: "tool_use", ID: "t1"}}}
	tests := []struct {
		name       string
		msgs       []modeltest.Message
		prompt     string
		toolResult bool
	}{
		{"empty", nil, "", false},
		{"one turn", []modeltest.Message{user(text("a"), text("b"))}, "a\nb", false},
		{"tool round", []modeltest.Message{user(text("go")), assistant, user(result, text("body"))}, "go", true},
		{"after the round", []modeltest.Message{user(text("go")), assistant, user(result), {Role: "assistant", Content: []modeltest.Block{text("done")}}}, "go", false},
		{"resumed", []modeltest.Message{user(text("first")), {Role: "assistant", Content: []modeltest.Block{text("ok")}}, user(text("second"))}, "second", false},
		{"system last", []modeltest.Message{user(text("go")), {Role: "system", Content: []modeltest.Block{text("env")}}}, "go", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &modeltest.Request{Messages: tt.msgs}
			if got := r.Prompt(); got != tt.prompt {
				t.Errorf("Prompt() = %q, want %q", got, tt.prompt)
			}
			if _, got := r.ToolResult(); got != tt.toolResult {
				t.Errorf("ToolResult() ok = %v, want %v", got, tt.toolResult)
			}
		})
	}
}

func TestReplyFuncs(t *testing.T) {
	reply := modeltest.IfPrompt("USE-REVIEW",
		modeltest.ToolThenText(modeltest.SkillCall("review"), "reviewed"),
		modeltest.Always(modeltest.Text("plain")))
	user := func(s string) modeltest.Message {
		return modeltest.Message{Role: "user", Content: []modeltest.Block{{Type: "text", Text: s}}}
	}
	call := modeltest.SkillCall("review")
	answered := modeltest.Message{Role: "user", Content: []modeltest.Block{{Type: "tool_result", ToolUseID: call.Content[0].ID}}}
	tests := []struct {
		name string
		msgs []modeltest.Message
		want modeltest.Reply
	}{
		{"marker", []modeltest.Message{user("please USE-REVIEW now")}, call},
		{"marker, tool answered", []modeltest.Message{user("USE-REVIEW"), {Role: "assistant", Content: call.Content}, answered}, modeltest.Text("reviewed")},
		{"no marker", []modeltest.Message{user("hello")}, modeltest.Text("plain")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, reply(&modeltest.Request{Messages: tt.msgs})); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOtherEndpoints(t *testing.T) {
	s := modeltest.NewAnthropic(t, nil)
	resp := post(t, t.Context(), s, "/v1/messages/count_tokens", fmt.Sprintf(hello, false))
	var count map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&count); err != nil || resp.StatusCode != 200 {
		t.Fatalf("count_tokens: status %d, %v", resp.StatusCode, err)
	}
	if n, _ := count["input_tokens"].(float64); n < 1 {
		t.Errorf("count_tokens input_tokens = %v, want a positive count", count["input_tokens"])
	}
	head, err := http.Head(s.URL + "/api/hello")
	if err != nil || head.StatusCode != 200 {
		t.Errorf("HEAD /api/hello = %v, %v; want 200", head.StatusCode, err)
	}
	resp = post(t, t.Context(), s, "/v1/models/x", "{}")
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 404 || get(body, "error", "type") != "not_found_error" {
		t.Errorf("unknown path: status %d, body %v; want 404 not_found_error", resp.StatusCode, body)
	}
	resp = post(t, t.Context(), s, "/v1/messages", "{not json")
	if resp.StatusCode != 400 {
		t.Errorf("bad body: status %d, want 400", resp.StatusCode)
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	want := []string{"POST /v1/messages/count_tokens", "HEAD /api/hello", "POST /v1/models/x", "POST /v1/messages"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if n := len(s.MessageRequests()); n != 1 {
		t.Errorf("MessageRequests() has %d, want 1", n)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := modeltest.NewAnthropic(t, func(r *modeltest.Request) modeltest.Reply {
		return modeltest.Text("re: " + r.Prompt())
	})
	const n = 20
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"p%d"}]}`, i)
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var msg map[string]any
			json.NewDecoder(resp.Body).Decode(&msg)
			got[i], _ = get(msg, "content", 0, "text").(string)
			_ = s.Requests()
		})
	}
	wg.Wait()
	for i, g := range got {
		if want := fmt.Sprintf("re: p%d", i); g != want {
			t.Errorf("reply %d = %q, want %q", i, g, want)
		}
	}
	if len(s.Requests()) != n {
		t.Errorf("recorded %d requests, want %d", len(s.Requests()), n)
	}
}

func TestToolUsePanicsOnNonObject(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ToolUse with a string input did not panic")
		}
	}()
	modeltest.ToolUse("Skill", "review")
}

// fakeTB records Skipf and Fatalf instead of ending the test.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

func fakeCLI(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(bin, "claude")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestClaudeCLI(t *testing.T) {
	t.Run("AGENTADAPTOR_CLIS", func(t *testing.T) {
		dir := t.TempDir()
		want := fakeCLI(t, dir)
		t.Setenv("AGENTADAPTOR_CLIS", dir)
		f := &fakeTB{TB: t}
		if got := modeltest.ClaudeCLI(f); got != want || f.skipped != "" || f.fatal != "" {
			t.Errorf("ClaudeCLI = %q (skip %q, fatal %q), want %q", got, f.skipped, f.fatal, want)
		}
	})
	t.Run("module root", func(t *testing.T) {
		// The module is found from the folder the test binary started
		// in, not from the working folder: a test that moved to a temp
		// folder (no go.mod above it) still finds .agent-clis.
		pkg, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(pkg, "..", "..", "..", ".agent-clis", "node_modules", ".bin", "claude")
		want = filepath.Clean(want)
		t.Chdir(t.TempDir())
		t.Setenv("AGENTADAPTOR_CLIS", "")
		t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", "")
		f := &fakeTB{TB: t}
		got := modeltest.ClaudeCLI(f)
		if got != want && !strings.Contains(f.skipped, want) || f.fatal != "" {
			t.Errorf("ClaudeCLI = %q (skip %q, fatal %q), want %q or a skip naming it", got, f.skipped, f.fatal, want)
		}
	})
	for _, require := range []string{"", "1"} {
		t.Run("missing, AGENTADAPTOR_REQUIRE_CLIS="+require, func(t *testing.T) {
			t.Setenv("AGENTADAPTOR_CLIS", t.TempDir())
			t.Setenv("AGENTADAPTOR_REQUIRE_CLIS", require)
			f := &fakeTB{TB: t}
			got := modeltest.ClaudeCLI(f)
			msg := f.skipped
			if require == "1" {
				msg = f.fatal
			}
			if got != "" || !strings.Contains(msg, ".ci/install-agent-clis") {
				t.Errorf("ClaudeCLI = %q, skip %q, fatal %q; want a %s naming .ci/install-agent-clis",
					got, f.skipped, f.fatal, map[string]string{"": "skip", "1": "failure"}[require])
			}
		})
	}
}

func TestClaudeEnv(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "/somewhere")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "secret")
	s := modeltest.NewAnthropic(t, nil)
	env, home := s.ClaudeEnv(t)
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	for k, want := range map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               home,
		"ANTHROPIC_BASE_URL": s.URL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"CLAUDE_CODE_MAX_RETRIES":                  "0",
	} {
		if vars[k] != want {
			t.Errorf("%s = %q, want %q", k, vars[k], want)
		}
	}
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN"} {
		if _, ok := vars[k]; ok {
			t.Errorf("%s is passed on", k)
		}
	}
	if vars["ANTHROPIC_API_KEY"] == "" || vars["TMPDIR"] == "" || vars["TMPDIR"] == home {
		t.Errorf("ANTHROPIC_API_KEY %q, TMPDIR %q: want a key and a folder of its own", vars["ANTHROPIC_API_KEY"], vars["TMPDIR"])
	}
	for _, dir := range []string{home, vars["TMPDIR"]} {
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) != 0 {
			t.Errorf("%s: %d entries, %v; want an empty folder", dir, len(ents), err)
		}
	}
	if len(vars) != len(env) {
		t.Errorf("env has duplicate variables: %v", env)
	}
}
