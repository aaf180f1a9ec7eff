package claude_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealConformance runs the drivers' conformance suite with the real
// Claude Code against the stand-in Messages API.
func TestRealConformance(t *testing.T) {
	conformance.Run(t, conformance.Agent{
		Name:   "claude",
		Listed: "claude-code",
		Kind:   "mount",
		Folder: "mounts/claude",
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			cli := modeltest.ClaudeCLI(t)
			m := anthropic{modeltest.NewAnthropic(t, script(s))}
			vars, home := m.ClaudeEnv(t)
			skills := filepath.Join(home, ".claude", "skills")
			return m, conformance.Env{CLI: cli, Vars: vars, UserSkills: skills, Unchanged: skills}
		},
		New: func(s conformance.Setup) driver.Driver {
			return claude.Driver(claude.Config{
				Command: "claude", Env: s.Env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: s.Model,
				PermissionMode: s.Values["permission mode"], AppendSystemPrompt: s.Values["appended system prompt"],
			})
		},
		// Settings whose apiKeyHelper creates a file (Claude Code runs it
		// before anything else), and a debug log written to a file.
		Inject: func(dir string) conformance.Injection {
			pwned, debug := filepath.Join(dir, "pwned"), filepath.Join(dir, "debug.log")
			return conformance.Injection{
				Values:  []string{fmt.Sprintf(`--settings={"apiKeyHelper":"touch %s; echo k"}`, pwned), "--debug-file=" + debug},
				Markers: []string{pwned, debug},
			}
		},
		Values: []conformance.Value{
			{
				Name: "permission mode",
				Set: func(_ *testing.T, s *conformance.Setup, in conformance.Injection) {
					s.Values["permission mode"] = in.Values[1]
				},
				Check: func(t *testing.T, _ conformance.Model, in conformance.Injection, err error) {
					var pe *driver.ProcessError
					if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, in.Values[1]) {
						t.Errorf("run = %v, want Claude Code to refuse the permission mode %q", err, in.Values[1])
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

// anthropic is the stand-in Messages API as the suite sees it.
type anthropic struct{ *modeltest.Server }

func (m anthropic) Requests() int { return len(m.Server.Requests()) }

func (m anthropic) Turns() []conformance.Turn {
	var out []conformance.Turn
	for _, req := range m.MessageRequests() {
		out = append(out, conformance.Turn{Model: req.Model, Prompt: req.Prompt(), Shown: seen(req)})
	}
	return out
}

// script answers as the suite's script says: a skill is loaded with the
// Skill tool.
func script(s conformance.Script) modeltest.ReplyFunc {
	switch {
	case s.Stall:
		return modeltest.Always(modeltest.Stall())
	case s.Fail != "":
		return modeltest.Always(modeltest.APIError(403, "permission_error", s.Fail))
	case s.Load != "":
		return modeltest.ToolThenText(modeltest.SkillCall(s.Load), s.Text)
	}
	return modeltest.Always(modeltest.Text(s.Text))
}
