// The package also provides a stand-in for the OpenAI Responses API, for
// tests that drive the real Codex CLI offline.
//
// A [ResponsesServer] records every request it is sent and answers each
// request to POST /v1/responses with the [ResponsesReply] that the test's
// [ResponsesReplyFunc] picks. [CodexCLI] finds the pinned CLI,
// [ResponsesServer.CodexEnv] gives it a hermetic environment whose
// CODEX_HOME holds a config.toml pointing Codex at the server, and
// [ResponsesServer.WriteCodexConfig] writes that config.toml into a
// Codex home a test builds itself:
//
//	s := modeltest.NewResponses(t, modeltest.ResponsesIfPrompt("review",
//		modeltest.ResponsesToolThenText(modeltest.ExecCommand("cat notes.txt"), "reviewed"),
//		modeltest.ResponsesAlways(modeltest.ResponsesText("hello"))))
//	env, home, codexHome := s.CodexEnv(t)
//	cmd := exec.CommandContext(t.Context(), modeltest.CodexCLI(t),
//		"exec", "--json", "--skip-git-repo-check", "-")
//	cmd.Env, cmd.Dir, cmd.Stdin = env, t.TempDir(), strings.NewReader("please review")
//
// [ResponsesRequest.Skills] reads the skill listing of a request.
//
// What the Responses stand-in shares with the Anthropic one goes by the
// Anthropic name with "Responses" in front: [ResponsesServer],
// [ResponsesRequest], [ResponsesReply], [ResponsesUsage],
// [ResponsesReplyFunc], [ResponsesText], [ResponsesStall],
// [ResponsesAPIError], [ResponsesAlways], [ResponsesToolThenText] and
// [ResponsesIfPrompt].
// Replies that only one API has are named for its own items:
// [FunctionCall], [ExecCommand] and [CustomToolCall] here, [ToolUse] and
// [SkillCall] there.
//
// # What Codex 0.169.0 does
//
// Found by running the CLI against a [ResponsesServer], as root on Linux,
// with the environment and config.toml of [ResponsesServer.CodexEnv]
// unless an item says otherwise; network facts with strace. The TestCodex*
// tests check each item (they skip in -short mode) and, run with -record,
// write the CLI's output to codex/testdata as fixtures.
//
//  1. codex exec --json --skip-git-repo-check - reads the prompt from
//     stdin and prints one JSON object a line on stdout:
//     {"type":"thread.started","thread_id":UUID}, {"type":"turn.started"},
//     item events {"type":"item.started"|"item.updated"|"item.completed",
//     "item":{"id":"item_N","type":...}}, and last
//     {"type":"turn.completed","usage":{"input_tokens",
//     "cached_input_tokens","cache_write_input_tokens","output_tokens",
//     "reasoning_output_tokens"}} (exit 0), or {"type":"error","message"}
//     then {"type":"turn.failed","error":{"message"}} (exit 1). An
//     agent_message comes as item.completed only, with "text". A command
//     comes as item.started (command "/bin/bash -lc 'CMD'", status
//     "in_progress", exit_code null, aggregated_output "") and
//     item.completed (status "completed" or, for a non-zero exit,
//     "failed", with exit_code and aggregated_output). The usage is the
//     sum over the turn's model calls; on a resumed thread it also counts
//     the earlier runs' calls (item 4). An unknown model adds an
//     item.completed of type "error", before turn.started: "Model metadata
//     for `NAME` not found. Defaulting to fallback metadata; this can
//     degrade performance and cause issues." An assistant message sent
//     before the stream fails is still reported as a completed
//     agent_message. Stderr is empty on success; Codex logs errors there
//     as "TIMESTAMP ERROR TARGET: MESSAGE" lines.
//  2. The request's second developer message starts with the skill
//     listing, exactly "<skills_instructions>\n## Skills\nA skill is a set
//     of local instructions to follow that is stored in a `SKILL.md` file.
//     Below is the list of skills that can be used. Each entry includes a
//     name, description, and a short path that can be expanded into an
//     absolute path using the skill roots table.\n### Skill roots\n",
//     then lines "- `rN` = `/root/folder`", "### Available skills", lines
//     "- NAME: DESCRIPTION (file: rN/PATH/SKILL.md)" and
//     "</skills_instructions>". Only roots with a listed skill are in the
//     table; expand the alias through it. NAME is the front matter's name,
//     whatever the folder's. Lines come in groups, each sorted by name:
//     Codex's system skills, then repository skills, then user skills.
//     The roots are $CODEX_HOME/skills (user; ~/.codex/skills when
//     CODEX_HOME is unset or empty, and not read otherwise),
//     $HOME/.agents/skills (user), $CODEX_HOME/skills/.system (system),
//     and .agents/skills and .codex/skills in each folder from the top of
//     the git repository that holds the working folder down to it (only
//     the working folder's outside a repository). .claude/skills is not
//     read. A SKILL.md is found up to 6 folders below its root; folders
//     whose names start with "." are skipped. A skill folder that is a
//     link, absolute or relative, is followed and listed under the link's
//     own path, which reads the target's SKILL.md. When $CODEX_HOME/skills
//     itself is a link, it is followed, the roots table shows its target,
//     and Codex writes .system into the target. Two skills of one name are
//     both listed (the repository's line first): no name wins. One
//     SKILL.md reached from two roots through a link is listed once, from
//     the user root. On start Codex writes its system skills (imagegen,
//     openai-docs, skill-creator, skill-installer, and review-agent, which
//     it does not list) into $CODEX_HOME/skills/.system with a marker file,
//     .codex-system-skills.marker ("e2e416a9532c044f"); it replaces the
//     folder when the marker differs from its own and leaves it alone
//     otherwise, so a changed or removed system skill stays so. The model
//     reads a listed SKILL.md with exec_command "cat PATH", which the
//     default read-only sandbox allows.
//  3. A run writes nothing in the working folder, nothing in HOME or
//     TMPDIR (with CODEX_HOME elsewhere), and does not change config.toml.
//     In CODEX_HOME it writes .sandbox_migration, installation_id,
//     goals_1.sqlite, logs_2.sqlite, memories_1.sqlite, queue_1.sqlite,
//     state_5.sqlite and thread_history_1.sqlite (-wal and -shm files may
//     stay), sessions/YYYY/MM/DD/rollout-LOCALTIME-THREAD.jsonl,
//     shell_snapshots/ (emptied at exit), skills/.system (item 2),
//     thread-writer-locks/.coordination.lock and tmp/arg0-linux/ (links to
//     helpers; when CODEX_HOME is inside the temporary folder Codex makes
//     none and prints "WARNING: proceeding, even though we could not
//     create PATH aliases: ..." on stderr); with plugins on,
//     .tmp/plugins.sync.lock. No auth.json (item 5) and no version.json.
//     There are no locks between runs: four at once sharing CODEX_HOME
//     and the working folder all succeed with threads of their own, but
//     they get in each other's way. The first runs on a new CODEX_HOME race
//     to install skills/.system: the losers log "ERROR
//     codex_skills_extension::host_service: failed to install system
//     skills: io error while remove existing system skills dir: Directory
//     not empty (os error 39)" and go on, and the folder may be left with
//     its marker but without some, even all, system skills, which no later
//     run restores (item 2); run one alone first. Overlapping runs may
//     also remove each other's shell snapshot ("ERROR
//     codex_core::shell_snapshot: Shell snapshot validation failed: ...
//     No such file or directory").
//  4. codex exec --json --skip-git-repo-check resume ID - continues the
//     thread: thread.started carries ID, the request replays the earlier
//     turns (their developer and user messages, the assistant's answers)
//     before the new prompt, and the turn is appended to the same session
//     file. The thread is found only in the CODEX_HOME that holds its
//     session; any working folder will do, and a new one adds a second
//     environment_context message naming it. An unknown UUID sends no
//     request and exits 1 with nothing on stdout and "Error:
//     thread/resume: thread/resume failed: no rollout found for thread id
//     ID (code -32600)" on stderr; so does a known ID in another
//     CODEX_HOME. An ID that is not a UUID is taken as a thread name, and
//     when no thread has that name Codex starts a new thread without a
//     word (exit 0, a new thread_id): compare thread_id with the ID asked
//     for.
//  5. Codex reads $CODEX_HOME/auth.json through a link like a file. A run
//     whose key comes from the provider's env_key only reads it (no lock,
//     no write). A ChatGPT login that is due (the test's access token
//     expired a day ago and its last_refresh is 30 days old; the source
//     refreshes after 8 days) is refreshed before the first call: a POST
//     of grant_type refresh_token, refresh_reason "proactive_expiry", to
//     https://auth.openai.com/oauth/token, or to
//     CODEX_REFRESH_TOKEN_URL_OVERRIDE, which the test uses. The new
//     tokens are saved this way: lock $CODEX_HOME/auth.lock, resolve
//     auth.json's link chain, lock TARGET.lock beside the resolved file,
//     write a temporary .auth-XXXXXX in the target's folder (mode 0600)
//     and rename it over the target. So a link, absolute or relative,
//     survives a refresh and the
//     user's file gets the new tokens (a new file, mode 0600), with an
//     empty auth.json.lock left beside it; a copy would fall behind, and
//     the refresh token it holds is spent. The run then calls GET
//     /v1/models?client_version=0.169.0 with the new access token (404s
//     are logged and ignored). codex login --with-api-key saves the same
//     way (seen with strace). The keyring stores (cli_auth_credentials_store "keyring" or
//     "auto") key their entry by the canonical CODEX_HOME path (from the
//     source, not run here), so another CODEX_HOME does not see them.
//  6. The codex command is a Node.js script. With a Node.js that has
//     process.execve (22.15, 23.11 and later) it becomes the native binary;
//     with an older one (20 here) it starts the binary as its only child
//     and forwards SIGINT, SIGTERM and SIGHUP to it. SIGINT while the model stalls ends
//     both within about 100 ms: exit code 1, stdout thread.started and
//     turn.started only (no turn.failed), nothing on stderr, no process
//     left. SIGTERM ends both as fast, the wrapper dying of SIGTERM as
//     its child did. SIGKILL of the wrapper leaves the native binary
//     running, orphaned, holding stdout and stderr open (so os/exec's
//     Wait blocks without a WaitDelay): signal the process group, or find
//     it by an environment tag ([Processes]). A
//     stall before any output is not bounded (stream_idle_timeout_ms
//     bounds only the wait between events, item 8).
//  7. The sandbox is read-only unless -s says workspace-write or
//     danger-full-access (or -c sandbox_mode=...);
//     --dangerously-bypass-approvals-and-sandbox is danger-full-access.
//     The developer message "<permissions instructions>" states
//     "`sandbox_mode` is `MODE`" and, whatever -c approval_policy says
//     (on-request, on-failure), "Approval policy is currently never."; the
//     x-codex-turn-metadata header's sandbox is "seccomp", or "none" for
//     danger-full-access. In read-only a write fails with "Read-only file
//     system" in the tool output, and the command is mostly, not always,
//     left out of the stream. -s bogus exits 2 ("error: invalid value
//     'bogus' for '--sandbox <SANDBOX_MODE>'"); -c
//     approval_policy="untrusted" exits 1 ("Error: approval_policy =
//     \"untrusted\" is no longer supported; remove this setting"); neither
//     sends a request. -m NAME and -c model="NAME" set the request's
//     model (default gpt-6.1-sol, reasoning effort "low"); -c
//     model_reasoning_effort sets reasoning.effort. Root needs nothing
//     special.
//  8. With the config of [ResponsesServer.CodexConfig] the only call is a
//     streamed POST /v1/responses per model turn, with "Authorization:
//     Bearer OPENAI_API_KEY", no WebSocket and no other host: without
//     analytics.enabled = false Codex looks up ab.chatgpt.com, without
//     features.plugins = false it runs git ls-remote
//     https://github.com/openai/plugins.git and looks up api.github.com
//     and chatgpt.com (all seen with strace). OPENAI_BASE_URL without such
//     a provider does not keep it local: Codex looks up api.openai.com,
//     reports "Falling back from WebSockets to HTTPS transport. ..." as an
//     error item and then prints "Reconnecting... waiting for network"
//     lines without end (seen once). It also runs lsb_release and
//     a login bash for the shell snapshot (features.shell_snapshot = false
//     stops that). The body has model, stream, input, tool_choice,
//     parallel_tool_calls, reasoning, store, include, prompt_cache_key,
//     text and client_metadata; no instructions. For the default model the
//     tools come in an input item of type "additional_tools" (code mode:
//     functions.exec, a freeform JavaScript tool that calls the others,
//     functions.wait, clock.sleep, collaboration.*); for other models in
//     tools (exec_command {"cmd"}, write_stdin, apply_patch, view_image,
//     web_search, ...). A function_call to exec_command works for every
//     model, and so does a custom_tool_call to exec; "shell" is no tool
//     ("unsupported call: shell" as its output). Codex reads the stream's
//     response.output_item.done items and ends the turn when the stream
//     closes after response.completed. A 400 fails the turn at once, with
//     the response body as the message. 401, 403, 404 and 5xx are retried:
//     the provider's stream_max_retries (default 5) whole attempts, each
//     printing an error line "Reconnecting... N/MAX (MESSAGE)", and for 5xx
//     request_max_retries (default 4) more requests within each (30 calls
//     and 26 s for a 500 with the defaults); the
//     message is "unexpected status 401 Unauthorized: MESSAGE, url: URL,
//     request id: ID" or, for 5xx, "We’re currently experiencing high
//     demand, which may cause temporary errors.". A 429 fails at once with
//     "exceeded retry limit, last status: 429 Too Many Requests, request
//     id: ID". stream_idle_timeout_ms bounds the wait between events
//     ("stream disconnected before completion: idle timeout waiting for
//     SSE"), not the wait for the response to start.
package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// ResponsesRequest is one request the [ResponsesServer] was sent. The
// parsed fields are set for POST /v1/responses and left empty for other
// paths.
type ResponsesRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte

	// Model is the requested model name.
	Model string
	// Stream reports whether the request asked for server-sent events.
	Stream bool
	// Instructions is the request's instructions field. Codex 0.169.0
	// leaves it out and sends its instructions, the skill listing among
	// them, as developer messages ([ResponsesRequest.Developer]).
	Instructions string
	// Input is the conversation so far, oldest first.
	Input []Item
	// Tools are the names of the tools offered to the model, in order:
	// those of the request's tools field, then those of its input items of
	// type "additional_tools". A tool in a namespace is "NAMESPACE.NAME";
	// a tool without a name (web_search) is named by its type.
	Tools []string
}

