package qwen_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// TestRealConformance runs the drivers' conformance suite with the real
// Qwen Code against the stand-in Chat Completions API.
func TestRealConformance(t *testing.T) {
	conformance.Run(t, conformance.Agent{
		Name:   "qwen",
		Listed: "qwen-code",
		Kind:   "mount",
		Folder: "mounts/qwen",
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			cli := modeltest.QwenCLI(t)
			m := chat{modeltest.NewChat(t, script(s))}
			vars, home := m.QwenEnv(t)
			// Qwen Code itself creates the user's skills folder when it
			// starts watching skill folders (on a skill call, among
			// others): the user's folder is there, as after any earlier
			// run of Qwen Code.
			skills := filepath.Join(home, ".qwen", "skills")
			if err := os.MkdirAll(skills, 0o755); err != nil {
				t.Fatal(err)
			}
			return m, conformance.Env{CLI: cli, Vars: vars, UserSkills: skills, Unchanged: skills}
		},
		New: func(s conformance.Setup) driver.Driver {
			return qwen.Driver(qwen.Config{
				Command: "qwen", Env: s.Env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: s.Model,
				ApprovalMode: s.Values["approval mode"], AppendSystemPrompt: s.Values["appended system prompt"],
			})
		},
		// An MCP server configuration whose server is a command that
		// creates a file (Qwen Code starts it before the first turn), and
		// a file for a copy of the events.
		Inject: func(dir string) conformance.Injection {
			pwned, events := filepath.Join(dir, "pwned"), filepath.Join(dir, "events.jsonl")
			return conformance.Injection{
				Values:  []string{fmt.Sprintf(`--mcp-config={"mcpServers":{"x":{"command":"touch","args":[%q]}}}`, pwned), "--json-file=" + events},
				Markers: []string{pwned, events},
			}
		},
		Values: []conformance.Value{
			{
				Name: "approval mode",
				Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
					s.Values["approval mode"] = in.Values[1]
				},
				Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
					var pe *driver.ProcessError
					if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, in.Values[1]) {
						t.Errorf("run = %v, want Qwen Code to refuse the approval mode %q", err, in.Values[1])
					}
					if n := m.Requests(); n != 0 {
						t.Errorf("the refused run sent %d requests", n)
					}
				},
			},
			{
				Name: "appended system prompt",
				Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
					s.Values["appended system prompt"] = in.Values[1]
				},
				Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
					if turns := m.Turns(); err != nil || len(turns) == 0 || !strings.Contains(turns[0].Shown, in.Values[1]) {
						t.Errorf("run = %v; want the model shown the system prompt %q", err, in.Values[1])
					}
				},
			},
		},
		Install: "npm install",
	})
}

// chat is the stand-in Chat Completions API as the suite sees it.
type chat struct{ *modeltest.ChatServer }

func (m chat) Requests() int { return len(m.ChatServer.Requests()) }

func (m chat) Turns() []conformance.Turn {
	var out []conformance.Turn
	for _, req := range m.MainRequests() {
		var shown []string
		for _, msg := range req.Messages {
			shown = append(shown, msg.Text)
		}
		out = append(out, conformance.Turn{Model: req.Model, Prompt: req.Prompt(), Shown: strings.Join(shown, "\n")})
	}
	return out
}

// script answers as the suite's script says: a skill is loaded with the
// skill tool.
func script(s conformance.Script) modeltest.ChatReplyFunc {
	switch {
	case s.Stall:
		return modeltest.ChatAlways(modeltest.ChatStall())
	case s.Fail != "":
		return modeltest.ChatAlways(modeltest.ChatAPIError(400, s.Fail))
	case s.Load != "":
		return modeltest.ChatToolThenText(modeltest.ChatSkillCall(s.Load), s.Text)
	}
	return modeltest.ChatAlways(modeltest.ChatText(s.Text))
}
