package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/skill"
)

// evalOptions are the options of eval.
type evalOptions struct {
	io         *streams
	agents     []string
	runs       int
	runsGiven  bool
	baseline   string
	judge      string
	out        string
	jobs       int
	fresh      bool
	json       bool
	quiet      bool
	others     []string
	model      string
	timeout    time.Duration
	runTimeout time.Duration
	index      int // --index, when indexGiven
	indexGiven bool
	collect    string // --collect DIR
	agentFlags
	trust       trustFlags
	emitFlags   emitFlags
	outputClaim string
}

// maxRuns is the largest --runs: each run is an agent's session, and a
// larger count is a typo, not an evaluation that would ever finish.
const maxRuns = 1000

// versionTimeout bounds the agent program's --version.
const versionTimeout = 30 * time.Second

const evalLong = `Eval runs a skill's evaluations, as the Agent Skills guides "Evaluating
skill output quality" and "Optimizing descriptions" lay them out, on one
agent or several, each run headless with exactly the skills its
configuration names: whether the skill helps, before it is installed or
updated. The guide, with a complete example: docs/eval.md.

SKILL is a skill folder, or any source add takes that holds exactly one
skill (found, fetched and checked as run does, with run's trust checks).
Its evals/evals.json cases run in two configurations, with_skill and the
baseline: --baseline none (the default) runs without_skill, no skill at
all; --baseline PATH runs old_skill, the skill of that source; --baseline
lock runs old_skill with the content the project's lock file records for
the skill's name. Its evals/eval_queries.json queries run --runs times
(default 3) with the skill among the skills of --skill, for trigger
precision and recall. Without either file, or with one malformed (a case
without a prompt, a file outside the skill), eval exits 2 naming the
file, the case and the field, before any agent starts.

--agent defaults to the agents the project's lock file records that eval
can run. String expectations are graded by --judge (default: the first
agent); --judge none leaves them ungraded, as the summary says. Every
flag of run that shapes a run applies to each run; --run-timeout bounds
each one.

The iterations go to --out (default: NAME-workspace beside a skill
folder, else in the current folder): iteration-N/eval-ID/CONFIG/ with
outputs/, response.md, transcript.jsonl, timing.json and grading.json,
and iteration-N/benchmark.json. Finished runs are kept: the same command
again reuses them, so an interrupted eval resumes where it stopped and a
larger --runs costs only the new runs; --fresh runs everything again.

--index N makes only unit N of evals/evals.json, and writes its run
folder where the whole eval writes it, without benchmark.json: one unit
per pod of a Kubernetes Indexed Job, all writing into one --out. Units
are numbered from 0: the agents in --agent's order, the cases in the
file's order, with_skill then the baseline, runs 1 to --runs. An N past
the last unit is bad usage (exit 2), saying how many there are; the
trigger queries are not run. Then eval --collect DIR (no SKILL) reads the
run folders in DIR (the shared --out, or a copy of it) and writes each
iteration's benchmark.json, the numbers the whole eval writes; a unit
missing or malformed is left out, named on stderr, and counted in the
benchmark's "incomplete" (exit 1).

Progress goes to stderr, one line per finished run (--quiet turns it
off); then a summary per agent: pass rates, the delta with its 95%
interval, time, tokens, the cases flagged as telling nothing, and where
the iteration is. --json prints one JSON document on stdout instead of
the summary; a failure ends stdout with the error line (a failure
before the evaluation prints only that line).

Exit codes: 0 every run finished (whatever the delta), 1 a run the agent
failed or --run-timeout stopped (the summary counts them; the same
command runs them again), a check or a download failed, 2 bad usage or
input (--runs outside 1 to 1000, --out inside the skill's folder, also
through a link), 130 interrupted (the finished runs are kept: run the
same command to resume).`

