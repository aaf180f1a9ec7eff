package qwen

import (
	"errors"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckArgs checks which arguments from someone else may be passed
// through: any other option, never one the driver sets, never a short
// option, "--" or an operand.
func TestCheckArgs(t *testing.T) {
	for _, arg := range []string{"--append-system-prompt=x", "--max-tool-calls=3", "--core-tools=x"} {
		if err := Descriptor().CheckArgs([]string{arg}); err != nil {
			t.Errorf("CheckArgs(%q) = %v, want nil", arg, err)
		}
	}
	for _, arg := range []string{"-p", "-y", "--", "--output-format=text", "--input-format=text", "--prompt=x", "--resume=x", "--continue", "--x=a\x00"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{"--fine", arg}); !errors.As(err, &argErr) || argErr.Arg != arg || argErr.Field != "" {
			t.Errorf("CheckArgs(%q) = %v, want it refused as the driver's own or for its form", arg, err)
		}
	}
	for arg, field := range map[string]string{"--model=x": "Model", "--approval-mode=yolo": "ApprovalMode", "--yolo": "ApprovalMode", "--no-yolo": "ApprovalMode", "--allowed-tools=x": "AllowedTools", "--exclude-tools=x": "DisallowedTools", "--max-session-turns=2": "MaxSessionTurns", "--include-partial-messages": "PartialMessages"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{arg}); !errors.Is(err, driver.ErrArgRefused) || !errors.As(err, &argErr) || argErr.Field != field {
			t.Errorf("CheckArgs(%q) = %v, want it refused naming Config.%s", arg, err, field)
		}
	}
}
