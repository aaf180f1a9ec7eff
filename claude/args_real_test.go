package claude_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/clitest"
	"github.com/agentadaptor/agentadaptor/internal/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"

	adaptor "github.com/agentadaptor/agentadaptor"
)

// injection holds values that Claude Code would act on if it read them
// as options: settings whose apiKeyHelper creates a file (Claude Code
// runs it before anything else), and a debug log written to a file. Its
// markers are the files that must never appear.
type injection struct {
	settings, debugFile string
	markers             []string
}

func newInjection(t *testing.T) injection {
	dir := t.TempDir()
	pwned, debug := filepath.Join(dir, "pwned"), filepath.Join(dir, "debug.log")
	return injection{fmt.Sprintf(`--settings={"apiKeyHelper":"touch %s; echo k"}`, pwned), "--debug-file=" + debug, []string{pwned, debug}}
}

// TestRealValuesAreNeverOptions gives every field the driver puts on the
// command line a value that starts like an option, with the real Claude
// Code: each is refused before the start or taken literally, and none
// acts as an option.
func TestRealValuesAreNeverOptions(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*testing.T, *claude.Config, injection)
		opts  func(injection) []adaptor.CallOption
		check func(*testing.T, *rig, injection, error)
	}{
		{
			name: "session id",
			opts: func(in injection) []adaptor.CallOption { return []adaptor.CallOption{adaptor.WithResume(in.settings)} },
			check: func(t *testing.T, r *rig, in injection, err error) {
				if !errors.Is(err, driver.ErrInvalidSessionID) || !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), "UUID") {
					t.Errorf("run = %v, want ErrInvalidSessionID and ErrResumeRejected saying an id is a UUID", err)
				}
				if n := len(r.server.Requests()); n != 0 {
					t.Errorf("the refused run sent %d requests", n)
				}
			},
		},
		{
			name:  "model",
			setup: func(_ *testing.T, c *claude.Config, in injection) { c.Model = in.settings },
			check: func(t *testing.T, r *rig, in injection, err error) {
				reqs := r.server.MessageRequests()
				if err != nil || len(reqs) == 0 || reqs[0].Model != in.settings {
					t.Errorf("run = %v; want it to ask the model named %q", err, in.settings)
				}
			},
		},
		{
			name:  "permission mode",
			setup: func(_ *testing.T, c *claude.Config, in injection) { c.PermissionMode = in.debugFile },
			check: func(t *testing.T, r *rig, in injection, err error) {
				var pe *driver.ProcessError
				if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, in.debugFile) {
					t.Errorf("run = %v, want Claude Code to refuse the permission mode %q", err, in.debugFile)
				}
			},
		},
		{
			name:  "appended system prompt",
			setup: func(_ *testing.T, c *claude.Config, in injection) { c.AppendSystemPrompt = in.debugFile },
			check: func(t *testing.T, r *rig, in injection, err error) {
				reqs := r.server.MessageRequests()
				if err != nil || len(reqs) == 0 || !strings.Contains(seen(reqs[0]), in.debugFile) {
					t.Errorf("run = %v; want the model shown the system prompt %q", err, in.debugFile)
				}
			},
		},
		{
			// A cache root that starts with "-" (relative to this folder):
			// the mount is passed whole and its skill loads.
			name: "mount",
			setup: func(t *testing.T, c *claude.Config, _ injection) {
				dir := t.TempDir()
				t.Chdir(dir)
				c.CacheRoot = "--settings=x"
				if err := os.Mkdir(filepath.Join(dir, c.CacheRoot), 0o700); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cachetest.Writable(filepath.Join(dir, c.CacheRoot)) })
			},
			check: func(t *testing.T, r *rig, in injection, err error) {
				reqs := r.server.MessageRequests()
				if err != nil || len(reqs) == 0 || !strings.Contains(seen(reqs[0]), "MOUNT-MARK") {
					t.Errorf("run = %v; want the mounted skill shown to the model", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInjection(t)
			r := newRig(t, modeltest.Always(modeltest.Text("ok")))
			c := r.config()
			if tt.setup != nil {
				tt.setup(t, &c, in)
			}
			var opts []adaptor.CallOption
			if tt.opts != nil {
				opts = tt.opts(in)
			}
			agent := r.agent(t, c, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews MOUNT-MARK.", "R"))))
			_, err := agent.Run(clitest.RunCtx(t), "x", opts...)
			tt.check(t, r, in, err)
			for _, m := range in.markers {
				if _, err := os.Lstat(m); err == nil {
					t.Errorf("%s exists: a value was read as an option", m)
				}
			}
			if left := r.processes(); len(left) > 0 {
				t.Errorf("processes left after the run: %v", left)
			}
		})
	}
}

