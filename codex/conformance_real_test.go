package codex_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealConformance runs the drivers' conformance suite with the real
// Codex against the stand-in Responses API. The user's Codex home is a
// folder of the test's, holding the stand-in's provider in config.toml:
// the driver must carry the user's settings into its managed home, and
// leave the user's home as it was.
func TestRealConformance(t *testing.T) {
	conformance.Run(t, conformance.Agent{
		Name:     "codex",
		Listed:   "codex",
		Kind:     "home",
		Folder:   "homes/codex",
		Sessions: 1,
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			cli := modeltest.CodexCLI(t)
			m := responses{modeltest.NewResponses(t, script(s))}
			vars, _, codexHome := m.CodexEnv(t)
			return m, conformance.Env{CLI: cli, Vars: vars, UserSkills: filepath.Join(codexHome, "skills"), Unchanged: codexHome}
		},
		New: func(s conformance.Setup) driver.Driver {
			c := codex.Config{Env: s.Env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: s.Model, Sandbox: s.Values["sandbox"]}
			if o := s.Values["override"]; o != "" {
				c.Overrides = []string{o}
			}
			return codex.Driver(c)
		},
		// As an option, the value would have Codex run a command that
		// creates a file after the turn (notify).
		Inject: func(dir string) conformance.Injection {
			marker := filepath.Join(dir, "pwned")
			return conformance.Injection{Values: []string{fmt.Sprintf(`--config=notify=["touch","%s"]`, marker)}, Markers: []string{marker}}
		},
		Values: []conformance.Value{
			{
				Name: "sandbox",
				Set:  func(_ *testing.T, s *conformance.Setup, in conformance.Injection) { s.Values["sandbox"] = in.Values[0] },
				Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
					var pe *driver.ProcessError
					if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, "invalid value") {
						t.Errorf("run = %v, want Codex to refuse the sandbox %q", err, in.Values[0])
					}
					if n := m.Requests(); n != 0 {
						t.Errorf("the refused run sent %d requests", n)
					}
				},
			},
			{
				Name: "override",
				Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
					s.Values["override"] = in.Values[0]
				},
				Check: func(t *testing.T, _ conformance.Model, _ conformance.Injection, err error) {
					// "--config=VALUE" is one override, a key "--config"
					// that Codex does not know, holding the rest.
					if err != nil && !errors.Is(err, driver.ErrProcessFailed) {
						t.Errorf("run = %v, want it to run or Codex to refuse the override", err)
					}
				},
			},
		},
		Install: "npm install",
	})
}

// responses is the stand-in Responses API as the suite sees it.
type responses struct{ *modeltest.ResponsesServer }

func (m responses) Requests() int { return len(m.ResponsesServer.Requests()) }

func (m responses) Turns() []conformance.Turn {
	var out []conformance.Turn
	for _, req := range m.ResponseRequests() {
		var shown []string
		for _, it := range req.Input {
			shown = append(shown, it.Text)
		}
		out = append(out, conformance.Turn{Model: req.Model, Prompt: req.Prompt(), Shown: strings.Join(shown, "\n")})
	}
	return out
}

// script answers as the suite's script says: a skill is loaded by reading
// the SKILL.md the request lists for it with exec_command.
func script(s conformance.Script) modeltest.ResponsesReplyFunc {
	switch {
	case s.Stall:
		return modeltest.ResponsesAlways(modeltest.ResponsesStall())
	case s.Fail != "":
		return modeltest.ResponsesAlways(modeltest.ResponsesAPIError(400, "invalid_request_error", s.Fail))
	case s.Load != "":
		return func(r *modeltest.ResponsesRequest) modeltest.ResponsesReply {
			if _, ok := r.ToolOutput(); ok {
				return modeltest.ResponsesText(s.Text)
			}
			skills, _ := r.Skills()
			for _, sk := range skills {
				if sk.Name == s.Load {
					return modeltest.ExecCommand("cat '" + sk.Path + "'")
				}
			}
			return modeltest.ResponsesText("no such skill")
		}
	}
	return modeltest.ResponsesAlways(modeltest.ResponsesText(s.Text))
}
