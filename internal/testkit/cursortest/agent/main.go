// Command agent is a stand-in for Cursor's CLI (`agent`), written from
// Cursor's documentation of its headless mode, for tests of package
// cursor on machines without the real CLI. It is not Cursor: its model is
// the Chat Completions API at $AGENTADAPTOR_CURSOR_STANDIN_API (a
// modeltest.ChatServer), and what the documentation leaves open is
// chosen here and said so. See package cursortest for what it does.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

// exit codes: 1 for every failure, as Cursor's documentation says of a
// failed run; 130 for an interrupted one.
const (
	exitFailed      = 1
	exitInterrupted = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	print                                    bool
	format, model, workspace, resume, prompt string
	force                                    bool
}

// parse reads the command line as commander.js would: "--name value" or
// "--name=value", flags, and operands (all of them after "--").
func parse(args []string) (options, error) {
	o := options{format: "text"}
	var operands []string
	values := map[string]*string{"--output-format": &o.format, "--model": &o.model, "-m": &o.model,
		"--workspace": &o.workspace, "--resume": &o.resume, "--api-key": new(string), "--mode": new(string)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch name {
		case "-p", "--print":
			o.print = true
			continue
		case "-f", "--force", "--yolo":
			o.force = true
			continue
		case "--standin-touch":
			// An option the stand-in acts on, standing for any option
			// of Cursor's that a value read as an option would reach:
			// it creates the file it names.
			if err := os.WriteFile(value, nil, 0o600); err != nil {
				return o, err
			}
			continue
		}
		p, ok := values[name]
		if !ok {
			return o, fmt.Errorf("unknown option '%s'", name)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return o, fmt.Errorf("option '%s' argument missing", name)
			}
			i++
			value = args[i]
		}
		*p = value
	}
	o.prompt = strings.Join(operands, " ")
	return o, nil
}

// skill is a skill the stand-in found.
type skill struct{ name, description, path string }

// chat is a stored chat: $HOME/.cursor/chats/ID.json.
type chat struct {
	Workspace string    `json:"workspace"`
	Messages  []message `json:"messages"`
}

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "Error: "+format+"\n", a...)
		return exitFailed
	}
	o, err := parse(args)
	if err != nil {
		return fail("%v", err)
	}
	if !o.print || o.format != "stream-json" {
		return fail("the stand-in speaks only -p --output-format stream-json")
	}
	if os.Getenv("CURSOR_API_KEY") == "" {
		return fail("authentication required: set CURSOR_API_KEY or run agent login")
	}
	api := os.Getenv("AGENTADAPTOR_CURSOR_STANDIN_API")
	if api == "" {
		return fail("AGENTADAPTOR_CURSOR_STANDIN_API is not set: the stand-in needs a Chat Completions API")
	}
	if o.prompt == "" {
		return fail("no prompt given")
	}
	ws := o.workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	home := os.Getenv("HOME")
	chats := filepath.Join(home, ".cursor", "chats")
	id, c := o.resume, chat{Workspace: ws}
	if id != "" {
		b, err := os.ReadFile(filepath.Join(chats, filepath.Base(id)+".json"))
		if err != nil || json.Unmarshal(b, &c) != nil {
			return fail("chat %s not found", id)
		}
	} else {
		id = uuid()
	}
	skills := find(ws, home)
	model := o.model
	if model == "" {
		model = "auto"
	}
	out := bufio.NewWriter(stdout)
	emit := func(v map[string]any) {
		v["session_id"] = id
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	mode := "default"
	if o.force {
		mode = "force"
	}
	names := []string{}
	var listing strings.Builder
	fmt.Fprintf(&listing, "Permission mode: %s.\n", mode)
	listing.WriteString("You are Cursor's agent (a stand-in). Skills available (read a skill's SKILL.md with read_skill before using it):\n")
	for _, s := range skills {
		names = append(names, s.name)
		fmt.Fprintf(&listing, "- %s: %s (%s)\n", s.name, s.description, s.path)
	}
	emit(map[string]any{"type": "system", "subtype": "init", "apiKeySource": "env", "cwd": ws, "model": model,
		"permissionMode": mode, "skills": names})
	emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": o.prompt}}}})
	c.Messages = append(c.Messages, message{Role: "user", Content: o.prompt})
	start := time.Now()
	for turn := 0; turn < 8; turn++ {
		msgs := append([]message{{Role: "system", Content: listing.String()}}, c.Messages...)
		reply, err := complete(ctx, api, model, msgs)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "Interrupted")
			return exitInterrupted
		}
		if err != nil {
			return fail("%v", err)
		}
		c.Messages = append(c.Messages, reply)
		if len(reply.ToolCalls) == 0 {
			emit(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": reply.Content}}}})
			if v := os.Getenv("AGENTADAPTOR_CURSOR_STANDIN_NO_RESULT"); v != "" {
				// A run that ends without a result line, as the
				// documentation says a failed stream may.
				var code int
				fmt.Sscan(v, &code)
				fmt.Fprintln(stderr, "Error: the stream ended early")
				return code
			}
			if err := save(chats, id, c); err != nil {
				return fail("save the chat: %v", err)
			}
			ms := time.Since(start).Milliseconds()
			emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": ms,
				"duration_api_ms": ms, "result": reply.Content, "request_id": uuid()})
			return 0
		}
		for _, tc := range reply.ToolCalls {
			c.Messages = append(c.Messages, readSkill(emit, skills, tc))
		}
	}
	return fail("too many turns")
}

