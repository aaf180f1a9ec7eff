package claude_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// These tests run the real Claude Code CLI (installed by
// .ci/install-agent-clis) against a stand-in model API on loopback.

// rig is one hermetic setup: a stand-in server, a HOME of its own, a
// workspace, and a cache root.
type rig struct {
	server    *modeltest.Server
	env       []string
	home      string
	workspace string
	cache     string
	marker    string // an environment value that tags this test's processes
}

func newRig(t *testing.T, reply modeltest.ReplyFunc) *rig {
	t.Helper()
	cli := modeltest.ClaudeCLI(t)
	s := modeltest.NewAnthropic(t, reply)
	env, home := s.ClaudeEnv(t)
	r := &rig{server: s, home: home, workspace: t.TempDir(), cache: cachetest.Root(t)}
	r.env, r.marker = clitest.TaggedEnv(env, cli)
	return r
}

func (r *rig) config() claude.Config {
	return claude.Config{Command: "claude", Env: r.env, CacheRoot: r.cache, GracePeriod: 2 * time.Second}
}

func (r *rig) agent(t *testing.T, c claude.Config, opts ...adaptor.Option) *adaptor.Agent {
	t.Helper()
	return clitest.NewAgent(claude.Driver(c), r.cache, r.workspace, opts...)
}

// processes returns the pids of living processes started for this rig.
func (r *rig) processes() []int { return modeltest.Processes(r.marker) }

// context returns the text of everything a request showed the model.
func seen(req *modeltest.Request) string {
	var b strings.Builder
	b.WriteString(req.System)
	for _, m := range req.Messages {
		b.WriteString("\n")
		b.WriteString(m.Text())
	}
	return b.String()
}

func TestRealSkillsTheAgentDoesNotLoadAreAnError(t *testing.T) {
	t.Parallel()
	// --disable-slash-commands makes Claude Code load no skills at all.
	r := newRig(t, modeltest.Always(modeltest.Stall()))
	c := r.config()
	c.Args = []string{"--disable-slash-commands"}
	agent := r.agent(t, c, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	_, err := agent.Run(clitest.RunCtx(t), "x")
	var nm *driver.NotMountedError
	if !errors.As(err, &nm) || !errors.Is(err, driver.ErrSkillsNotMounted) || !slices.Equal(nm.Missing, []string{"review"}) {
		t.Fatalf("run = %v, want a *driver.NotMountedError missing review", err)
	}
	// The run was stopped at once, though the model never answers.
	if left := r.processes(); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}

// TestRealCancelKillsToolProcesses cancels runs while a shell command of
// the Bash tool runs: Claude Code starts those in process groups of their
// own, and a backgrounded one outlives Claude itself unless the driver
// finds it.
func TestRealCancelKillsToolProcesses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		program string // the process to wait for before cancelling
		grace   time.Duration
	}{
		// The command returns at once, leaving sleep behind; Claude Code
		// no longer tracks it, and it stays after Claude exits on SIGINT.
		{"background, interrupted", "nohup sleep 602 >/dev/null 2>&1 &", "sleep", 2 * time.Second},
		// Claude Code is killed before it can stop its command.
		{"foreground, killed", "tail -f /dev/null", "tail", time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			calls := 0
			r := newRig(t, func(*modeltest.Request) modeltest.Reply {
				mu.Lock()
				defer mu.Unlock()
				if calls++; calls == 1 {
					return modeltest.ToolUse("Bash", map[string]any{"command": tt.command, "description": "wait"})
				}
				return modeltest.Stall()
			})
			c := r.config()
			c.SkipPermissions = true
			c.GracePeriod = tt.grace
			ctx, cancel := context.WithCancel(clitest.RunCtx(t))
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := r.agent(t, c).Run(ctx, "go")
				done <- err
			}()
			for deadline := time.Now().Add(60 * time.Second); !r.running(tt.program); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the Bash tool's command never started")
				}
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("run = %v, want context.Canceled", err)
			}
			if left := r.processes(); len(left) > 0 {
				for _, p := range left {
					cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
					t.Errorf("left running: %d %q", p, cmd)
				}
			}
		})
	}
}

// running reports whether a process of the rig runs the program name.
func (r *rig) running(name string) bool {
	for _, p := range r.processes() {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if prog, _, _ := strings.Cut(string(cmd), "\x00"); filepath.Base(prog) == name {
			return true
		}
	}
	return false
}

// Claude Code loads a skill whose front matter says user-invocable: false
// but does not list it in system/init: the run must not fail for it.
func TestRealSkillHiddenFromUsers(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.Always(modeltest.Text("ok")))
	md := "---\nname: quiet\ndescription: QUIET-DESC for the model only.\nuser-invocable: false\n---\nShh.\n"
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("quiet", md)))
	if _, err := agent.Run(clitest.RunCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	if reqs := r.server.MessageRequests(); len(reqs) == 0 || !strings.Contains(seen(reqs[0]), "QUIET-DESC") {
		t.Error("the model was not shown the skill")
	}
}