func newEvalCmd(s *streams) *cobra.Command {
	opts := &evalOptions{io: s}
	opts.agentFlags.cmdName = "eval"
	cmd := &cobra.Command{
		Use:   "eval SKILL",
		Short: "Run a skill's evaluations, with and without it, on each agent",
		Long:  evalLong + "\n\n" + runTrustHelp + "\n\n" + emitEvalHelp,
		Example: `  agentskills eval ./skills/review --agent claude-code --runs 3
  agentskills eval ./skills/review --agent claude-code,codex --baseline lock
  agentskills eval ./skills/review --judge none --json`,
		Args: countArgs("SKILL", 0, 1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.runsGiven = cmd.Flags().Changed("runs")
			opts.indexGiven = cmd.Flags().Changed("index")
			if opts.emitFlags.emit != "" || opts.outputClaim != "" {
				if opts.emitFlags.emit == "" {
					return usageErrorf("--output-claim is the claim of the Job --emit prints: give --emit kubernetes")
				}
				if cmd.Flags().Changed("collect") {
					return usageErrorf("--collect reads what the Job's pods wrote, once it has finished: run it on its own, without --emit")
				}
				if len(args) == 0 {
					return usageErrorf("missing SKILL")
				}
				return emitEval(cmd.Context(), opts, args[0])
			}
			if err := opts.emitFlags.check(); err != nil {
				return err
			}
			if cmd.Flags().Changed("collect") {
				switch {
				case len(args) > 0:
					return usageErrorf("--collect DIR reads the run folders in DIR, and takes no SKILL (give one or the other)")
				case opts.indexGiven:
					return usageErrorf("--collect and --index cannot be given together: the units write run folders, --collect reads them")
				}
				return runEvalCollect(opts, opts.collect)
			}
			if len(args) == 0 {
				return usageErrorf("missing SKILL")
			}
			return runEval(cmd.Context(), opts, args[0])
		}),
	}
	f := cmd.Flags()
	f.StringSliceVarP(&opts.agents, "agent", "a", nil, "the agents to evaluate on, comma-separated: "+runAgents(", ")+" (default: those the lock file records)")
	f.IntVar(&opts.runs, "runs", 1, "runs of each case in each configuration (trigger queries: 3 unless given)")
	f.StringVar(&opts.baseline, "baseline", "none", "the baseline: none (no skill), PATH (that skill), or lock (the content the lock file records)")
	f.StringVar(&opts.judge, "judge", "", "the agent that grades string expectations, or none (default: the first agent)")
	f.StringVarP(&opts.out, "out", "o", "", "the folder of the iterations (default: NAME-workspace beside the skill folder)")
	f.IntVar(&opts.jobs, "jobs", 1, "runs at a time")
	f.BoolVar(&opts.fresh, "fresh", false, "run everything again, reusing no finished run")
	f.BoolVar(&opts.json, "json", false, "print one JSON document: the benchmark and the trigger results")
	f.BoolVarP(&opts.quiet, "quiet", "q", false, "print no progress on stderr")
	f.StringArrayVarP(&opts.others, "skill", "s", nil, "another skill source given beside the skill in the trigger evaluations (repeatable)")
	f.StringVarP(&opts.model, "model", "m", "", "the model to use (default: the agent's)")
	f.DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up fetching a skill source that receives nothing for this long")
	f.DurationVar(&opts.runTimeout, "run-timeout", 0, "stop each run, the agent included, after this long (default: no limit)")
	f.StringVar(&opts.collect, "collect", "", "write benchmark.json from the run folders the units wrote in DIR (an --out, or one iteration of it), instead of running")
	f.IntVar(&opts.index, "index", 0, "make only unit N of evals/evals.json, from 0, and write its run folder, not the benchmark (a Kubernetes Indexed Job's completion index; see docs/eval.md)")
	opts.agentFlags.register(cmd)
	registerRunTrust(cmd, &opts.trust)
	opts.emitFlags.register(cmd, "kubernetes (an Indexed Job of one pod per run)")
	f.StringVar(&opts.outputClaim, "output-claim", "", "with --emit: the PersistentVolumeClaim the pods write their run folders into (required with --emit)")
	return cmd
}

// evalOutput is what eval --json prints.
type evalOutput struct {
	Skill     string `json:"skill"`
	Out       string `json:"out"`
	Iteration string `json:"iteration,omitempty"`
	// Agents are the agents evaluated, with their versions.
	Agents    []evalAgentInfo            `json:"agents"`
	Judge     string                     `json:"judge,omitempty"`
	Baseline  eval.Config                `json:"baseline,omitempty"`
	Benchmark *eval.Benchmark            `json:"benchmark,omitempty"`
	PerAgent  map[string]*eval.Benchmark `json:"per_agent,omitempty"`
	Triggers  *eval.Triggers             `json:"triggers,omitempty"`
	// Unit is the unit --index made.
	Unit *evalUnitOutput `json:"unit,omitempty"`
}

type evalAgentInfo struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Model   string `json:"model,omitempty"`
}

// evalPlan is what runEval found before any agent starts.
type evalPlan struct {
	skill    skill.Skill
	name     string
	dir      string
	suite    *eval.Suite
	queries  []eval.Query
	baseline skill.Skill
	others   []skill.Ref
	out      string
	trust    *runTrust
	env      install.Env // the user's environment the skills were found in
}

