package codex_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/clitest"
	"github.com/agentadaptor/agentadaptor/internal/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/streamtest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// These tests run the real Codex CLI (installed by .ci/install-agent-clis)
// against a stand-in Responses API on loopback. The user's Codex home is a
// folder of the test's, holding the stand-in's provider in config.toml:
// the driver must carry the user's settings into its managed home.

type rig struct {
	server    *modeltest.ResponsesServer
	env       []string
	home      string // HOME
	userCodex string // the user's CODEX_HOME
	workspace string
	cache     string
	marker    string
}

func newRig(t *testing.T, reply modeltest.ResponsesReplyFunc) *rig {
	t.Helper()
	cli := modeltest.CodexCLI(t)
	s := modeltest.NewResponses(t, reply)
	env, home, codexHome := s.CodexEnv(t)
	r := &rig{server: s, home: home, userCodex: codexHome, workspace: t.TempDir(), cache: cachetest.Root(t)}
	r.env, r.marker = clitest.TaggedEnv(env, cli)
	return r
}

func (r *rig) config() codex.Config {
	return codex.Config{Env: r.env, CacheRoot: r.cache, GracePeriod: 2 * time.Second}
}

func (r *rig) agent(t *testing.T, c codex.Config, opts ...adaptor.Option) *adaptor.Agent {
	t.Helper()
	return clitest.NewAgent(codex.Driver(c), r.cache, r.workspace, opts...)
}

// listed returns the skills the first model request listed, by name.
func (r *rig) listed(t *testing.T) map[string]modeltest.ListedSkill {
	t.Helper()
	reqs := r.server.ResponseRequests()
	if len(reqs) == 0 {
		t.Fatal("the stand-in got no request")
	}
	skills, err := reqs[0].Skills()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]modeltest.ListedSkill{}
	for _, s := range skills {
		out[s.Name] = s
	}
	return out
}

func TestRealSkillsAreListedAndReadable(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("all good")))
	mine := filepath.Join(r.userCodex, "skills", "mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "SKILL.md"), []byte(cachetest.SkillMD("mine", "The user's own.", "MINE-BODY")), 0o644)
	os.WriteFile(filepath.Join(r.workspace, "main.go"), []byte("package main\n"), 0o644)
	userBefore, wsBefore := cachetest.Listing(t, r.userCodex), cachetest.Listing(t, r.workspace)

	var rec streamtest.Recorder
	agent := r.agent(t, r.config(), adaptor.WithSkills(
		skill.Inline("review", cachetest.SkillMD("review", "Reviews changes.", "REVIEW-BODY")),
		skill.Inline("tone", cachetest.SkillMD("tone", "Keeps the tone.", "TONE-BODY")),
	), rec.Option())
	res, err := agent.Run(clitest.RunCtx(t), "hello there")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "all good" || res.SessionID == "" || res.Usage == nil {
		t.Errorf("result = %+v, want the answer with a session and usage", res)
	}
	listed := r.listed(t)
	for name, body := range map[string]string{"review": "REVIEW-BODY", "tone": "TONE-BODY", "mine": "MINE-BODY"} {
		s, ok := listed[name]
		if !ok {
			t.Errorf("skill %s is not listed (listed: %v)", name, listed)
			continue
		}
		data, err := os.ReadFile(s.Path)
		if err != nil || !strings.Contains(string(data), body) {
			t.Errorf("skill %s: listed file %s holds %q, %v; want its SKILL.md", name, s.Path, data, err)
		}
	}
	if evs := rec.Events(); len(evs) == 0 || evs[0].Kind() != driver.KindInit || evs[len(evs)-1].Kind() != driver.KindResult {
		t.Errorf("events %v, want init first and the result last", evs)
	}
	if cachetest.Listing(t, r.userCodex) != userBefore {
		t.Error("the user's Codex home changed")
	}
	if cachetest.Listing(t, r.workspace) != wsBefore {
		t.Error("the workspace changed")
	}
}

