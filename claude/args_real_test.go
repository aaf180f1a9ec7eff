package claude_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
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

// TestRealFlagsWithValues runs the real Claude Code with every flag that
// takes a value, each given as --name=value: it reads them all.
func TestRealFlagsWithValues(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
