package opencode_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/clitest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/streamtest"
	"github.com/agentadaptor/agentadaptor/opencode"
)

// TestRealAPIError runs the real OpenCode against a stand-in that refuses
// every call: the run is a *driver.AgentError with OpenCode's message,
// reported first as an ErrorEvent. With OPENCODE_RECORD=DIR set, the
// stream is written to DIR/error.jsonl.
func TestRealAPIError(t *testing.T) {
	t.Parallel()
	cli := modeltest.OpenCodeCLI(t)
	m := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatAPIError(400, "QUOTA-MARK")))
	env, _ := m.OpenCodeEnv(t)
	root, ws := t.TempDir(), t.TempDir()
	var rec streamtest.Recorder
	d := opencode.Driver(opencode.Config{Command: cli, Env: env, CacheRoot: root})
	_, err := clitest.NewAgent(d, root, ws).Run(clitest.RunCtx(t), "hello", rec.Option())
	var ae *driver.AgentError
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "QUOTA-MARK") || !strings.HasPrefix(ae.Result.SessionID, "ses_") {
		t.Fatalf("run = %v, want a *driver.AgentError saying QUOTA-MARK with the session", err)
	}
	var sawError bool
	for _, ev := range rec.Events() {
		if e, ok := ev.(*driver.ErrorEvent); ok && strings.Contains(e.Message, "QUOTA-MARK") {
			sawError = true
		}
	}
	if !sawError {
		t.Errorf("events %q, want an error event with the message", streamtest.Kinds(rec.Events()))
	}
	if dir := os.Getenv("OPENCODE_RECORD"); dir != "" {
		record(t, filepath.Join(dir, "error.jsonl"), rec.Events())
	}
}