// Item is one item of a [ResponsesRequest]'s input or of a
// [ResponsesReply]'s output.
type Item struct {
	// Type is "message", "function_call", "function_call_output",
	// "custom_tool_call", "custom_tool_call_output", "reasoning",
	// "additional_tools", or another item type.
	Type string
	// Role is a message's role: "user", "assistant", "developer" or
	// "system".
	Role string
	// Text is a message's text, its parts joined with newlines, or the
	// output of a function_call_output or custom_tool_call_output as text
	// (when given as parts, their texts joined with newlines).
	Text string
	// ID is the item's id.
	ID string
	// CallID ties a call to its output.
	CallID string
	// Name is the tool a function_call or custom_tool_call calls.
	Name string
	// Arguments is a function_call's arguments (JSON text) or a
	// custom_tool_call's input.
	Arguments string
}

// Prompt returns the text of the last user message, leaving out the
// messages Codex adds to describe the environment (they start with
// "<environment_context>"): the turn the user typed, even in the middle
// of the tool calls it started. Codex sends a prompt read from its
// standard input as read, a final newline included.
func (r *ResponsesRequest) Prompt() string {
	for _, it := range slices.Backward(r.Input) {
		if it.Type == "message" && it.Role == "user" && !strings.HasPrefix(it.Text, "<environment_context>") {
			return it.Text
		}
	}
	return ""
}

