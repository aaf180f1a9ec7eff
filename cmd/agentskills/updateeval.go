package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/install"
)

// updateEvalFlags are update's flags of --eval: those of eval that say
// how to evaluate, and the delta the update accepts.
type updateEvalFlags struct {
	on       bool
	minDelta float64
	out      string
	evalOptions
}

// updateEvalHelp is what update's help says of --eval.
const updateEvalHelp = `

--eval first evaluates, as 'agentskills eval --baseline lock' does, each
skill whose content the update would change: the new content's
evals/evals.json run with the new content (with_skill) and with the
pinned one (old_skill), on each --agent (default: the agents the lock
file records that eval runs). It prints both summaries, and refuses the
whole update (exit 1, nothing changes) when, on any agent, the pass rate
of the new content is below the pinned one's by more than --min-delta
(default 0: any drop refuses; a negative value demands a gain). A skill
whose new content has no evals/evals.json, or a malformed one, cannot be
judged and is refused too: update it without --eval, or name only the
other skills. An evaluation with a failed run is refused ("evaluation
incomplete: run again"), and so is one in which a configuration graded
no expectation (string expectations with --judge none): there is no
verdict. --min-delta must be a number. With --dry-run it prints the
verdicts and changes nothing. The update then installs exactly the
content the dry run found, for every skill, evaluated or unchanged: a
source that moved since fails it, changing nothing. The default agents
are those of the lock file updated (the user's with --global). The runs
leave out the user's own skills folder where the agent allows it (Claude
Code: ~/.claude/skills, and with it ~/.claude/settings.json; Gemini
CLI: ~/.agents/skills and ~/.gemini/skills; Codex: $CODEX_HOME/skills),
so the installed copy of a skill --global put there is neither refused
as a shadow nor run instead of the new content. Codex reads
~/.agents/skills, where --global installs for it, whatever it is given:
there the runs fail as a shadow. The iterations go to --eval-out/NAME-workspace
(default: the current folder); the runs are kept there as eval keeps
them.`

// register adds the flags of --eval to update's command.
func (f *updateEvalFlags) register(cmd *cobra.Command, s *streams) {
	f.io = s
	f.agentFlags.cmdName = "update"
	// The user's installed copy of a skill evaluated (a --global install
	// puts it in the user's skills folder) is its old content: it must
	// neither shadow the new content nor join a run.
	f.agentFlags.withoutUserSkills = true
	fl := cmd.Flags()
	fl.BoolVar(&f.on, "eval", false, "evaluate the new content against the pinned one first, and refuse the update when the pass rate drops (see below)")
	fl.Float64Var(&f.minDelta, "min-delta", 0, "with --eval, the largest drop of the pass rate accepted, as a fraction (0.1 = 10 points)")
	fl.StringVar(&f.out, "eval-out", "", "with --eval, the folder of the NAME-workspace folders (default: the current folder)")
	fl.StringSliceVarP(&f.agents, "agent", "a", nil, "with --eval, the agents to evaluate on, comma-separated (default: those the lock file records)")
	fl.IntVar(&f.runs, "runs", 1, "with --eval, runs of each case in each configuration")
	fl.StringVar(&f.judge, "judge", "", "with --eval, the agent that grades string expectations, or none (default: the first agent)")
	fl.IntVar(&f.jobs, "jobs", 1, "with --eval, runs at a time")
	fl.StringVarP(&f.model, "model", "m", "", "with --eval, the model to use (default: the agent's)")
	fl.DurationVar(&f.runTimeout, "run-timeout", 0, "with --eval, stop each run after this long (default: no limit)")
	f.agentFlags.register(cmd)
	cmd.Long += updateEvalHelp
}

// evalOnly are update's flags that only --eval reads.
var evalOnly = []string{"min-delta", "eval-out", "agent", "runs", "judge", "jobs", "model", "run-timeout",
	"permission-mode", "skip-permissions", "allowed-tools", "disallowed-tools", "max-turns", "agent-arg", "agent-command"}

// checkGiven refuses a flag of --eval given without it: bad usage.
func (f *updateEvalFlags) checkGiven(cmd *cobra.Command) error {
	if f.on {
		return nil
	}
	for _, name := range evalOnly {
		if cmd.Flags().Changed(name) {
			return usageErrorf("--%s is for --eval, which is not given", name)
		}
	}
	return nil
}

