package eval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"golang.org/x/sync/errgroup"
)

// ErrInvalidRequest is a [Request] or [TriggerRequest] that cannot be
// run: a required field missing, two agents of one id, an id that cannot
// name a folder, an Out that is not a folder or lies in the skill's, a
// skill whose SKILL.md an agent cannot load. Its
// message names the field, as FIELD: invalid evaluation request: WHAT.
var ErrInvalidRequest = errors.New("invalid evaluation request")

// maxRuns is the most runs of each case a Request may ask for.
const maxRuns = 1000

// checkCounts checks a request's Runs and Jobs: neither negative (0
// is the default), Runs at most maxRuns.
func checkCounts(runs, jobs int) error {
	if runs < 0 || runs > maxRuns {
		return fmt.Errorf("Runs: %w: %d: give 0 (the default) to %d runs", ErrInvalidRequest, runs, maxRuns)
	}
	if jobs < 0 {
		return fmt.Errorf("Jobs: %w: %d: may not be negative (0 is 1)", ErrInvalidRequest, jobs)
	}
	return nil
}

// agentIDPattern is what an agent id must be to name a folder.
var agentIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// checkAgents checks the agents of a request: at least one, each with a
// driver and a distinct id usable as a folder name (also on a file
// system that ignores case), none named like a file of the iteration.
func checkAgents(agents []Agent) error {
	if err := checkAgentIDs(agents); err != nil {
		return err
	}
	for i, a := range agents {
		if a.Driver == nil {
			return fmt.Errorf("Agents[%d].Driver: %w: required", i, ErrInvalidRequest)
		}
	}
	return nil
}

// checkAgentIDs checks the agents' ids as checkAgents does, and not
// their drivers.
func checkAgentIDs(agents []Agent) error {
	if len(agents) == 0 {
		return fmt.Errorf("Agents: %w: at least one agent is required", ErrInvalidRequest)
	}
	seen := map[string]int{}
	for i, a := range agents {
		field := fmt.Sprintf("Agents[%d]", i)
		if !agentIDPattern().MatchString(a.ID) {
			return fmt.Errorf("%s.ID: %w: %q cannot name a folder: use letters, digits, dots, dashes and underscores, starting with a letter or digit", field, ErrInvalidRequest, a.ID)
		}
		switch low := strings.ToLower(a.ID); {
		case strings.HasSuffix(low, ".json") || strings.HasPrefix(low, "eval-") || strings.HasPrefix(low, "iteration-"):
			return fmt.Errorf("%s.ID: %w: %q would be taken for a file of the iteration", field, ErrInvalidRequest, a.ID)
		case extract.IsReservedName(a.ID):
			return fmt.Errorf("%s.ID: %w: %q names a device on Windows, not a folder: choose another id", field, ErrInvalidRequest, a.ID)
		}
		if j, ok := seen[strings.ToLower(a.ID)]; ok {
			return fmt.Errorf("%s.ID: %w: %q is the id of Agents[%d] too", field, ErrInvalidRequest, a.ID, j)
		}
		seen[strings.ToLower(a.ID)] = i
	}
	return nil
}

// checkOut checks the folder out against the skills' folders: Out may
// not be inside a skill given by its folder, whose content (and so its
// digest, its iteration and every kept run's key) it would change.
func checkOut(out string, skills ...skill.Skill) (string, error) {
	if out == "" {
		return "", fmt.Errorf("Out: %w: required: the folder the iterations are written in", ErrInvalidRequest)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", fmt.Errorf("Out: %w: %v", ErrInvalidRequest, err)
	}
	real := resolveExisting(abs)
	for _, s := range skills {
		ps, ok := s.Source.(skill.PathSource)
		if !ok {
			continue
		}
		sd, err := filepath.Abs(ps.Path)
		if err != nil {
			continue
		}
		sd = resolveExisting(sd)
		if rel, err := filepath.Rel(sd, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("Out: %w: %s is inside the skill's folder %s: choose a folder outside it (the default is beside it)", ErrInvalidRequest, out, ps.Path)
		}
	}
	return abs, nil
}

