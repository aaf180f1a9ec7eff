package adaptor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Agent runs a driver with a resolved set of skills. Create one with New.
type Agent struct {
	drv          driver.Driver
	refs         []skill.Ref
	provider     skill.Provider
	materializer skill.Materializer
	cacheRoot    string // the materializer's, when it has a Root (see cacheRooted)
	workspace    string
	events       []func(driver.Event)
	threads      ThreadStore
	threadMu     sync.Mutex
	threadLocks  map[string]*threadLock // by thread key, while runs hold or wait
	verdicts     verdicts               // skill contents found loadable
	requires     bool                   // WithRequires given to New
	resolver     skill.RequirementResolver
}

// New returns an Agent that runs d. It panics if d is nil, as that is a
// programming error.
func New(d driver.Driver, opts ...Option) *Agent {
	if d == nil {
		panic("adaptor.New: nil driver")
	}
	var c agentConfig
	for _, o := range opts {
		if o != nil {
			o.applyAgent(&c)
		}
	}
	if c.materializer == nil {
		c.materializer = skill.NewDefaultSkillMaterializer()
	}
	if c.threads == nil {
		c.threads = new(MemoryThreadStore)
	}
	var cacheRoot string
	if cache, ok := c.materializer.(cacheRooted); ok {
		cacheRoot = cache.Root()
	}
	return &Agent{
		drv:          d,
		refs:         c.refs,
		provider:     c.provider,
		materializer: c.materializer,
		cacheRoot:    cacheRoot,
		workspace:    c.workspace,
		events:       c.events,
		threads:      c.threads,
		requires:     c.requires,
		resolver:     c.resolver,
	}
}

// cacheRooted is a materializer that keeps skills under a cache root:
// *skill.Cache, or one that wraps it and forwards Root. The Agent passes
// the root to its driver (driver.Request.CacheRoot), which keeps its
// mounts and managed homes under it, beside the trees they link to.
type cacheRooted interface {
	Root() string
}

// Result is the outcome of one run.
type Result struct {
	// Text is the agent's final answer.
	Text string
	// Skills is the skill set the run was given.
	Skills driver.ResolvedSkills
	// Workspace is the absolute folder the agent worked in.
	Workspace string
	// SessionID identifies the agent's session; pass it to [WithResume]
	// to continue it, or let a [Thread] do that.
	SessionID string
	// Usage is the token usage the agent reports; nil when it reports none.
	Usage *driver.Usage
	// CostUSD is the cost of this run alone, in US dollars, as the agent
	// reports it, also when the run resumes a session; nil when it
	// reports none or the driver cannot tell (see driver.Result.CostUSD).
	CostUSD *float64
	// SessionCostUSD is the cost of the whole session so far, earlier runs
	// of a resumed session included, for an agent that reports such a
	// running total (Claude Code); nil otherwise.
	SessionCostUSD *float64
	// ExitCode is the agent process's exit status.
	ExitCode int
}

// Run resolves the agent's skills together with the run's (see the package
// doc), then runs the driver with prompt. Resolution errors are returned
// before the driver is called, and so is the refusal of a [WithResume]
// whose session ran with other skills or in another workspace; the
// driver's own error is returned as it is. The run's session is recorded
// in the agent's [ThreadStore] (see [SessionKey]).
// Events reach the functions given with [WithEvents] as they happen.
func (a *Agent) Run(ctx context.Context, prompt string, opts ...CallOption) (*Result, error) {
	p, err := a.prepare(ctx, prompt, a.call(opts))
	if err != nil {
		return nil, err
	}
	if p.req.Resume != "" {
		if err := a.checkResume(ctx, p); err != nil {
			return nil, err
		}
	}
	res, err := a.execute(ctx, p)
	return a.recordSession(ctx, p, res, err)
}

// prepared is a run ready for the driver.
type prepared struct {
	req       driver.Request
	workspace string // absolute, also when the request leaves it to the driver
	events    []func(driver.Event)
}

// prepare resolves the skills and the workspace of one run.
func (a *Agent) prepare(ctx context.Context, prompt string, call callConfig) (*prepared, error) {
	resolved, err := a.resolve(ctx, call.refs, call.requires)
	if err != nil {
		return nil, err
	}
	p := &prepared{
		req:    driver.Request{Prompt: prompt, Skills: resolved.skills, Resume: call.resume, CacheRoot: a.cacheRoot},
		events: call.events,
	}
	if call.workspace != "" {
		if p.req.Workspace, err = filepath.Abs(call.workspace); err != nil {
			return nil, fmt.Errorf("agentadaptor: workspace: %w", err)
		}
		p.workspace = p.req.Workspace
	} else if p.workspace, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("agentadaptor: workspace: %w", err)
	}
	if len(p.events) > 0 {
		p.req.Events = p.emit
	}
	return p, nil
}

// emit hands ev to every event function of the run.
func (p *prepared) emit(ev driver.Event) {
	for _, f := range p.events {
		f(ev)
	}
}

// execute runs the driver once.
func (a *Agent) execute(ctx context.Context, p *prepared) (*Result, error) {
	req := p.req
	res, err := a.drv.Run(ctx, &req)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("agentadaptor: driver returned no result and no error")
	}
	return &Result{
		Text:           res.Text,
		Skills:         p.req.Skills,
		Workspace:      p.workspace,
		SessionID:      res.SessionID,
		Usage:          res.Usage,
		CostUSD:        res.CostUSD,
		SessionCostUSD: res.SessionCostUSD,
		ExitCode:       res.ExitCode,
	}, nil
}

func (a *Agent) call(opts []CallOption) callConfig {
	c := callConfig{workspace: a.workspace, events: slices.Clone(a.events), requires: a.requires}
	for _, o := range opts {
		if o != nil {
			o.applyCall(&c)
		}
	}
	return c
}

// SkillReport is the skill set an agent resolves.
type SkillReport struct {
	// Selected is exactly what a run would hand the driver.
	Selected driver.ResolvedSkills
	// Candidates are the provider's catalogue skills that were not selected,
	// sorted by key; empty unless the provider is a skill.Catalog.
	Candidates []skill.Skill
}

// Inspect resolves and materializes the agent's skills, with those of
// opts, as a run would, and returns them without running the driver.
func (a *Agent) Inspect(ctx context.Context, opts ...CallOption) (*SkillReport, error) {
	call := a.call(opts)
	resolved, err := a.resolve(ctx, call.refs, call.requires)
	if err != nil {
		return nil, err
	}
	report := &SkillReport{Selected: resolved.skills}
	if cat, ok := a.provider.(skill.Catalog); ok {
		all, err := cat.Catalogue(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			if _, selected := resolved.keys[s.Key]; !selected {
				report.Candidates = append(report.Candidates, s)
			}
		}
		slices.SortStableFunc(report.Candidates, func(x, y skill.Skill) int { return strings.Compare(x.Key, y.Key) })
	}
	return report, nil
}
