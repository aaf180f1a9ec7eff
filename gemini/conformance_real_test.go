package gemini_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealConformance runs the drivers' conformance suite with the real
// Gemini CLI against the stand-in Gemini API. The user's home is a folder
// of the test's holding .gemini/settings.json; the driver must carry it
// into its overlay home and leave the user's .gemini as it was.
func TestRealConformance(t *testing.T) {
	conformance.Run(t, conformance.Agent{
		Name:     "gemini",
		Listed:   "gemini-cli",
		Kind:     "home",
		Folder:   "homes/gemini",
		Sessions: 1,
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			cli := modeltest.GeminiCLI(t)
			m := model{modeltest.NewGemini(t, script(s))}
			vars, home := m.GeminiEnv(t)
			return m, conformance.Env{CLI: cli, Vars: vars, UserSkills: filepath.Join(home, ".agents", "skills"), Unchanged: filepath.Join(home, ".gemini")}
		},
		New: func(s conformance.Setup) driver.Driver {
			return gemini.Driver(gemini.Config{Env: s.Env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: s.Model,
				ApprovalMode: s.Values["approval"]})
		},
		// As an option, the value would have Gemini CLI write its
		// telemetry to a file (--telemetry-outfile).
		Inject: func(dir string) conformance.Injection {
			marker := filepath.Join(dir, "pwned")
			return conformance.Injection{Values: []string{"--telemetry-outfile=" + marker}, Markers: []string{marker}}
		},
		Values: []conformance.Value{{
			Name: "approval",
			Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
				s.Values["approval"] = in.Values[0]
			},
			Check: func(t *testing.T, m conformance.Model, in conformance.Injection, err error) {
				if !errors.Is(err, driver.ErrProcessFailed) {
					t.Errorf("run = %v, want Gemini CLI to refuse the approval mode %q", err, in.Values[0])
				}
				if n := m.Requests(); n != 0 {
					t.Errorf("the refused run sent %d requests", n)
				}
			},
		}},
		Install: "npm install",
	})
}

// model is the stand-in Gemini API as the suite sees it.
type model struct{ *modeltest.GeminiServer }

func (m model) Requests() int { return len(m.GeminiServer.Requests()) }

func (m model) Turns() []conformance.Turn {
	var out []conformance.Turn
	for _, req := range m.TurnRequests() {
		shown := []string{req.System}
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				shown = append(shown, p.Text)
				if p.FunctionResponse != nil {
					if o, ok := p.FunctionResponse.Response["output"].(string); ok {
						shown = append(shown, o)
					}
				}
			}
		}
		out = append(out, conformance.Turn{Model: req.Model, Prompt: req.Prompt(), Shown: strings.Join(shown, "\n")})
	}
	return out
}

// script answers as the suite's script says: a skill is loaded with the
// activate_skill tool.
func script(s conformance.Script) modeltest.GeminiReplyFunc {
	switch {
	case s.Stall:
		return modeltest.GeminiAlways(modeltest.GeminiStall())
	case s.Fail != "":
		return modeltest.GeminiAlways(modeltest.GeminiAPIError(400, s.Fail))
	case s.Load != "":
		return modeltest.GeminiToolThenText(modeltest.GeminiSkillCall(s.Load), s.Text)
	}
	return modeltest.GeminiAlways(modeltest.GeminiText(s.Text))
}
