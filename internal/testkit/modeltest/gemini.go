package modeltest

// The package also provides a stand-in for the Gemini API, for tests that
// drive the real Gemini CLI offline.
//
// A [GeminiServer] records every request it is sent and answers each POST
// /v1beta/models/MODEL:streamGenerateContent (server-sent events, "data:"
// lines only) and POST /v1beta/models/MODEL:generateContent (one JSON
// object) with the [GeminiReply] that the test's [GeminiReplyFunc] picks.
// A request of the model router (no -m: a generateContent call whose
// generationConfig asks for application/json with a complexity_score) is
// answered by the server itself with a complexity score of 1, which routes
// the turn to the CLI's flash model, and never reaches the reply function.
// [GeminiCLI] finds the pinned CLI and [GeminiServer.GeminiEnv] gives it a
// hermetic environment.
//
// What Gemini CLI 0.61.0 does against it (see TestGemini):
//
//  1. With GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and a settings.json in
//     HOME/.gemini selecting "gemini-api-key", "gemini -p '' -o
//     stream-json --skip-trust" answers a prompt on stdin from the
//     stand-in alone.
//  2. Without -m the first call is the router's; the turn then streams.
//  3. A functionCall part runs the tool and the next request ends with a
//     user content holding its functionResponse.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GeminiCLI returns the path of the Gemini CLI installed by
// .ci/install-agent-clis, found as [ClaudeCLI] finds Claude Code:
// $AGENTADAPTOR_CLIS/node_modules/.bin/gemini, or
// .agent-clis/node_modules/.bin/gemini at the top of the module. When it
// is missing the test is skipped, or fails if AGENTADAPTOR_REQUIRE_CLIS=1.
func GeminiCLI(t testing.TB) string {
	t.Helper()
	return cli(t, "gemini")
}

// GeminiRequest is one request the [GeminiServer] was sent. The parsed
// fields are set for the generate endpoints and left empty otherwise.
type GeminiRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte

	// Model is the model named in the path, and Stream reports whether the
	// request was to streamGenerateContent.
	Model  string
	Stream bool
	// Router reports whether the request is the model router's.
	Router bool
	// System is the text of the request's systemInstruction.
	System string
	// Contents is the conversation so far, oldest first.
	Contents []GeminiContent
	// Tools are the names of the function declarations offered, in order.
	Tools []string
}

// GeminiContent is one content of a [GeminiRequest]'s conversation.
type GeminiContent struct {
	Role  string       `json:"role"`
	Parts []GeminiPart `json:"parts"`
}

// GeminiPart is one part of a [GeminiContent]: text, a function call, or
// a function's response.
type GeminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     *GeminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *GeminiResponse `json:"functionResponse,omitempty"`
}

// GeminiCall is a function call, in a reply or in the conversation.
type GeminiCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// GeminiResponse is a function's response as the CLI sends it back.
type GeminiResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// Prompt returns the text of the last user content that holds text.
func (r *GeminiRequest) Prompt() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role != "user" {
			continue
		}
		var b strings.Builder
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
		if b.Len() > 0 {
			return b.String()
		}
	}
	return ""
}

// Skills returns the names of the skills listed in the request's system
// instruction, in the order listed: Gemini CLI 0.61.0 lists each as
// <skill><name>N</name>... inside <available_skills>.
func (r *GeminiRequest) Skills() []string {
	block, _, _ := strings.Cut(r.System, "</available_skills>")
	_, block, ok := strings.Cut(block, "<available_skills>")
	if !ok {
		return nil
	}
	var names []string
	for {
		var name string
		_, rest, ok := strings.Cut(block, "<name>")
		if !ok {
			return names
		}
		name, block, ok = strings.Cut(rest, "</name>")
		if !ok {
			return names
		}
		names = append(names, strings.TrimSpace(name))
	}
}

// FunctionResponse returns the first function response of the request's
// last content, and whether there is one.
func (r *GeminiRequest) FunctionResponse() (GeminiResponse, bool) {
	if len(r.Contents) == 0 {
		return GeminiResponse{}, false
	}
	for _, p := range r.Contents[len(r.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			return *p.FunctionResponse, true
		}
	}
	return GeminiResponse{}, false
}

