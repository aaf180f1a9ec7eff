package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
	"golang.org/x/sync/errgroup"
)

// triggerRun is one finished run of a query.
type triggerRun struct {
	agent     string
	query     int
	triggered bool
	failed    bool
}

// Triggers runs req's trigger queries and writes triggers.json in the
// iteration (see the package doc). Each run's workspace is empty. A run
// the agent failed counts in [AgentTriggers.Failed] and in no rate, and
// is not kept. It returns what the runs that finished show also when ctx
// ends it, with ctx's error.
func (e *Evaluator) Triggers(ctx context.Context, req TriggerRequest) (*Triggers, error) {
	var others []skill.Skill
	out, sk, err := e.begin(ctx, req.Skill, req.Agents, req.Runs, req.Jobs, req.Out, func() ([]skill.Skill, error) {
		for i, r := range req.Others {
			s, ok := r.(skill.Skill)
			if !ok {
				return nil, fmt.Errorf("Others[%d]: %w: %v is a provider's key: give the skill itself (skill.Dir, ...)", i, ErrInvalidRequest, r)
			}
			if s.Key == req.Skill.Key {
				return nil, fmt.Errorf("Others[%d]: %w: key %q is the evaluated skill's", i, ErrInvalidRequest, s.Key)
			}
			others = append(others, s)
		}
		return others, nil
	})
	if err != nil {
		return nil, err
	}
	runs, jobs := req.Runs, max(req.Jobs, 1)
	if runs == 0 {
		runs = 3
	}
	otherDigests := make([]string, len(others))
	for i, o := range others {
		st, err := e.stage(ctx, fmt.Sprintf("Others[%d]", i), o)
		if err != nil {
			return nil, err
		}
		otherDigests[i] = st.identity()
	}
	slices.Sort(otherDigests) // the agent sees them in no order
	queries, err := LoadQueries(sk.dir)
	if err != nil {
		return nil, err
	}
	iter, _, unlock, err := openOut(ctx, out, sk.digest, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	refs := append([]skill.Ref{req.Skill}, req.Others...)

	type tjob struct {
		agent *Agent
		query int
		run   int
	}
	var todo []tjob
	for i := range req.Agents {
		for q := range queries {
			for k := 1; k <= runs; k++ {
				todo = append(todo, tjob{&req.Agents[i], q, k})
			}
		}
	}
	s := &session{e: e, out: out, fresh: req.Fresh}
	done := make([]*triggerRun, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			j := todo[i]
			key := triggerKey{Kind: "trigger", Skill: sk.identity(), Others: otherDigests, Agent: *agentKeyOf(j.agent), Query: queries[j.query].Query, Run: j.run}
			d, err := s.runQuery(gctx, sk, refs, j.agent, key, j.query, queries[j.query])
			done[i] = d
			return err
		})
	}
	if err := g.Wait(); err != nil && ctx.Err() == nil {
		return nil, err
	}
	t := &Triggers{Agents: map[string]AgentTriggers{}, Iteration: iter}
	for _, a := range req.Agents {
		var at AgentTriggers
		at.Queries = make([]QueryResult, len(queries))
		for q, query := range queries {
			at.Queries[q] = QueryResult{Query: query.Query, ShouldTrigger: query.ShouldTrigger}
		}
		for _, d := range done {
			if d == nil || d.agent != a.ID {
				continue
			}
			if d.failed {
				at.Failed++
				continue
			}
			at.Queries[d.query].Runs++
			if d.triggered {
				at.Queries[d.query].Triggers++
			}
		}
		rateTriggers(&at)
		t.Agents[a.ID] = at
	}
	if err := writeJSON(filepath.Join(iter, "triggers.json"), t); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return t, interrupted(sk.skill.Key, ctx)
	}
	return t, nil
}

// rateTriggers fills in each query's rate and verdict, and the agent's
// precision and recall: a query counts as triggered when its rate is at
// least 0.5; precision is the queries that should trigger among those
// triggered, recall those triggered among those that should; either is
// 0 when nothing is counted (no query triggered, no query should). A
// query without a finished run has rate 0.
func rateTriggers(at *AgentTriggers) {
	tp, fp, fn := 0, 0, 0
	for i := range at.Queries {
		q := &at.Queries[i]
		if q.Runs > 0 {
			q.TriggerRate = float64(q.Triggers) / float64(q.Runs)
		}
		triggered := q.Runs > 0 && q.TriggerRate >= 0.5
		q.Passed = q.Runs > 0 && triggered == q.ShouldTrigger
		switch {
		case triggered && q.ShouldTrigger:
			tp++
		case triggered:
			fp++
		case q.ShouldTrigger:
			fn++
		}
	}
	if tp+fp > 0 {
		at.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		at.Recall = float64(tp) / float64(tp+fn)
	}
}

// runQuery makes or reuses one run of a query.
func (s *session) runQuery(ctx context.Context, sk *staged, refs []skill.Ref, a *Agent, k triggerKey, qi int, q Query) (*triggerRun, error) {
	key := digestOf(k)
	final := filepath.Join(s.out, runsDir, key)
	p := Progress{Agent: a.ID, Query: qi, Config: WithSkill, Run: k.Run}
	d := &triggerRun{agent: a.ID, query: qi}
	if !s.fresh {
		if m, ok := readMarker(final, key); ok && m.Trigger != nil {
			d.triggered = *m.Trigger
			p.State = "reused"
			s.progress(p)
			return d, nil
		}
	}
	p.State = "started"
	s.progress(p)
	stage, err := os.MkdirTemp(filepath.Join(s.out, runsDir), ".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage) // gone once published
	ws, release, err := newWorkspace()
	if err != nil {
		return nil, err
	}
	defer release()
	var mu sync.Mutex
	var loaded []string
	watch := func(ev driver.Event) {
		if se, ok := ev.(*driver.SkillEvent); ok {
			mu.Lock()
			loaded = append(loaded, se.Name)
			mu.Unlock()
		}
	}
	ar, runErr, err := s.runAgentWatched(ctx, a, q.Query, refs, ws, stage, watch)
	if err != nil {
		return nil, err
	}
	if runErr != nil && ctx.Err() != nil {
		return nil, nil
	}
	if runErr == nil {
		runErr = checkDigest(ar.res, sk)
	}
	if runErr != nil {
		d.failed = true
		p.State, p.Err = "error", runErr
		s.progress(p)
		return d, nil
	}
	name := ""
	for _, e := range ar.res.Skills.Entries {
		if e.Key == sk.skill.Key {
			name = e.RuntimeName
		}
	}
	mu.Lock()
	for _, l := range loaded {
		if name != "" && l == name {
			d.triggered = true
		}
	}
	mu.Unlock()
	trig := d.triggered
	if err := writeJSON(filepath.Join(stage, runMarker), marker{Key: key, Fields: mustJSON(k), Trigger: &trig}); err != nil {
		return nil, err
	}
	if err := publish(stage, final); err != nil {
		return nil, err
	}
	p.State = queryState(d.triggered, q)
	s.progress(p)
	return d, nil
}

// queryState is a query run's progress state: passed when it triggered
// as the query should.
func queryState(triggered bool, q Query) string {
	if triggered == q.ShouldTrigger {
		return "passed"
	}
	return "failed"
}
