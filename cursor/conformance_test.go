package cursor_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/cursor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/conformance"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cursortest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestConformance runs the drivers' conformance suite against the
// stand-in for Cursor's CLI (internal/testkit/cursortest), whose model is
// the stand-in Chat Completions API.
func TestConformance(t *testing.T) {
	bin := cursortest.Build(t)
	conformance.Run(t, conformance.Agent{
		Name:    "cursor",
		Listed:  "cursor",
		Kind:    "home",
		Folder:  "homes/cursor",
		NoUsage: true,
		Start: func(t *testing.T, s conformance.Script) (conformance.Model, conformance.Env) {
			m := chat{modeltest.NewChat(t, script(s))}
			vars, home := cursortest.Env(t, bin, m.ChatServer)
			skills := filepath.Join(home, ".cursor", "skills")
			return m, conformance.Env{CLI: filepath.Join(bin, "agent"), Vars: vars, UserSkills: skills, Unchanged: skills}
		},
		New: func(s conformance.Setup) driver.Driver {
			return cursor.Driver(cursor.Config{Env: s.Env, CacheRoot: s.CacheRoot, GracePeriod: s.Grace, Model: s.Model,
				Force: s.Values["force"] != ""})
		},
		Inject: func(dir string) conformance.Injection {
			pwned := filepath.Join(dir, "pwned")
			return conformance.Injection{Values: []string{"--standin-touch=" + pwned}, Markers: []string{pwned}}
		},
		Install: "curl https://cursor.com/install | bash",
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
// stand-in's read_skill tool, which it reports as Cursor's read tool.
func script(s conformance.Script) modeltest.ChatReplyFunc {
	switch {
	case s.Stall:
		return modeltest.ChatAlways(modeltest.ChatStall())
	case s.Fail != "":
		return modeltest.ChatAlways(modeltest.ChatAPIError(400, s.Fail))
	case s.Load != "":
		return modeltest.ChatToolThenText(modeltest.ChatToolUse("read_skill", map[string]string{"name": s.Load}), s.Text)
	}
	return modeltest.ChatAlways(modeltest.ChatText(s.Text))
}
