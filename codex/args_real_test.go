package codex_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/clitest"
	"github.com/agentadaptor/agentadaptor/internal/modeltest"
)

// TestRealValuesAreNeverOptions gives every field the driver puts on the
// command line a value that starts like an option, with the real Codex:
// each is refused before the start or taken literally, and none acts as
// an option. The value would, as an option, have Codex run a command
// that creates a file after the turn (notify).
func TestRealValuesAreNeverOptions(t *testing.T) {
	tests := []struct {
		name  string
		setup func(c *codex.Config, inject string)
		opts  func(inject string) []adaptor.CallOption
		check func(t *testing.T, r *rig, inject string, err error)
	}{
		{
			name: "session id",
			opts: func(inject string) []adaptor.CallOption { return []adaptor.CallOption{adaptor.WithResume(inject)} },
			check: func(t *testing.T, r *rig, _ string, err error) {
				if !errors.Is(err, driver.ErrInvalidSessionID) || !errors.Is(err, driver.ErrResumeRejected) || !strings.Contains(err.Error(), "UUID") {
					t.Errorf("run = %v, want ErrInvalidSessionID and ErrResumeRejected saying an id is a UUID", err)
				}
				if n := len(r.server.Requests()); n != 0 {
					t.Errorf("the refused run sent %d requests", n)
				}
			},
		},
		{
			name:  "model",
			setup: func(c *codex.Config, inject string) { c.Model = inject },
			check: func(t *testing.T, r *rig, inject string, err error) {
				reqs := r.server.ResponseRequests()
				if err != nil || len(reqs) == 0 || reqs[0].Model != inject {
					t.Errorf("run = %v; want it to ask the model named %q", err, inject)
				}
			},
		},
		{
			name:  "sandbox",
			setup: func(c *codex.Config, inject string) { c.Sandbox = inject },
			check: func(t *testing.T, r *rig, inject string, err error) {
				var pe *driver.ProcessError
				if !errors.As(err, &pe) || !strings.Contains(pe.Stderr, "invalid value") {
					t.Errorf("run = %v, want Codex to refuse the sandbox %q", err, inject)
				}
				if n := len(r.server.Requests()); n != 0 {
					t.Errorf("the refused run sent %d requests", n)
				}
			},
		},
		{
			name:  "override",
			setup: func(c *codex.Config, inject string) { c.Overrides = []string{inject} },
			check: func(t *testing.T, r *rig, inject string, err error) {
				// "--config=VALUE" is one override, a key "--config"
				// that Codex does not know, holding the rest.
				if err != nil && !errors.Is(err, driver.ErrProcessFailed) {
					t.Errorf("run = %v, want it to run or Codex to refuse the override", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "pwned")
			inject := fmt.Sprintf(`--config=notify=["touch","%s"]`, marker)
			r := newRig(t, modeltest.ResponsesAlways(modeltest.ResponsesText("ok")))
			c := r.config()
			if tt.setup != nil {
				tt.setup(&c, inject)
			}
			var opts []adaptor.CallOption
			if tt.opts != nil {
				opts = tt.opts(inject)
			}
			_, err := r.agent(t, c).Run(clitest.RunCtx(t), "x", opts...)
			tt.check(t, r, inject, err)
			if _, err := os.Lstat(marker); err == nil {
				t.Errorf("%s exists: a value was read as an option", marker)
			}
			if left := modeltest.Processes(r.marker); len(left) > 0 {
				t.Errorf("processes left after the run: %v", left)
			}
		})
	}
}
