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
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/clitest"
	"github.com/agentadaptor/agentadaptor/internal/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/streamtest"
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

func TestRealSkillsReachTheAgent(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.Text("all good")))
	var rec streamtest.Recorder
	agent := r.agent(t, r.config(), adaptor.WithSkills(
		skill.Inline("review", cachetest.SkillMD("review", "Reviews changes MARK-REVIEW-DESC.", "Look hard.")),
		skill.Dir(writeSkillDir(t, "tone", "Keeps the tone MARK-TONE-DESC.", "Be kind.")),
	), rec.Option())
	res, err := agent.Run(clitest.RunCtx(t), "hello there")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "all good" || res.SessionID == "" || res.Usage == nil || res.Usage.InputTokens == 0 {
		t.Errorf("result = %+v, want the answer with a session and usage", res)
	}
	reqs := r.server.MessageRequests()
	if len(reqs) == 0 {
		t.Fatal("the stand-in got no request")
	}
	for _, want := range []string{"MARK-REVIEW-DESC", "MARK-TONE-DESC"} {
		if !strings.Contains(seen(reqs[0]), want) {
			t.Errorf("the request does not show the model %q", want)
		}
	}
	var init *driver.InitEvent
	var kinds []string
	for _, ev := range rec.Events() {
		kinds = append(kinds, ev.Kind())
		if e, ok := ev.(*driver.InitEvent); ok {
			init = e
		}
	}
	if init == nil || !slices.Contains(init.Skills, "review") || !slices.Contains(init.Skills, "tone") || init.SessionID != res.SessionID {
		t.Errorf("init event = %+v, want both skills and the session", init)
	}
	if !slices.Contains(kinds, driver.KindText) || kinds[len(kinds)-1] != driver.KindResult {
		t.Errorf("event kinds = %q, want text and a final result", kinds)
	}
}

func writeSkillDir(t *testing.T, name, desc, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(cachetest.SkillMD(name, desc, body)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	return dir
}

func TestRealSkillBodyLoadedThroughTheSkillTool(t *testing.T) {
	r := newRig(t, modeltest.ToolThenText(modeltest.SkillCall("review"), "reviewed"))
	var rec streamtest.Recorder
	agent := r.agent(t, r.config(), adaptor.WithSkills(
		skill.Inline("review", cachetest.SkillMD("review", "Reviews changes.", "BODY-MARK-7731: check every line.")),
	), rec.Option())
	res, err := agent.Run(clitest.RunCtx(t), "review please")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "reviewed" {
		t.Errorf("text = %q, want reviewed", res.Text)
	}
	reqs := r.server.MessageRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(seen(last), "BODY-MARK-7731") {
		t.Errorf("the request after the Skill call does not carry the body:\n%s", seen(last))
	}
	var called, answered bool
	for _, ev := range rec.Events() {
		switch e := ev.(type) {
		case *driver.ToolCallEvent:
			called = called || e.Name == "Skill" && strings.Contains(string(e.Input), "review")
		case *driver.ToolResultEvent:
			answered = true
		}
	}
	if !called || !answered {
		t.Errorf("tool call seen %v, tool result seen %v; want both", called, answered)
	}
}

func TestRealConcurrentRunsSeeOnlyTheirOwnSkills(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.Text("ok")))
	a := skill.Inline("alpha", cachetest.SkillMD("alpha", "ALPHA-ONLY-DESC.", "A"))
	b := skill.Inline("beta", cachetest.SkillMD("beta", "BETA-ONLY-DESC.", "B"))
	agent := r.agent(t, r.config())
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []skill.Skill{a, b} {
		wg.Go(func() {
			_, errs[i] = agent.Run(clitest.RunCtx(t), "run-"+s.Key, adaptor.WithSkills(s))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, req := range r.server.MessageRequests() {
		text := seen(req)
		switch {
		case strings.Contains(req.Prompt(), "run-alpha"):
			if !strings.Contains(text, "ALPHA-ONLY-DESC") || strings.Contains(text, "BETA-ONLY-DESC") {
				t.Errorf("the alpha run saw the wrong skills")
			}
		case strings.Contains(req.Prompt(), "run-beta"):
			if !strings.Contains(text, "BETA-ONLY-DESC") || strings.Contains(text, "ALPHA-ONLY-DESC") {
				t.Errorf("the beta run saw the wrong skills")
			}
		default:
			t.Errorf("a request of neither run: %q", req.Prompt())
		}
	}
}

func TestRealThreadResumes(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.Text("noted")))
	review := skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))
	agent := r.agent(t, r.config(), adaptor.WithSkills(review))
	th := agent.Thread("pr-1", adaptor.ResumeOnly())
	first, err := th.Run(clitest.RunCtx(t), "FIRST-TURN-MARK")
	if err != nil {
		t.Fatal(err)
	}
	second, err := th.Run(clitest.RunCtx(t), "second turn")
	if err != nil {
		t.Fatal(err)
	}
	if second.SessionID != first.SessionID {
		t.Errorf("resumed session %q, want %q", second.SessionID, first.SessionID)
	}
	reqs := r.server.MessageRequests()
	if last := reqs[len(reqs)-1]; !strings.Contains(seen(last), "FIRST-TURN-MARK") {
		t.Error("the resumed run's request does not replay the first turn")
	}
	// Another skill set: refused before the agent starts.
	before := len(r.server.Requests())
	_, err = th.Run(clitest.RunCtx(t), "third", adaptor.WithSkills(skill.Inline("extra", cachetest.SkillMD("extra", "More.", "E"))))
	if !errors.Is(err, adaptor.ErrThreadChanged) || !strings.Contains(err.Error(), "extra") {
		t.Errorf("resume with another set = %v, want ErrThreadChanged naming extra", err)
	}
	if len(r.server.Requests()) != before {
		t.Error("the refused run reached the model")
	}
	// A session the agent does not know is rejected.
	_, err = agent.Run(clitest.RunCtx(t), "x", adaptor.WithResume("5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"))
	if !errors.Is(err, driver.ErrResumeRejected) {
		t.Errorf("resume of an unknown session = %v, want ErrResumeRejected", err)
	}
}

