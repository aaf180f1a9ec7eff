package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// This file holds the stand-in for the OpenAI Chat Completions API that
// Qwen Code 0.24.4 talks to (POST /v1/chat/completions, streamed as
// chat.completion.chunk events). Besides the main turn, Qwen Code sends
// two helper calls a test must answer, which a [ChatServer] answers by
// itself unless the test's reply function says otherwise:
//
//  1. In approval mode "auto" (its default) it asks a security classifier
//     before a tool that needs approval: a call, not streamed, whose system
//     message starts "You are a security classifier", offering the one tool
//     respond_in_schema. The server allows the tool: it answers with a
//     respond_in_schema call {"shouldBlock":false}.
//  2. After a turn it runs the managed memory extraction subagent: a
//     streamed call whose system message holds "memory extraction". The
//     server answers with the text "no memories".

// The kinds of request, as [ChatRequest.Kind] reports them.
const (
	ChatMain       = "main"
	ChatClassifier = "classifier"
	ChatMemory     = "memory"
)

// QwenCLI returns the path of Qwen Code installed by .ci/install-agent-clis,
// found as [ClaudeCLI] finds Claude Code: $AGENTADAPTOR_CLIS/node_modules/.bin/qwen,
// or .agent-clis/node_modules/.bin/qwen at the top of the module. When it is
// missing the test is skipped, or fails if AGENTADAPTOR_REQUIRE_CLIS=1.
func QwenCLI(t testing.TB) string {
	t.Helper()
	return cli(t, "qwen")
}

// ChatRequest is one request the [ChatServer] was sent. The parsed fields
// are set for POST /v1/chat/completions and left empty for other paths.
type ChatRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte

	// Model is the requested model name.
	Model string
	// Stream reports whether the request asked for server-sent events.
	Stream bool
	// Messages is the conversation so far, oldest first.
	Messages []ChatMessage
	// Tools are the names of the function tools offered, in order.
	Tools []string
}

// ChatMessage is one message of a [ChatRequest].
type ChatMessage struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string
	// Text is the message's content, its text parts joined with newlines.
	Text string
	// ToolCallID ties a tool message to its call.
	ToolCallID string
	// ToolCalls are the calls of an assistant message.
	ToolCalls []ChatToolCall
}

// ChatToolCall is one function call, of a reply or an assistant message.
type ChatToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// System returns the text of the request's system messages, joined with
// newlines.
func (r *ChatRequest) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Kind reports which of Qwen Code's calls the request is: [ChatClassifier],
// [ChatMemory] or [ChatMain].
func (r *ChatRequest) Kind() string {
	sys := r.System()
	switch {
	case strings.Contains(sys, "You are a security classifier"):
		return ChatClassifier
	case strings.Contains(sys, "memory extraction"):
		return ChatMemory
	}
	return ChatMain
}

// Prompt returns the text of the last user message: the turn the user
// typed, even in the middle of the tool calls it started. Qwen Code puts
// its skill listing in the first user message's first part; Prompt
// returns the whole text.
func (r *ChatRequest) Prompt() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return ""
}

// ToolResult returns the last tool message when the request ends with
// tool messages: the outcome of the tool the model last called.
func (r *ChatRequest) ToolResult() (ChatMessage, bool) {
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "tool" {
		return r.Messages[n-1], true
	}
	return ChatMessage{}, false
}

// ChatReply is the reply a [ChatServer] sends to one request.
type ChatReply struct {
	// Text is the assistant's text.
	Text string
	// ToolCalls are the calls the assistant makes, after the text.
	ToolCalls []ChatToolCall
	// Status, when neither 0 nor 200, makes the reply an API error with
	// ErrorMessage. Qwen Code ends a run at the first 400 and retries a
	// 500 for more than a minute.
	Status       int
	ErrorMessage string
	// Stall holds the response open, sending nothing, until the client
	// goes away or the test ends.
	Stall bool
	// Usage is the token usage reported; zero reports 10 in, 5 out.
	InputTokens, OutputTokens int64
}

// ChatText returns a reply with the text.
func ChatText(text string) ChatReply { return ChatReply{Text: text} }

// ChatToolUse returns a reply that calls the function name with args
// (marshalled to JSON).
func ChatToolUse(name string, args any) ChatReply {
	return ChatReply{ToolCalls: []ChatToolCall{{
		ID: fmt.Sprintf("call_%08x", hash(name, string(mustMarshal(args)))), Name: name,
		Arguments: string(mustMarshal(args)),
	}}}
}

// ChatSkillCall returns a reply that calls Qwen Code's skill tool for the
// skill name.
func ChatSkillCall(name string) ChatReply {
	return ChatToolUse("skill", map[string]string{"skill": name})
}

// ChatStall returns a reply that never comes.
func ChatStall() ChatReply { return ChatReply{Stall: true} }

// ChatAPIError returns a reply that fails with the HTTP status and message.
func ChatAPIError(status int, msg string) ChatReply {
	return ChatReply{Status: status, ErrorMessage: msg}
}

// ChatReplyFunc picks the reply to a main request. A [ChatServer] calls it
// on the goroutine serving the request, so it must be safe for concurrent
// use.
type ChatReplyFunc func(*ChatRequest) ChatReply

// ChatAlways returns a [ChatReplyFunc] that answers every request with r.
func ChatAlways(r ChatReply) ChatReplyFunc { return always[*ChatRequest](r) }

// ChatToolThenText returns a [ChatReplyFunc] that answers with call, and
// answers a request that reports a tool's outcome with the text.
func ChatToolThenText(call ChatReply, text string) ChatReplyFunc {
	return thenAfterTool(func(r *ChatRequest) bool { _, ok := r.ToolResult(); return ok }, call, ChatText(text))
}

