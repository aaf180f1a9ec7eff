package codex_test

import (
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
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
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

// A skill of the user's under the name of one of ours is no clash when
// the user's skills are left out (the clash itself is scenario 6 of the
// conformance suite).
func TestRealWithoutUserSkills(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
	theirs := filepath.Join(r.userCodex, "skills", "review")
	os.MkdirAll(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "SKILL.md"), []byte(cachetest.SkillMD("review", "Mine.", "Mine.")), 0o644)
	c := r.config()
	c.WithoutUserSkills = true
	if _, err := r.agent(t, c, adaptor.WithSkills(skill.Inline("review", cachetest.SkillMD("review", "Ours.", "Ours.")))).Run(clitest.RunCtx(t), "x"); err != nil {
		t.Errorf("run without the user's skills = %v", err)
	}
	if _, ok := r.listed(t)["review"]; !ok {
		t.Error("our review skill is not listed")
	}
}

// The driver's flags are ones Codex 0.169.0 accepts, and the model
// reaches the request.
func TestRealFlags(t *testing.T) {
	t.Parallel()
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
// installs its built-in skills once and whole; and a session id in
// capitals is the same session (an id that is not of Codex's form is
// scenario 4 of the conformance suite).
func TestRealFirstRunsAndResumeIDsInCapitals(t *testing.T) {
	t.Parallel()
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
		t.Errorf("processes left after the runs: %v", left)
	}
}

// A skill of the user's whose front matter gives it the name of one of
// ours, in a folder of another name, is refused: Codex would list both.
func TestRealClashByListedName(t *testing.T) {
	t.Parallel()
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
