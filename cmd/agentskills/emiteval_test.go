package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/eval"
	"github.com/agentadaptor/agentadaptor/internal/testkit/kubetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

const emitEvals = `{"skill_name": "review", "evals": [
  {"id": 1, "prompt": "Review a.go", "expectations": ["names the bug"]},
  {"id": 2, "prompt": "Review b.go", "expectations": ["says it is fine"]},
  {"id": "nil-map", "prompt": "Review c.go", "expectations": ["finds the nil map"]}
]}`

// pushEvalSkill pushes the skill review with evals (and eval_queries.json
// when queries) to REPO:1, keeping its digest under key, and returns the
// tag and the local folder.
func (r *emitRig) pushEvalSkill(t *testing.T, repo, key, body string, evals, queries bool) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "review")
	writeSkill(t, filepath.Dir(dir), "review", "---\nname: review\ndescription: Reviews code.\n---\n"+body)
	os.MkdirAll(filepath.Join(dir, "evals"), 0o755)
	if evals {
		os.WriteFile(filepath.Join(dir, "evals", "evals.json"), []byte(emitEvals), 0o644)
	}
	if queries {
		os.WriteFile(filepath.Join(dir, "evals", "eval_queries.json"), []byte(`[{"query": "review this", "should_trigger": true}]`), 0o644)
	}
	tag := "oci://" + r.host + "/acme/" + repo + ":1"
	dgst, err := oci.Push(t.Context(), dir, tag, oci.WithCredentials(credentials.NewMemoryStore()))
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	r.digests[key] = dgst
	return tag, dir
}