func TestRealCancelLeavesNoProcess(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.Stall()))
	ctx, cancel := context.WithCancel(clitest.RunCtx(t))
	defer cancel()
	started := make(chan struct{})
	var once sync.Once
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))),
		adaptor.WithEvents(func(ev driver.Event) {
			if ev.Kind() == driver.KindInit {
				once.Do(func() { close(started) })
			}
		}))
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, "wait for it")
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("run ended before it started: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("no init event in 60s")
	}
	if len(r.processes()) == 0 {
		t.Fatal("test setup: no process of the run found while it runs")
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end 30s after cancellation")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run = %v, want context.Canceled", err)
	}
	if left := r.processes(); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}

func TestRealShadowingUserSkillIsRefused(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.Text("ok")))
	theirs := filepath.Join(r.home, ".claude", "skills", "review")
	os.MkdirAll(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "SKILL.md"), []byte(cachetest.SkillMD("review", "The user's own.", "Mine.")), 0o644)
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Ours.", "Ours."))))
	_, err := agent.Run(clitest.RunCtx(t), "x")
	var se *driver.ShadowError
	if !errors.As(err, &se) || se.Theirs != theirs {
		t.Fatalf("run = %v, want a *driver.ShadowError naming %s", err, theirs)
	}
	if n := len(r.server.Requests()); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}
	// The same content is no shadow.
	os.WriteFile(filepath.Join(theirs, "SKILL.md"), []byte(cachetest.SkillMD("review", "Ours.", "Ours.")), 0o644)
	if _, err := agent.Run(clitest.RunCtx(t), "x"); err != nil {
		t.Errorf("run beside an identical user skill = %v", err)
	}
}

func TestRealWritesNothingInTheWorkspaceOrUserSkills(t *testing.T) {
	r := newRig(t, modeltest.ToolThenText(modeltest.SkillCall("review"), "done"))
	os.WriteFile(filepath.Join(r.workspace, "main.go"), []byte("package main\n"), 0o644)
	userSkills := filepath.Join(r.home, ".claude", "skills")
	os.MkdirAll(filepath.Join(userSkills, "mine"), 0o755)
	os.WriteFile(filepath.Join(userSkills, "mine", "SKILL.md"), []byte(cachetest.SkillMD("mine", "Mine.", "M")), 0o644)
	before := cachetest.Listing(t, r.workspace) + cachetest.Listing(t, userSkills)
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	for range 2 {
		if _, err := agent.Run(clitest.RunCtx(t), "x"); err != nil {
			t.Fatal(err)
		}
	}
	if after := cachetest.Listing(t, r.workspace) + cachetest.Listing(t, userSkills); after != before {
		t.Errorf("the workspace or the user's skills changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestRealAgentErrors(t *testing.T) {
	r := newRig(t, modeltest.Always(modeltest.APIError(403, "permission_error", "MARK-DENIED")))
	agent := r.agent(t, r.config())
	_, err := agent.Run(clitest.RunCtx(t), "x")
	var ae *driver.AgentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "MARK-DENIED") || ae.Result == nil || ae.Result.SessionID == "" {
		t.Errorf("run against a failing API = %v, want a *driver.AgentError with the message and session", err)
	}

	// A missing program is a process error that says how to install it.
	c := r.config()
	c.Command = filepath.Join(t.TempDir(), "no-claude")
	_, err = r.agent(t, c).Run(clitest.RunCtx(t), "x")
	if !errors.Is(err, driver.ErrProcessFailed) || !strings.Contains(err.Error(), "npm install") {
		t.Errorf("run of a missing program = %v, want ErrProcessFailed saying how to install", err)
	}
}

func TestRealSkillsTheAgentDoesNotLoadAreAnError(t *testing.T) {
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