// updateVerdict is --eval's verdict on one skill: its JSON form is an
// element of update --json's "evals".
type updateVerdict struct {
	Skill          string `json:"skill"`
	Digest         string `json:"digest"`
	PreviousDigest string `json:"previous_digest"`
	// Accepted is whether the update may move the skill; Reason says
	// why not.
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason,omitempty"`
	// Delta is the lowest pass-rate delta over the agents.
	Delta     float64         `json:"delta"`
	Benchmark *eval.Benchmark `json:"benchmark,omitempty"`
	// PerAgent is each agent's benchmark, with several agents.
	PerAgent map[string]*eval.Benchmark `json:"per_agent,omitempty"`
	// Iteration is the iteration's folder.
	Iteration string `json:"iteration,omitempty"`

	agents []eval.Agent
}

// runUpdateEval runs update --eval: a dry run, the evaluation of each
// skill whose content moves, and the update of exactly the content
// evaluated when every verdict accepts it.
func runUpdateEval(ctx context.Context, opts *updateOptions, in *install.Installer, req install.UpdateRequest) error {
	f := &opts.eval
	f.quiet, f.json, f.baseline = opts.scope.quiet, opts.scope.json, "lock"
	if err := f.check(); err != nil {
		return err
	}
	if math.IsNaN(f.minDelta) || math.IsInf(f.minDelta, 0) {
		return usageErrorf("--min-delta %g: give a number, such as 0.1 for 10 points", f.minDelta)
	}
	dry := req
	dry.DryRun = true
	ups, _, err := in.Update(ctx, dry)
	if err != nil {
		return updateResult(opts, nil, nil, nil, err)
	}
	var moving []install.SkillUpdate
	req.Digests = map[string]string{}
	for _, u := range ups {
		// Every skill, moved or not: none may move unevaluated.
		req.Digests[u.Skill] = u.Digest
		if u.Updated() && u.Digest != u.PreviousDigest {
			moving = append(moving, u)
		}
	}
	var verdicts []updateVerdict
	if len(moving) > 0 {
		env, err := install.CurrentEnv()
		if err != nil {
			return err
		}
		agents, judge, err := f.evalAgents(ctx, env, in)
		if err != nil {
			return interrupted(ctx, err)
		}
		progress := newEvalProgress("update", opts.io.err, f.quiet || f.json)
		ev := eval.New(eval.WithProgress(progress.step))
		for _, u := range moving {
			progress.evaluating(u.Skill)
			v, err := f.judgeUpdate(ctx, in, ev, u, agents, judge)
			if err != nil {
				if ctx.Err() != nil {
					return evalStopped(ctx, err, f.outOf(u.Skill), progress)
				}
				return err
			}
			verdicts = append(verdicts, v)
		}
	}
	var refused []string
	for _, v := range verdicts {
		if !v.Accepted {
			refused = append(refused, v.Skill)
		}
	}
	if !opts.scope.json {
		printVerdicts(opts.io, verdicts)
	}
	if len(refused) > 0 {
		msg := fmt.Sprintf("%s: update refused: the evaluation does not accept the new content (see each verdict); nothing was changed", strings.Join(refused, ", "))
		if opts.scope.json {
			if werr := writeJSON(opts.io, updateOutput{DryRun: opts.dryRun, Skills: ups, Changes: []install.Change{}, Evals: verdicts}); werr != nil {
				return werr
			}
		} else {
			fmt.Fprintf(opts.io.err, "agentskills update: %s\n", msg)
		}
		return reported(msg)
	}
	if opts.dryRun {
		return updateResult(opts, ups, nil, verdicts, nil)
	}
	ups, changes, err := in.Update(ctx, req)
	return updateResult(opts, ups, changes, verdicts, err)
}