// Developer returns the text of the request's developer messages, joined
// with newlines: Codex's instructions, the skill listing and the sandbox
// and approval settings.
func (r *ResponsesRequest) Developer() string {
	var parts []string
	for _, it := range r.Input {
		if it.Type == "message" && it.Role == "developer" {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolOutput returns the request's last input item when it is a
// function_call_output or a custom_tool_call_output: the model is being
// told the outcome of a tool call it made.
func (r *ResponsesRequest) ToolOutput() (Item, bool) {
	if len(r.Input) == 0 {
		return Item{}, false
	}
	last := r.Input[len(r.Input)-1]
	if last.Type == "function_call_output" || last.Type == "custom_tool_call_output" {
		return last, true
	}
	return Item{}, false
}

// ResponsesReply is how the [ResponsesServer] answers one request to POST
// /v1/responses. Build one with [ResponsesText], [FunctionCall],
// [ExecCommand], [CustomToolCall], [ResponsesStall] or
// [ResponsesAPIError], or set the fields for several items.
type ResponsesReply struct {
	// Output is the response's items: assistant "message" items (Text),
	// "function_call" items (CallID, Name, Arguments) and
	// "custom_tool_call" items (CallID, Name, and the input as Arguments).
	// An item without an ID gets one.
	Output []Item
	// Usage is the token usage reported; a zero Usage reports 100 input
	// tokens and 10 output tokens.
	Usage ResponsesUsage

	// Status, when it is neither 0 nor 200, makes the reply an API error:
	// this HTTP status and the body {"error":{"message":ErrorMessage,
	// "type":ErrorType,"param":null,"code":null}}; ErrorType defaults to
	// "invalid_request_error". See the package doc for how Codex treats
	// each status.
	Status       int
	ErrorType    string
	ErrorMessage string

	// Stall holds the response open until the client goes away or the
	// test ends. When Output is set, a streamed reply first sends
	// response.created and the items, so that a stall can follow partial
	// output; otherwise nothing is sent, not even the status.
	Stall bool
}

// ResponsesUsage is the token usage reported with a [ResponsesReply].
type ResponsesUsage struct {
	InputTokens           int
	CachedInputTokens     int
	OutputTokens          int
	ReasoningOutputTokens int
}

// ResponsesText returns a reply of one assistant message with the text.
func ResponsesText(text string) ResponsesReply {
	return ResponsesReply{Output: []Item{{Type: "message", Role: "assistant", Text: text}}}
}

// FunctionCall returns a reply of one function_call item calling the tool
// name with args, which must marshal to a JSON object. The call's id is
// derived from the name and arguments, so the same call always gets the
// same id.
func FunctionCall(name string, args any) ResponsesReply {
	raw := objectJSON(args, "function arguments %v are not a JSON object (%v)")
	id := fmt.Sprintf("call_modeltest_%08x", hash(name, string(raw)))
	return ResponsesReply{Output: []Item{{Type: "function_call", CallID: id, Name: name, Arguments: string(raw)}}}
}

// ExecCommand returns a reply that calls Codex's exec_command tool with
// {"cmd": cmd}: Codex runs cmd with "/bin/bash -lc" in the working folder
// and reports a command_execution item. Codex 0.169.0 accepts this call
// whatever the model, even when the request offers the tool only inside
// its code-mode "exec" tool (see the package doc).
func ExecCommand(cmd string) ResponsesReply {
	return FunctionCall("exec_command", map[string]string{"cmd": cmd})
}

// CustomToolCall returns a reply of one custom_tool_call item calling the
// freeform tool name with input, such as Codex's code-mode tool "exec"
// with JavaScript. The call's id is derived from the name and input.
func CustomToolCall(name, input string) ResponsesReply {
	id := fmt.Sprintf("call_modeltest_%08x", hash(name, input))
	return ResponsesReply{Output: []Item{{Type: "custom_tool_call", CallID: id, Name: name, Arguments: input}}}
}

// ResponsesStall returns a reply that holds the response open, sending
// nothing, until the client goes away or the test ends.
func ResponsesStall() ResponsesReply {
	return ResponsesReply{Stall: true}
}

// ResponsesAPIError returns a reply that fails with the HTTP status and an
// OpenAI error body of type errType and message msg. Codex ends a turn at
// the first 400 whatever its retry settings; see the package doc for the
// other statuses.
func ResponsesAPIError(status int, errType, msg string) ResponsesReply {
	return ResponsesReply{Status: status, ErrorType: errType, ErrorMessage: msg}
}

// ResponsesReplyFunc picks the reply to a request to POST /v1/responses. A
// [ResponsesServer] calls it on the goroutine serving the request, so it
// must be safe for concurrent use.
type ResponsesReplyFunc func(*ResponsesRequest) ResponsesReply

// ResponsesAlways returns a [ResponsesReplyFunc] that answers every
// request with r.
func ResponsesAlways(r ResponsesReply) ResponsesReplyFunc {
	return always[*ResponsesRequest](r)
}

// ResponsesToolThenText returns a [ResponsesReplyFunc] that answers with
// call, and answers a request that reports a tool's output
// ([ResponsesRequest.ToolOutput]) with the text: one tool round, then the
// final answer.
func ResponsesToolThenText(call ResponsesReply, text string) ResponsesReplyFunc {
	return thenAfterTool((*ResponsesRequest).hasToolOutput, call, ResponsesText(text))
}

func (r *ResponsesRequest) hasToolOutput() bool {
	_, ok := r.ToolOutput()
	return ok
}

// ResponsesIfPrompt returns a [ResponsesReplyFunc] that asks then when
// the request's [ResponsesRequest.Prompt] contains marker, and asks
// otherwise when it does not.
func ResponsesIfPrompt(marker string, then, otherwise ResponsesReplyFunc) ResponsesReplyFunc {
	return ifPrompt(marker, then, otherwise)
}

// ResponsesServer is a stand-in for the OpenAI Responses API on a
// loopback address. It is safe for concurrent use: several CLI runs may
// share one.
type ResponsesServer struct {
	// URL is the server's address, http://127.0.0.1:PORT; the API is
	// under URL/v1, the base_url of a Codex model provider.
	URL string

	s *standIn[*ResponsesRequest]
}

// NewResponses starts a [ResponsesServer] that answers POST /v1/responses
// with the replies that reply picks (nil answers every request with the
// text "ok"), and closes it when the test ends. It also answers GET
// /v1/models (which Codex calls when it uses a ChatGPT login) with an
// empty list, and any other path with a 404 OpenAI error; it records every
// request.
func NewResponses(t testing.TB, reply ResponsesReplyFunc) *ResponsesServer {
	t.Helper()
	if reply == nil {
		reply = ResponsesAlways(ResponsesText("ok"))
	}
	s := startStandIn(t, api[*ResponsesRequest]{
		path:      "/v1/responses",
		requestID: "X-Request-Id",
		errorType: "invalid_request_error",
		notFound:  "invalid_request_error",
		record: func(hr *http.Request, body []byte) *ResponsesRequest {
			return &ResponsesRequest{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
		},
		parse: parseResponses,
		reply: func(req *ResponsesRequest) wireReply {
			rep := reply(req)
			resp := response(req, rep)
			return wireReply{status: rep.Status, errType: rep.ErrorType, errMessage: rep.ErrorMessage,
				stream: req.Stream, body: resp, events: responseEvents(resp),
				stall: rep.Stall, partial: len(rep.Output) > 0, held: 1} // response.completed
		},
		other: func(w http.ResponseWriter, hr *http.Request, _ []byte) bool {
			if hr.Method != http.MethodGet || hr.URL.Path != "/v1/models" {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
			return true
		},
		errorBody: func(typ, msg string) []byte {
			return mustMarshal(map[string]any{
				"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
			})
		},
	})
	return &ResponsesServer{URL: s.url, s: s}
}

// Requests returns the requests received so far, in the order they
// arrived.
func (s *ResponsesServer) Requests() []*ResponsesRequest {
	return s.s.all(false)
}

// ResponseRequests returns the requests to POST /v1/responses received so
// far, in the order they arrived.
func (s *ResponsesServer) ResponseRequests() []*ResponsesRequest {
	return s.s.all(true)
}

// wireContent is a part of a message as the API sends it.
type wireContent struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

// wireItem is an output item as the API sends it.
type wireItem struct {
	Type      string        `json:"type"`
	ID        string        `json:"id"`
	Status    string        `json:"status,omitempty"`
	Role      string        `json:"role,omitempty"`
	Content   []wireContent `json:"content,omitempty"`
	CallID    string        `json:"call_id,omitempty"`
	Name      string        `json:"name,omitempty"`
	Arguments *string       `json:"arguments,omitempty"`
	Input     *string       `json:"input,omitempty"`
}

type wireUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// wireResponse is a response object as the API sends it.
type wireResponse struct {
	ID     string     `json:"id"`
	Object string     `json:"object"`
	Status string     `json:"status"`
	Model  string     `json:"model"`
	Output []wireItem `json:"output"`
	Usage  *wireUsage `json:"usage,omitempty"`
}

func response(req *ResponsesRequest, rep ResponsesReply) wireResponse {
	id := fmt.Sprintf("resp_modeltest_%08x", hash(string(req.Body)))
	out := make([]wireItem, 0, len(rep.Output))
	for i, it := range rep.Output {
		wi := wireItem{Type: it.Type, ID: it.ID, Status: "completed"}
		if wi.ID == "" {
			wi.ID = fmt.Sprintf("item_modeltest_%08x_%d", hash(id), i)
		}
		switch it.Type {
		case "message":
			wi.Role = it.Role
			if wi.Role == "" {
				wi.Role = "assistant"
			}
			wi.Content = []wireContent{{Type: "output_text", Text: it.Text, Annotations: []any{}}}
		case "function_call":
			wi.CallID, wi.Name = it.CallID, it.Name
			args := it.Arguments
			if args == "" {
				args = "{}"
			}
			wi.Arguments = &args
		case "custom_tool_call":
			wi.CallID, wi.Name = it.CallID, it.Name
			input := it.Arguments
			wi.Input = &input
		}
		out = append(out, wi)
	}
	u := rep.Usage
	if u == (ResponsesUsage{}) {
		u = ResponsesUsage{InputTokens: 100, OutputTokens: 10}
	}
	usage := &wireUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	usage.InputTokensDetails.CachedTokens = u.CachedInputTokens
	usage.OutputTokensDetails.ReasoningTokens = u.ReasoningOutputTokens
	model := req.Model
	if model == "" {
		model = "gpt-modeltest"
	}
	return wireResponse{ID: id, Object: "response", Status: "completed", Model: model, Output: out, Usage: usage}
}

// responseEvents returns the server-sent events that stream resp:
// response.created, response.output_item.done for each item, then
// response.completed. Codex takes each item whole from
// response.output_item.done and ends the turn when the stream closes
// after response.completed.
func responseEvents(resp wireResponse) []map[string]any {
	created := resp
	created.Status, created.Output, created.Usage = "in_progress", []wireItem{}, nil
	evs := []map[string]any{{"type": "response.created", "sequence_number": 0, "response": created}}
	for i, it := range resp.Output {
		evs = append(evs, map[string]any{"type": "response.output_item.done", "sequence_number": len(evs), "output_index": i, "item": it})
	}
	return append(evs, map[string]any{"type": "response.completed", "sequence_number": len(evs), "response": resp})
}

// parseResponses fills in req's parsed fields from its body.
func parseResponses(req *ResponsesRequest) error {
	var body struct {
		Model        string            `json:"model"`
		Stream       bool              `json:"stream"`
		Instructions string            `json:"instructions"`
		Input        []json.RawMessage `json:"input"`
		Tools        []wireTool        `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("modeltest: request body: %w", err)
	}
	req.Model, req.Stream, req.Instructions = body.Model, body.Stream, body.Instructions
	req.Tools = toolNames("", body.Tools)
	for i, raw := range body.Input {
		var in struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			Output    json.RawMessage `json:"output"`
			Tools     []wireTool      `json:"tools"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			return fmt.Errorf("modeltest: input item %d: %w", i, err)
		}
		if in.Type == "" && in.Role != "" {
			in.Type = "message" // the API's shorthand for a message
		}
		it := Item{Type: in.Type, ID: in.ID, Role: in.Role, CallID: in.CallID, Name: in.Name, Arguments: in.Arguments}
		var err error
		switch in.Type {
		case "message":
			it.Text, err = contentText(in.Content)
		case "function_call_output", "custom_tool_call_output":
			it.Text, err = contentText(in.Output)
		case "custom_tool_call":
			it.Arguments = in.Input
		case "additional_tools":
			req.Tools = append(req.Tools, toolNames("", in.Tools)...)
		}
		if err != nil {
			return fmt.Errorf("modeltest: input item %d (%s): %w", i, in.Type, err)
		}
		req.Input = append(req.Input, it)
	}
	return nil
}

// wireTool is a tool, or a namespace of tools, offered in a request.
type wireTool struct {
	Type  string     `json:"type"`
	Name  string     `json:"name"`
	Tools []wireTool `json:"tools"`
}

func toolNames(prefix string, tools []wireTool) []string {
	var out []string
	for _, t := range tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		if t.Type == "namespace" {
			out = append(out, toolNames(prefix+name+".", t.Tools)...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}

// contentText returns the text of content given either as a string or as
// a list of parts, the parts' texts joined with newlines.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}