// GeminiReply is how the [GeminiServer] answers one generate request.
// Build one with [GeminiText], [GeminiFunctionCall], [GeminiStall] or
// [GeminiAPIError].
type GeminiReply struct {
	// Parts are the model content's parts.
	Parts []GeminiPart
	// Status, when it is neither 0 nor 200, makes the reply an API error
	// with this HTTP status and the body {"error":{"code":Status,
	// "message":ErrorMessage,"status":"..."}}.
	Status       int
	ErrorMessage string
	// Stall holds the response open, sending nothing, until the client
	// goes away or the test ends.
	Stall bool
}

// GeminiText returns a reply of one text part.
func GeminiText(text string) GeminiReply {
	return GeminiReply{Parts: []GeminiPart{{Text: text}}}
}

// GeminiFunctionCall returns a reply of one functionCall part calling the
// tool name with args, which must marshal to a JSON object.
func GeminiFunctionCall(name string, args any) GeminiReply {
	var m map[string]any
	if err := json.Unmarshal(objectJSON(args, "function arguments %v are not a JSON object (%v)"), &m); err != nil {
		panic(err)
	}
	return GeminiReply{Parts: []GeminiPart{{FunctionCall: &GeminiCall{Name: name, Args: m}}}}
}

// GeminiSkillCall returns a reply that calls Gemini CLI's activate_skill
// tool with the skill's name.
func GeminiSkillCall(name string) GeminiReply {
	return GeminiFunctionCall("activate_skill", map[string]string{"name": name})
}

// GeminiStall returns a reply that holds the response open.
func GeminiStall() GeminiReply { return GeminiReply{Stall: true} }

// GeminiAPIError returns a reply that fails with the HTTP status and the
// message. Gemini CLI retries 429 and 5xx (see the reference facts); a
// 400 ends the run with the exit code 144.
func GeminiAPIError(status int, msg string) GeminiReply {
	return GeminiReply{Status: status, ErrorMessage: msg}
}

// GeminiReplyFunc picks the reply to a generate request. It is called on
// the goroutine serving the request, so it must be safe for concurrent
// use.
type GeminiReplyFunc func(*GeminiRequest) GeminiReply

// GeminiAlways returns a [GeminiReplyFunc] that answers every request
// with r.
func GeminiAlways(r GeminiReply) GeminiReplyFunc {
	return func(*GeminiRequest) GeminiReply { return r }
}

// GeminiToolThenText returns a [GeminiReplyFunc] that answers with call,
// and a request whose last content holds a function response with the
// text: one tool round, then the final answer.
func GeminiToolThenText(call GeminiReply, text string) GeminiReplyFunc {
	return func(r *GeminiRequest) GeminiReply {
		if _, ok := r.FunctionResponse(); ok {
			return GeminiText(text)
		}
		return call
	}
}

// GeminiIfPrompt returns a [GeminiReplyFunc] that asks then when the
// request's [GeminiRequest.Prompt] contains marker, and otherwise when it
// does not.
func GeminiIfPrompt(marker string, then, otherwise GeminiReplyFunc) GeminiReplyFunc {
	return func(r *GeminiRequest) GeminiReply {
		if strings.Contains(r.Prompt(), marker) {
			return then(r)
		}
		return otherwise(r)
	}
}

// GeminiServer is a stand-in for the Gemini API on a loopback address. It
// is safe for concurrent use: several CLI runs may share one.
type GeminiServer struct {
	// URL is the server's address, http://127.0.0.1:PORT, the value of
	// GOOGLE_GEMINI_BASE_URL.
	URL string

	reply GeminiReplyFunc
	loopback[*GeminiRequest]
}

// NewGemini starts a [GeminiServer] that answers the generate endpoints
// with the replies that reply picks (nil answers every request with the
// text "ok") and any other path with a 404, and closes it when the test
// ends.
func NewGemini(t testing.TB, reply GeminiReplyFunc) *GeminiServer {
	t.Helper()
	if reply == nil {
		reply = GeminiAlways(GeminiText("ok"))
	}
	s := &GeminiServer{reply: reply}
	s.start(t, s.serve)
	s.URL = s.url
	return s
}