func runEval(ctx context.Context, opts *evalOptions, src string) error {
	if err := opts.check(); err != nil {
		return err
	}
	plan, err := opts.plan(ctx, src)
	if err != nil {
		return interrupted(ctx, err)
	}
	m := plan.trust.materializer()
	if err := plan.checkTrust(ctx, m); err != nil {
		return interrupted(ctx, err)
	}
	if opts.indexGiven {
		if err := opts.checkIndex(ctx, plan); err != nil {
			return interrupted(ctx, err)
		}
	}
	agents, judge, err := opts.evalAgents(ctx, plan.env, nil)
	if err != nil {
		return interrupted(ctx, err)
	}
	progress := newEvalProgress("eval", opts.io.err, opts.quiet || opts.json)
	ev := eval.New(eval.WithMaterializer(m), eval.WithProgress(progress.step))
	res := evalOutput{Skill: plan.name, Out: plan.out, Agents: agentInfos(agents)}
	if judge != nil {
		res.Judge = judge.ID
	}
	if opts.indexGiven {
		return opts.runUnit(ctx, ev, plan, agents, judge, &res, progress)
	}
	failed := 0
	if plan.suite != nil {
		res.Baseline = eval.WithoutSkill
		if plan.baseline.Source != nil {
			res.Baseline = eval.OldSkill
		}
		b, err := ev.Run(ctx, eval.Request{Skill: plan.skill, Agents: agents, Runs: opts.runs, Baseline: plan.baseline,
			Judge: judge, Out: plan.out, Jobs: opts.jobs, Fresh: opts.fresh})
		if err != nil {
			return evalStopped(ctx, err, plan.out, progress)
		}
		res.Benchmark, res.PerAgent, res.Iteration = b, b.PerAgent, b.Iteration
		failed += b.Failed
	}
	if len(plan.queries) > 0 {
		runs := opts.runs
		if !opts.runsGiven {
			runs = 0 // the package's default, as the guide suggests
		}
		tr, err := ev.Triggers(ctx, eval.TriggerRequest{Skill: plan.skill, Others: plan.others, Agents: agents, Runs: runs,
			Out: plan.out, Jobs: opts.jobs, Fresh: opts.fresh})
		if err != nil {
			return evalStopped(ctx, err, plan.out, progress)
		}
		res.Triggers = tr
		if res.Iteration == "" {
			res.Iteration = tr.Iteration
		}
		for _, a := range tr.Agents {
			failed += a.Failed
		}
	}
	if opts.json {
		if err := writeJSON(opts.io, res); err != nil {
			return err
		}
	} else {
		printEvalSummary(opts.io.out, &res)
	}
	if failed > 0 {
		msg := fmt.Sprintf("%d %s failed (the agent could not finish %s); they are not kept: run the same command to run them again",
			failed, plural(failed, "run", "runs"), plural(failed, "it", "them"))
		if !opts.json {
			fmt.Fprintf(opts.io.err, "agentskills eval: %s\n", msg)
		}
		return reported(msg)
	}
	return nil
}

// check refuses flag values that cannot be right, before anything is read.
func (opts *evalOptions) check() error {
	switch {
	case opts.indexGiven && opts.index < 0:
		return usageErrorf("--index %d is negative: give a unit's index, from 0", opts.index)
	case opts.runs < 1 || opts.runs > maxRuns:
		return usageErrorf("--runs %d: give 1 to %d runs", opts.runs, maxRuns)
	case opts.jobs < 1:
		return usageErrorf("--jobs %d: give 1 or more", opts.jobs)
	case opts.runTimeout < 0:
		return usageErrorf("--run-timeout %s is negative: give a duration such as 10m, or 0 for no limit", opts.runTimeout)
	case opts.baseline == "":
		return usageErrorf("--baseline is empty: give none, lock or the path of the earlier skill")
	}
	for i, id := range opts.agents {
		if _, ok := runnable(id); !ok {
			return usageErrorf("cannot evaluate on agent %q: eval runs %s", id, runAgents(", "))
		}
		if slices.Contains(opts.agents[:i], id) {
			return usageErrorf("--agent %s is given twice", id)
		}
	}
	if opts.judge != "" && opts.judge != "none" {
		if _, ok := runnable(opts.judge); !ok {
			return usageErrorf("--judge %q: give one of %s, or none", opts.judge, runAgents(", "))
		}
	}
	return nil
}

