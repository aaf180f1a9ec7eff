package copilot

import (
	"errors"
	"net"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealProviderSetup runs the real Copilot CLI with the provider set
// up wrong in each of the ways the driver checks: each run is refused
// before the start, saying what to set, and sends nothing. Copilot CLI
// itself, run without the driver, refuses the first two as the checks
// say (it retries the last for half a minute).
func TestRealProviderSetup(t *testing.T) {
	t.Parallel()
	cli := modeltest.CopilotCLI(t)
	s := modeltest.NewChat(t, modeltest.ChatAlways(modeltest.ChatText("unused")))
	env, _ := s.CopilotEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	path, err := native(cli, runtime.GOOS, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  []string
		want string
		// refusal is what Copilot CLI says on its own, "" when it
		// does not refuse.
		refusal string
	}{
		{"offline without a provider", []string{"COPILOT_PROVIDER_BASE_URL="}, "set COPILOT_PROVIDER_BASE_URL", "Offline mode requires a local model provider"},
		{"provider without a model", []string{"COPILOT_MODEL="}, "set COPILOT_MODEL", "BYOK providers require an explicit model"},
		{"nothing at the base URL", []string{"COPILOT_PROVIDER_BASE_URL=" + closed}, "COPILOT_PROVIDER_BASE_URL is " + closed + ", and a connection to it is refused", ""},
	} {
		if tt.refusal != "" {
			cmd := exec.CommandContext(t.Context(), path, "--output-format=json", "--no-auto-update")
			cmd.Env, cmd.Dir = process.MergeEnv(env, tt.env), t.TempDir()
			cmd.Stdin = strings.NewReader("hi")
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), tt.refusal) {
				t.Errorf("copilot with %s = %v, %q; want it to refuse saying %q", tt.name, err, out, tt.refusal)
			}
		}
		d := Driver(Config{Command: cli, Env: process.MergeEnv(env, tt.env), CacheRoot: t.TempDir()})
		_, err := d.Run(t.Context(), &driver.Request{Prompt: "hi", Workspace: t.TempDir()})
		var pe *driver.ProcessError
		if !errors.Is(err, driver.ErrProviderSetup) || errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run with %s = %v, want it refused before the start saying %q", tt.name, err, tt.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the refused runs sent %d requests", n)
	}
}