func TestRealConcurrentRunsSeeOnlyTheirOwnSkills(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	agent := r.agent(t, r.config())
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, name := range []string{"alpha", "beta"} {
		wg.Go(func() {
			_, errs[i] = agent.Run(clitest.RunCtx(t), "run-"+name, adaptor.WithSkills(skill.Inline(name, cachetest.SkillMD(name, strings.ToUpper(name)+"-ONLY.", "x"))))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, req := range r.server.ResponseRequests() {
		skills, err := req.Skills()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range skills {
			names = append(names, s.Name)
		}
		for _, own := range []string{"alpha", "beta"} {
			other := map[string]string{"alpha": "beta", "beta": "alpha"}[own]
			if strings.Contains(req.Prompt(), "run-"+own) && (!contains(names, own) || contains(names, other)) {
				t.Errorf("the %s run saw %v", own, names)
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestRealThreadResumes(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("noted")))
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
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
	reqs := r.server.ResponseRequests()
	last := reqs[len(reqs)-1]
	replayed := false
	for _, it := range last.Input {
		replayed = replayed || strings.Contains(it.Text, "FIRST-TURN-MARK")
	}
	if !replayed {
		t.Error("the resumed run's request does not replay the first turn")
	}
	before := len(r.server.Requests())
	_, err = th.Run(clitest.RunCtx(t), "third", adaptor.WithSkills(skill.Inline("extra", cachetest.SkillMD("extra", "More.", "E"))))
	if !errors.Is(err, adaptor.ErrThreadChanged) {
		t.Errorf("resume with another set = %v, want ErrThreadChanged", err)
	}
	if len(r.server.Requests()) != before {
		t.Error("the refused run reached the model")
	}
	_, err = agent.Run(clitest.RunCtx(t), "x", adaptor.WithResume("5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"))
	if !errors.Is(err, driver.ErrResumeRejected) {
		t.Errorf("resume of an unknown session = %v, want ErrResumeRejected", err)
	}
}

func TestRealCancelLeavesNoProcess(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesStall()))
	ctx, cancel := context.WithCancel(clitest.RunCtx(t))
	defer cancel()
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	done := make(chan error, 1)
	go func() {
		_, err := agent.Run(ctx, "wait for it")
		done <- err
	}()
	for deadline := time.Now().Add(60 * time.Second); len(r.server.ResponseRequests()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("codex never asked the model")
		}
	}
	if len(modeltest.Processes(r.marker)) == 0 {
		t.Fatal("test setup: no process of the run found while it runs")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled run = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end 30s after cancellation")
	}
	if left := modeltest.Processes(r.marker); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}

func TestRealClashWithUserSkillIsRefused(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	theirs := filepath.Join(r.userCodex, "skills", "review")
	os.MkdirAll(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "SKILL.md"), []byte(cachetest.SkillMD("review", "Mine.", "Mine.")), 0o644)
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Ours.", "Ours."))))
	_, err := agent.Run(clitest.RunCtx(t), "x")
	var se *driver.ShadowError
	if !errors.As(err, &se) || se.Theirs != theirs {
		t.Fatalf("run = %v, want a *driver.ShadowError naming %s", err, theirs)
	}
	if n := len(r.server.Requests()); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}
	// Without the user's skills there is no clash.
	c := r.config()
	c.WithoutUserSkills = true
	if _, err := r.agent(t, c, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Ours.", "Ours.")))).Run(clitest.RunCtx(t), "x"); err != nil {
		t.Errorf("run without the user's skills = %v", err)
	}
	if _, ok := r.listed(t)["review"]; !ok {
		t.Error("our review skill is not listed")
	}
}

func TestRealAgentError(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesAPIError(400, "invalid_request_error", "MARK-REFUSED")))
	_, err := r.agent(t, r.config()).Run(clitest.RunCtx(t), "x")
	var ae *driver.AgentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "MARK-REFUSED") {
		t.Errorf("run against a failing API = %v, want a *driver.AgentError with the message", err)
	}
}

// The driver's flags are ones Codex 0.169.0 accepts, and the model
// reaches the request.
func TestRealFlags(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	c := r.config()
	c.Model, c.Sandbox = "gpt-test-model", "read-only"
	c.Overrides = []string{`model_reasoning_effort="low"`}
	if _, err := r.agent(t, c).Run(clitest.RunCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	if m := r.server.ResponseRequests()[0].Model; m != "gpt-test-model" {
		t.Errorf("model = %q, want gpt-test-model", m)
	}
}

// Concurrent first runs in a new managed home take turns, so Codex
// installs its built-in skills once and whole; and an id that is not one
// of Codex's sessions is refused, not quietly started anew.
func TestRealFirstRunsAndOddResumeIDs(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	agent := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Reviews.", "R"))))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { _, errs[i] = agent.Run(clitest.RunCtx(t), "x") })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	homes, _ := filepath.Glob(filepath.Join(r.cache, "homes", "codex", "*", "skills", ".system"))
	if len(homes) != 1 {
		t.Fatalf("found %d managed homes with built-in skills, want 1", len(homes))
	}
	entries, _ := os.ReadDir(homes[0])
	var installed int
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(homes[0], e.Name(), "SKILL.md")); err == nil {
			installed++
		}
	}
	if installed == 0 {
		t.Errorf("no built-in skill installed in %s", homes[0])
	}
	// An id that is not a Codex session id is refused before Codex starts
	// (Codex would start a new thread under it and send the prompt).
	before := len(r.server.ResponseRequests())
	res, err := agent.Run(clitest.RunCtx(t), "x", adaptor.WithResume("not-a-session-id"))
	if !errors.Is(err, driver.ErrResumeRejected) || res != nil {
		t.Errorf("resume of an odd id = %v, %v; want ErrResumeRejected", res, err)
	}
	if len(r.server.ResponseRequests()) != before {
		t.Error("the refused resume reached the model")
	}
	// A session id in capitals is the same session.
	first, err := agent.Run(clitest.RunCtx(t), "x")
	if err != nil {
		t.Fatal(err)
	}
	again, err := agent.Run(clitest.RunCtx(t), "y", adaptor.WithResume(strings.ToUpper(first.SessionID)))
	if err != nil || !strings.EqualFold(again.SessionID, first.SessionID) {
		t.Errorf("resume in capitals = %v, %v; want session %s", again, err, first.SessionID)
	}
	if left := modeltest.Processes(r.marker); len(left) > 0 {
		t.Errorf("processes left after the refused resume: %v", left)
	}
}

// A skill of the user's whose front matter gives it the name of one of
// ours, in a folder of another name, is refused: Codex would list both.
func TestRealClashByListedName(t *testing.T) {
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	theirs := filepath.Join(r.userCodex, "skills", "old", "review-v1")
	os.MkdirAll(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "SKILL.md"), []byte(cachetest.SkillMD("review", "Mine.", "Mine.")), 0o644)
	_, err := r.agent(t, r.config(), adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Ours.", "Ours.")))).Run(clitest.RunCtx(t), "x")
	var se *driver.ShadowError
	if !errors.As(err, &se) || se.Theirs != theirs {
		t.Fatalf("run = %v, want a *driver.ShadowError naming %s", err, theirs)
	}
	if n := len(r.server.Requests()); n != 0 {
		t.Errorf("the refused run sent %d requests", n)
	}
}