// plan finds the skill, its evaluations, the baseline and the other
// skills, and where the iterations go: everything eval reads before an
// agent starts. It reads the user's environment and the working folder,
// as run and eval (and their --emit) find skills from there.
func (opts *evalOptions) plan(ctx context.Context, src string) (*evalPlan, error) {
	env, err := install.CurrentEnv()
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	sources := append([]string{src}, opts.others...)
	if opts.baseline != "none" && opts.baseline != "lock" {
		sources = append(sources, opts.baseline)
	}
	tr, err := loadRunTrust(ctx, &opts.trust, sources, env, cwd, opts.timeout)
	if err != nil {
		return nil, err
	}
	finder := install.New(env, install.WithDownloadTimeout(opts.timeout), install.WithSettingNames(settingFlags))
	p := &evalPlan{trust: tr, env: env}
	if p.skill, err = oneSkill(ctx, tr, finder, "SKILL", src); err != nil {
		return nil, err
	}
	p.name, p.dir = p.skill.Key, skillFolder(p.skill)
	suite, err := eval.LoadSuite(p.dir)
	switch {
	case errors.Is(err, eval.ErrNoEvals):
	case err != nil:
		return nil, inputError{err}
	default:
		p.suite = suite
	}
	queries, err := eval.LoadQueries(p.dir)
	switch {
	case errors.Is(err, eval.ErrNoEvals):
	case err != nil:
		return nil, inputError{err}
	default:
		p.queries = queries
	}
	if p.suite == nil && len(p.queries) == 0 {
		return nil, inputError{fmt.Errorf("%s: %w: the skill has neither evals/evals.json nor evals/eval_queries.json (see docs/eval.md for their shape)", src, eval.ErrNoEvals)}
	}
	switch {
	case p.suite == nil && opts.baseline != "none":
		return nil, usageErrorf("--baseline is the baseline of evals/evals.json, and %s has none (only evals/eval_queries.json)", src)
	case len(p.queries) == 0 && len(opts.others) > 0:
		return nil, usageErrorf("--skill gives the other skills of the trigger evaluations, and %s has no evals/eval_queries.json", src)
	}
	if p.suite != nil {
		if p.baseline, err = opts.baselineSkill(ctx, tr, finder, p.name); err != nil {
			return nil, err
		}
	}
	if len(p.queries) > 0 && len(opts.others) > 0 {
		if p.others, err = tr.findSkills(ctx, finder, opts.others); err != nil {
			return nil, findErr(err)
		}
	}
	if p.out, err = evalOut(opts.out, src, p.dir, p.name); err != nil {
		return nil, err
	}
	if inside(p.dir, p.out) {
		// The iterations would become part of the skill, and change its
		// content digest with every run.
		return nil, usageErrorf("--out %s is inside the skill's folder %s: give a folder outside it", opts.out, p.dir)
	}
	if inside(resolved(p.dir), resolved(p.out)) {
		return nil, usageErrorf("--out %s leads through a link into the skill's folder %s: give a folder outside it", opts.out, p.dir)
	}
	if fi, err := os.Stat(p.out); err == nil && !fi.IsDir() {
		return nil, usageErrorf("--out %s is not a folder", opts.out)
	}
	return p, nil
}

// evalRequest is the request of plan on agents.
func (opts *evalOptions) evalRequest(plan *evalPlan, agents []eval.Agent, judge *eval.Agent) eval.Request {
	return eval.Request{Skill: plan.skill, Agents: agents, Runs: opts.runs, Baseline: plan.baseline,
		Judge: judge, Out: plan.out, Jobs: opts.jobs, Fresh: opts.fresh}
}

// checkIndex refuses an --index that names no unit of plan, before any
// agent's program is asked its version.
func (opts *evalOptions) checkIndex(ctx context.Context, plan *evalPlan) error {
	if plan.suite == nil {
		return usageErrorf("--index names a unit of evals/evals.json, and %s has none (only evals/eval_queries.json)", plan.name)
	}
	ids := opts.agents
	if len(ids) == 0 {
		var err error
		if ids, err = lockedAgents(ctx, nil); err != nil {
			return err
		}
	}
	var agents []eval.Agent
	for _, id := range ids {
		agents = append(agents, eval.Agent{ID: id})
	}
	units, err := eval.Units(plan.suite, opts.evalRequest(plan, agents, nil))
	if err != nil {
		if len(ids) == 0 {
			return usageErrorf("missing --agent: the lock file records no agent eval runs (give one or more of %s)", runAgents(", "))
		}
		return inputError{err}
	}
	if opts.index >= len(units) {
		return usageErrorf("--index %d: the evaluation has %d units (%d %s, %d %s, 2 configurations, %d %s): give 0 to %d",
			opts.index, len(units), len(agents), plural(len(agents), "agent", "agents"), len(plan.suite.Evals),
			plural(len(plan.suite.Evals), "case", "cases"), opts.runs, plural(opts.runs, "run", "runs"), len(units)-1)
	}
	return nil
}

// evalUnitOutput is what eval --index --json prints beside the skill
// and the agents.
type evalUnitOutput struct {
	eval.Unit
	// Folder is the unit's run folder.
	Folder  string       `json:"folder"`
	Grading eval.Grading `json:"grading"`
	Timing  eval.Timing  `json:"timing"`
	Reused  bool         `json:"reused,omitempty"`
}

