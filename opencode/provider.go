package opencode

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// checkModel refuses, before the start, a model that names no provider:
// OpenCode takes a model as "provider/model", and OpenCode 1.18.33 meets
// any other after a quarter of a minute with "Unexpected server error".
func checkModel(model string) error {
	if model == "" || strings.Contains(strings.Trim(model, "/"), "/") {
		return nil
	}
	return fmt.Errorf("opencode: %w: the model %q names no provider; OpenCode takes a model as provider/model: a provider of its opencode.json (or one it knows) and one of that provider's models",
		driver.ErrProviderSetup, model)
}

// serverError is what OpenCode 1.18.33 reports, as an UnknownError, for
// a model or provider its configuration does not have (among other
// faults).
const serverError = "Unexpected server error"

// explain adds to OpenCode's error for an unknown model what to check.
func explain(model string, err error) error {
	var agentErr *driver.AgentError
	if !errors.As(err, &agentErr) || !strings.Contains(agentErr.Message, serverError) {
		return err
	}
	if model == "" {
		model = `opencode.json's "model"`
	}
	return fmt.Errorf("opencode: %w; OpenCode says this for a model or a provider its configuration does not have, among other faults: check that the model (%s) is provider/model, with the provider and the model in opencode.json",
		err, model)
}