// judgeUpdate evaluates the new content of the skill u names against its
// pinned content.
func (f *updateEvalFlags) judgeUpdate(ctx context.Context, in *install.Installer, ev *eval.Evaluator, u install.SkillUpdate, agents []eval.Agent, judge *eval.Agent) (updateVerdict, error) {
	v := updateVerdict{Skill: u.Skill, Digest: u.Digest, PreviousDigest: u.PreviousDigest, agents: agents}
	next, err := in.Pinned(ctx, install.PinnedRequest{Name: u.Skill, Digest: u.Digest})
	if err != nil {
		return v, installErr(err)
	}
	pinned, err := in.Pinned(ctx, install.PinnedRequest{Name: u.Skill})
	if err != nil {
		return v, installErr(err)
	}
	if _, err := eval.LoadSuite(skillFolder(next)); err != nil {
		v.Reason = fmt.Sprintf("its new content cannot be judged: %v", err)
		if errors.Is(err, eval.ErrNoEvals) {
			v.Reason = "its new content has no evals/evals.json, so it cannot be judged; update it without --eval, or name only the other skills"
		}
		return v, nil
	}
	out := f.outOf(u.Skill)
	b, err := ev.Run(ctx, eval.Request{Skill: next, Baseline: pinned, Agents: agents, Runs: f.runs, Judge: judge,
		Out: out, Jobs: f.jobs, Fresh: f.fresh})
	if err != nil {
		return v, err
	}
	v.Benchmark, v.PerAgent, v.Iteration = b, b.PerAgent, b.Iteration
	if b.Failed > 0 {
		// A failed run counts as failing every expectation: the delta
		// says nothing until every run finished.
		v.Reason = fmt.Sprintf("evaluation incomplete: %d %s failed; run again", b.Failed, plural(b.Failed, "run", "runs"))
		return v, nil
	}
	for _, a := range agents {
		ab := b
		if pa := b.PerAgent[a.ID]; pa != nil {
			ab = pa
		}
		if cfg, ok := allGraded(ab, eval.OldSkill); !ok {
			v.Reason = fmt.Sprintf("on %s no expectation was graded in %s, so there is no verdict", a.ID, cfg)
			if ab.NotGraded > 0 && judge == nil {
				v.Reason += " (its string expectations are left ungraded with --judge none: give a judge)"
			}
			return v, nil
		}
	}
	v.Accepted = true
	v.Delta = deltaOr0(b.RunSummary.Delta.PassRate)
	for i, a := range agents {
		d := deltaOr0(b.RunSummary.Delta.PassRate)
		if pa := b.PerAgent[a.ID]; pa != nil {
			d = deltaOr0(pa.RunSummary.Delta.PassRate)
		}
		if i == 0 || d < v.Delta {
			v.Delta = d
		}
		if !(d >= -f.minDelta) {
			v.Accepted = false
			v.Reason = fmt.Sprintf("on %s the pass rate drops by %.2f, more than --min-delta %g allows", a.ID, -d, f.minDelta)
		}
	}
	return v, nil
}

// outOf is the folder of the skill name's iterations.
func (f *updateEvalFlags) outOf(name string) string {
	base := f.out
	if base == "" {
		base, _ = os.Getwd()
	}
	abs, err := filepath.Abs(filepath.Join(base, name+"-workspace"))
	if err != nil {
		return filepath.Join(base, name+"-workspace")
	}
	return abs
}

// printVerdicts prints each skill's summaries and verdict.
func printVerdicts(s *streams, verdicts []updateVerdict) {
	for _, v := range verdicts {
		fmt.Fprintf(s.out, "%s: new content %s (with_skill) against the pinned %s (old_skill)\n", v.Skill, shortPin(v.Digest), shortPin(v.PreviousDigest))
		if v.Benchmark != nil {
			res := evalOutput{Skill: v.Skill, Agents: agentInfos(v.agents), Baseline: eval.OldSkill, Benchmark: v.Benchmark, PerAgent: v.PerAgent, Iteration: v.Iteration}
			printEvalSummary(s.out, &res)
		}
		if v.Accepted {
			fmt.Fprintf(s.out, "%s: accepted (pass-rate delta %+.2f)\n", v.Skill, v.Delta)
		} else {
			fmt.Fprintf(s.out, "%s: refused: %s\n", v.Skill, v.Reason)
		}
	}
}

// allGraded reports whether both configurations of b, with_skill and
// base, have a run with a graded expectation; if not, cfg is one that
// has none: its pass rate says nothing.
func allGraded(b *eval.Benchmark, base eval.Config) (cfg eval.Config, ok bool) {
	for _, cfg := range []eval.Config{eval.WithSkill, base} {
		c := b.RunSummary.WithSkill
		if cfg == base {
			c = b.RunSummary.OldSkill
			if base == eval.WithoutSkill {
				c = b.RunSummary.WithoutSkill
			}
		}
		if c == nil || c.PassRate == nil || !graded(b, cfg) {
			return cfg, false
		}
	}
	return "", true
}

// graded reports whether a run of configuration cfg in b graded an
// expectation: a case's pass rate has an entry for it only then. A
// benchmark whose cases do not say (none ran cfg) counts as graded when
// its summary has the configuration.
func graded(b *eval.Benchmark, cfg eval.Config) bool {
	ran := false
	for _, c := range b.Cases {
		if _, ok := c.PassRate[cfg]; ok {
			return true
		}
		ran = ran || c.Runs[cfg] > 0
	}
	return !ran
}

// deltaOr0 is a pass rate's delta, 0 when there is none.
func deltaOr0(d *float64) float64 {
	if d == nil {
		return 0
	}
	return *d
}