// TestEvalEmit prints an evaluation on two agents, three cases, a
// baseline skill and two runs as an Indexed Job: as many completions as
// package eval lists units, each pod running eval --index
// $(JOB_COMPLETION_INDEX) with the skill and the baseline at their mount
// paths and --out on the claim; it decodes strictly into the official
// types and matches its golden file; no agent starts.
func TestEvalEmit(t *testing.T) {
	r := newEmitRig(t)
	for k, v := range emitCredentials {
		t.Setenv(k, v)
	}
	tag, dir := r.pushEvalSkill(t, "review", "review", "Read the diff.\n", true, false)
	old, _ := r.pushEvalSkill(t, "review-old", "review-old", "Skim the diff.\n", true, false)
	args := []string{"eval", tag, "--agent", "claude-code,codex", "--runs", "2", "--baseline", old, "--judge", "claude-code",
		"--jobs", "6", "--model", "sonnet", "--run-timeout", "15m", "--allow-risk", "download-exec",
		"--emit", "kubernetes", "--runner-image", "ghcr.io/acme/runner:1", "--secret", "model-credentials", "--output-claim", "eval-results"}
	code, out, errs := r.run(t, args...)
	if code != 0 {
		t.Fatalf("eval --emit = %d, stderr %q", code, errs)
	}
	if r.started() {
		t.Error("eval --emit started an agent")
	}
	for k, v := range emitCredentials {
		if strings.Contains(out, v) {
			t.Errorf("the output holds $%s's value", k)
		}
	}
	golden(t, "eval-kubernetes", r.normalize(out))
	objs, err := kubetest.Decode([]byte(out))
	if err != nil {
		t.Fatalf("kubetest.Decode: %v\n%s", err, out)
	}
	if len(objs) != 1 {
		t.Fatalf("%d objects; want one Indexed Job", len(objs))
	}
	j := objs[0].(*batchv1.Job)

	// The units, as package eval lists them for this request.
	suite, err := eval.LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	units, err := eval.Units(suite, eval.Request{Agents: []eval.Agent{{ID: "claude-code"}, {ID: "codex"}}, Runs: 2, Baseline: skill.Dir(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 2*3*2*2 {
		t.Fatalf("eval.Units lists %d units; want 24", len(units))
	}
	if *j.Spec.CompletionMode != batchv1.IndexedCompletion || int(*j.Spec.Completions) != len(units) || *j.Spec.Parallelism != 6 || *j.Spec.BackoffLimitPerIndex != 0 {
		t.Errorf("completionMode %s, completions %d, parallelism %d, backoffLimitPerIndex %d; want Indexed, %d, 6 (--jobs), 0",
			*j.Spec.CompletionMode, *j.Spec.Completions, *j.Spec.Parallelism, *j.Spec.BackoffLimitPerIndex, len(units))
	}
	if j.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("activeDeadlineSeconds %d; want none: --run-timeout bounds each run in the pod", *j.Spec.ActiveDeadlineSeconds)
	}
	c := j.Spec.Template.Spec.Containers[0]
	want := []string{"eval", "/skills/review", "--agent=claude-code,codex", "--runs=2", "--baseline=/baseline/review", "--judge=claude-code",
		"--out=/results", "--model=sonnet", "--allow-risk=download-exec", "--run-timeout=15m0s", "--index=$(JOB_COMPLETION_INDEX)"}
	if diff := cmp.Diff(want, c.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	refs := map[string]string{}
	claims := map[string]string{}
	for _, v := range j.Spec.Template.Spec.Volumes {
		if v.Image != nil {
			refs[v.Name] = v.Image.Reference
		}
		if v.PersistentVolumeClaim != nil {
			claims[v.Name] = v.PersistentVolumeClaim.ClaimName
		}
	}
	wantRefs := map[string]string{
		"skills-review":   r.host + "/acme/review@" + r.digests["review"],
		"baseline-review": r.host + "/acme/review-old@" + r.digests["review-old"],
	}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("image volumes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"output": "eval-results"}, claims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	for _, m := range c.VolumeMounts {
		if m.Name == "output" && (m.MountPath != "/results" || m.ReadOnly) {
			t.Errorf("the claim is mounted %+v; want read-write at /results", m)
		}
	}

	// Half the runs, half the units.
	code, out, errs = r.run(t, append(slices.Clone(args), "--runs", "1")...)
	if code != 0 {
		t.Fatalf("eval --emit --runs 1 = %d, stderr %q", code, errs)
	}
	objs, err = kubetest.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if n := *objs[0].(*batchv1.Job).Spec.Completions; n != 12 {
		t.Errorf("--runs 1: %d completions; want 12", n)
	}
}

// TestEvalEmitRefused checks what eval --emit refuses before printing
// anything.
func TestEvalEmitRefused(t *testing.T) {
	r := newEmitRig(t)
	tag, dir := r.pushEvalSkill(t, "review", "review", "Read.\n", true, false)
	queriesOnly, _ := r.pushEvalSkill(t, "triggers", "triggers", "Read.\n", false, true)
	emit := []string{"--agent", "claude-code", "--emit", "kubernetes", "--runner-image", "runner:dev", "--output-claim", "results"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"agent-sandbox", []string{"eval", tag, "--agent", "claude-code", "--emit", "agent-sandbox", "--runner-image", "runner:dev", "--output-claim", "results"}, "give --emit kubernetes, an Indexed Job"},
		{"no claim", []string{"eval", tag, "--agent", "claude-code", "--emit", "kubernetes", "--runner-image", "runner:dev"}, "eval --emit needs --output-claim NAME"},
		{"claim alone", []string{"eval", tag, "--agent", "claude-code", "--output-claim", "results"}, "--output-claim is the claim of the Job --emit prints"},
		{"runner image alone", []string{"eval", tag, "--agent", "claude-code", "--runner-image", "runner:dev"}, "--runner-image is the image of the pod --emit prints"},
		{"bad claim", append([]string{"eval", tag, "--output-claim", "Results"}, emit[:len(emit)-2]...), `--output-claim "Results" is not a Kubernetes name`},
		{"baseline lock", append([]string{"eval", tag, "--baseline", "lock"}, emit...), "--baseline lock reads this project's lock file"},
		{"index", append([]string{"eval", tag, "--index", "3"}, emit...), "leave --index out with --emit"},
		{"out", append([]string{"eval", tag, "--out", "x"}, emit...), "leave --out out with --emit"},
		{"other skills", append([]string{"eval", tag, "--skill", tag}, emit...), "--skill gives the other skills of the trigger queries"},
		{"local skill", append([]string{"eval", dir}, emit...), "SKILL " + dir + ": --emit mounts each skill as an image"},
		{"local baseline", append([]string{"eval", tag, "--baseline", dir}, emit...), "--baseline " + dir + ": --emit mounts each skill as an image"},
		{"no cases", append([]string{"eval", queriesOnly}, emit...), "--emit runs the units of evals/evals.json"},
		{"runs", append([]string{"eval", tag, "--runs", "0"}, emit...), "--runs 0"},
		{"agent twice", []string{"eval", tag, "--agent", "codex,codex", "--emit", "kubernetes", "--runner-image", "runner:dev", "--output-claim", "results"}, "--agent codex is given twice"},
		{"flag the agent lacks", append([]string{"eval", tag, "--max-turns", "2", "--agent", "codex"}, emit[2:]...), "Codex has no turn limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := r.run(t, tt.args...)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("eval = %d, stderr %q; want 2 saying %q", code, errs, tt.want)
			}
			if out != "" {
				t.Errorf("stdout %q; want nothing", out)
			}
		})
	}
}

