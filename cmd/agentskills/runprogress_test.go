package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestRunProgressLines checks each rule of the progress lines: the
// start, retries, errors and tool calls, each one escaped line.
func TestRunProgressLines(t *testing.T) {
	manySkills := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	tests := []struct {
		name string
		ev   driver.Event
		want []string
	}{
		{"start", &driver.InitEvent{SessionID: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", Version: "2.1.328", Skills: []string{"alpha", "beta"}}, []string{
			"agentskills run: claude-code 2.1.328 started, session 5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1; skills: alpha, beta\n",
			"agentskills run: to continue the session: agentskills run --agent claude-code --skill ./s --skill 'my skills' --resume 5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1 -- PROMPT\n"}},
		{"start without version or skills", &driver.InitEvent{SessionID: "s1"}, []string{"agentskills run: claude-code started, session s1\n"}},
		{"many skills", &driver.InitEvent{SessionID: "s1", Skills: manySkills}, []string{"skills: a, b, c, d, e, f, g, h and 2 more\n"}},
		{"retry", &driver.RetryEvent{Attempt: 2, MaxRetries: 10, DelayMS: 1234, Status: 401, Message: "Invalid API key"},
			[]string{"agentskills run: claude-code: the model API answered 401 (Invalid API key); retry 2 of 10 in 1.2s\n"}},
		{"retry without details", &driver.RetryEvent{Message: "Connection failed"},
			[]string{"agentskills run: claude-code: the model API call failed (Connection failed); retry\n"}},
		{"error", &driver.ErrorEvent{Message: "line one\nline two"}, []string{"agentskills run: claude-code reports: line one line two\n"}},
		{"tool call", &driver.ToolCallEvent{Name: "Bash", Input: json.RawMessage(`{"command":"ls -la\necho \u001b[2Kdone","description":"list"}`)},
			[]string{`agentskills run: tool Bash: ls -la echo \x1b[2Kdone` + "\n"}},
		{"tool call of another shape", &driver.ToolCallEvent{Name: "s/t", Input: json.RawMessage(`{"a":1}`)}, []string{"agentskills run: tool s/t: {\"a\":1}\n"}},
		{"tool call without input", &driver.ToolCallEvent{Name: "Todo", Input: json.RawMessage(`{}`)}, []string{"agentskills run: tool Todo\n"}},
		{"long tool input", &driver.ToolCallEvent{Name: "Read", Input: json.RawMessage(`{"file_path":"` + strings.Repeat("x", 200) + `"}`)},
			[]string{"tool Read: " + strings.Repeat("x", maxSummary-3) + "...\n"}},
		{"text is not shown", &driver.TextEvent{Text: "the answer"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			opts := &runOptions{io: newStreams(nil, nil, &stderr), agent: "claude-code", skills: []string{"./s", "my skills"}}
			p := newRunProgress(opts)
			p.event(tt.ev)
			got := stderr.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("event(%T) printed %q, want it to hold %q", tt.ev, got, w)
				}
			}
			if tt.want == nil && got != "" {
				t.Errorf("event(%T) printed %q, want nothing", tt.ev, got)
			}
			lines := min(len(tt.want), 1)
			if _, ok := tt.ev.(*driver.InitEvent); ok {
				lines = 2 // the start and how to resume
			}
			if n := strings.Count(got, "\n"); n != lines {
				t.Errorf("event(%T) printed %d lines: %q", tt.ev, n, got)
			}
			// --quiet and --json print none of it.
			for _, o := range []*runOptions{{quiet: true}, {json: true}} {
				var quiet bytes.Buffer
				o.io, o.agent = newStreams(nil, nil, &quiet), "claude-code"
				newRunProgress(o).event(tt.ev)
				if quiet.Len() > 0 {
					t.Errorf("with quiet %v, json %v: printed %q", o.quiet, o.json, quiet.String())
				}
			}
		})
	}
}

