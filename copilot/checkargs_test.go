package copilot

import (
	"errors"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/launch"
)

// TestCheckArgs checks which arguments from someone else may be passed
// through: any other option, never one the driver sets, never a short
// option, "--" or an operand.
func TestCheckArgs(t *testing.T) {
	for _, arg := range []string{"--reasoning-effort=high", "--no-custom-instructions", "--log-level=debug"} {
		if err := Descriptor().CheckArgs([]string{arg}); err != nil {
			t.Errorf("CheckArgs(%q) = %v, want nil", arg, err)
		}
	}
	for _, arg := range []string{"-p", "-C", "--", "--output-format=text", "--prompt=x", "--resume=x", "--continue", "--session-id=x", "--add-dir=/d", "--no-auto-update", "--acp", "--x=a\x00"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{"--fine", arg}); !errors.As(err, &argErr) || argErr.Arg != arg || argErr.Field != "" {
			t.Errorf("CheckArgs(%q) = %v, want it refused as the driver's own or for its form", arg, err)
		}
	}
	for arg, field := range map[string]string{"--model=x": "Model", "--allow-tool=x": "AllowedTools", "--deny-tool=x": "DeniedTools", "--allow-all-tools": "AllowAllTools", "--yolo": "AllowAllTools", "--allow-all": "AllowAllTools"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{arg}); !errors.Is(err, driver.ErrArgRefused) || !errors.As(err, &argErr) || argErr.Field != field {
			t.Errorf("CheckArgs(%q) = %v, want it refused naming Config.%s", arg, err, field)
		}
	}
}

// TestArgs checks the command line: the skill tool always allowed, the
// mount and every value as one "--name=value" argument, the session
// resumed or given, Args last.
func TestArgs(t *testing.T) {
	d := Driver(Config{Model: "-m", AllowedTools: []string{"write"}, DeniedTools: []string{"shell"}, AllowAllTools: true, Args: []string{"--log-level=none"}}).(*copilotDriver)
	got, err := d.args(&driver.Request{Resume: "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1"}, "/m", "5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1").List()
	want := []string{"--output-format=json", "--no-auto-update", "--add-dir=/m", "--allow-tool=skill", "--allow-tool=write", "--deny-tool=shell", "--allow-all-tools", "--model=-m", "--resume=5b0a7c36-8a63-4f3e-9b0e-2f43d1c2a9e1", "--log-level=none"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("args = %q, %v; want %q", got, err, want)
	}
	id := newSessionID()
	if !launch.IsUUID(id) || id == newSessionID() {
		t.Errorf("newSessionID() = %q, want a new UUID each time", id)
	}
	got, _ = Driver(Config{}).(*copilotDriver).args(&driver.Request{}, "", id).List()
	if want := []string{"--output-format=json", "--no-auto-update", "--allow-tool=skill", "--session-id=" + id}; !slices.Equal(got, want) {
		t.Errorf("args without skills = %q, want %q", got, want)
	}
}
