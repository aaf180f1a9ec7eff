package main

import (
	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// runAgents are the install ids of the agents `run` can drive.
const runAgents = "claude-code, codex, gemini-cli, qwen-code"

// runDriver returns the driver for the agent of an install id; no id or
// one run does not drive is bad usage.
func runDriver(agent, model string) (driver.Driver, error) {
	switch agent {
	case "claude-code":
		return claude.Driver(claude.Config{Model: model}), nil
	case "codex":
		return codex.Driver(codex.Config{Model: model}), nil
	case "gemini-cli":
		return gemini.Driver(gemini.Config{Model: model}), nil
	case "qwen-code":
		return qwen.Driver(qwen.Config{Model: model}), nil
	case "":
		return nil, usageErrorf("missing --agent (one of %s)", runAgents)
	}
	return nil, usageErrorf("cannot run agent %q: run drives %s", agent, runAgents)
}
