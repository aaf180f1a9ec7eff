package main

import (
	"github.com/agentadaptor/agentadaptor/driver"
)

// runDriver returns the driver for the agent of opts (an install id) with
// the Config its flags ask for (see agentFlags); no id or one run does not
// drive, or a flag the agent cannot honour, is bad usage.
func runDriver(opts *runOptions) (driver.Driver, error) {
	if opts.agent == "" {
		return nil, usageErrorf("missing --agent (one of %s)", runAgents(", "))
	}
	if a, ok := runnable(opts.agent); ok {
		return opts.agentFlags.driverFor(a, opts.model, opts.io.err)
	}
	return nil, usageErrorf("cannot run agent %q: run drives %s", opts.agent, runAgents(", "))
}
