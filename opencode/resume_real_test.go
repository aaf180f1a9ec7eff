package opencode_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/opencode"
)

// TestRealResumeElsewhere checks rule 3 of "Checks" with the real
// OpenCode: a session resumed from another workspace, where OpenCode
// would call the model and never exit, is refused before the start; in
// its own workspace it resumes.
func TestRealResumeElsewhere(t *testing.T) {
	t.Parallel()
	cli := modeltest.OpenCodeCLI(t)
	m := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("ok")))
	env, _ := m.OpenCodeEnv(t)
	root, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	d := opencode.Driver(opencode.Config{Command: cli, Env: env, CacheRoot: root})
	first, err := d.Run(clitest.RunCtx(t), &driver.Request{Prompt: "FIRST-MARK", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	before := len(m.Requests())
	_, err = d.Run(clitest.RunCtx(t), &driver.Request{Prompt: "x", Workspace: other, Resume: first.SessionID})
	if !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), ws) {
		t.Errorf("resume from another workspace = %v, want ErrResumeRejected naming %s", err, ws)
	}
	if n := len(m.Requests()); n != before {
		t.Errorf("the refused resume sent %d requests", n-before)
	}
	res, err := d.Run(clitest.RunCtx(t), &driver.Request{Prompt: "second", Workspace: ws, Resume: first.SessionID})
	if err != nil || res.SessionID != first.SessionID {
		t.Fatalf("resume in its workspace = %+v, %v; want session %s", res, err, first.SessionID)
	}
	reqs := m.MainRequests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Prompt(), "second") {
		t.Errorf("last request's prompt %q", last.Prompt())
	}
}