// resolveExisting returns p with the links of its longest existing
// prefix resolved.
func resolveExisting(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// begin is the first step of every Run, RunUnit and Triggers: it checks
// what every request has (Skill, Agents, Runs and Jobs), then, through
// more, the caller's own fields, which return the other skills given
// beside the skill; it checks Out against the folders of them all, and
// stages the skill. It returns Out, absolute, and the staged skill.
func (e *Evaluator) begin(ctx context.Context, s skill.Skill, agents []Agent, runs, jobs int, out string, more func() ([]skill.Skill, error)) (string, *staged, error) {
	if s.Key == "" && s.Source == nil {
		return "", nil, fmt.Errorf("Skill: %w: required", ErrInvalidRequest)
	}
	if err := checkAgents(agents); err != nil {
		return "", nil, err
	}
	if err := checkCounts(runs, jobs); err != nil {
		return "", nil, err
	}
	others, err := more()
	if err != nil {
		return "", nil, err
	}
	out, err = checkOut(out, append([]skill.Skill{s}, others...)...)
	if err != nil {
		return "", nil, err
	}
	sk, err := e.stage(ctx, "Skill", s)
	if err != nil {
		return "", nil, err
	}
	return out, sk, nil
}

// openOut is the step of every Run, RunUnit and Triggers once its
// request is checked: it locks out (shared, for a unit), removes the
// workspaces killed processes left, and opens the iteration of the
// skill of content digest. unlock unlocks out.
func openOut(ctx context.Context, out, digest string, shared bool) (iter string, it *iterationFile, unlock func(), err error) {
	unlock, err = lockOut(ctx, out, shared)
	if err != nil {
		return "", nil, nil, err
	}
	sweepWorkspaces()
	iter, it, err = openIteration(out, digest, shared)
	if err != nil {
		unlock()
		return "", nil, nil, err
	}
	return iter, it, unlock, nil
}

// staged is a skill materialized once for a whole Run: its folder and
// content digest.
type staged struct {
	skill       skill.Skill
	dir, digest string
}

func (e *Evaluator) stage(ctx context.Context, field string, s skill.Skill) (*staged, error) {
	dir, digest, err := skillcache.MaterializeContent(ctx, e.cfg.materializer, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return &staged{skill: s, dir: dir, digest: digest}, nil
}

// checkSkillMD reads the SKILL.md of the staged skill s as an agent
// would (as package adaptor checks a skill before a run), and refuses
// one an agent cannot load: every run of it would fail.
func checkSkillMD(field string, s *staged) (*skillmd.Skill, error) {
	md, err := skillmd.ParseDir(s.dir, skillmd.WithMode(skillmd.Lenient))
	if err == nil {
		err = md.Validate()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", field, ErrInvalidRequest,
			&adaptor.InvalidSkillError{Key: s.skill.Key, RuntimeName: filepath.Base(s.dir), Path: s.dir, Err: err})
	}
	return md, nil
}

// session is one Run or Triggers call: what every run of it shares.
type session struct {
	e     *Evaluator
	out   string // absolute
	fresh bool
	mu    sync.Mutex // serializes progress

	// keys serializes the jobs of one run key (two cases of one prompt
	// and files, a baseline of the skill's content): the first makes the
	// run, the others grade it as kept. made holds the keys this session
	// made, which Fresh does not make again.
	keysMu sync.Mutex
	keys   map[string]*sync.Mutex
	made   map[string]bool
}

// lockKey locks the run key for one job, returning the unlock.
func (s *session) lockKey(key string) func() {
	s.keysMu.Lock()
	if s.keys == nil {
		s.keys, s.made = map[string]*sync.Mutex{}, map[string]bool{}
	}
	m := s.keys[key]
	if m == nil {
		m = &sync.Mutex{}
		s.keys[key] = m
	}
	s.keysMu.Unlock()
	m.Lock()
	return m.Unlock
}

// madeHere reports whether this session made the run of key.
func (s *session) madeHere(key string) bool {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	return s.made[key]
}

func (s *session) setMade(key string) {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	s.made[key] = true
}

func (s *session) progress(p Progress) {
	if s.e.cfg.progress == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.e.cfg.progress(p)
}

// doneRun is a run that finished (or was kept), ready for the iteration.
type doneRun struct {
	res     runResult
	dir     string // the folder holding its files
	grading Grading
	temp    bool // dir is not kept: removed once the iteration is written
}

// job is one run of a case to make.
type job struct {
	agent  *Agent
	c      *Case
	index  int    // c's in the suite
	files  string // the digest of the case's files
	config Config
	skill  *staged // nil for without_skill
	run    int
}

// prepared is a Request checked and its skills staged: what Run and
// RunUnit share before a run starts.
type prepared struct {
	out        string // absolute
	skill      *staged
	baseline   *staged // nil for WithoutSkill
	baseConfig Config
	suite      *Suite
	plan       *plan
}

// prepare checks req, stages its skill and baseline and loads the
// suite: everything refused before an agent starts.
func (e *Evaluator) prepare(ctx context.Context, req Request) (*prepared, error) {
	var check []skill.Skill
	out, sk, err := e.begin(ctx, req.Skill, req.Agents, req.Runs, req.Jobs, req.Out, func() ([]skill.Skill, error) {
		if req.Judge != nil && req.Judge.Driver == nil {
			return nil, fmt.Errorf("Judge.Driver: %w: required", ErrInvalidRequest)
		}
		if req.Baseline.Source != nil || req.Baseline.Key != "" {
			check = append(check, req.Baseline)
		}
		return check, nil
	})
	if err != nil {
		return nil, err
	}
	p := &prepared{out: out, skill: sk, baseConfig: WithoutSkill}
	if len(check) > 0 {
		if p.baseline, err = e.stage(ctx, "Baseline", req.Baseline); err != nil {
			return nil, err
		}
		p.baseConfig = OldSkill
	}
	if p.suite, err = LoadSuite(p.skill.dir); err != nil {
		return nil, err
	}
	md, err := checkSkillMD("Skill", p.skill)
	if err != nil {
		return nil, err
	}
	if err := p.suite.CheckName(md.Name); err != nil {
		return nil, err
	}
	if p.baseline != nil {
		if _, err := checkSkillMD("Baseline", p.baseline); err != nil {
			return nil, err
		}
	}
	if p.plan, err = planOf(p.suite, req); err != nil {
		return nil, err
	}
	return p, nil
}

// job is the job of unit i of p, digest the digest of its case's
// files.
func (p *prepared) job(req *Request, i int, digest string) job {
	u := p.plan.unit(i)
	ci := p.plan.caseIndex(i)
	j := job{agent: &req.Agents[p.plan.agentIndex(i)], c: &p.suite.Evals[ci], index: ci, files: digest, config: u.Config, skill: p.skill, run: u.Run}
	if u.Config != WithSkill {
		j.skill = p.baseline
	}
	return j
}

// key is the kept-run key of j, and its digest.
func (j job) key() (runKey, string) {
	rk := runKey{Kind: "case", Skill: j.skill.identity(), Agent: *agentKeyOf(j.agent), Prompt: j.c.Prompt, Files: j.files, Run: j.run}
	return rk, digestOf(rk)
}

// Run runs req's suite and writes the iteration (see the package doc).
// It returns the benchmark of the runs that finished also when ctx ends
// it, with ctx's error.
func (e *Evaluator) Run(ctx context.Context, req Request) (*Benchmark, error) {
	p, err := e.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	out, sk, suite, baseConfig := p.out, p.skill, p.suite, p.baseConfig
	jobs := max(req.Jobs, 1)
	digests := make([]string, len(suite.Evals))
	for i, c := range suite.Evals {
		if digests[i], err = filesDigest(ctx, sk.dir, c, i); err != nil {
			return nil, err
		}
	}
	iter, it, unlock, err := openOut(ctx, out, sk.digest, false)
	if err != nil {
		return nil, err
	}
	defer unlock()

	todo := make([]job, p.plan.count())
	for i := range todo {
		todo[i] = p.job(&req, i, digests[p.plan.caseIndex(i)])
	}
	s := &session{e: e, out: out, fresh: req.Fresh}
	done := make([]*doneRun, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil // nothing starts once stopped
			}
			d, err := s.runCase(gctx, sk, req.Judge, todo[i])
			done[i] = d
			return err
		})
	}
	err = g.Wait()
	defer func() {
		for _, d := range done {
			if d != nil && d.temp {
				os.RemoveAll(d.dir)
			}
		}
	}()
	if err != nil && ctx.Err() == nil {
		return nil, err
	}

	var finished []*doneRun
	for _, d := range done {
		if d != nil {
			finished = append(finished, d)
		}
	}
	ids := make([]string, len(req.Agents))
	for i, a := range req.Agents {
		ids[i] = a.ID
	}
	var results []runResult
	for _, d := range finished {
		results = append(results, d.res)
	}
	bench := benchmarkOfAgents(ids, results, baseConfig)
	bench.Iteration = iter
	bench.Incomplete = len(todo) - len(finished)
	if bench.PerAgent != nil {
		perAgent := len(todo) / len(req.Agents)
		for _, id := range ids {
			n := 0
			for _, r := range results {
				if r.agent == id {
					n++
				}
			}
			bench.PerAgent[id].Incomplete = perAgent - n
		}
	}
	// An interrupted Run writes the iteration only when it adds to it:
	// never fewer runs over more.
	if ctx.Err() == nil || len(finished) > iterationRuns(iter) {
		if werr := writeIteration(iter, it, finished, p.plan, bench); werr != nil {
			return nil, werr
		}
	}
	if ctx.Err() != nil {
		return bench, interrupted(sk.skill.Key, ctx)
	}
	return bench, nil
}

