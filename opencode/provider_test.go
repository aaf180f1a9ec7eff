package opencode

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckModel checks the rule of checkModel: a model must name its
// provider.
func TestCheckModel(t *testing.T) {
	for model, ok := range map[string]bool{"": true, "scout/scout-model": true, "openrouter/a/b": true, "scout-model": false, "/x": false, "x/": false} {
		err := checkModel(model)
		if ok != (err == nil) || !ok && (!errors.Is(err, driver.ErrProviderSetup) || !strings.Contains(err.Error(), "OpenCode takes a model as provider/model")) {
			t.Errorf("checkModel(%q) = %v, want refused: %v", model, err, !ok)
		}
	}
}

// TestExplain checks that OpenCode's error for an unknown model says
// what to check, and that other errors are left alone.
func TestExplain(t *testing.T) {
	unknown := &driver.AgentError{Subtype: "UnknownError", Message: "Unexpected server error. Check server logs for details."}
	err := explain("scout/nope", unknown)
	if !errors.Is(err, driver.ErrAgentFailed) || !strings.Contains(err.Error(), "check that the model (scout/nope) is provider/model") {
		t.Errorf("explain = %v, want it to name the model to check", err)
	}
	other := &driver.AgentError{Subtype: "APIError", Message: "bad request"}
	if err := explain("scout/nope", other); err != other {
		t.Errorf("explain(another error) = %v, want it unchanged", err)
	}
}
