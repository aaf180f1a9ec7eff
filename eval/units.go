package eval

import (
	"context"
	"fmt"
	"path"
	"strconv"
)

// Unit is one run of an evaluation: what a process of a Job started
// for that run makes (see the package doc's "Units").
type Unit struct {
	// Index is the unit's place in the order of [Units], from 0.
	Index int
	// Agent is the id of the agent ([Agent.ID]).
	Agent string
	// Case is the case's id.
	Case CaseID
	// Config is the run's configuration: [WithSkill], or the baseline.
	Config Config
	// Run is the run's number, from 1.
	Run int
	// Dir is the unit's run folder in its iteration, slash-separated:
	// [AGENT/]eval-ID/CONFIG[/run-K].
	Dir string
}

// Units lists the units of req on the suite s, in the order of the
// package doc's "Units": agents, cases, configurations, runs. It reads
// of req only what fixes the units (the agents' ids, Runs, whether
// Baseline is set), checked as [Evaluator.Run] checks them: a request it
// refuses fails with [ErrInvalidRequest] naming the field.
func Units(s *Suite, req Request) ([]Unit, error) {
	if s == nil || len(s.Evals) == 0 {
		return nil, fmt.Errorf("Skill: %w: the suite holds no case", ErrInvalidRequest)
	}
	p, err := planOf(s, req)
	if err != nil {
		return nil, err
	}
	return p.units(), nil
}

// Units lists the units of req as [Units] does, on the suite of
// req.Skill, which it stages (as Run stages it) and whose
// evals/evals.json it loads (a malformed one fails with
// [ErrInvalidSuite], a missing one with [ErrNoEvals]).
func (e *Evaluator) Units(ctx context.Context, req Request) ([]Unit, error) {
	if req.Skill.Key == "" && req.Skill.Source == nil {
		return nil, fmt.Errorf("Skill: %w: required", ErrInvalidRequest)
	}
	if _, err := planOf(&Suite{Evals: []Case{{}}}, req); err != nil {
		return nil, err // refused before anything is staged
	}
	sk, err := e.stage(ctx, "Skill", req.Skill)
	if err != nil {
		return nil, err
	}
	suite, err := LoadSuite(sk.dir)
	if err != nil {
		return nil, err
	}
	return Units(suite, req)
}

// plan is what fixes an evaluation's units, as iteration.json records
// it: the agents' ids, the case ids in the suite's order, the baseline
// configuration and the runs of each case.
type plan struct {
	Agents   []string `json:"agents"`
	Cases    []CaseID `json:"cases"`
	Baseline Config   `json:"baseline"`
	Runs     int      `json:"runs"`
}

// planOf is the plan of req on s, req checked as Units documents.
func planOf(s *Suite, req Request) (*plan, error) {
	if err := checkAgentIDs(req.Agents); err != nil {
		return nil, err
	}
	if err := checkCounts(req.Runs, req.Jobs); err != nil {
		return nil, err
	}
	p := &plan{Baseline: WithoutSkill, Runs: max(req.Runs, 1)}
	if req.Baseline.Source != nil || req.Baseline.Key != "" {
		p.Baseline = OldSkill
	}
	for _, a := range req.Agents {
		p.Agents = append(p.Agents, a.ID)
	}
	for _, c := range s.Evals {
		p.Cases = append(p.Cases, c.ID)
	}
	return p, nil
}

// count is the number of units of p.
func (p *plan) count() int { return len(p.Agents) * len(p.Cases) * 2 * p.Runs }

// unit is unit i of p, 0 <= i < p.count().
func (p *plan) unit(i int) Unit {
	r, c := p.Runs, len(p.Cases)
	u := Unit{Index: i, Agent: p.Agents[i/(c*2*r)], Case: p.Cases[(i/(2*r))%c], Config: WithSkill, Run: i%r + 1}
	if (i/r)%2 == 1 {
		u.Config = p.Baseline
	}
	u.Dir = p.dir(u.Agent, u.Case, u.Config, u.Run)
	return u
}

// units lists every unit of p, in order.
func (p *plan) units() []Unit {
	us := make([]Unit, p.count())
	for i := range us {
		us[i] = p.unit(i)
	}
	return us
}

// dir is the run folder of a run of p in its iteration, slash-separated:
// [AGENT/]eval-ID/CONFIG[/run-K].
func (p *plan) dir(agent string, id CaseID, config Config, run int) string {
	d := path.Join("eval-"+id.String(), string(config))
	if len(p.Agents) > 1 {
		d = path.Join(agent, d)
	}
	if p.Runs > 1 {
		d = path.Join(d, "run-"+strconv.Itoa(run))
	}
	return d
}