// runUnit makes the unit of --index and says where its run folder is.
func (opts *evalOptions) runUnit(ctx context.Context, ev *eval.Evaluator, plan *evalPlan, agents []eval.Agent, judge *eval.Agent, res *evalOutput, progress *evalProgress) error {
	u, err := ev.RunUnit(ctx, opts.evalRequest(plan, agents, judge), opts.index)
	if err != nil {
		return evalStopped(ctx, err, plan.out, progress)
	}
	res.Unit = &evalUnitOutput{Unit: u.Unit, Folder: u.Dir, Grading: u.Grading, Timing: u.Timing, Reused: u.Reused}
	res.Iteration = u.Iteration
	if opts.json {
		if err := writeJSON(opts.io, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(opts.io.out, "Unit %d (%s eval-%s %s run %d): %s\n", u.Unit.Index, u.Unit.Agent, u.Unit.Case, u.Unit.Config, u.Unit.Run, shortPath(u.Dir))
	}
	if u.Grading.RunError != "" {
		msg := "the run failed (the agent could not finish it); it is not kept: run the same command to run it again"
		if !opts.json {
			fmt.Fprintf(opts.io.err, "agentskills eval: %s\n", msg)
		}
		return reported(msg)
	}
	return nil
}

// evalCollected is one iteration eval --collect --json prints.
type evalCollected struct {
	Iteration string                     `json:"iteration"`
	Agents    []string                   `json:"agents"`
	Baseline  eval.Config                `json:"baseline"`
	Units     int                        `json:"units"`
	Benchmark *eval.Benchmark            `json:"benchmark,omitempty"`
	PerAgent  map[string]*eval.Benchmark `json:"per_agent,omitempty"`
}

// runEvalCollect writes the benchmarks of the iterations in dir from
// their run folders, prints their summaries, and reports the run
// folders left out (exit 1, the benchmarks written without them).
func runEvalCollect(opts *evalOptions, dir string) error {
	if dir == "" {
		return usageErrorf("--collect is empty: give the folder the units wrote in (their --out)")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("--collect %s is not a folder: give the folder the units wrote in (their --out)", dir)
	}
	cols, err := eval.Collect(dir)
	if err != nil && !errors.Is(err, eval.ErrInvalidRun) {
		return err
	}
	if len(cols) == 0 && err == nil {
		return inputError{fmt.Errorf("%s holds no iteration of units to collect (iteration-N folders whose iteration.json records their plan)", dir)}
	}
	if opts.json {
		var doc struct {
			Iterations []evalCollected `json:"iterations"`
		}
		doc.Iterations = []evalCollected{}
		for _, c := range cols {
			ec := evalCollected{Iteration: c.Iteration, Agents: c.Agents, Baseline: c.Baseline, Units: c.Units, Benchmark: c.Benchmark}
			if c.Benchmark != nil {
				ec.PerAgent = c.Benchmark.PerAgent
			}
			doc.Iterations = append(doc.Iterations, ec)
		}
		if werr := writeJSON(opts.io, doc); werr != nil {
			return werr
		}
	} else {
		for i, c := range cols {
			if i > 0 {
				fmt.Fprintln(opts.io.out)
			}
			if c.Benchmark == nil {
				fmt.Fprintf(opts.io.out, "Iteration: %s: none of its %d units could be counted; no benchmark.json written\n", shortPath(c.Iteration), c.Units)
				continue
			}
			res := evalOutput{Iteration: c.Iteration, Baseline: c.Baseline, Benchmark: c.Benchmark}
			for _, a := range c.Agents {
				res.Agents = append(res.Agents, evalAgentInfo{ID: a})
			}
			printEvalSummary(opts.io.out, &res)
		}
	}
	if err == nil {
		return nil
	}
	lines := strings.Split(err.Error(), "\n")
	if !opts.json {
		for _, l := range lines {
			fmt.Fprintf(opts.io.err, "agentskills eval: %s\n", l)
		}
	}
	left := 0
	for _, c := range cols {
		if c.Benchmark != nil {
			left += c.Benchmark.Incomplete
		} else {
			left += c.Units
		}
	}
	msg := fmt.Sprintf("%d %s left out of the benchmarks (incomplete), and %s: see above", left,
		plural(left, "unit was", "units were"), plural(len(lines), "one problem", "the problems"))
	if !opts.json {
		fmt.Fprintf(opts.io.err, "agentskills eval: %s\n", msg)
	}
	return reported(msg + ": " + err.Error())
}

// inside reports whether path is dir or within it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// resolved is path with the links of its nearest existing parent (or
// itself) resolved, the rest of it appended as given.
func resolved(path string) string {
	rest := ""
	for p := path; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// checkTrust stages every skill of the plan with m, which enforces the
// trust policy, the signers and the audit, so that a skill they refuse
// stops eval before any agent starts (as it stops run), not each run.
func (p *evalPlan) checkTrust(ctx context.Context, m skill.Materializer) error {
	skills := []skill.Skill{p.skill}
	if p.baseline.Source != nil {
		skills = append(skills, p.baseline)
	}
	for _, r := range p.others {
		if s, ok := r.(skill.Skill); ok {
			skills = append(skills, s)
		}
	}
	for _, s := range skills {
		if _, err := m.Materialize(ctx, s); err != nil {
			return err // it names the skill
		}
	}
	return nil
}

// oneSkill is the one skill the source src (of the flag or argument
// what) holds.
func oneSkill(ctx context.Context, tr *runTrust, finder *install.Installer, what, src string) (skill.Skill, error) {
	refs, err := tr.findSkills(ctx, finder, []string{src})
	if err != nil {
		return skill.Skill{}, findErr(err)
	}
	if len(refs) != 1 {
		var names []string
		for _, r := range refs {
			names = append(names, r.(skill.Skill).Key)
		}
		return skill.Skill{}, inputError{fmt.Errorf("%s %s holds %d skills (%s): give the folder of one", what, src, len(refs), strings.Join(names, ", "))}
	}
	return refs[0].(skill.Skill), nil
}

// skillFolder is the folder of a skill found by findSkills.
func skillFolder(s skill.Skill) string {
	if p, ok := s.Source.(interface{ SkillPath() string }); ok {
		return p.SkillPath()
	}
	return ""
}

// baselineSkill is the skill of the old_skill configuration, or none.
func (opts *evalOptions) baselineSkill(ctx context.Context, tr *runTrust, finder *install.Installer, name string) (skill.Skill, error) {
	switch opts.baseline {
	case "none":
		return skill.Skill{}, nil
	case "lock":
		f := scopeFlags{quiet: true}
		in, err := f.installer(install.WithDownloadTimeout(opts.timeout))
		if err != nil {
			return skill.Skill{}, err
		}
		s, err := in.Pinned(ctx, install.PinnedRequest{Name: name})
		if errors.Is(err, install.ErrNotInstalled) {
			return skill.Skill{}, inputError{fmt.Errorf("--baseline lock: %w", err)}
		}
		if err != nil {
			return skill.Skill{}, fmt.Errorf("--baseline lock: %w", installErr(err))
		}
		return s, nil
	}
	return oneSkill(ctx, tr, finder, "--baseline", opts.baseline)
}

// evalOut is the folder of the iterations: out, else NAME-workspace
// beside the skill's folder when src is a local folder, else in the
// current folder.
func evalOut(out, src, dir, name string) (string, error) {
	if out == "" {
		out = name + "-workspace"
		if fi, err := os.Stat(src); err == nil && fi.IsDir() && dir != "" {
			out = filepath.Join(filepath.Dir(dir), out)
		}
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", usageErrorf("--out %q: %w", out, err)
	}
	return abs, nil
}

// evalAgents builds each agent of --agent (else of the lock file) and
// the judge, each with its version: its program run with --version.
func (opts *evalOptions) evalAgents(ctx context.Context, env install.Env, in *install.Installer) ([]eval.Agent, *eval.Agent, error) {
	ids := opts.agents
	if len(ids) == 0 {
		var err error
		if ids, err = lockedAgents(ctx, in); err != nil {
			return nil, nil, err
		}
		if len(ids) == 0 {
			return nil, nil, usageErrorf("missing --agent: the lock file records no agent eval runs (give one or more of %s)", runAgents(", "))
		}
	}
	var agents []eval.Agent
	for _, id := range ids {
		a, err := opts.evalAgent(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		agents = append(agents, a)
	}
	switch opts.judge {
	case "none":
		return agents, nil, nil
	case "":
		return agents, &agents[0], nil
	}
	if i := slices.IndexFunc(agents, func(a eval.Agent) bool { return a.ID == opts.judge }); i >= 0 {
		return agents, &agents[i], nil
	}
	j, err := opts.evalAgent(ctx, opts.judge)
	if err != nil {
		return nil, nil, err
	}
	return agents, &j, nil
}

// lockedAgents are the agents eval runs that the lock file of in (nil:
// the project's) records skills for, in run's order.
func lockedAgents(ctx context.Context, in *install.Installer) ([]string, error) {
	if in == nil {
		f := scopeFlags{quiet: true}
		var err error
		if in, err = f.installer(); err != nil {
			return nil, err
		}
	}
	recorded, err := in.InstalledAgents(ctx)
	if err != nil {
		return nil, inputError{err}
	}
	var ids []string
	for _, a := range runnables() {
		if slices.ContainsFunc(recorded, func(r install.Agent) bool { return r.ID == a.ID }) {
			ids = append(ids, a.ID)
		}
	}
	return ids, nil
}

// evalAgent builds the agent id with the flags, and finds its version.
func (opts *evalOptions) evalAgent(ctx context.Context, id string) (eval.Agent, error) {
	desc, _ := runnable(id)
	s, err := opts.agentFlags.settingsFor(desc, opts.model, opts.io.err)
	if err != nil {
		return eval.Agent{}, err
	}
	version, err := agentVersion(ctx, desc, s.Command, versionTimeout)
	if err != nil {
		return eval.Agent{}, err
	}
	var drv driver.Driver = desc.New(s)
	if opts.runTimeout > 0 {
		drv = boundedDriver{drv, opts.runTimeout}
	}
	return eval.Agent{ID: id, Driver: drv, Version: version, Model: opts.model, Settings: s}, nil
}

// agentVersion runs the agent's program (command, else its name on
// PATH) with --version, bounded by limit, and returns the first line it
// prints. A program not found fails as a run would.
func agentVersion(ctx context.Context, a driver.Descriptor, command string, limit time.Duration) (string, error) {
	if command == "" {
		command = a.Program
	}
	path, err := exec.LookPath(command)
	if err != nil {
		return "", runError(&driver.ProgramNotFoundError{Command: command, Agent: a.Agent, Package: a.Package, Field: a.Name + ".Config.Command", Err: err}, a.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	if len(line) > 200 {
		line = line[:200]
	}
	if ctx.Err() != nil && err != nil {
		return "", fmt.Errorf("%s: %w: %s --version did not answer within %s", a.ID, driver.ErrProcessFailed, command, limit)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s --version: %w: %s", a.ID, driver.ErrProcessFailed, command, err, line)
	}
	return strings.TrimSpace(line), nil
}

// boundedDriver stops each run after d, as --run-timeout asks.
type boundedDriver struct {
	driver.Driver
	d time.Duration
}

func (b boundedDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	runCtx, cancel := context.WithTimeoutCause(ctx, b.d, errRunTimedOut)
	defer cancel()
	res, err := b.Driver.Run(runCtx, req)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errRunTimedOut) {
		return res, &runTimedOutError{after: b.d, err: err}
	}
	return res, err
}

// evalStopped is the error of a Run or Triggers that did not finish:
// interrupted (the finished runs are kept, and the same command resumes)
// or failed.
func evalStopped(ctx context.Context, err error, out string, p *evalProgress) error {
	if ctx.Err() != nil {
		n := p.finished()
		fmt.Fprintf(p.w, "agentskills %s: stopped; %d finished %s %s kept in %s: run the same command to resume\n",
			p.cmd, n, plural(n, "run", "runs"), plural(n, "is", "are"), shortPath(out))
		return fmt.Errorf("%w: %w", errInterrupted, err)
	}
	if errors.Is(err, eval.ErrInvalidSuite) || errors.Is(err, eval.ErrNoEvals) || errors.Is(err, eval.ErrInvalidRequest) {
		return inputError{err}
	}
	return err
}

func agentInfos(agents []eval.Agent) []evalAgentInfo {
	out := make([]evalAgentInfo, 0, len(agents))
	for _, a := range agents {
		out = append(out, evalAgentInfo{ID: a.ID, Version: a.Version, Model: a.Model})
	}
	return out
}

// evalProgress prints one line per finished run on w, unless quiet.
type evalProgress struct {
	cmd   string // the command's name, for the line of an interruption
	w     io.Writer
	quiet bool
	mu    sync.Mutex
	done  int
	skill string // the skill evaluated, named first on each line; "" for eval's one
}

// evaluating names the skill the next lines are of.
func (p *evalProgress) evaluating(skill string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.skill = skill
}

func newEvalProgress(cmd string, w io.Writer, quiet bool) *evalProgress {
	return &evalProgress{cmd: cmd, w: w, quiet: quiet}
}

func (p *evalProgress) finished() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// step prints a finished run: agent, case (or query), configuration,
// run, and its counts, "reused" or the agent's failure.
func (p *evalProgress) step(s eval.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.State == "started" || s.State == "judging" {
		return
	}
	if s.State != "error" {
		p.done++ // kept: a run the agent failed is not
	}
	if p.quiet {
		return
	}
	what := "eval-" + s.Case.String()
	if s.Case.String() == "" {
		what = fmt.Sprintf("query %d", s.Query+1)
	}
	line := fmt.Sprintf("%s %s %s run %d: ", s.Agent, what, s.Config, s.Run)
	if p.skill != "" {
		line = p.skill + ": " + line
	}
	switch s.State {
	case "error":
		line += fmt.Sprintf("failed: %v", s.Err)
	case "reused":
		if s.Total > 0 {
			line += fmt.Sprintf("%d/%d passed (reused)", s.Passed, s.Total)
		} else {
			line += "reused" // a trigger run, or one whose every expectation was left ungraded
		}
	default:
		if s.Total > 0 {
			line += fmt.Sprintf("%d/%d passed", s.Passed, s.Total)
		} else {
			line += s.State
		}
	}
	fmt.Fprintln(p.w, line)
}

// printEvalSummary prints the summary of res: per agent, the pass rates,
// the delta and its interval, time, tokens, flagged cases and the
// expectations left ungraded; the trigger results; where the iteration is.
func printEvalSummary(w io.Writer, res *evalOutput) {
	if b := res.Benchmark; b != nil {
		base := res.Baseline
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "AGENT\tWITH_SKILL\t%s\tDELTA (95%% CI)\tTIME (S)\tTOKENS\tFLAGGED\tNOT GRADED\n", strings.ToUpper(string(base)))
		for _, a := range res.Agents {
			ab := b
			if pa := b.PerAgent[a.ID]; pa != nil {
				ab = pa
			}
			printEvalRow(tw, a.ID, base, ab)
		}
		tw.Flush()
		if b.Failed > 0 {
			fmt.Fprintf(w, "%d %s failed and %s graded as failing every expectation.\n", b.Failed, plural(b.Failed, "run", "runs"), plural(b.Failed, "is", "are"))
		}
		if b.NotGraded > 0 {
			fmt.Fprintf(w, "%d string %s not graded (--judge none), left out of the pass rates.\n", b.NotGraded, plural(b.NotGraded, "expectation was", "expectations were"))
		}
	}
	if t := res.Triggers; t != nil {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "AGENT\tQUERIES PASSED\tPRECISION\tRECALL\tFAILED RUNS")
		for _, a := range res.Agents {
			at, ok := t.Agents[a.ID]
			if !ok {
				continue
			}
			passed := 0
			for _, q := range at.Queries {
				if q.Passed {
					passed++
				}
			}
			fmt.Fprintf(tw, "%s\t%d/%d\t%.2f\t%.2f\t%d\n", a.ID, passed, len(at.Queries), at.Precision, at.Recall, at.Failed)
		}
		tw.Flush()
	}
	if res.Iteration != "" {
		var files []string
		if res.Benchmark != nil {
			files = append(files, "benchmark.json")
		}
		if res.Triggers != nil {
			files = append(files, "triggers.json")
		}
		fmt.Fprintf(w, "Iteration: %s (%s)\n", shortPath(res.Iteration), strings.Join(files, ", "))
	}
}

// printEvalRow prints one agent's row of the summary.
func printEvalRow(w io.Writer, id string, base eval.Config, b *eval.Benchmark) {
	rs := b.RunSummary
	with, other := rs.WithSkill, rs.WithoutSkill
	if base == eval.OldSkill {
		other = rs.OldSkill
	}
	flagged := 0
	for _, c := range b.Cases {
		if len(c.Flags) > 0 {
			flagged++
		}
	}
	withRate, otherRate := rate(with, graded(b, eval.WithSkill)), rate(other, graded(b, base))
	delta := "-"
	if withRate != "-" && otherRate != "-" && rs.Delta.PassRate != nil {
		delta = fmt.Sprintf("%+.2f [%+.2f, %+.2f]", *rs.Delta.PassRate, b.DeltaCI95[0], b.DeltaCI95[1])
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", id, withRate, otherRate,
		delta, pair(with, other, func(c *eval.ConfigSummary) float64 { return c.TimeSeconds.Mean }, "%.1f"),
		pair(with, other, func(c *eval.ConfigSummary) float64 { return c.Tokens.Mean }, "%.0f"), flagged, b.NotGraded)
}

// rate is a configuration's mean pass rate, "-" when it has no runs or
// none with a graded expectation.
func rate(c *eval.ConfigSummary, graded bool) string {
	if c == nil || c.PassRate == nil || !graded {
		return "-"
	}
	return fmt.Sprintf("%.2f", c.PassRate.Mean)
}

// pair is a statistic of both configurations, "with / baseline".
func pair(a, b *eval.ConfigSummary, f func(*eval.ConfigSummary) float64, format string) string {
	one := func(c *eval.ConfigSummary) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf(format, f(c))
	}
	return one(a) + " / " + one(b)
}