// iterationRuns counts the runs of the iteration dir's benchmark.json;
// without one, the run folders of the plan its iteration.json records
// (units write no benchmark.json), and 0 when it records none.
func iterationRuns(dir string) int {
	var b Benchmark
	if readJSON(filepath.Join(dir, "benchmark.json"), &b) != nil {
		var it iterationFile
		if readJSON(filepath.Join(dir, "iteration.json"), &it) != nil || it.Plan == nil || checkPlan(it.Plan) != "" {
			return 0
		}
		n := 0
		for i := range it.Plan.count() {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(it.Plan.unit(i).Dir), "grading.json")); err == nil {
				n++
			}
		}
		return n
	}
	n := 0
	for _, c := range b.Cases {
		for _, k := range c.Runs {
			n += k
		}
	}
	return n
}

// interrupted is the error of a Run or Triggers ended by ctx.
func interrupted(key string, ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, ctx.Err()) {
		return fmt.Errorf("%s: evaluation stopped: %w", key, cause)
	}
	return fmt.Errorf("%s: evaluation stopped: %w: %w", key, ctx.Err(), cause)
}

// runCase makes or reuses one run of a case. It returns nil and no
// error for a run ctx stopped.
func (s *session) runCase(ctx context.Context, sk *staged, judge *Agent, j job) (*doneRun, error) {
	a, skillDir := j.agent, sk.dir
	rk, key := j.key()
	gkey := s.e.gradingKeyOf(key, *j.c, judge, sk.digest)
	final := filepath.Join(s.out, runsDir, key)
	p := Progress{Agent: a.ID, Case: j.c.ID, Config: j.config, Run: j.run}
	res := runResult{agent: a.ID, caseID: j.c.ID, config: j.config, run: j.run}

	defer s.lockKey(key)()
	if !s.fresh || s.madeHere(key) {
		if _, ok := readMarker(final, key); ok {
			if err := readJSON(filepath.Join(final, "timing.json"), &res.timing); err == nil {
				g, ok, err := s.keptGrading(ctx, skillDir, judge, j, final, gkey, p)
				switch {
				case ctx.Err() != nil:
					return nil, nil
				case err == nil && ok:
					res.grading, res.reused = g, true
					p.State, p.Passed, p.Total = "reused", g.Summary.Passed, g.Summary.Total
					s.progress(p)
					return &doneRun{res: res, dir: final, grading: g}, nil
				}
				// A kept run that cannot be rebuilt (damaged, or of an
				// older layout) is no kept run: it is made again.
				res.timing = Timing{}
			}
		}
	}

	p.State = "started"
	s.progress(p)
	stage, err := os.MkdirTemp(filepath.Join(s.out, runsDir), ".tmp-")
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(stage)
		}
	}()
	ws, release, err := newWorkspace()
	if err != nil {
		return nil, err
	}
	defer release()
	if err := copyCaseFiles(skillDir, ws, *j.c, j.index); err != nil {
		return nil, err
	}
	snap, err := snapshot(ctx, ws)
	if err != nil {
		return nil, ctxOr(ctx, err)
	}
	var refs []skill.Ref
	if j.skill != nil {
		refs = append(refs, j.skill.skill)
	}
	ar, runErr, err := s.runAgentWatched(ctx, a, j.c.Prompt, refs, ws, stage, nil)
	if err != nil {
		return nil, err
	}
	if runErr != nil && ctx.Err() != nil {
		return nil, nil // stopped, not failed
	}
	res.timing = ar.timing
	if runErr == nil {
		runErr = checkDigest(ar.res, j.skill)
	}
	if runErr == nil {
		openUp(ws)
		if err := collectOutputs(ctx, ws, snap, filepath.Join(stage, "outputs"), s.e.cfg.outputs); err != nil {
			if ctx.Err() != nil {
				return nil, nil
			}
			runErr = err
			if err := os.RemoveAll(filepath.Join(stage, "outputs")); err != nil {
				return nil, err // no part of what is over the limit shows
			}
		} else if err := recordDeletions(ws, snap, stage); err != nil {
			return nil, err
		}
	}
	if runErr != nil {
		res.failed = true
		res.grading = failedGrading(*j.c, judge, runErr)
		p.State, p.Err, p.Total = "error", runErr, res.grading.Summary.Total
		s.progress(p)
		keep = true // not kept: removed once the iteration is written
		return &doneRun{res: res, dir: stage, grading: res.grading, temp: true}, nil
	}
	if judge != nil && hasStringExpectation(*j.c) {
		p.State = "judging"
		s.progress(p)
	}
	g, settled := s.e.grade(ctx, judge, skillDir, *j.c, stage, ws, ar.res)
	graded := ctx.Err() == nil
	if graded && settled { // a grading that may pass another time is not kept
		if err := os.Mkdir(filepath.Join(stage, gradingsDir), 0o755); err != nil {
			return nil, err
		}
		if err := writeJSON(filepath.Join(stage, gradingsDir, gkey+".json"), g); err != nil {
			return nil, err
		}
	}
	if err := writeJSON(filepath.Join(stage, runMarker), marker{Key: key, Fields: mustJSON(rk)}); err != nil {
		return nil, err
	}
	if err := publish(stage, final); err != nil {
		return nil, err
	}
	s.setMade(key)
	if !graded {
		return nil, nil // kept, graded by the next Run
	}
	res.grading = g
	p.State, p.Passed, p.Total = verdict(g), g.Summary.Passed, g.Summary.Total
	s.progress(p)
	return &doneRun{res: res, dir: final, grading: g}, nil
}

