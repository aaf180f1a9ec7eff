package main

import (
	"github.com/agentadaptor/agentadaptor/driver"
)

// runAgents are the install ids of the agents `run` can drive.
const runAgents = "claude-code, codex, gemini-cli, qwen-code, opencode, github-copilot, cursor"

// runDriver returns the driver for the agent of opts (an install id) with
// the Config its flags ask for (see agentFlags); no id or one run does not
// drive, or a flag the agent cannot honour, is bad usage.
func runDriver(opts *runOptions) (driver.Driver, error) {
	if opts.agent == "" {
		return nil, usageErrorf("missing --agent (one of %s)", runAgents)
	}
	for _, a := range runnables() {
		if a.id == opts.agent {
			return opts.agentFlags.driverFor(&a, opts.model, opts.io.err)
		}
	}
	return nil, usageErrorf("cannot run agent %q: run drives %s", opts.agent, runAgents)
}
