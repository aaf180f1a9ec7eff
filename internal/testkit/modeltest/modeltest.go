// Package modeltest provides a stand-in for the Anthropic Messages API, for
// tests that drive the real Claude Code CLI offline.
//
// A [Server] records every request it is sent and answers each request to
// POST /v1/messages with the [Reply] that the test's [ReplyFunc] picks: as
// server-sent events when the request asks for a stream, as one JSON
// message otherwise. [ClaudeCLI] finds the pinned CLI and
// [Server.ClaudeEnv] gives it a hermetic environment:
//
//	s := modeltest.NewAnthropic(t, modeltest.IfPrompt("review",
//		modeltest.ToolThenText(modeltest.SkillCall("review"), "reviewed"),
//		modeltest.Always(modeltest.Text("hello"))))
//	env, _ := s.ClaudeEnv(t)
//	cmd := exec.CommandContext(t.Context(), modeltest.ClaudeCLI(t),
//		"-p", "--output-format", "stream-json", "--verbose")
//	cmd.Env, cmd.Dir, cmd.Stdin = env, t.TempDir(), strings.NewReader("please review")
//
// # What Claude Code 2.1.328 does
//
// Found by running the CLI against a [Server], as root on Linux. The
// TestClaude* tests check each item (they skip in -short mode) and, run
// with -record, write the CLI's output to claude/testdata as fixtures.
//
//  1. Skills in DIR/.claude/skills/NAME/SKILL.md are loaded with
//     --add-dir DIR. The system/init event lists them by folder name in
//     "skills": plain names, user, project and added skills before the
//     built-in ones (prefixed names, item 4, come last). Their
//     descriptions are not in the request's system field but in a
//     message of role "system" (the second message, after the prompt),
//     as lines "- NAME: DESCRIPTION" after "The following skills are
//     available for use with the Skill tool:". When the front matter's
//     name differs from the folder's, the line reads "- FOLDER (NAME):
//     DESCRIPTION", and the Skill tool takes either name.
//  2. Symbolic links work anywhere on the way: DIR/.claude/skills/NAME a
//     link to a folder elsewhere (absolute or relative), the skills
//     folder a link, or DIR itself a link. The skill is listed and the
//     Skill tool reads its body.
//  3. When the model calls Skill with {"skill": NAME}, the next request
//     ends with one user message holding the tool_result "Launching
//     skill: NAME" and a text block "Base directory for this skill:
//     PATH\n\nBODY\n". PATH is the folder as found, through the links
//     (DIR/.claude/skills/NAME, never the link's target); BODY is SKILL.md
//     after its front matter, with one more newline at the end when an
//     added folder has a skill of the same name. An unknown name gets the
//     tool_result "<tool_use_error>Unknown skill: NAME. Did you mean
//     ...?</tool_use_error>" and the run goes on.
//  4. User skills ($HOME/.claude/skills) and project skills (.claude/skills
//     in the working folder and in the folders above it, up to the top of
//     its git repository when it is in one) are loaded. A name in both the
//     user and a project folder is the user's; the project's copy is
//     dropped. A name that a user or project skill has is listed for an
//     --add-dir folder with a prefix, "TAIL:NAME", where TAIL is the
//     shortest tail of the added folder's path that tells the added
//     folders apart ("add:dup", or "x/add:dup" and "y/add:dup"); the plain
//     name reads the user's or project's SKILL.md and the prefixed one the
//     added folder's. With CLAUDE_CONFIG_DIR set, $CLAUDE_CONFIG_DIR/skills
//     replaces $HOME/.claude/skills, and .claude.json and the sessions
//     move there too.
//  5. --resume ID continues the session under the same ID (init and
//     result carry it) and replays the earlier turns in the request's
//     messages. It finds the session from any working folder: from
//     another one the run succeeds, appends to the original session file,
//     and the request gains a system message "# Environment update"
//     naming the new folder. An unknown ID (a well-formed UUID) sends no
//     request and exits 1, with "No conversation found with session ID:
//     ID" on stderr and a single stdout line: a result with subtype
//     "error_during_execution", is_error true, the message in "errors"
//     and the unknown ID as session_id (no init line). A value that is
//     neither a UUID nor a session title fails the same way with another
//     message.
//  6. A run writes nothing in the working folder. Under HOME it writes
//     .claude.json, .claude/backups/.claude.json.backup.MILLIS,
//     .claude/projects/KEY/SESSION.jsonl and an empty
//     .claude/projects/KEY/memory (KEY is the working folder's path with
//     every character but ASCII letters and digits made "-"),
//     .claude/plugins/store/*.json, and while it runs
//     .claude/sessions/PID.json and PID.*.key, removed at exit. Outside
//     HOME it writes TMPDIR/claude-UID/fswatch-probe-*/probe (sometimes
//     left behind) and a socket TMPDIR/cc-socks/PID.sock (in
//     /tmp/cc-socks-UID when that path is too long; left behind when the
//     CLI is killed). There are no lock files: six concurrent runs sharing
//     HOME and the working folder all succeed, each with its own session.
//  7. SIGINT while the model stalls ends the CLI within 100 ms with exit
//     code 0 and nothing on stderr. Stdout has the init line, then mostly
//     a user message "[Request interrupted by user]", and sometimes (more
//     often when the signal follows the request at once) a result with
//     subtype "error_during_execution", is_error true and terminal_reason
//     "aborted_streaming"; under load the init line may be all. So exit
//     code 0 does not mean success, and the result line may be missing.
//     While the CLI runs, HOME/.claude/sessions/PID.json exists; it is
//     gone after the signal. SIGTERM ends it as fast with exit code 143
//     and only the init line. A plain prompt starts no child processes. A
//     stalled call, with or without some events sent, is waited on for at
//     least 150 s: API_TIMEOUT_MS (default 600000) bounds it, and
//     API_TIMEOUT_MS=2000 with no retries ends the run after 2 s with an
//     API error result.
//  8. stream-json lines: system/init; assistant, one line per content
//     block; user, for tool results and, as a separate line marked
//     "isSynthetic", the skill body; with --include-partial-messages also
//     stream_event (the raw events, text_delta and input_json_delta
//     included) and system/status ("status":"requesting") before each
//     call; last, result. Success exits 0 with result subtype "success".
//     An API error exits 1 after an assistant line whose model is
//     "<synthetic>" and "is_api_error_message" is true, and a result with
//     subtype "success" but is_error true, "api_error_status",
//     "api_error_type", terminal_reason "api_error" (for a 413,
//     "image_error") and the error text as "result". Before each retry the CLI
//     prints system/api_retry (attempt, max_retries, retry_delay_ms,
//     error_status, error). --max-turns 1 with a tool call exits 1 with a
//     result of subtype "error_max_turns", is_error true, terminal_reason
//     "max_turns" and errors ["Reached maximum number of turns (1)"]; a
//     Skill round fits in --max-turns 2.
//  9. As root, --dangerously-skip-permissions, --permission-mode
//     bypassPermissions and --allow-dangerously-skip-permissions all fail
//     unless IS_SANDBOX=1 is set: exit 1, nothing on stdout, stderr
//     "--dangerously-skip-permissions cannot be used with root/sudo
//     privileges for security reasons". With IS_SANDBOX=1 init reports
//     permissionMode "bypassPermissions". --permission-mode takes
//     acceptEdits, auto, bypassPermissions, manual (reported as
//     "default"), dontAsk and plan, and also default; anything else exits
//     1 with "Allowed choices are ..." on stderr.
//  10. With CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 the only call is a
//     streamed POST /v1/messages per turn: no count_tokens, title or quota
//     call. Without it the CLI also sends HEAD /api/hello to the base URL
//     and looks up api.anthropic.com. The model is claude-opus-5-5 unless
//     --model says otherwise; sonnet, haiku and opus become
//     claude-sonnet-5-5, claude-haiku-5-5 and claude-opus-5-5, other names
//     are sent as given. The body has model, system (a billing line and
//     the prompt), messages, tools (Skill among them), metadata,
//     max_tokens 128000, thinking, context_management, output_config and
//     stream. Failed calls are retried up to CLAUDE_CODE_MAX_RETRIES times
//     (default 10, waits doubling from 0.5 s to about 35 s, some 3 minutes
//     in all) for 401, 408, 409, 429, 5xx and 529; 403 and 413 are not
//     retried; a 400 is sent 5 more times with fewer betas and tools; a
//     404 is sent once more without streaming (max_tokens 64000), so a
//     stand-in must answer both forms.
package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Request is one request the [Server] was sent. The parsed fields are set
// for POST /v1/messages and left empty for other paths.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte

	// Model is the requested model name.
	Model string
	// Stream reports whether the request asked for server-sent events.
	Stream bool
	// System is the text of the request's system field, its blocks joined
	// with newlines. Claude Code puts its environment and skill listing
	// in a message of role "system" instead (see the package doc).
	System string
	// Messages are the conversation so far, oldest first.
	Messages []Message
	// Tools are the names of the tools offered to the model, in order.
	Tools []string
}