// keptGrading returns the kept run final's grading of key gkey, grading
// it again in a workspace rebuilt from the case's files and the run's
// outputs when there is none. ok is false when ctx stopped the grading.
func (s *session) keptGrading(ctx context.Context, skillDir string, judge *Agent, j job, final, gkey string, p Progress) (Grading, bool, error) {
	var g Grading
	name := filepath.Join(final, gradingsDir, gkey+".json")
	if (!s.fresh || s.madeHere(filepath.Base(final))) && readJSON(name, &g) == nil {
		return g, true, nil
	}
	ws, release, err := newWorkspace()
	if err != nil {
		return g, false, err
	}
	defer release()
	if err := copyCaseFiles(skillDir, ws, *j.c, j.index); err != nil {
		return g, false, err
	}
	if err := applyDeletions(final, ws); err != nil {
		return g, false, err
	}
	if err := overlay(ctx, filepath.Join(final, "outputs"), ws); err != nil {
		return g, false, ctxOr(ctx, err)
	}
	text, err := readSmall(filepath.Join(final, "response.md"))
	if err != nil {
		return g, false, err
	}
	if judge != nil && hasStringExpectation(*j.c) {
		p.State = "judging"
		s.progress(p)
	}
	g, settled := s.e.grade(ctx, judge, skillDir, *j.c, final, ws, &adaptor.Result{Text: string(text), Workspace: ws})
	if ctx.Err() != nil {
		return g, false, nil
	}
	if !settled {
		return g, true, nil // graded again by the next Run
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return g, false, err
	}
	return g, true, writeJSON(name, g)
}