// Requests returns the requests received so far, in the order they
// arrived.
func (s *GeminiServer) Requests() []*GeminiRequest {
	return s.recorded()
}

// TurnRequests returns the generate requests received so far that are not
// the router's, in the order they arrived.
func (s *GeminiServer) TurnRequests() []*GeminiRequest {
	var out []*GeminiRequest
	for _, r := range s.Requests() {
		if r.Model != "" && !r.Router {
			out = append(out, r)
		}
	}
	return out
}

// GeminiSettings is the settings.json that [GeminiServer.GeminiEnv]
// writes: the API-key auth (without it the base URL makes the auth type
// "gateway", which a headless run refuses with exit 41) and no usage
// statistics (which would look up play.googleapis.com).
const GeminiSettings = `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}
`

// GeminiEnv returns an environment for running the Gemini CLI against s,
// hermetic and quiet. It holds only:
//   - PATH, from the test's environment;
//   - HOME, a fresh folder under t.TempDir(), returned as home, holding
//     .gemini/settings.json with [GeminiSettings];
//   - TMPDIR, another fresh folder (the CLI writes error reports there);
//   - GOOGLE_GEMINI_BASE_URL, s.URL, and GEMINI_API_KEY, a dummy key;
//   - GEMINI_CLI_NO_RELAUNCH=true, so that the CLI is one process.
//
// Append to env to add or override a variable: with os/exec the last value
// wins.
func (s *GeminiServer) GeminiEnv(t testing.TB) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(GeminiSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + t.TempDir(),
		"GOOGLE_GEMINI_BASE_URL=" + s.URL,
		"GEMINI_API_KEY=modeltest",
		"GEMINI_CLI_NO_RELAUNCH=true",
	}, home
}

type geminiWire struct {
	Contents          []GeminiContent `json:"contents"`
	SystemInstruction *GeminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

func (s *GeminiServer) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	req := &GeminiRequest{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
	model, method, ok := strings.Cut(strings.TrimPrefix(hr.URL.Path, "/v1beta/models/"), ":")
	known := ok && hr.Method == http.MethodPost && strings.HasPrefix(hr.URL.Path, "/v1beta/models/") &&
		(method == "generateContent" || method == "streamGenerateContent")
	var parseErr error
	if known {
		req.Model, req.Stream = model, method == "streamGenerateContent"
		var wire geminiWire
		if parseErr = json.Unmarshal(body, &wire); parseErr == nil {
			req.Contents = wire.Contents
			if wire.SystemInstruction != nil {
				for _, p := range wire.SystemInstruction.Parts {
					req.System += p.Text
				}
			}
			for _, tl := range wire.Tools {
				for _, fd := range tl.FunctionDeclarations {
					req.Tools = append(req.Tools, fd.Name)
				}
			}
			req.Router = !req.Stream && wire.GenerationConfig.ResponseMimeType == "application/json" &&
				strings.Contains(string(wire.GenerationConfig.ResponseJSONSchema), "complexity_score")
		}
	}
	s.record(req)
	switch {
	case !known:
		geminiFail(w, http.StatusNotFound, "modeltest: no endpoint "+hr.Method+" "+hr.URL.Path)
		return
	case parseErr != nil:
		geminiFail(w, http.StatusBadRequest, "modeltest: "+parseErr.Error())
		return
	}
	rep := GeminiText(`{"complexity_reasoning":"modeltest","complexity_score":1}`)
	if !req.Router {
		rep = s.reply(req)
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		geminiFail(w, rep.Status, rep.ErrorMessage)
		return
	}
	if rep.Stall {
		s.stall(hr)
		return
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": rep.Parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  req.Model,
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(mustMarshal(resp))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\n\n", mustMarshal(resp))
}

func geminiFail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(mustMarshal(map[string]any{"error": map[string]any{
		"code": status, "message": msg, "status": http.StatusText(status),
	}}))
}
