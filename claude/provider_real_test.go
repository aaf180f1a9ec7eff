package claude_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/testkit/modeltest"
)

// TestRealBaseURLRefused points the real Claude Code at a loopback
// ANTHROPIC_BASE_URL where nothing listens: instead of ten retries of a
// failed call without a cause, the run is refused before the start,
// naming the variable and the URL. The same setup with the stand-in
// listening runs.
func TestRealBaseURLRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, modeltest.Always(modeltest.Text("listening")))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	c := r.config()
	c.Env = process.MergeEnv(c.Env, []string{"ANTHROPIC_BASE_URL=" + closed})
	_, err = r.agent(t, c).Run(t.Context(), "hello")
	var pe *driver.ProcessError
	if !errors.Is(err, driver.ErrProviderSetup) || errors.As(err, &pe) || !strings.Contains(err.Error(), "ANTHROPIC_BASE_URL is "+closed+", and a connection to it is refused") {
		t.Fatalf("run = %v, want it refused before the start naming %s", err, closed)
	}
	if res, err := r.agent(t, r.config()).Run(t.Context(), "hello"); err != nil || res.Text != "listening" {
		t.Errorf("run with the stand-in listening = %+v, %v", res, err)
	}
}