// Message is one message of a [Request]'s conversation.
type Message struct {
	// Role is "user", "assistant" or "system".
	Role string
	// Content is the message's blocks; a message given as a plain string
	// has one text block.
	Content []Block
}

// Block is one content block of a message, in a request or a [Reply].
type Block struct {
	// Type is "text", "tool_use", "tool_result", or another block type.
	Type string
	// Text is a text block's text, or a tool_result's content as text
	// (its text blocks joined with newlines).
	Text string
	// ID and Name identify a tool_use block; Input is its input object.
	ID    string
	Name  string
	Input json.RawMessage
	// ToolUseID is the id of the tool_use a tool_result answers.
	ToolUseID string
	// IsError reports a tool_result marked as an error.
	IsError bool
}

// Text returns the text of the message's text and tool_result blocks,
// joined with newlines.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" || b.Type == "tool_result" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Prompt returns the text of the last user message that carries no
// tool_result: the turn the user typed, even in the middle of the tool
// calls it started. Claude Code adds its own text blocks (reminders in
// <system-reminder> tags) to that message, so look for a marker in it
// with [strings.Contains].
func (r *Request) Prompt() string {
	for _, m := range slices.Backward(r.Messages) {
		if m.Role == "user" && !slices.ContainsFunc(m.Content, isToolResult) {
			return m.Text()
		}
	}
	return ""
}