// readSkill runs the read_skill tool as Cursor's read tool, reporting it
// as tool_call lines with a readToolCall, and returns its tool message.
func readSkill(emit func(map[string]any), skills []skill, tc toolCall) message {
	var in struct {
		Name  string `json:"name"`
		Skill string `json:"skill"`
	}
	json.Unmarshal([]byte(tc.Function.Arguments), &in)
	name := in.Name + in.Skill
	path := name
	for _, s := range skills {
		if s.name == name {
			path = filepath.Join(s.path, "SKILL.md")
		}
	}
	args := map[string]any{"path": path}
	emit(map[string]any{"type": "tool_call", "subtype": "started", "call_id": tc.ID, "tool_call": map[string]any{"readToolCall": map[string]any{"args": args}}})
	b, err := os.ReadFile(path)
	result := map[string]any{"success": map[string]any{"content": string(b), "isEmpty": len(b) == 0, "exceededLimit": false,
		"totalLines": bytes.Count(b, []byte("\n")), "totalChars": len(b)}}
	content := string(b)
	if err != nil || tc.Function.Name != "read_skill" {
		content = fmt.Sprintf("cannot read %s", path)
		result = map[string]any{"error": map[string]any{"errorMessage": content}}
	}
	emit(map[string]any{"type": "tool_call", "subtype": "completed", "call_id": tc.ID,
		"tool_call": map[string]any{"readToolCall": map[string]any{"args": args, "result": result}}})
	return message{Role: "tool", Content: content, ToolCallID: tc.ID}
}

// find lists the skills in the folders Cursor's documentation names, the
// workspace's before the user's; the first of a name wins (the
// documentation does not say which does).
func find(ws, home string) []skill {
	var out []skill
	seen := map[string]bool{}
	for _, d := range []string{
		filepath.Join(ws, ".agents", "skills"), filepath.Join(ws, ".cursor", "skills"),
		filepath.Join(ws, ".claude", "skills"), filepath.Join(ws, ".codex", "skills"),
		filepath.Join(home, ".agents", "skills"), filepath.Join(home, ".cursor", "skills"),
		filepath.Join(home, ".claude", "skills"), filepath.Join(home, ".codex", "skills"),
	} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			dir := filepath.Join(d, e.Name())
			b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
			if err != nil || seen[e.Name()] {
				continue
			}
			seen[e.Name()] = true
			s := skill{name: e.Name(), path: dir}
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "description:"); ok {
					s.description = strings.Trim(strings.TrimSpace(v), `"'`)
					break
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// complete asks the Chat Completions API for the next message.
func complete(ctx context.Context, api, model string, msgs []message) (message, error) {
	body, _ := json.Marshal(map[string]any{"model": model, "messages": msgs, "stream": false,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "read_skill", "description": "Read a skill's SKILL.md.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(api, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return message{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("CURSOR_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return message{}, err
	}
	defer resp.Body.Close()
	var r struct {
		Choices []struct {
			Message message `json:"message"`
		} `json:"choices"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return message{}, fmt.Errorf("model API: %s: %w", resp.Status, err)
	}
	if r.Error != nil || len(r.Choices) == 0 {
		msg := resp.Status
		if r.Error != nil {
			msg = r.Error.Message
		}
		return message{}, errors.New("model API: " + msg)
	}
	return r.Choices[0].Message, nil
}

// save stores the chat for --resume.
func save(dir, id string, c chat) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(c)
	return os.WriteFile(filepath.Join(dir, id+".json"), b, 0o600)
}

// uuid returns a random UUID, the form of the chat ids in Cursor's
// documented examples.
func uuid() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
