package copilot_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/copilot"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealConformance runs the drivers' conformance suite with the real
// Copilot CLI against the stand-in Chat Completions API.
func TestRealConformance(t *testing.T) {
	conformance.Run(t, conformance.Agent{
		Name:   "copilot",
		Listed: "github-copilot",
		Kind:   "mount",
		Folder: "mounts/copilot",
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			cli := modeltest.CopilotCLI(t)
			m := chat{modeltest.NewChat(t, script(s))}
			vars, home := m.CopilotEnv(t)
			skills := filepath.Join(home, ".copilot", "skills")
			if err := os.MkdirAll(skills, 0o755); err != nil {
				t.Fatal(err)
			}
			return m, conformance.Env{CLI: cli, Vars: vars, UserSkills: skills, Unchanged: skills}
		},
		New: func(s conformance.Setup) driver.Driver {
			c := copilot.Config{Command: "copilot", Env: s.Env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: s.Model}
			if v := s.Values["allowed tool"]; v != "" {
				c.AllowedTools = []string{v}
			}
			if v := s.Values["denied tool"]; v != "" {
				c.DeniedTools = []string{v}
			}
			return copilot.Driver(c)
		},
		// Options that write a file: a copy of the session as markdown,
		// and the usage statistics.
		Inject: func(dir string) conformance.Injection {
			shared, usage := filepath.Join(dir, "shared.md"), filepath.Join(dir, "usage.json")
			return conformance.Injection{
				Values:  []string{"--share=" + shared, "--usage-output-file=" + usage},
				Markers: []string{shared, usage},
			}
		},
		Values: []conformance.Value{
			literal("allowed tool", "--allow-tool"),
			literal("denied tool", "--deny-tool"),
		},
		Install: "npm install",
	})
}

// literal is the case of a tool list field (option is its flag): Copilot
// CLI reads the value as the rule it is given and refuses it, sending
// nothing to the model.
func literal(name, option string) conformance.Value {
	return conformance.Value{
		Name: name,
		Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
			s.Values[name] = in.Values[1]
		},
		Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
			var pe *driver.ProcessError
			if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, "Invalid "+option+" value") || !strings.Contains(pe.Stderr, in.Values[1]) {
				t.Errorf("run = %v, want Copilot CLI to refuse the %s rule %q", err, option, in.Values[1])
			}
			if n := m.Requests(); n != 0 {
				t.Errorf("the refused run sent %d requests", n)
			}
		},
	}
}

// chat is the stand-in Chat Completions API as the suite sees it.
type chat struct{ *modeltest.ChatServer }

func (m chat) Requests() int { return len(m.ChatServer.Requests()) }

func (m chat) Turns() []conformance.Turn {
	var out []conformance.Turn
	for _, req := range m.MainRequests() {
		var shown []string
		prompt := ""
		for _, msg := range req.Messages {
			shown = append(shown, msg.Text)
			if msg.Role == "user" && !strings.HasPrefix(msg.Text, "<skill-context") {
				prompt = msg.Text
			}
		}
		out = append(out, conformance.Turn{Model: req.Model, Prompt: prompt, Shown: strings.Join(shown, "\n")})
	}
	return out
}

// script answers as the suite's script says: a skill is loaded with the
// skill tool. Copilot CLI follows the skill tool's result with a user
// message holding the skill's body, so the text answers any request
// that holds a tool result.
func script(s conformance.Script) modeltest.ChatReplyFunc {
	switch {
	case s.Stall:
		return modeltest.ChatAlways(modeltest.ChatStall())
	case s.Fail != "":
		return modeltest.ChatAlways(modeltest.ChatAPIError(400, s.Fail))
	case s.Load != "":
		return func(r *modeltest.ChatRequest) modeltest.ChatReply {
			for _, m := range r.Messages {
				if m.Role == "tool" {
					return modeltest.ChatText(s.Text)
				}
			}
			return modeltest.ChatSkillCall(s.Load)
		}
	}
	return modeltest.ChatAlways(modeltest.ChatText(s.Text))
}
