package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/kubetest"
)

// emitEnv is the pod's environment as the kubelet expands arguments
// from it: the Secret's keys (envFrom) and an Indexed Job's index.
var emitEnv = map[string]string{"ANTHROPIC_API_KEY": "sk-ant-leaked", "OPENAI_API_KEY": "sk-leaked", "JOB_COMPLETION_INDEX": "3"}

// emitExpanded decodes out, one Job, and returns its container's
// arguments as the kubelet gives them to the program.
func emitExpanded(t *testing.T, out string) []string {
	t.Helper()
	objs, err := kubetest.Decode([]byte(out))
	if err != nil {
		t.Fatalf("kubetest.Decode: %v\n%s", err, out)
	}
	var args []string
	for _, a := range objs[0].(*batchv1.Job).Spec.Template.Spec.Containers[0].Args {
		args = append(args, kubetest.Expand(a, emitEnv))
	}
	return args
}

// TestEmitRunArgsNotExpanded checks that the prompt, --model and
// --agent-arg reach the pod's run as given, whatever $ they hold: the
// kubelet expands $(VAR) from the container's environment, which holds
// the Secret's keys.
func TestEmitRunArgsNotExpanded(t *testing.T) {
	r := newEmitRig(t)
	review := r.push(t, "review")
	prompt := "print $(ANTHROPIC_API_KEY), cost $$5 or $ alone, $(NOPE) and $("
	code, out, errs := r.run(t, "run", "-a", "claude-code", "-s", review, "--runner-image", "ghcr.io/acme/runner:1",
		"--secret", "model-credentials", "--model", "$(OPENAI_API_KEY)", "--agent-arg", "--x=$$(ANTHROPIC_API_KEY)$",
		"--emit", "kubernetes", "--", prompt)
	if code != 0 {
		t.Fatalf("run --emit = %d, stderr %q", code, errs)
	}
	want := []string{"run", "--agent=claude-code", "--skill=/skills/review", "--model=$(OPENAI_API_KEY)",
		"--agent-arg=--x=$$(ANTHROPIC_API_KEY)$", "--", prompt}
	if diff := cmp.Diff(want, emitExpanded(t, out)); diff != "" {
		t.Errorf("args as the pod's run gets them (-given +got):\n%s", diff)
	}
}

// TestEmitEvalArgsNotExpanded checks the same of eval's --model and
// --agent-arg (--judge names an agent, so it holds no $; package kube
// writes every argument alike), and that the index alone is expanded.
func TestEmitEvalArgsNotExpanded(t *testing.T) {
	r := newEmitRig(t)
	tag, _ := r.pushEvalSkill(t, "review", "review", "Read the diff.\n", true, false)
	code, out, errs := r.run(t, "eval", tag, "--agent", "claude-code", "--judge", "claude-code", "--model", "$(ANTHROPIC_API_KEY)",
		"--agent-arg", "--x=$$ and $", "--emit", "kubernetes", "--runner-image", "ghcr.io/acme/runner:1",
		"--secret", "model-credentials", "--output-claim", "eval-results")
	if code != 0 {
		t.Fatalf("eval --emit = %d, stderr %q", code, errs)
	}
	got := emitExpanded(t, out)
	for _, w := range []string{"--model=$(ANTHROPIC_API_KEY)", "--agent-arg=--x=$$ and $", "--index=3"} {
		found := false
		for _, a := range got {
			found = found || a == w
		}
		if !found {
			t.Errorf("args as the pod's eval gets them %q; want %q among them", got, w)
		}
	}
}

// TestEmitNotUTF8 checks that an argument of the pod that is not UTF-8,
// which Kubernetes would carry altered, is bad usage.
func TestEmitNotUTF8(t *testing.T) {
	r := newEmitRig(t)
	review := r.push(t, "review")
	for _, tt := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--", "hi \xff there"}, `PROMPT: not UTF-8: Kubernetes carries only UTF-8 text: "hi \xff there"`},
		{[]string{"--model", "op\x85us", "--", "hi"}, `--model: not UTF-8: Kubernetes carries only UTF-8 text`},
		{[]string{"--agent-arg", "--x=\xc3", "--", "hi"}, `--agent-arg: not UTF-8`},
	} {
		args := append([]string{"run", "-a", "claude-code", "-s", review, "--runner-image", "ghcr.io/acme/runner:1", "--emit", "kubernetes"}, tt.extra...)
		code, out, errs := r.run(t, args...)
		if code != 2 || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, %d bytes out; want 2, %q, nothing", tt.extra, code, errs, len(out), tt.want)
		}
	}
	tag, _ := r.pushEvalSkill(t, "lint", "lint", "Read the diff.\n", true, false)
	code, out, errs := r.run(t, "eval", tag, "--agent", "claude-code", "--model", "x\xffy", "--emit", "kubernetes",
		"--runner-image", "ghcr.io/acme/runner:1", "--output-claim", "eval-results")
	if code != 2 || !strings.Contains(errs, "--model: not UTF-8") || out != "" {
		t.Errorf("eval --model not UTF-8: exit %d, stderr %q; want 2, refused", code, errs)
	}
}
