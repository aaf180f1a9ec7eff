package eval

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
)

// Unit is one run of an evaluation: what a process of a Job started
// for that run makes (see the package doc's "Units").
type Unit struct {
	// Index is the unit's place in the order of [Units], from 0.
	Index int `json:"index"`
	// Agent is the id of the agent ([Agent.ID]).
	Agent string `json:"agent"`
	// Case is the case's id.
	Case CaseID `json:"case"`
	// Config is the run's configuration: [WithSkill], or the baseline.
	Config Config `json:"config"`
	// Run is the run's number, from 1.
	Run int `json:"run"`
	// Dir is the unit's run folder in its iteration, slash-separated:
	// [AGENT/]eval-ID/CONFIG[/run-K].
	Dir string `json:"dir"`
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

// UnitResult is the run [Evaluator.RunUnit] made.
type UnitResult struct {
	Unit Unit
	// Iteration is the iteration's folder, Out/iteration-N, and Dir the
	// unit's run folder in it ([Unit.Dir]).
	Iteration, Dir string
	// Grading and Timing are its grading.json and timing.json; a run
	// the agent failed has [Grading.RunError].
	Grading Grading
	Timing  Timing
	// Reused is whether the run was read from the kept runs.
	Reused bool
}

// RunUnit makes unit index of req, as [Units] numbers them, and writes
// its run folder where [Evaluator.Run] writes that run, with no
// benchmark.json (see the package doc's "Units"). It checks req as Run
// does (Jobs aside: one run is made), and an index outside the units
// fails with [ErrInvalidRequest] saying their count. A run the agent
// failed is written, graded as failing, with its [Grading.RunError],
// and is not kept. When ctx ends it before the run finished, nothing
// is written and it returns ctx's error.
func (e *Evaluator) RunUnit(ctx context.Context, req Request, index int) (*UnitResult, error) {
	p, err := e.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	if n := p.plan.count(); index < 0 || index >= n {
		return nil, fmt.Errorf("Index: %w: %d: the evaluation has %d units, 0 to %d", ErrInvalidRequest, index, n, n-1)
	}
	ci := p.plan.caseIndex(index)
	digest, err := filesDigest(ctx, p.skill.dir, p.suite.Evals[ci], ci)
	if err != nil {
		return nil, err
	}
	j := p.job(&req, index, digest)
	iter, it, unlock, err := openOut(ctx, p.out, p.skill.digest, true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Units of one key take turns, across processes, from the run to
	// its folder: the kept run is not replaced while it is linked.
	_, key := j.key()
	kf, err := os.OpenFile(filepath.Join(p.out, runsDir, key+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer kf.Close()
	if err := filelock.Lock(ctx, kf); err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(p.skill.skill.Key, ctx)
		}
		return nil, err
	}
	s := &session{e: e, out: p.out, fresh: req.Fresh}
	d, err := s.runCase(ctx, p.skill, req.Judge, j)
	if d != nil && d.temp {
		defer os.RemoveAll(d.dir)
	}
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, interrupted(p.skill.skill.Key, ctx)
	}
	dir, err := writeUnit(iter, it, d, p.plan)
	if err != nil {
		return nil, err
	}
	return &UnitResult{Unit: p.plan.unit(index), Iteration: iter, Dir: dir, Grading: d.grading, Timing: d.res.timing, Reused: d.res.reused}, nil
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

// agentIndex and caseIndex are the indexes in p.Agents and p.Cases of
// unit i's agent and case.
func (p *plan) agentIndex(i int) int { return i / (len(p.Cases) * 2 * p.Runs) }
func (p *plan) caseIndex(i int) int  { return (i / (2 * p.Runs)) % len(p.Cases) }

// unit is unit i of p, 0 <= i < p.count().
func (p *plan) unit(i int) Unit {
	u := Unit{Index: i, Agent: p.Agents[p.agentIndex(i)], Case: p.Cases[p.caseIndex(i)], Config: WithSkill, Run: i%p.Runs + 1}
	if (i/p.Runs)%2 == 1 {
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