// agentRun is what runAgent made of one run of an agent.
type agentRun struct {
	res    *adaptor.Result
	timing Timing
}

// runAgentWatched runs agent a on prompt with the skills refs in the workspace
// ws, writing its transcript.jsonl, response.md and timing.json into
// dir, and passing each event to watch too when it is not nil. runErr
// is the agent's failure; err is a failure to write.
func (s *session) runAgentWatched(ctx context.Context, a *Agent, prompt string, refs []skill.Ref, ws, dir string, watch func(driver.Event)) (ar agentRun, runErr, err error) {
	tf, err := os.OpenFile(filepath.Join(dir, "transcript.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return ar, nil, err
	}
	w := bufio.NewWriter(tf)
	var werr error
	written, tooLong := int64(0), false
	events := func(ev driver.Event) {
		if watch != nil {
			watch(ev)
		}
		if werr != nil || tooLong {
			return
		}
		line, err := driver.MarshalEvent(ev)
		if err != nil {
			werr = err
			return
		}
		if written += int64(len(line)) + 1; written > keptFileLimit {
			tooLong = true // the rest is left out, and the run fails
			return
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			werr = err
		}
	}
	agent := adaptor.New(a.Driver, adaptor.WithSkillMaterializer(s.e.cfg.materializer), adaptor.WithSkills(refs...), adaptor.WithWorkspace(ws), adaptor.WithEvents(events))
	start := time.Now()
	res, runErr := agent.Run(ctx, prompt)
	ar.timing.DurationMS = time.Since(start).Milliseconds()
	if werr == nil {
		werr = w.Flush()
	}
	if err := errors.Join(werr, tf.Close()); err != nil {
		return ar, nil, err
	}
	text := ""
	if runErr == nil {
		if res == nil {
			runErr = errors.New("the agent returned no result")
		} else {
			text = res.Text
			if res.Usage != nil {
				ar.timing.TotalTokens = res.Usage.InputTokens + res.Usage.OutputTokens
			}
		}
	}
	ar.res = res
	if runErr == nil && len(text) > keptFileLimit {
		runErr = fmt.Errorf("response.md: %w: the agent's answer is larger than %d bytes", errTooLarge, keptFileLimit)
		text = ""
	}
	if runErr == nil && tooLong {
		runErr = fmt.Errorf("transcript.jsonl: %w: the agent's events are larger than %d bytes", errTooLarge, keptFileLimit)
	}
	if err := os.WriteFile(filepath.Join(dir, "response.md"), []byte(text), 0o644); err != nil {
		return ar, nil, err
	}
	return ar, runErr, writeJSON(filepath.Join(dir, "timing.json"), ar.timing)
}

// checkDigest fails a run whose skill was not the content the Run
// staged: the skill changed while it ran.
func checkDigest(res *adaptor.Result, s *staged) error {
	if s == nil {
		return nil
	}
	for _, e := range res.Skills.Entries {
		if e.Key == s.skill.Key && e.Digest != "" && e.Digest != s.digest {
			return fmt.Errorf("%s: the skill changed during the evaluation (content %s, staged %s): run it again", e.Key, e.Digest, s.digest)
		}
	}
	return nil
}

// identity is what a kept run's key holds of a staged skill: its
// content digest, and its key and metadata (which give its runtime
// name); "" for none.
func (s *staged) identity() string {
	if s == nil {
		return ""
	}
	return digestOf(struct {
		Key      string            `json:"key"`
		Metadata map[string]string `json:"metadata"`
		Digest   string            `json:"digest"`
	}{s.skill.Key, s.skill.Metadata, s.digest})
}

func hasCommand(c Case) bool {
	for _, x := range c.Expectations {
		if x.Command != nil {
			return true
		}
	}
	return false
}

func hasStringExpectation(c Case) bool {
	for _, x := range c.Expectations {
		if x.Command == nil {
			return true
		}
	}
	return false
}

// verdict is a finished run's progress state: "not graded" when no
// expectation was graded (none, or string ones without a judge), passed
// when every graded expectation passed.
func verdict(g Grading) string {
	if g.Summary.Total == 0 {
		return "not graded"
	}
	if g.Summary.Failed == 0 {
		return "passed"
	}
	return "failed"
}

// ctxOr returns ctx's error when it is done, else err.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