// TestEmitEvalFlags checks that each of eval's flags is given to the
// pods' eval or handled by --emit, so that a flag added to eval is not
// silently left out of the Job.
func TestEmitEvalFlags(t *testing.T) {
	handled := map[string]string{
		"agent": "passed", "runs": "passed", "baseline": "passed, as its mount path", "judge": "passed", "fresh": "passed",
		"json": "passed", "quiet": "passed", "model": "passed", "run-timeout": "passed", "allow-risk": "passed",
		"permission-mode": "passed", "skip-permissions": "passed", "allowed-tools": "passed", "disallowed-tools": "passed",
		"max-turns": "passed", "agent-arg": "passed", "agent-command": "passed",
		"out": "refused: the pods' --out is the claim", "skill": "refused: trigger queries are not units",
		"jobs": "the Job's parallelism", "timeout": "the skills are fetched here",
		"key": "checked here", "certificate-identity": "checked here", "certificate-identity-regexp": "checked here",
		"certificate-oidc-issuer": "checked here", "certificate-oidc-issuer-regexp": "checked here", "trusted-root": "checked here",
		"emit": "what is printed", "runner-image": "the pod's image", "secret": "the pod's envFrom", "output-claim": "the pods' --out",
		"index": "refused: each pod gets its own", "help": "cobra's",
		"collect": "refused with --emit: it reads what the Job wrote, after it",
	}
	cmd := newEvalCmd(newStreams(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}))
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if handled[f.Name] == "" {
			t.Errorf("eval's flag --%s is neither given to the pods' eval nor handled by --emit: say which in emiteval.go and in this test", f.Name)
		}
	})
}

// TestEvalEmitPodCommands runs the command of every completion index of
// the Job eval --emit prints, as its pods would: $(JOB_COMPLETION_INDEX)
// replaced by the index, the skill's mount path by the folder it was
// pushed from (what its image holds), /results by one folder for all of them; then
// eval.Collect over that folder writes benchmark.json from the units.
func TestEvalEmitPodCommands(t *testing.T) {
	r := newEvalRig(t)
	_, host := ocireg.Start(t, true)
	dir := r.skill(t, filepath.Join(t.TempDir(), "review"), "review", "WRITE-ANSWER", helpedEvals)
	tag := "oci://" + host + "/acme/review:1"
	if _, err := oci.Push(t.Context(), dir, tag, oci.WithCredentials(credentials.NewMemoryStore())); err != nil {
		t.Fatal(err)
	}
	code, out, errs := r.run(t, "eval", tag, "--agent", "claude-code", "--judge", "none", "--agent-command", r.agent,
		"--emit", "kubernetes", "--runner-image", "runner:dev", "--output-claim", "results")
	if code != 0 {
		t.Fatalf("eval --emit = %d, stderr %q", code, errs)
	}
	if r.agentRan() {
		t.Fatal("eval --emit ran the agent")
	}
	objs, err := kubetest.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	j := objs[0].(*batchv1.Job)
	n := int(*j.Spec.Completions)
	if n != 2 {
		t.Fatalf("%d completions; want 2 (1 agent, 1 case, 2 configurations, 1 run)", n)
	}
	results := t.TempDir()
	for i := range n {
		args := slices.Clone(j.Spec.Template.Spec.Containers[0].Args)
		for k, a := range args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))
			a = strings.Replace(a, "/skills/review", dir, 1)
			args[k] = strings.Replace(a, "--out=/results", "--out="+results, 1)
		}
		if code, stdout, stderr := r.run(t, args...); code != 0 {
			t.Fatalf("pod %d: eval %q = %d, stdout %q, stderr %q", i, args, code, stdout, stderr)
		}
	}
	got, err := eval.Collect(results)
	if err != nil || len(got) != 1 || got[0].Units != n || got[0].Benchmark == nil {
		t.Fatalf("eval.Collect = %+v, %v; want one iteration of %d units, its benchmark written", got, err, n)
	}
	if _, err := os.Stat(filepath.Join(results, "iteration-1", "benchmark.json")); err != nil {
		t.Errorf("no benchmark.json after collecting: %v", err)
	}
}
