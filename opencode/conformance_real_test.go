package opencode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/opencode"
)

// TestRealConformance runs the drivers' conformance suite with the real
// OpenCode against the stand-in Chat Completions API.
func TestRealConformance(t *testing.T) {
	conformance.Run(t, conformance.Agent{
		Name:   "opencode",
		Listed: "opencode",
		Kind:   "mount",
		Folder: "mounts/opencode",
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			cli := modeltest.OpenCodeCLI(t)
			m := chat{modeltest.NewChat(t, script(s))}
			vars, home := m.OpenCodeEnv(t)
			skills := filepath.Join(home, ".config", "opencode", "skills")
			if err := os.MkdirAll(skills, 0o755); err != nil {
				t.Fatal(err)
			}
			return m, conformance.Env{CLI: cli, Vars: vars, UserSkills: skills, Unchanged: skills}
		},
		New: func(s conformance.Setup) driver.Driver {
			env := s.Env
			var model string
			if s.Model != "" {
				// A model of the stand-in's provider, declared for the
				// run: OpenCode asks only for models its config knows.
				b, _ := json.Marshal(map[string]any{"provider": map[string]any{"modeltest": map[string]any{
					"models": map[string]any{s.Model: map[string]any{"name": "x", "tool_call": true}}}}})
				env = append(append([]string(nil), env...), "OPENCODE_CONFIG_CONTENT="+string(b))
				model = "modeltest/" + s.Model
			}
			return opencode.Driver(opencode.Config{
				Command: "opencode", Env: env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: model,
				Agent: s.Values["agent"], Title: s.Values["title"],
			})
		},
		// A folder to run in and a file to attach: read as options they
		// would move the run or send the file's content to the model.
		Inject: func(dir string) conformance.Injection {
			secret := filepath.Join(dir, "secret.txt")
			os.WriteFile(secret, []byte("SECRET-FILE-MARK"), 0o600)
			return conformance.Injection{
				Values: []string{"--dir=" + filepath.Join(dir, "elsewhere"), "--file=" + secret},
			}
		},
		Values: []conformance.Value{
			{
				Name: "agent",
				Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
					s.Values["agent"] = in.Values[1]
				},
				Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
					// OpenCode 1.18.33 runs its default agent in place of
					// one it does not have.
					if err != nil {
						t.Errorf("run with the agent %q = %v, want it taken as an agent's name", in.Values[1], err)
					}
					for _, turn := range m.Turns() {
						if strings.Contains(turn.Shown, "SECRET-FILE-MARK") {
							t.Errorf("the model was sent the file: the agent's name was read as --file")
						}
					}
				},
			},
			{
				Name: "title",
				Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
					s.Values["title"] = in.Values[1]
				},
				Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
					if err != nil {
						t.Errorf("run with the title %q = %v, want it taken as a title", in.Values[1], err)
					}
					for _, turn := range m.Turns() {
						if strings.Contains(turn.Shown, "SECRET-FILE-MARK") {
							t.Errorf("the model was sent the file: the title was read as --file")
						}
					}
				},
			},
		},
		Install:        "npm install",
		SessionForm:    `"ses_"`,
		UnknownSession: "ses_0123456789abcdefABCDEFGHIJ",
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

// script answers as the suite's script says: a skill is loaded with
// OpenCode's skill tool, {"name": NAME}.
func script(s conformance.Script) modeltest.ChatReplyFunc {
	switch {
	case s.Stall:
		return modeltest.ChatAlways(modeltest.ChatStall())
	case s.Fail != "":
		return modeltest.ChatAlways(modeltest.ChatAPIError(400, s.Fail))
	case s.Load != "":
		return modeltest.ChatToolThenText(modeltest.ChatToolUse("skill", map[string]string{"name": s.Load}), s.Text)
	}
	return modeltest.ChatAlways(modeltest.ChatText(s.Text))
}