// TestRealFlagsWithValues runs the real Claude Code with every flag that
// takes a value, each given as --name=value: it reads them all.
func TestRealFlagsWithValues(t *testing.T) {
	r := newRig(t, modeltest.ToolThenText(modeltest.SkillCall("review"), "done"))
	c := r.config()
	c.Model, c.PermissionMode, c.AppendSystemPrompt, c.MaxTurns = "claude-test-model", "plan", "APPENDED-MARK", 1
	agent := r.agent(t, c, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	var init *driver.InitEvent
	_, err := agent.Run(clitest.RunCtx(t), "x", adaptor.WithEvents(func(ev driver.Event) {
		if e, ok := ev.(*driver.InitEvent); ok {
			init = e
		}
	}))
	// One turn is allowed: the Skill call uses it, and the run ends there.
	var ae *driver.AgentError
	if !errors.As(err, &ae) || ae.Subtype != "error_max_turns" {
		t.Errorf("run with --max-turns=1 = %v, want an error_max_turns result", err)
	}
	reqs := r.server.MessageRequests()
	if len(reqs) == 0 || reqs[0].Model != "claude-test-model" || !strings.Contains(seen(reqs[0]), "APPENDED-MARK") {
		t.Fatalf("requests %d; want the model and the appended prompt", len(reqs))
	}
	if init == nil || !strings.Contains(string(init.Raw), `"permissionMode":"plan"`) {
		t.Errorf("init event = %+v, want permission mode plan", init)
	}
}

// TestRealThreadWithABadStoredID stores, for a thread, a session id that
// Claude Code would read as an option: the id never reaches it, and the
// thread starts a new session, as for any rejected resume.
func TestRealThreadWithABadStoredID(t *testing.T) {
	in := newInjection(t)
	r := newRig(t, modeltest.Always(modeltest.Text("ok")))
	store := &adaptor.MemoryThreadStore{}
	var restarted *adaptor.ThreadRestartedEvent
	agent := r.agent(t, r.config(), adaptor.WithThreadStore(store), adaptor.WithEvents(func(ev driver.Event) {
		if e, ok := ev.(*adaptor.ThreadRestartedEvent); ok {
			restarted = e
		}
	}))
	th := agent.Thread("t")
	if _, err := th.Run(clitest.RunCtx(t), "first"); err != nil {
		t.Fatal(err)
	}
	st, err := store.Load(t.Context(), "t")
	if err != nil || st == nil {
		t.Fatalf("Load = %v, %v", st, err)
	}
	st.SessionID = in.settings
	store.Save(t.Context(), "t", st)
	res, err := th.Run(clitest.RunCtx(t), "second")
	if err != nil || res.SessionID == in.settings {
		t.Fatalf("run with a bad stored id = %v, %v; want a new session", res, err)
	}
	if restarted == nil || restarted.OldSession != in.settings || !strings.Contains(restarted.Reason, "invalid session id") {
		t.Errorf("restart event = %+v, want one for the bad id", restarted)
	}
	// ResumeOnly returns the error instead.
	store.Save(t.Context(), "t", st)
	if _, err := agent.Thread("t", adaptor.ResumeOnly()).Run(clitest.RunCtx(t), "third"); !errors.Is(err, driver.ErrInvalidSessionID) {
		t.Errorf("ResumeOnly run with a bad stored id = %v, want ErrInvalidSessionID", err)
	}
	for _, m := range in.markers {
		if _, err := os.Lstat(m); err == nil {
			t.Errorf("%s exists: the stored id was read as an option", m)
		}
	}
}
