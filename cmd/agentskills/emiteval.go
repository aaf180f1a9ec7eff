package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/internal/kube"
)

// emitEvalOut is where an evaluation's pods mount --output-claim: their
// --out.
const emitEvalOut = "/results"

// emitBaselineDir holds the baseline skill of --baseline oci://..., apart
// from the skill, which usually has its name.
const emitBaselineDir = "/baseline"

// emitEvalHelp is what eval's help says about --emit.
const emitEvalHelp = `To a cluster: --emit kubernetes prints, instead of evaluating, an
Indexed Job with one completion index per unit of evals/evals.json (per
agent, case, configuration and run, in the order --index numbers them):
each pod runs agentskills eval --index $(JOB_COMPLETION_INDEX) with the
same flags and writes its run folder into the PersistentVolumeClaim
--output-claim names (required), mounted as its --out; --jobs is the
Job's parallelism. SKILL and a --baseline skill must be oci://
references, mounted as image volumes at the digest their tags name now
(--baseline lock, --out and --skill are refused with --emit; the trigger
queries are not units, and are not run). Afterwards eval --collect over
the claim's folder writes benchmark.json. --runner-image and --secret
are as for run; the guide: docs/kubernetes.md.`

// emitEval prints the Indexed Job that makes every unit of the
// evaluation of src (eval --emit).
func emitEval(ctx context.Context, opts *evalOptions, src string) error {
	if err := opts.emitFlags.check(); err != nil {
		return err
	}
	switch {
	case opts.emitFlags.emit == emitAgentSandbox:
		return usageErrorf("--emit agent-sandbox makes one sandbox, and an evaluation is many runs: give --emit kubernetes, an Indexed Job of one pod per run")
	case opts.outputClaim == "":
		return usageErrorf("eval --emit needs --output-claim NAME: the PersistentVolumeClaim the pods write their run folders into (ReadWriteMany when they run on several nodes)")
	case opts.baseline == "lock":
		return usageErrorf("--baseline lock reads this project's lock file, which a pod does not have: give the earlier skill as an oci:// reference")
	case opts.out != "":
		return usageErrorf("--out is the claim of --output-claim in the pods: leave --out out with --emit")
	case opts.indexGiven:
		return usageErrorf("--index makes one unit, and --emit prints the Job of them all, whose pods each get their own: leave --index out with --emit")
	case len(opts.others) > 0:
		return usageErrorf("--skill gives the other skills of the trigger queries, which the Job does not run: leave it out with --emit")
	}
	if err := kube.CheckSubdomain("--output-claim", opts.outputClaim); err != nil {
		return usageError{err}
	}
	if err := opts.check(); err != nil {
		return err
	}
	sources, what := []string{src}, []string{"SKILL"}
	if opts.baseline != "none" {
		sources, what = append(sources, opts.baseline), append(what, "--baseline")
	}
	if err := checkEmitSources(what, sources); err != nil {
		return err
	}
	ids := opts.agents
	if len(ids) == 0 {
		var err error
		if ids, err = lockedAgents(ctx, nil); err != nil {
			return err
		}
		if len(ids) == 0 {
			return usageErrorf("missing --agent: the lock file records no agent eval runs (give one or more of %s)", runAgents(", "))
		}
	}
	var agents []eval.Agent
	for _, id := range ids {
		a, ok := runnable(id)
		if !ok {
			return usageErrorf("cannot evaluate on agent %q: eval runs %s", id, runAgents(", "))
		}
		if _, err := opts.agentFlags.settingsFor(a, opts.model, opts.io.err); err != nil {
			return err
		}
		agents = append(agents, eval.Agent{ID: id})
	}
	plan, err := opts.plan(ctx, src)
	if err != nil {
		return interrupted(ctx, err)
	}
	if plan.suite == nil {
		return usageErrorf("--emit runs the units of evals/evals.json, and %s has none (only evals/eval_queries.json, which the Job does not run)", src)
	}
	if err := plan.checkTrust(ctx, plan.trust.materializer()); err != nil {
		return interrupted(ctx, err)
	}
	units, err := eval.Units(plan.suite, eval.Request{Skill: plan.skill, Agents: agents, Runs: opts.runs, Baseline: plan.baseline})
	if err != nil {
		return inputError{err}
	}
	if len(plan.queries) > 0 && !opts.quiet {
		fmt.Fprintf(opts.io.err, "agentskills eval: the Job runs the %d units of evals/evals.json; the trigger queries of evals/eval_queries.json are not units: run them with eval here\n", len(units))
	}
	sk, err := emitMount(ctx, plan.skill, "")
	if err != nil {
		return err
	}
	vols := []kube.Skill{sk.vol}
	baseline := "none"
	if plan.baseline.Source != nil {
		b, err := emitMount(ctx, plan.baseline, emitBaselineDir+"/"+plan.baseline.Key)
		if err != nil {
			return err
		}
		vols, baseline = append(vols, b.vol), b.path
	}
	args := []string{"eval", sk.path, "--agent=" + strings.Join(ids, ","), "--runs=" + strconv.Itoa(opts.runs), "--baseline=" + baseline}
	if opts.judge != "" {
		args = append(args, "--judge="+opts.judge)
	}
	args = append(args, "--out="+emitEvalOut)
	if opts.fresh {
		args = append(args, "--fresh")
	}
	if opts.model != "" {
		args = append(args, "--model="+opts.model)
	}
	args = append(args, opts.agentFlags.args()...)
	for _, r := range opts.trust.allowRisks {
		args = append(args, "--allow-risk="+r)
	}
	if opts.runTimeout > 0 {
		args = append(args, "--run-timeout="+opts.runTimeout.String())
	}
	if opts.json {
		args = append(args, "--json")
	}
	if opts.quiet {
		args = append(args, "--quiet")
	}
	if err := emitUTF8(args, false); err != nil {
		return err
	}
	p := kube.Pod{
		Name:      emitName("eval", plan.name, opts.emitFlags, append(args, opts.outputClaim), vols, 0),
		Labels:    map[string]string{"app.kubernetes.io/name": "agentskills", "app.kubernetes.io/component": "eval"},
		Image:     opts.emitFlags.runnerImage,
		Args:      args,
		IndexFlag: "--index=",
		Skills:    vols,
		Secret:    opts.emitFlags.secret,
		Output:    &kube.Claim{Name: opts.outputClaim, Path: emitEvalOut},
	}
	return emitObjects(opts.io, emitKubernetes, p, kube.JobOptions{Completions: len(units), Parallelism: opts.jobs})
}
