package modeltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/google/go-cmp/cmp"
)

// postResponses sends body to POST /v1/responses on s and returns the
// response, closed when the test ends.
func postResponses(t *testing.T, ctx context.Context, s *modeltest.ResponsesServer, body string) *http.Response {
	t.Helper()
	return send(t, ctx, s.URL+"/v1/responses", body, "Authorization", "Bearer sk-test")
}

const helloResponses = `{"model":"gpt-test","stream":%v,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}]}`

func TestResponsesStreamedText(t *testing.T) {
	s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesText("Hi there.")))
	resp := postResponses(t, t.Context(), s, fmt.Sprintf(helloResponses, true))
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("status %d, content type %q, want 200 and text/event-stream", resp.StatusCode, ct)
	}
	evs := readEvents(t, resp.Body, -1)
	want := []string{"response.created", "response.output_item.done", "response.completed"}
	if diff := cmp.Diff(want, names(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	checkEvents(t, evs, []eventCheck{
		{0, []any{"response", "model"}, "gpt-test"},
		{0, []any{"response", "status"}, "in_progress"},
		{1, []any{"item", "type"}, "message"},
		{1, []any{"item", "role"}, "assistant"},
		{1, []any{"item", "content", 0, "type"}, "output_text"},
		{1, []any{"item", "content", 0, "text"}, "Hi there."},
		{2, []any{"response", "status"}, "completed"},
		{2, []any{"response", "usage", "input_tokens"}, 100.0},
		{2, []any{"response", "usage", "output_tokens"}, 10.0},
		{2, []any{"response", "usage", "total_tokens"}, 110.0},
		{2, []any{"response", "usage", "input_tokens_details", "cached_tokens"}, 0.0},
		{2, []any{"response", "output", 0, "content", 0, "text"}, "Hi there."},
	})
	if a, b := get(evs[0].Data, "response", "id"), get(evs[2].Data, "response", "id"); a == nil || a != b {
		t.Errorf("response ids %v and %v, want the same", a, b)
	}
}

func TestResponsesCalls(t *testing.T) {
	tests := []struct {
		name  string
		reply modeltest.ResponsesReply
		want  map[string]any // item field -> value
	}{
		{"exec_command", modeltest.ExecCommand("cat SKILL.md"), map[string]any{
			"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"cat SKILL.md"}`}},
		{"function", modeltest.FunctionCall("view_image", map[string]string{"path": "/x.png"}), map[string]any{
			"type": "function_call", "name": "view_image", "arguments": `{"path":"/x.png"}`}},
		{"custom", modeltest.CustomToolCall("exec", "text(1)"), map[string]any{
			"type": "custom_tool_call", "name": "exec", "input": "text(1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := tt.reply
			rep.Usage = modeltest.ResponsesUsage{InputTokens: 7, CachedInputTokens: 2, OutputTokens: 3, ReasoningOutputTokens: 1}
			s := modeltest.NewResponses(t, modeltest.ResponsesAlways(rep))
			evs := readEvents(t, postResponses(t, t.Context(), s, fmt.Sprintf(helloResponses, true)).Body, -1)
			if len(evs) != 3 {
				t.Fatalf("events %v, want 3", names(evs))
			}
			item := evs[1].Data["item"]
			for k, v := range tt.want {
				if got := get(item, k); got != v {
					t.Errorf("item %s = %v, want %v", k, got, v)
				}
			}
			if id, _ := get(item, "call_id").(string); !strings.HasPrefix(id, "call_modeltest_") || id != rep.Output[0].CallID {
				t.Errorf("call_id %q, want the reply's call_modeltest_ id %q", id, rep.Output[0].CallID)
			}
			usage := get(evs[2].Data, "response", "usage")
			got := []any{get(usage, "input_tokens"), get(usage, "input_tokens_details", "cached_tokens"),
				get(usage, "output_tokens"), get(usage, "output_tokens_details", "reasoning_tokens"), get(usage, "total_tokens")}
			if diff := cmp.Diff([]any{7.0, 2.0, 3.0, 1.0, 10.0}, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
	if a, b := modeltest.ExecCommand("ls"), modeltest.ExecCommand("ls"); a.Output[0].CallID != b.Output[0].CallID {
		t.Errorf("ExecCommand call ids %q and %q differ, want the same", a.Output[0].CallID, b.Output[0].CallID)
	}
}

func TestResponsesJSONReply(t *testing.T) {
	rep := modeltest.ResponsesText("first")
	rep.Output = append(rep.Output, modeltest.ExecCommand("ls").Output...)
	s := modeltest.NewResponses(t, modeltest.ResponsesAlways(rep))
	var body map[string]any
	if err := json.NewDecoder(postResponses(t, t.Context(), s, fmt.Sprintf(helloResponses, false)).Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	got := []any{body["object"], body["status"], get(body, "output", 0, "content", 0, "text"), get(body, "output", 1, "name"), get(body, "usage", "output_tokens")}
	if diff := cmp.Diff([]any{"response", "completed", "first", "exec_command", 10.0}, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestResponsesAPIError(t *testing.T) {
	s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesAPIError(429, "rate_limit_error", "slow down")))
	resp := postResponses(t, t.Context(), s, fmt.Sprintf(helloResponses, true))
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	got := []any{resp.StatusCode, get(body, "error", "type"), get(body, "error", "message")}
	if diff := cmp.Diff([]any{429, "rate_limit_error", "slow down"}, got); diff != "" {
		t.Errorf("error reply (-want +got):\n%s", diff)
	}
	s = modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesReply{Status: 500}))
	json.NewDecoder(postResponses(t, t.Context(), s, fmt.Sprintf(helloResponses, true)).Body).Decode(&body)
	if got := get(body, "error", "type"); got != "invalid_request_error" {
		t.Errorf("error type of ResponsesReply{Status: 500} = %v, want invalid_request_error", got)
	}
}

func TestResponsesStall(t *testing.T) {
	t.Run("nothing sent", func(t *testing.T) {
		s := modeltest.NewResponses(t, modeltest.ResponsesAlways(modeltest.ResponsesStall()))
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/responses", strings.NewReader(fmt.Sprintf(helloResponses, true)))
		start := time.Now()
		if _, err := http.DefaultClient.Do(req); err == nil {
			t.Fatal("a stalled request got a response")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("stalled request ended after %v, want about 200ms", d)
		}
		if n := len(s.ResponseRequests()); n != 1 {
			t.Errorf("recorded %d requests, want 1", n)
		}
	})
	t.Run("after partial output", func(t *testing.T) {
		rep := modeltest.ResponsesText("partial")
		rep.Stall = true
		s := modeltest.NewResponses(t, modeltest.ResponsesAlways(rep))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		resp := postResponses(t, ctx, s, fmt.Sprintf(helloResponses, true))
		if evs := readEvents(t, resp.Body, 2); !cmp.Equal(names(evs), []string{"response.created", "response.output_item.done"}) {
			t.Errorf("events before the stall %v, want created and the item", names(evs))
		}
	})
}

func TestResponsesParse(t *testing.T) {
	body := `{"model":"gpt-6.1-sol","stream":true,"instructions":"be brief",
	"tools":[{"type":"function","name":"exec_command"},{"type":"web_search"},
		{"type":"namespace","name":"multi_agent_v1","tools":[{"type":"function","name":"spawn_agent"}]}],
	"input":[
		{"type":"additional_tools","role":"developer","tools":[{"type":"namespace","name":"functions","tools":[{"type":"custom","name":"exec"}]}]},
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"<skills_instructions>\n### Skill roots\n- ` + "`r0` = `/s`" + `\n### Available skills\n- a: A desc. (file: r0/a/SKILL.md)\n</skills_instructions>"},{"type":"input_text","text":"<permissions instructions>x</permissions instructions>"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd</environment_context>"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"do it\n"}]},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"},
		{"type":"function_call_output","call_id":"call_1","output":"Output:\nfile\n"},
		{"type":"custom_tool_call","call_id":"call_2","name":"exec","input":"text(1)"},
		{"type":"custom_tool_call_output","call_id":"call_2","output":[{"type":"input_text","text":"Script completed"},{"type":"input_text","text":"1"}]},
		{"role":"assistant","content":"plain"}
	]}`
	var got *modeltest.ResponsesRequest
	s := modeltest.NewResponses(t, func(r *modeltest.ResponsesRequest) modeltest.ResponsesReply {
		got = r
		return modeltest.ResponsesText("ok")
	})
	if resp := postResponses(t, t.Context(), s, body); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got.Model != "gpt-6.1-sol" || !got.Stream || got.Instructions != "be brief" {
		t.Errorf("model %q, stream %v, instructions %q", got.Model, got.Stream, got.Instructions)
	}
	if diff := cmp.Diff([]string{"exec_command", "web_search", "multi_agent_v1.spawn_agent", "functions.exec"}, got.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	wantItems := []modeltest.Item{
		{Type: "additional_tools", Role: "developer"},
		{Type: "message", Role: "developer", Text: "<skills_instructions>\n### Skill roots\n- `r0` = `/s`\n### Available skills\n- a: A desc. (file: r0/a/SKILL.md)\n</skills_instructions>\n<permissions instructions>x</permissions instructions>"},
		{Type: "message", Role: "user", Text: "<environment_context>cwd</environment_context>"},
		{Type: "message", Role: "user", Text: "do it\n"},
		{Type: "function_call", ID: "fc_1", CallID: "call_1", Name: "exec_command", Arguments: `{"cmd":"ls"}`},
		{Type: "function_call_output", CallID: "call_1", Text: "Output:\nfile\n"},
		{Type: "custom_tool_call", CallID: "call_2", Name: "exec", Arguments: "text(1)"},
		{Type: "custom_tool_call_output", CallID: "call_2", Text: "Script completed\n1"},
		{Type: "message", Role: "assistant", Text: "plain"},
	}
	if diff := cmp.Diff(wantItems, got.Input); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
	if p := got.Prompt(); p != "do it\n" {
		t.Errorf("Prompt() = %q, want %q", p, "do it\n")
	}
	if _, ok := got.ToolOutput(); ok {
		t.Error("ToolOutput() found an output after the assistant message")
	}
	skills, err := got.Skills()
	if want := []modeltest.ListedSkill{{Name: "a", Description: "A desc.", File: "r0/a/SKILL.md", Path: filepath.FromSlash("/s/a/SKILL.md")}}; err != nil || !cmp.Equal(skills, want) {
		t.Errorf("Skills() = %+v, %v; want %+v", skills, err, want)
	}

	resp := postResponses(t, t.Context(), s, `{"input":"not a list"}`)
	if resp.StatusCode != http.StatusBadRequest || len(s.Requests()) != 2 {
		t.Errorf("bad body: status %d, %d requests recorded; want 400 and both recorded", resp.StatusCode, len(s.Requests()))
	}
}

func TestResponsesOtherPaths(t *testing.T) {
	s := modeltest.NewResponses(t, nil)
	resp, err := http.Get(s.URL + "/v1/models?client_version=0.169.0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /v1/models: status %d, want 200", resp.StatusCode)
	}
	resp, err = http.Get(s.URL + "/v1/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /v1/other: status %d, want 404", resp.StatusCode)
	}
	if n, m := len(s.Requests()), len(s.ResponseRequests()); n != 2 || m != 0 {
		t.Errorf("%d requests and %d to /v1/responses, want 2 and 0", n, m)
	}
}

func TestResponsesReplyFuncs(t *testing.T) {
	f := modeltest.ResponsesIfPrompt("review",
		modeltest.ResponsesToolThenText(modeltest.ExecCommand("cat x"), "reviewed"),
		modeltest.ResponsesAlways(modeltest.ResponsesText("plain")))
	user := modeltest.Item{Type: "message", Role: "user", Text: "please review\n"}
	call := modeltest.ExecCommand("cat x").Output[0]
	output := modeltest.Item{Type: "function_call_output", CallID: call.CallID, Text: "x"}
	tests := []struct {
		name  string
		input []modeltest.Item
		want  modeltest.ResponsesReply
	}{
		{"marker", []modeltest.Item{user}, modeltest.ExecCommand("cat x")},
		{"tool output", []modeltest.Item{user, call, output}, modeltest.ResponsesText("reviewed")},
		{"no marker", []modeltest.Item{{Type: "message", Role: "user", Text: "hi"}}, modeltest.ResponsesText("plain")},
	}
	for _, tt := range tests {
		if got := f(&modeltest.ResponsesRequest{Input: tt.input}); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: reply %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestSkillsListing(t *testing.T) {
	block := func(lines ...string) *modeltest.ResponsesRequest {
		text := "<skills_instructions>\n## Skills\nA skill is ...\n" + strings.Join(lines, "\n") + "\n</skills_instructions>"
		return &modeltest.ResponsesRequest{Input: []modeltest.Item{{Type: "message", Role: "developer", Text: text}}}
	}
	tests := []struct {
		name    string
		req     *modeltest.ResponsesRequest
		want    []modeltest.ListedSkill
		wantErr bool
	}{
		{"two roots", block("### Skill roots", "- `r0` = `/home/u/.codex/skills`", "- `r1` = `/w/.agents/skills`", "### Available skills",
			"- b: Does b: twice. (file: r1/b/SKILL.md)", "- deep: D (file: r0/x/y/deep/SKILL.md)", "- empty: (file: r0/empty/SKILL.md)"),
			[]modeltest.ListedSkill{
				{Name: "b", Description: "Does b: twice.", File: "r1/b/SKILL.md", Path: filepath.FromSlash("/w/.agents/skills/b/SKILL.md")},
				{Name: "deep", Description: "D", File: "r0/x/y/deep/SKILL.md", Path: filepath.FromSlash("/home/u/.codex/skills/x/y/deep/SKILL.md")},
				{Name: "empty", Description: "", File: "r0/empty/SKILL.md", Path: filepath.FromSlash("/home/u/.codex/skills/empty/SKILL.md")},
			}, false},
		{"unknown root", block("### Skill roots", "- `r0` = `/s`", "### Available skills", "- a: A (file: r9/a/SKILL.md)"), nil, true},
		{"bad skill line", block("### Skill roots", "- `r0` = `/s`", "### Available skills", "- a: A"), nil, true},
		{"bad root line", block("### Skill roots", "- r0 = /s"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.req.Skills()
			if (err != nil) != tt.wantErr || !cmp.Equal(got, tt.want) {
				t.Errorf("Skills() = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if _, err := (&modeltest.ResponsesRequest{}).Skills(); !errors.Is(err, modeltest.ErrNoSkillListing) {
		t.Errorf("Skills() of a request without a listing: %v, want ErrNoSkillListing", err)
	}
}