// ToolResult returns the first tool_result block of the request's last
// message, when that is a user message holding one: the model is being
// told the outcome of a tool call it made.
func (r *Request) ToolResult() (Block, bool) {
	if len(r.Messages) == 0 {
		return Block{}, false
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role != "user" {
		return Block{}, false
	}
	if i := slices.IndexFunc(last.Content, isToolResult); i >= 0 {
		return last.Content[i], true
	}
	return Block{}, false
}

func isToolResult(b Block) bool { return b.Type == "tool_result" }

// Reply is how the [Server] answers one request to POST /v1/messages.
// Build one with [Text], [ToolUse], [SkillCall], [Stall] or [APIError], or
// set the fields for several blocks.
type Reply struct {
	// Content is the assistant message's blocks: "text" blocks (Text) and
	// "tool_use" blocks (ID, Name, Input).
	Content []Block
	// StopReason is the message's stop reason; empty means "tool_use" when
	// Content holds a tool_use block and "end_turn" otherwise.
	StopReason string
	// Usage is the token usage reported; a zero Usage reports 100 input
	// tokens and 10 output tokens.
	Usage Usage

	// Status, when it is neither 0 nor 200, makes the reply an API error:
	// this HTTP status and the body
	// {"type":"error","error":{"type":ErrorType,"message":ErrorMessage}};
	// ErrorType defaults to "api_error".
	Status       int
	ErrorType    string
	ErrorMessage string

	// Stall holds the response open until the client goes away or the
	// test ends. When Content is set, a streamed reply first sends
	// message_start and the blocks, so that a stall can follow partial
	// output; otherwise nothing is sent, not even the status.
	Stall bool
}

// Usage is the token usage reported with a reply.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// Text returns a reply of one text block.
func Text(text string) Reply {
	return Reply{Content: []Block{{Type: "text", Text: text}}}
}

// ToolUse returns a reply of one tool_use block calling the tool name with
// input, which must marshal to a JSON object. The block's id is derived
// from the name and input, so the same call always gets the same id.
func ToolUse(name string, input any) Reply {
	raw := objectJSON(input, "tool input %v is not a JSON object (%v)")
	id := fmt.Sprintf("toolu_modeltest_%08x", hash(name, string(raw)))
	return Reply{Content: []Block{{Type: "tool_use", ID: id, Name: name, Input: raw}}}
}

// SkillCall returns a reply that calls Claude Code's Skill tool with
// {"skill": name}.
func SkillCall(name string) Reply {
	return ToolUse("Skill", map[string]string{"skill": name})
}

// Stall returns a reply that holds the response open, sending nothing,
// until the client goes away or the test ends.
func Stall() Reply {
	return Reply{Stall: true}
}

// APIError returns a reply that fails with the HTTP status and an
// Anthropic error body of type errType and message msg. Claude Code ends
// a run at the first 403 or 413; see the package doc for the statuses it
// retries.
func APIError(status int, errType, msg string) Reply {
	return Reply{Status: status, ErrorType: errType, ErrorMessage: msg}
}

// ReplyFunc picks the reply to a request to POST /v1/messages. A [Server]
// calls it on the goroutine serving the request, so it must be safe for
// concurrent use.
type ReplyFunc func(*Request) Reply

// Always returns a [ReplyFunc] that answers every request with r.
func Always(r Reply) ReplyFunc {
	return always[*Request](r)
}

// ToolThenText returns a [ReplyFunc] that answers with call, and answers a
// request that reports a tool's result ([Request.ToolResult]) with the
// text: one tool round, then the final answer.
func ToolThenText(call Reply, text string) ReplyFunc {
	return thenAfterTool((*Request).hasToolResult, call, Text(text))
}

func (r *Request) hasToolResult() bool {
	_, ok := r.ToolResult()
	return ok
}

// IfPrompt returns a [ReplyFunc] that asks then when the request's
// [Request.Prompt] contains marker, and asks otherwise when it does not.
func IfPrompt(marker string, then, otherwise ReplyFunc) ReplyFunc {
	return ifPrompt(marker, then, otherwise)
}

// Server is a stand-in for the Anthropic API on a loopback address. It is
// safe for concurrent use: several CLI runs may share one.
type Server struct {
	// URL is the server's base URL, for ANTHROPIC_BASE_URL.
	URL string

	s *standIn[*Request]
}

// NewAnthropic starts a [Server] that answers POST /v1/messages with the
// replies that reply picks (nil answers every request with the text "ok"),
// and closes it when the test ends. It also answers POST
// /v1/messages/count_tokens with an estimate, HEAD or GET /api/hello (the
// CLI's connectivity check) with 200, and any other path with an
// Anthropic not_found_error; it records every request.
func NewAnthropic(t testing.TB, reply ReplyFunc) *Server {
	t.Helper()
	if reply == nil {
		reply = Always(Text("ok"))
	}
	s := startStandIn(t, api[*Request]{
		path:      "/v1/messages",
		requestID: "Request-Id",
		errorType: "api_error",
		notFound:  "not_found_error",
		record: func(hr *http.Request, body []byte) *Request {
			return &Request{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
		},
		parse: parse,
		reply: func(req *Request) wireReply {
			rep := reply(req)
			msg := message(req, rep)
			return wireReply{status: rep.Status, errType: rep.ErrorType, errMessage: rep.ErrorMessage,
				stream: req.Stream, body: msg, events: events(msg),
				stall: rep.Stall, partial: len(rep.Content) > 0, held: 2} // message_delta and message_stop
		},
		other: func(w http.ResponseWriter, hr *http.Request, body []byte) bool {
			switch {
			case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages/count_tokens":
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
			case (hr.Method == http.MethodHead || hr.Method == http.MethodGet) && hr.URL.Path == "/api/hello":
				w.WriteHeader(http.StatusOK)
			default:
				return false
			}
			return true
		},
		errorBody: func(typ, msg string) []byte {
			b := mustMarshal(map[string]any{
				"type":  "error",
				"error": map[string]string{"type": typ, "message": msg},
			})
			return append(b, '\n')
		},
	})
	return &Server{URL: s.url, s: s}
}

// Requests returns the requests received so far, in the order they
// arrived.
func (s *Server) Requests() []*Request {
	return s.s.all(false)
}

// MessageRequests returns the requests to POST /v1/messages received so
// far, in the order they arrived.
func (s *Server) MessageRequests() []*Request {
	return s.s.all(true)
}

// wireBlock is a content block of a reply as the API sends it.
type wireBlock struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// wireMessage is a reply message as the API sends it.
type wireMessage struct {
	ID           string      `json:"id"`
	Type         string      `json:"type"`
	Role         string      `json:"role"`
	Model        string      `json:"model"`
	Content      []wireBlock `json:"content"`
	StopReason   *string     `json:"stop_reason"`
	StopSequence *string     `json:"stop_sequence"`
	Usage        Usage       `json:"usage"`
}

func message(req *Request, rep Reply) wireMessage {
	stop := rep.StopReason
	content := make([]wireBlock, 0, len(rep.Content))
	for _, b := range rep.Content {
		wb := wireBlock{Type: b.Type}
		switch b.Type {
		case "text":
			wb.Text = &b.Text
		case "tool_use":
			wb.ID, wb.Name, wb.Input = b.ID, b.Name, b.Input
			if len(wb.Input) == 0 {
				wb.Input = json.RawMessage("{}")
			}
			if stop == "" {
				stop = "tool_use"
			}
		}
		content = append(content, wb)
	}
	if stop == "" {
		stop = "end_turn"
	}
	usage := rep.Usage
	if usage == (Usage{}) {
		usage = Usage{InputTokens: 100, OutputTokens: 10}
	}
	model := req.Model
	if model == "" {
		model = "claude-modeltest"
	}
	return wireMessage{
		ID:         fmt.Sprintf("msg_modeltest_%08x", hash(string(req.Body))),
		Type:       "message",
		Role:       "assistant",
		Model:      model,
		Content:    content,
		StopReason: &stop,
		Usage:      usage,
	}
}

// events returns the server-sent events that stream msg: message_start,
// for each block content_block_start, one content_block_delta and
// content_block_stop, then message_delta and message_stop.
func events(msg wireMessage) []map[string]any {
	start := msg
	start.Content = []wireBlock{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	evs := []map[string]any{{"type": "message_start", "message": start}}
	for i, b := range msg.Content {
		first, delta := b, map[string]any(nil)
		switch b.Type {
		case "text":
			empty := ""
			first = wireBlock{Type: "text", Text: &empty}
			delta = map[string]any{"type": "text_delta", "text": *b.Text}
		case "tool_use":
			first = wireBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}")}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}
		}
		evs = append(evs, map[string]any{"type": "content_block_start", "index": i, "content_block": first})
		if delta != nil {
			evs = append(evs, map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		}
		evs = append(evs, map[string]any{"type": "content_block_stop", "index": i})
	}
	return append(evs,
		map[string]any{
			"type":  "message_delta",
			"delta": map[string]any{"stop_reason": *msg.StopReason, "stop_sequence": nil},
			"usage": map[string]int{"output_tokens": msg.Usage.OutputTokens},
		},
		map[string]any{"type": "message_stop"},
	)
}

// parse fills in req's parsed fields from its body.
func parse(req *Request) error {
	var body struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("modeltest: request body: %w", err)
	}
	req.Model, req.Stream = body.Model, body.Stream
	sys, err := blocks(body.System)
	if err != nil {
		return fmt.Errorf("modeltest: system: %w", err)
	}
	req.System = Message{Content: sys}.Text()
	for i, m := range body.Messages {
		content, err := blocks(m.Content)
		if err != nil {
			return fmt.Errorf("modeltest: message %d: %w", i, err)
		}
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: content})
	}
	for _, tool := range body.Tools {
		req.Tools = append(req.Tools, tool.Name)
	}
	return nil
}

// blocks parses content given either as a string or as a list of blocks.
func blocks(raw json.RawMessage) ([]Block, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []Block{{Type: "text", Text: s}}, nil
	}
	var in []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	out := make([]Block, 0, len(in))
	for _, b := range in {
		blk := Block{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID, IsError: b.IsError}
		if b.Type == "tool_result" {
			inner, err := blocks(b.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result content: %w", err)
			}
			blk.Text = Message{Content: inner}.Text()
		}
		out = append(out, blk)
	}
	return out, nil
}
