package driver

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorsNameTheSDK checks that the errors a Go program gets say what
// to set in the SDK, and match their sentinels.
func TestErrorsNameTheSDK(t *testing.T) {
	cause := errors.New(`exec: "claude": executable file not found in $PATH`)
	missing := error(&ProcessError{Command: "claude", ExitCode: -1, Err: &ProgramNotFoundError{
		Command: "claude", Agent: "Claude Code", Package: "@anthropic-ai/claude-code", Field: "claude.Config.Command", Err: cause}})
	if want := "install Claude Code with `npm install -g @anthropic-ai/claude-code`, or set claude.Config.Command"; !strings.Contains(missing.Error(), want) {
		t.Errorf("missing program: %q, want it to say %q", missing, want)
	}
	if !errors.Is(missing, ErrProgramNotFound) || !errors.Is(missing, ErrProcessFailed) || !errors.Is(missing, cause) {
		t.Errorf("missing program %v does not match ErrProgramNotFound, ErrProcessFailed and its cause", missing)
	}

	shadow := error(&ShadowError{Name: "a", Ours: "/ours/a", Theirs: "/theirs/a"})
	if want := "rename one of them (skill.MetadataRuntimeName) or remove /theirs/a"; !strings.Contains(shadow.Error(), want) || !errors.Is(shadow, ErrSkillShadowed) {
		t.Errorf("shadow: %q, want it to say %q", shadow, want)
	}

	arg := error(&ArgError{Agent: "claude", Arg: "--model=x", Option: "--model", Field: "Model", Reason: "set Config.Model instead"})
	if want := `claude: argument "--model=x" refused: set Config.Model instead`; arg.Error() != want || !errors.Is(arg, ErrArgRefused) {
		t.Errorf("arg: %q, want %q", arg, want)
	}
}
