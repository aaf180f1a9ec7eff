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

// TestRealUnknownModel runs the real OpenCode with a model its
// configuration does not have: its "Unexpected server error" comes with
// what to check; a model without a provider is refused before the start.
func TestRealUnknownModel(t *testing.T) {
	t.Parallel()
	cli := modeltest.OpenCodeCLI(t)
	m := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("unused")))
	env, _ := m.OpenCodeEnv(t)
	run := func(model string) error {
		root := t.TempDir()
		d := opencode.Driver(opencode.Config{Command: cli, Env: env, CacheRoot: root, Model: model})
		_, err := clitest.NewAgent(d, root, t.TempDir()).Run(clitest.RunCtx(t), "hello")
		return err
	}
	err := run("modeltest/nope")
	var ae *driver.AgentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "Unexpected server error") || !strings.Contains(err.Error(), "check that the model (modeltest/nope) is provider/model") {
		t.Errorf("run with an unknown model = %v, want OpenCode's error and what to check", err)
	}
	err = run("nope")
	if !errors.Is(err, driver.ErrProviderSetup) || errors.As(err, &ae) {
		t.Errorf("run with a model without a provider = %v, want it refused before the start", err)
	}
	if n := len(m.MainRequests()); n != 0 {
		t.Errorf("the runs sent %d requests to the model", n)
	}
}
