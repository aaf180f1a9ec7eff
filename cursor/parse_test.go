package cursor

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
)

// parseAll parses lines and returns the parser and the events it made.
func parseAll(lines ...[]byte) (*parser, []driver.Event) {
	var rec streamtest.Recorder
	p := &parser{emit: rec.Emit}
	for _, l := range lines {
		p.parse(l)
	}
	return p, rec.Events()
}

// TestDocumentedStreams parses the streams of testdata: documented.jsonl
// is the example of Cursor's output-format page, skill.jsonl a run that
// reads a skill's SKILL.md as the documentation's read tool does, and
// noresult.jsonl a stream that ends without its result line.
func TestDocumentedStreams(t *testing.T) {
	type want struct {
		kinds  []string
		text   string
		skills []driver.SkillEvent
	}
	streamtest.ForEachStream(t, map[string]want{
		"documented.jsonl": {
			kinds: []string{"init", "raw", "text", "tool_call", "tool_result", "text", "tool_call", "tool_result", "result"},
			text:  "I'll read the README.md fileI'll create a summary",
		},
		"skill.jsonl": {
			kinds:  []string{"init", "raw", "tool_call", "tool_result", "skill", "tool_call", "tool_result", "text", "result"},
			text:   "reviewed",
			skills: []driver.SkillEvent{{Name: "review", ToolCallID: "call_1", Path: "/home/u/.cursor/skills/review"}},
		},
		"noresult.jsonl": {kinds: []string{"init", "raw", "text"}},
	}, func(t *testing.T, w want, stream []byte) {
		p, evs := parseAll(bytes.Split(stream, []byte("\n"))...)
		got := streamtest.CheckStreamEvents(t, evs, nil, func(*driver.ErrorEvent) bool { return true })
		if diff := cmp.Diff(w.kinds, got); diff != "" {
			t.Errorf("kinds (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(w.skills, streamtest.Skills(evs)); diff != "" {
			t.Errorf("skill events (-want +got):\n%s", diff)
		}
		if p.init == nil || p.init.SessionID == "" {
			t.Errorf("init = %+v, want a session", p.init)
		}
		if w.text == "" {
			if p.result != nil {
				t.Errorf("result = %+v, want none", p.result)
			}
			return
		}
		if p.result == nil || p.result.Text != w.text || p.result.SessionID != p.init.SessionID || p.result.IsError || p.result.Usage != nil {
			t.Errorf("result = %+v, want %q in session %s without usage", p.result, w.text, p.init.SessionID)
		}
	})
}

func TestParseLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		kinds []string
		check func(t *testing.T, p *parser, evs []driver.Event)
	}{
		{
			name:  "init lists skills",
			lines: []string{`{"type":"system","subtype":"init","session_id":"s","skills":["a","b"]}`},
			kinds: []string{"init"},
			check: func(t *testing.T, p *parser, _ []driver.Event) {
				if diff := cmp.Diff([]string{"a", "b"}, p.init.Skills); diff != "" {
					t.Errorf("skills (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:  "a second init and an unknown line are raw",
			lines: []string{`{"type":"system","subtype":"init","session_id":"s"}`, `{"type":"system","subtype":"init","session_id":"t"}`, `{"type":"thinking"}`},
			kinds: []string{"init", "raw", "raw"},
		},
		{
			name:  "not JSON",
			lines: []string{`not json`, ``},
			kinds: []string{"error"},
		},
		{
			name:  "error result",
			lines: []string{`{"type":"system","subtype":"init","session_id":"s"}`, `{"type":"result","subtype":"error","is_error":true,"result":"quota"}`},
			kinds: []string{"init", "result"},
			check: func(t *testing.T, p *parser, _ []driver.Event) {
				if r := p.result; !r.IsError || r.Text != "quota" || r.SessionID != "s" {
					t.Errorf("result = %+v, want the error quota in session s", r)
				}
			},
		},
		{
			name:  "lines after the result",
			lines: []string{`{"type":"result","subtype":"success","result":"a"}`, `{"type":"result","subtype":"success","result":"b"}`, `{"type":"assistant","message":{"content":[{"type":"text","text":"late"}]}}`},
			kinds: []string{"result", "raw", "raw"},
			check: func(t *testing.T, p *parser, _ []driver.Event) {
				if p.result.Text != "a" {
					t.Errorf("result = %q, want the first", p.result.Text)
				}
			},
		},
		{
			name: "a tool call of odd shape",
			lines: []string{`{"type":"tool_call","subtype":"started","tool_call":{"a":{},"b":{}}}`, `{"type":"tool_call","subtype":"middle","tool_call":{"readToolCall":{}}}`,
				`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"failure":"denied"}}}}`},
			kinds: []string{"raw", "raw", "tool_result"},
			check: func(t *testing.T, _ *parser, evs []driver.Event) {
				if r := evs[2].(*driver.ToolResultEvent); !r.IsError || r.Content != "denied" || r.ToolCallID != "c" {
					t.Errorf("tool result = %+v, want the failure denied", r)
				}
			},
		},
		{
			name:  "a read of a SKILL.md outside a skills folder is no skill",
			lines: []string{`{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"docs/x/SKILL.md"},"result":{"success":{"content":"x"}}}}}`},
			kinds: []string{"tool_result"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines [][]byte
			for _, l := range tt.lines {
				lines = append(lines, []byte(l))
			}
			p, evs := parseAll(lines...)
			if diff := cmp.Diff(tt.kinds, streamtest.Kinds(evs)); diff != "" {
				t.Fatalf("kinds (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, p, evs)
			}
		})
	}
}

// TestOutcome checks rule 3 of "Checks": how a run without a result line
// ends, and the check of the init line's skills.
func TestOutcome(t *testing.T) {
	init := `{"type":"system","subtype":"init","session_id":"s1","skills":["mine"]}`
	result := `{"type":"result","subtype":"success","result":"ok","session_id":"s1"}`
	skills := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "review", RuntimeName: "review", Path: "/r"}}}
	tests := []struct {
		name   string
		lines  []string
		resume string
		skills driver.ResolvedSkills
		exit   process.Exit
		check  func(t *testing.T, res *driver.Result, err error)
	}{
		{
			name: "a session that failed", lines: []string{init}, exit: process.Exit{Code: 1, Stderr: "warming up\nError: quota exceeded\n"},
			check: func(t *testing.T, _ *driver.Result, err error) {
				var ae *driver.AgentError
				if !errors.As(err, &ae) || ae.Message != "Error: quota exceeded" || ae.Result.SessionID != "s1" {
					t.Errorf("outcome = %v, want an AgentError with the last stderr line and the session", err)
				}
			},
		},
		{
			name: "a resume refused", resume: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", exit: process.Exit{Code: 1, Stderr: "Error: chat not found"},
			check: func(t *testing.T, _ *driver.Result, err error) {
				if !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), "chat not found") {
					t.Errorf("outcome = %v, want ErrResumeRejected with the stderr", err)
				}
			},
		},
		{
			name: "exit 0 without a result", lines: []string{init},
			check: func(t *testing.T, _ *driver.Result, err error) {
				if !errors.Is(err, driver.ErrNoResult) {
					t.Errorf("outcome = %v, want ErrNoResult", err)
				}
			},
		},
		{
			name: "a failure before the session", exit: process.Exit{Code: 1, Stderr: "Error: authentication required"},
			check: func(t *testing.T, _ *driver.Result, err error) {
				var pe *driver.ProcessError
				if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, "authentication") {
					t.Errorf("outcome = %v, want a ProcessError with the stderr", err)
				}
			},
		},
		{
			name: "a mounted skill not listed", lines: []string{init, result}, skills: skills,
			check: func(t *testing.T, _ *driver.Result, err error) {
				var nm *driver.NotMountedError
				if !errors.As(err, &nm) || !cmp.Equal(nm.Missing, []string{"review"}) {
					t.Errorf("outcome = %v, want review not mounted", err)
				}
				// Cursor listed its skills: the error says what it listed,
				// not that it listed nothing.
				if nm != nil && nm.Reported == nil {
					t.Errorf("outcome = %v, want the skills Cursor reported", err)
				}
			},
		},
		{
			name: "success", lines: []string{init, result},
			check: func(t *testing.T, res *driver.Result, err error) {
				if err != nil || res.Text != "ok" || res.SessionID != "s1" || res.Usage != nil {
					t.Errorf("outcome = %+v, %v; want ok in s1 without usage", res, err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines [][]byte
			for _, l := range tt.lines {
				lines = append(lines, []byte(l))
			}
			p, _ := parseAll(lines...)
			res, err := outcome("/bin/agent", &driver.Request{Resume: tt.resume, Skills: tt.skills}, p, tt.exit, nil)
			tt.check(t, res, err)
		})
	}
}

func FuzzParse(f *testing.F) {
	streamtest.SeedStreams(f,
		`{"type":"tool_call","subtype":"completed","tool_call":{"readToolCall":{"args":null,"result":null}}}`,
		`{"type":"system","subtype":"init","skills":"x"}`,
		`{"type":"result","is_error":true}`,
		`{"type":"assistant","message":[]}`,
	)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := &parser{emit: streamtest.NoNilEvents(t)}
		p.parse(line)
		p.parse(line)
		outcome("/bin/agent", &driver.Request{Resume: "x"}, p, process.Exit{Code: 1, Stderr: string(line)}, nil)
	})
}
