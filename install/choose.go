package install

import (
	"context"
	"maps"
	"slices"
)

// Why says where the agents of an [AgentChoice] came from.
type Why string

// Where a choice of agents came from, in the order [Installer.ChooseAgents]
// tries them.
const (
	WhyRequested Why = "requested" // the request named them (AddRequest.Agents)
	WhyRecorded  Why = "recorded"  // the scope's lock file records skills for them
	WhyDetected  Why = "detected"  // their configuration folders exist (Chosen.Found)
	WhyDefault   Why = "default"   // nothing else chose: claude-code and codex
)

// Chosen is one agent of an [AgentChoice].
type Chosen struct {
	Agent Agent
	// Found is, for an agent chosen because it was detected, the folder
	// whose presence detected it; "" otherwise.
	Found string
}

// AgentChoice is the agents an Add installs for, and why they were
// chosen: what `agentskills add` prints before its changes.
type AgentChoice struct {
	Agents []Chosen
	Why    Why
	// Lock is the scope's lock file, which a WhyRecorded choice read.
	Lock string
}

// List returns the agents chosen, in order.
func (c AgentChoice) List() []Agent {
	out := make([]Agent, len(c.Agents))
	for i, a := range c.Agents {
		out[i] = a.Agent
	}
	return out
}

// ChooseAgents returns the agents an Add of req installs for, and why:
// req.Agents when it names any; else the agents the scope's lock file
// records for its skills, so that a project installed for some agents
// keeps getting its skills for those; else the agents detected here
// (see [Agent.DetectedBy]), each with the folder that detected it; else
// claude-code and codex. A lock file that cannot be read fails it
// ([ErrInvalidLock]); a context done before it reads anything fails it
// with [ErrInterrupted], as it fails Add.
func (in *Installer) ChooseAgents(ctx context.Context, req AddRequest) (AgentChoice, error) {
	if ctx.Err() != nil {
		return AgentChoice{}, interrupted(ctx, "nothing was changed")
	}
	if len(req.Agents) > 0 {
		c := AgentChoice{Why: WhyRequested}
		for _, a := range req.Agents {
			c.Agents = append(c.Agents, Chosen{Agent: a})
		}
		return c, nil
	}
	lock, err := in.readCheckedLock()
	if err != nil {
		return AgentChoice{}, err
	}
	recorded := map[string]bool{}
	for _, e := range lock.Skills {
		for id := range e.Agents {
			recorded[id] = true
		}
	}
	if len(recorded) > 0 {
		c := AgentChoice{Why: WhyRecorded, Lock: in.lockPath()}
		for _, id := range slices.Sorted(maps.Keys(recorded)) {
			if a, ok := LookupAgent(id); ok {
				c.Agents = append(c.Agents, Chosen{Agent: a})
			}
		}
		if len(c.Agents) > 0 {
			return c, nil
		}
	}
	c := AgentChoice{Why: WhyDetected}
	for _, a := range known {
		if found := a.DetectedBy(in.env); found != "" {
			c.Agents = append(c.Agents, Chosen{Agent: a, Found: found})
		}
	}
	if len(c.Agents) > 0 {
		return c, nil
	}
	c = AgentChoice{Why: WhyDefault}
	for _, a := range DefaultAgents(in.env) {
		c.Agents = append(c.Agents, Chosen{Agent: a})
	}
	return c, nil
}