// TestRunFailureMessage checks the final error of a run the agent ended
// with an error: what failed, in a CLI user's words, without the agent's
// kind of result.
func TestRunFailureMessage(t *testing.T) {
	retries := func(n, status int) []driver.Event {
		var evs []driver.Event
		for i := range n {
			evs = append(evs, &driver.RetryEvent{Attempt: i + 1, MaxRetries: n, Status: status})
		}
		return evs
	}
	tests := []struct {
		name   string
		agent  string
		events []driver.Event
		err    *driver.AgentError
		want   string
	}{
		{"401 after retries", "claude-code", retries(10, 401), &driver.AgentError{Subtype: "success", Message: "Invalid API key"},
			"claude-code failed: Invalid API key (the model API answered 401 after 10 retries; check ANTHROPIC_API_KEY or your login)"},
		{"one retry without status", "codex", retries(1, 0), &driver.AgentError{Subtype: "turn.failed", Message: "stream disconnected"},
			"codex failed: stream disconnected (after 1 retry)"},
		{"401 at once", "qwen-code", nil, &driver.AgentError{Subtype: "error_during_execution", Message: "[API Error: 401 bad key]"},
			"qwen-code failed: [API Error: 401 bad key] (check OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL, or your Qwen Code settings)"},
		{"other error", "gemini-cli", nil, &driver.AgentError{Subtype: "error", Message: "quota\nexceeded"}, "gemini-cli failed: quota exceeded"},
		{"no message", "claude-code", nil, &driver.AgentError{Subtype: "error_max_turns"}, "claude-code failed: the agent reported an error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			p := newRunProgress(&runOptions{io: newStreams(nil, nil, &stderr), agent: tt.agent})
			for _, ev := range tt.events {
				p.event(ev)
			}
			err := p.failure(tt.err)
			if err.Error() != tt.want {
				t.Errorf("failure(%+v) = %q, want %q", tt.err, err, tt.want)
			}
			if strings.Contains(err.Error(), "("+tt.err.Subtype+")") {
				t.Errorf("failure(%+v) = %q names the agent's subtype", tt.err, err)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"./skills/review":     "./skills/review",
		"":                    "''",
		"my skills":           "'my skills'",
		"it's":                `'it'\''s'`,
		"$HOME;rm":            "'$HOME;rm'",
		"https://x.org/a.tgz": "https://x.org/a.tgz",
	}
	for in, want := range tests {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadRunPrompt checks the prompt of run: the arguments, or standard
// input for "-"; empty is bad usage.
func TestReadRunPrompt(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
		err   string
	}{
		{"arguments", []string{"review", "this"}, "ignored", "review this", ""},
		{"stdin", []string{"-"}, "from\nstdin\n", "from\nstdin\n", ""},
		{"dash among others", []string{"-", "x"}, "ignored", "- x", ""},
		{"empty", []string{""}, "", "", "the prompt is empty"},
		{"white space", []string{" ", "\t"}, "", "", "the prompt is empty"},
		{"empty stdin", []string{"-"}, "", "", "the prompt read from standard input is empty"},
		{"blank stdin", []string{"-"}, " \n\n", "", "the prompt read from standard input is empty"},
		{"stdin too long", []string{"-"}, strings.Repeat("x", maxStdinPrompt+1), "", "is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readRunPrompt(strings.NewReader(tt.stdin), tt.args)
			if tt.err != "" {
				var usage usageError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &usage) {
					t.Errorf("readRunPrompt(%q) = %q, %v; want a usage error holding %q", tt.args, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("readRunPrompt(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
			}
		})
	}
}

// TestRunHelpPointsAtProviders checks that run --help and its reference
// (its page in docs/cli) say what each agent takes to reach a model
// provider, where docs/agents.md says more, and how to give the prompt
// and silence the progress.
func TestRunHelpPointsAtProviders(t *testing.T) {
	help := strings.Join(strings.Fields(wholeHelp(t, "run")), " ")
	for _, want := range []string{"ANTHROPIC_API_KEY", "~/.codex/config.toml", "OPENAI_BASE_URL alone is refused", "GEMINI_API_KEY", "OPENAI_MODEL",
		`"Pointing an agent at a model provider" in docs/agents.md`, `"-" reads it from standard input`, "-q, --quiet"} {
		if !strings.Contains(help, want) {
			t.Errorf("run --help does not say %q", want)
		}
	}
}