// ChatIfPrompt returns a [ChatReplyFunc] that asks then when the request's
// prompt contains marker, and asks otherwise when it does not.
func ChatIfPrompt(marker string, then, otherwise ChatReplyFunc) ChatReplyFunc {
	return ifPrompt(marker, then, otherwise)
}

// ChatServer is a stand-in for the OpenAI Chat Completions API on a
// loopback address, for Qwen Code. It is safe for concurrent use.
type ChatServer struct {
	// URL is the server's address, http://127.0.0.1:PORT; the API is
	// under URL/v1.
	URL string

	reply ChatReplyFunc
	loopback[*ChatRequest]
}

// NewChat starts a [ChatServer] that answers the main requests to POST
// /v1/chat/completions with the replies that reply picks (nil answers
// "ok"), and Qwen Code's classifier and memory calls as the file's doc
// says, and closes it when the test ends. Any other path gets a 404. It
// records every request.
func NewChat(t testing.TB, reply ChatReplyFunc) *ChatServer {
	t.Helper()
	if reply == nil {
		reply = ChatAlways(ChatText("ok"))
	}
	s := &ChatServer{reply: reply}
	s.start(t, s.serve)
	s.URL = s.url
	return s
}

// Requests returns the requests received so far, in the order they
// arrived.
func (s *ChatServer) Requests() []*ChatRequest {
	return s.recorded()
}

// MainRequests returns the main requests received so far: those to POST
// /v1/chat/completions of kind [ChatMain].
func (s *ChatServer) MainRequests() []*ChatRequest {
	var out []*ChatRequest
	for _, r := range s.Requests() {
		if r.Path == "/v1/chat/completions" && r.Kind() == ChatMain {
			out = append(out, r)
		}
	}
	return out
}

// QwenEnv returns an environment for Qwen Code that talks to s only and
// keeps its files in a fresh HOME: PATH, HOME, TMPDIR, OPENAI_BASE_URL
// (s.URL/v1), OPENAI_API_KEY (a dummy key), OPENAI_MODEL ("qwen-modeltest"),
// QWEN_USAGE_STATISTICS_ENABLED=false (no lookup of the statistics host)
// and QWEN_CODE_NO_RELAUNCH=true (one process). Append to env to add or
// override a variable: with os/exec the last value wins.
func (s *ChatServer) QwenEnv(t testing.TB) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"OPENAI_BASE_URL=" + s.URL + "/v1",
		"OPENAI_API_KEY=sk-modeltest",
		"OPENAI_MODEL=qwen-modeltest",
		"QWEN_USAGE_STATISTICS_ENABLED=false",
		"QWEN_CODE_NO_RELAUNCH=true",
	}, home
}

func (s *ChatServer) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	req := &ChatRequest{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
	endpoint := hr.Method == http.MethodPost && hr.URL.Path == "/v1/chat/completions"
	if err == nil && endpoint {
		err = parseChat(req)
	}
	s.record(req)
	switch {
	case err != nil:
		chatError(w, http.StatusBadRequest, err.Error())
	case !endpoint:
		chatError(w, http.StatusNotFound, "modeltest: no endpoint "+hr.Method+" "+hr.URL.Path)
	default:
		var rep ChatReply
		switch req.Kind() {
		case ChatClassifier:
			rep = ChatToolUse("respond_in_schema", map[string]bool{"shouldBlock": false})
		case ChatMemory:
			rep = ChatText("no memories")
		default:
			rep = s.reply(req)
		}
		s.send(w, hr, req, rep)
	}
}

func (s *ChatServer) send(w http.ResponseWriter, hr *http.Request, req *ChatRequest, rep ChatReply) {
	if rep.Status != 0 && rep.Status != http.StatusOK {
		chatError(w, rep.Status, rep.ErrorMessage)
		return
	}
	if rep.Stall {
		s.stall(hr)
		return
	}
	in, out := rep.InputTokens, rep.OutputTokens
	if in == 0 && out == 0 {
		in, out = 10, 5
	}
	usage := map[string]int64{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	id := fmt.Sprintf("chatcmpl-%08x", hash(string(req.Body)))
	finish := "stop"
	var calls []map[string]any
	for i, c := range rep.ToolCalls {
		calls = append(calls, map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": rep.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	chunks := []map[string]any{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	if rep.Text != "" {
		chunks = append(chunks, chunk(map[string]any{"content": rep.Text}, nil))
	}
	if len(calls) > 0 {
		chunks = append(chunks, chunk(map[string]any{"tool_calls": calls}, nil))
	}
	chunks = append(chunks, chunk(map[string]any{}, finish))
	last := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
		"choices": []any{}, "usage": usage}
	chunks = append(chunks, last)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", mustMarshal(c))
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

func chatError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(mustMarshal(map[string]any{
		"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil},
	}))
}

// parseChat fills in req's parsed fields from its body.
func parseChat(req *ChatRequest) error {
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("modeltest: chat request body: %w", err)
	}
	req.Model, req.Stream = body.Model, body.Stream
	for _, m := range body.Messages {
		text, err := chatContent(m.Content)
		if err != nil {
			return fmt.Errorf("modeltest: %s message content: %w", m.Role, err)
		}
		cm := ChatMessage{Role: m.Role, Text: text, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, ChatToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, cm)
	}
	for _, tl := range body.Tools {
		req.Tools = append(req.Tools, tl.Function.Name)
	}
	return nil
}

// chatContent returns a message's content as text: a string, or the texts
// of its parts joined with newlines.
func chatContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
