package gemini

import (
	"errors"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckArgs checks which arguments from someone else may be passed
// through: any other option, never one the driver sets, never a short
// option, "--" or an operand.
func TestCheckArgs(t *testing.T) {
	for _, arg := range []string{"--include-directories=/d", "--extensions=none", "--debug"} {
		if err := Descriptor().CheckArgs([]string{arg}); err != nil {
			t.Errorf("CheckArgs(%q) = %v, want nil", arg, err)
		}
	}
	for _, arg := range []string{"-p", "-o", "--", "--policy=/p", "--output-format=text", "--prompt=x", "--resume=latest", "--session-id=x", "--x=a\x00"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{"--fine", arg}); !errors.As(err, &argErr) || argErr.Arg != arg || argErr.Field != "" {
			t.Errorf("CheckArgs(%q) = %v, want it refused as the driver's own or for its form", arg, err)
		}
	}
	for arg, field := range map[string]string{"--model=x": "Model", "--approval-mode=yolo": "ApprovalMode", "--yolo": "ApprovalMode", "--allowed-tools=x": "AllowedTools", "--skip-trust": "RespectTrust", "--no-skip-trust": "RespectTrust"} {
		var argErr *driver.ArgError
		if err := Descriptor().CheckArgs([]string{arg}); !errors.Is(err, driver.ErrArgRefused) || !errors.As(err, &argErr) || argErr.Field != field {
			t.Errorf("CheckArgs(%q) = %v, want it refused naming Config.%s", arg, err, field)
		}
	}
}
