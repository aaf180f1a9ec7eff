package kube_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	extv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"

	"github.com/agentadaptor/agentadaptor/internal/kube"
	"github.com/agentadaptor/agentadaptor/internal/testkit/kubetest"
)

var update = flag.Bool("update", false, "write testdata/*.yaml from what the package renders")

const (
	digestA = "sha256:" + "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
	digestB = "sha256:" + "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"
)

func pod() kube.Pod {
	return kube.Pod{
		Name:   "agentskills-run-claude-code-0123456789",
		Labels: map[string]string{"app.kubernetes.io/name": "agentskills", "app.kubernetes.io/component": "run"},
		Image:  "ghcr.io/acme/runner:1@" + digestA,
		Args:   []string{"run", "--agent=claude-code", "--skill=/skills/review", "--skill=/skills/lint/skills/lint", "--", "Review the last commit"},
		Skills: []kube.Skill{
			{Name: "review", Reference: "ghcr.io/acme/review@" + digestA},
			{Name: "lint", Reference: "127.0.0.1:5000/acme/lint@" + digestB},
		},
		Secret:   "model-credentials",
		Deadline: 9*time.Minute + 30*time.Second + time.Millisecond,
	}
}

// render writes the objects of one shape.
func render(t *testing.T, shape string) []byte {
	t.Helper()
	var objs []any
	switch shape {
	case "job":
		j, err := kube.NewJob(pod(), kube.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, j)
	case "indexed-job":
		p := pod()
		p.Name = "agentskills-eval-review-0123456789"
		p.Args = []string{"eval", "/skills/review", "--agent=claude-code", "--out=/out"}
		p.IndexFlag = "--index="
		p.Skills = p.Skills[:1]
		p.Output = &kube.Claim{Name: "eval-results", Path: "/out"}
		p.Deadline = 0
		j, err := kube.NewJob(p, kube.JobOptions{Completions: 12, Parallelism: 4, TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, j)
	case "sandbox":
		tmpl, pool, claim, err := kube.Sandbox(pod(), 0)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, tmpl, pool, claim)
	default:
		t.Fatalf("no shape %q", shape)
	}
	var buf bytes.Buffer
	if err := kube.Encode(&buf, objs...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGolden compares each shape with its golden file, which -update
// writes, and decodes it strictly into the official types.
func TestGolden(t *testing.T) {
	for _, shape := range []string{"job", "indexed-job", "sandbox"} {
		t.Run(shape, func(t *testing.T) {
			got := render(t, shape)
			file := filepath.Join("testdata", shape+".yaml")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./internal/kube -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from what is rendered (-want +got; -update rewrites it):\n%s", file, diff)
			}
			if _, err := kubetest.Decode(got); err != nil {
				t.Errorf("kubetest.Decode(%s): %v", file, err)
			}
		})
	}
}

// container returns the one container of a pod spec, failing when there
// is not exactly one.
func container(t *testing.T, spec corev1.PodSpec) corev1.Container {
	t.Helper()
	if len(spec.Containers) != 1 {
		t.Fatalf("pod has %d containers; want 1", len(spec.Containers))
	}
	return spec.Containers[0]
}

// checkPod checks the rules of # The pod on a decoded pod spec.
func checkPod(t *testing.T, spec corev1.PodSpec, p kube.Pod) {
	t.Helper()
	c := container(t, spec)
	if spec.RestartPolicy != corev1.RestartPolicyNever || spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("restartPolicy %q, automountServiceAccountToken %v; want Never, false", spec.RestartPolicy, spec.AutomountServiceAccountToken)
	}
	if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
		t.Errorf("securityContext %+v; want allowPrivilegeEscalation false", c.SecurityContext)
	}
	if c.Name != kube.ContainerName || c.Image != p.Image || !cmp.Equal(c.Command, []string{"agentskills"}) || !cmp.Equal(c.Args, p.Args) || c.WorkingDir != kube.WorkspaceDir {
		t.Errorf("container %s %s %q %q in %s; want %s %s agentskills %q in %s", c.Name, c.Image, c.Command, c.Args, c.WorkingDir, kube.ContainerName, p.Image, p.Args, kube.WorkspaceDir)
	}
	if want := []corev1.EnvVar{{Name: kube.CacheEnv, Value: kube.CacheDir}}; !cmp.Equal(c.Env, want) {
		t.Errorf("env %+v; want %+v", c.Env, want)
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != p.Secret {
		t.Errorf("envFrom %+v; want the Secret %s", c.EnvFrom, p.Secret)
	}
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	for _, dir := range []string{kube.CacheDir, kube.WorkspaceDir} {
		if m, ok := mounts[dir]; !ok || vols[m.Name].EmptyDir == nil || m.ReadOnly {
			t.Errorf("%s: mount %+v of %+v; want an emptyDir, read-write", dir, m, vols[m.Name])
		}
	}
	for _, s := range p.Skills {
		m, ok := mounts[s.MountDir()]
		img := vols[m.Name].Image
		if !ok || !m.ReadOnly || img == nil || img.Reference != s.Reference || img.PullPolicy != corev1.PullIfNotPresent {
			t.Errorf("skill %s: mount %+v of %+v; want read-only, image %s, IfNotPresent", s.Name, m, vols[m.Name], s.Reference)
		}
	}
	if len(spec.Volumes) != 2+len(p.Skills)+map[bool]int{true: 1}[p.Output != nil] || len(c.VolumeMounts) != len(spec.Volumes) {
		t.Errorf("%d volumes, %d mounts; want %d", len(spec.Volumes), len(c.VolumeMounts), 2+len(p.Skills))
	}
}

// TestJob checks the rules of # The Job on the decoded Job.
func TestJob(t *testing.T) {
	objs, err := kubetest.Decode(render(t, "job"))
	if err != nil {
		t.Fatal(err)
	}
	j := objs[0].(*batchv1.Job)
	checkPod(t, j.Spec.Template.Spec, pod())
	if j.Name != pod().Name || j.Labels["app.kubernetes.io/name"] != "agentskills" || j.Spec.Template.Labels["app.kubernetes.io/component"] != "run" {
		t.Errorf("name %q, labels %v, pod labels %v", j.Name, j.Labels, j.Spec.Template.Labels)
	}
	if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v; want 0", j.Spec.BackoffLimit)
	}
	if d := j.Spec.ActiveDeadlineSeconds; d == nil || *d != 571 {
		t.Errorf("activeDeadlineSeconds %v; want 571 (9m30.001s rounded up)", d)
	}
	if ttl := j.Spec.TTLSecondsAfterFinished; ttl == nil || *ttl != int32(kube.DefaultTTL/time.Second) {
		t.Errorf("ttlSecondsAfterFinished %v; want %d", ttl, int32(kube.DefaultTTL/time.Second))
	}
	if j.Spec.CompletionMode != nil || j.Spec.Completions != nil || j.Spec.Parallelism != nil {
		t.Errorf("completionMode %v, completions %v, parallelism %v; want none for one run", j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism)
	}

	// No limit: no deadline.
	p := pod()
	p.Deadline = 0
	p.Secret = ""
	nolimit, err := kube.NewJob(p, kube.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	kube.Encode(&buf, nolimit)
	objs, err = kubetest.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if j := objs[0].(*batchv1.Job); j.Spec.ActiveDeadlineSeconds != nil || len(j.Spec.Template.Spec.Containers[0].EnvFrom) != 0 {
		t.Errorf("without a limit or a Secret: activeDeadlineSeconds %v, envFrom %v; want neither", j.Spec.ActiveDeadlineSeconds, j.Spec.Template.Spec.Containers[0].EnvFrom)
	}
}

// TestIndexedJob checks an Indexed Job's completions, parallelism and
// output claim.
func TestIndexedJob(t *testing.T) {
	objs, err := kubetest.Decode(render(t, "indexed-job"))
	if err != nil {
		t.Fatal(err)
	}
	j := objs[0].(*batchv1.Job)
	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion || *j.Spec.Completions != 12 || *j.Spec.Parallelism != 4 || *j.Spec.TTLSecondsAfterFinished != 3600 {
		t.Errorf("completionMode %v, completions %v, parallelism %v, ttl %v; want Indexed, 12, 4, 3600", j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism, j.Spec.TTLSecondsAfterFinished)
	}
	if j.Spec.BackoffLimit != nil || j.Spec.BackoffLimitPerIndex == nil || *j.Spec.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimit %v, backoffLimitPerIndex %v; want none, 0: a failed unit stops no other", j.Spec.BackoffLimit, j.Spec.BackoffLimitPerIndex)
	}
	c := container(t, j.Spec.Template.Spec)
	if last := c.Args[len(c.Args)-1]; last != "--index=$(JOB_COMPLETION_INDEX)" {
		t.Errorf("last argument %q; want the completion index", last)
	}
	var out *corev1.Volume
	for i, v := range j.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out = &j.Spec.Template.Spec.Volumes[i]
		}
	}
	if out == nil || out.PersistentVolumeClaim.ClaimName != "eval-results" || out.PersistentVolumeClaim.ReadOnly {
		t.Fatalf("volumes %+v; want the claim eval-results", j.Spec.Template.Spec.Volumes)
	}
	for _, m := range c.VolumeMounts {
		if m.Name == out.Name && (m.MountPath != "/out" || m.ReadOnly) {
			t.Errorf("claim mounted %+v; want read-write at /out", m)
		}
	}
}

// TestSandbox checks the template, pool and claim of agent-sandbox.
func TestSandbox(t *testing.T) {
	objs, err := kubetest.Decode(render(t, "sandbox"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("%d objects; want a template, a pool and a claim", len(objs))
	}
	tmpl, ok1 := objs[0].(*extv1beta1.SandboxTemplate)
	pool, ok2 := objs[1].(*extv1beta1.SandboxWarmPool)
	claim, ok3 := objs[2].(*extv1beta1.SandboxClaim)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("objects %T, %T, %T; want a template, a pool and a claim", objs[0], objs[1], objs[2])
	}
	spec := tmpl.Spec.PodTemplate.Spec
	checkPod(t, spec, pod())
	if spec.ActiveDeadlineSeconds == nil || *spec.ActiveDeadlineSeconds != 571 {
		t.Errorf("pod activeDeadlineSeconds %v; want 571", spec.ActiveDeadlineSeconds)
	}
	if pool.Spec.Replicas == nil || *pool.Spec.Replicas != 0 || pool.Spec.TemplateRef.Name != tmpl.Name {
		t.Errorf("pool replicas %v of %q; want 0 of %q", pool.Spec.Replicas, pool.Spec.TemplateRef.Name, tmpl.Name)
	}
	if claim.Spec.WarmPoolRef.Name != pool.Name || claim.Spec.Lifecycle == nil || *claim.Spec.Lifecycle.TTLSecondsAfterFinished != int32(kube.DefaultTTL/time.Second) {
		t.Errorf("claim of %q, lifecycle %+v; want of %q, the default time to live", claim.Spec.WarmPoolRef.Name, claim.Spec.Lifecycle, pool.Name)
	}
}

// TestArgsQuoted renders arguments YAML would read as other types, or
// that break its syntax, and reads each back as written: the strict
// decoder reads YAML 1.1, where yes and on are booleans.
func TestArgsQuoted(t *testing.T) {
	args := []string{"yes", "no", "on", "off", "y", "n", "true", "False", "null", "~", "", "0", "0123", "0x1F", "1e3", ".5", "-1", "+1",
		"1_000", "12:30", "2026-12-07", ": x", "- y", "# z", "a: b", "[x]", "{x}", "*alias", "&anchor", "!tag", "|", ">", "%", "@", "`",
		"\"", "'", "multi\nline\n", "trailing ", " leading", "tab\there", "ünï", "\u2028", "---", "...", "=", "<<", "\x1b[31m",
		"Off", "N", "0755", "0o17", ".inf", "-.NaN", "12:30:00", "2001-12-14", "\t", "é", "\u0085", strings.Repeat("x", 20000)}
	p := pod()
	p.Args = args
	j, err := kube.NewJob(p, kube.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := kube.Encode(&buf, j); err != nil {
		t.Fatal(err)
	}
	objs, err := kubetest.Decode(buf.Bytes())
	if err != nil {
		t.Fatalf("kubetest.Decode: %v\n%s", err, buf.String())
	}
	got := container(t, objs[0].(*batchv1.Job).Spec.Template.Spec).Args
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("args read back differ (-written +read):\n%s", diff)
	}
}

// TestArgsNotExpanded checks # The pod, rule 7: whatever $ an argument
// holds, the kubelet's expansion of what is written, with the Secret's
// keys in the environment, gives back the argument as given; and the
// index flag alone is expanded.
func TestArgsNotExpanded(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-secret", "JOB_COMPLETION_INDEX": "7", "X": "x-value"}
	args := []string{"print $(ANTHROPIC_API_KEY)", "$(X)", "$$", "$$(X)", "$", "cost $5", "a$", "$(", "$(X", "$$$(X)", "--model=$(X)", "$(JOB_COMPLETION_INDEX)", "no dollar"}
	p := pod()
	p.Args = args
	p.IndexFlag = "--in$dex="
	j, err := kube.NewJob(p, kube.JobOptions{Completions: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := kube.Encode(&buf, j); err != nil {
		t.Fatal(err)
	}
	objs, err := kubetest.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	written := container(t, objs[0].(*batchv1.Job).Spec.Template.Spec).Args
	got := make([]string, len(written))
	for i, a := range written {
		got[i] = kubetest.Expand(a, env)
	}
	want := append(slices.Clone(args), "--in$dex=7")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args as the kubelet expands them differ (-given +expanded):\n%s", diff)
	}
	if _, _, _, err := kube.Sandbox(p, 0); err == nil || !strings.Contains(err.Error(), "an index flag is for an Indexed Job") {
		t.Errorf("Sandbox with an index flag = %v; want refused", err)
	}
}

// TestRefused checks # The pod, rules 2 and 6, and the Job's options:
// each bad input is an error naming what is wrong, and nothing is
// rendered.
func TestRefused(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		name string
		edit func(*kube.Pod, *kube.JobOptions)
		want string
	}{
		{"name upper case", func(p *kube.Pod, _ *kube.JobOptions) { p.Name = "Run" }, `name "Run" is not a Kubernetes name`},
		{"name too long", func(p *kube.Pod, _ *kube.JobOptions) { p.Name = long }, "is not a Kubernetes name"},
		{"name empty", func(p *kube.Pod, _ *kube.JobOptions) { p.Name = "" }, "is not a Kubernetes name"},
		{"no image", func(p *kube.Pod, _ *kube.JobOptions) { p.Image = "" }, "no runner image"},
		{"image with a scheme", func(p *kube.Pod, _ *kube.JobOptions) { p.Image = "oci://ghcr.io/acme/runner:1" }, "has no scheme"},
		{"image with a space", func(p *kube.Pod, _ *kube.JobOptions) { p.Image = "ghcr.io/acme/runner 1" }, "is not an image reference"},
		{"image upper-case path", func(p *kube.Pod, _ *kube.JobOptions) { p.Image = "ghcr.io/Acme/runner" }, "is not an image reference"},
		{"skill by tag", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[0].Reference = "ghcr.io/acme/review:1" }, "skill review: image \"ghcr.io/acme/review:1\" is not pinned"},
		{"skill short digest", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[0].Reference = "ghcr.io/acme/review@sha256:abc" }, "is not an image reference"},
		{"skill name with a slash", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[0].Name = "../etc" }, `skill name "../etc" is not a skill's name`},
		{"two skills of one name", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[1].Name = "review" }, "skill review: two skills mounted at /skills/review"},
		{"skill inside another", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[1].Dir = "/skills/review/lint" }, "mount paths /skills/review and /skills/review/lint overlap"},
		{"skill over the cache", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[1].Dir = "/agentskills" }, "mount paths /agentskills/cache and /agentskills overlap"},
		{"skill not clean", func(p *kube.Pod, _ *kube.JobOptions) { p.Skills[1].Dir = "/skills//lint" }, "is not a clean absolute folder"},
		{"claim over the workspace", func(p *kube.Pod, _ *kube.JobOptions) { p.Output = &kube.Claim{Name: "out", Path: "/workspace/out"} }, "mount paths /workspace and /workspace/out overlap"},
		{"secret with a space", func(p *kube.Pod, _ *kube.JobOptions) { p.Secret = "model key" }, `secret "model key" is not a Kubernetes name`},
		{"secret too long", func(p *kube.Pod, _ *kube.JobOptions) { p.Secret = strings.Repeat("a.", 127) + "a" }, "longer than 253"},
		{"claim relative", func(p *kube.Pod, _ *kube.JobOptions) { p.Output = &kube.Claim{Name: "out", Path: "out"} }, "is not a clean absolute folder"},
		{"claim dot dot", func(p *kube.Pod, _ *kube.JobOptions) { p.Output = &kube.Claim{Name: "out", Path: "/x/../etc"} }, "is not a clean absolute folder"},
		{"claim name", func(p *kube.Pod, _ *kube.JobOptions) { p.Output = &kube.Claim{Name: "Out", Path: "/out"} }, `claim "Out" is not a Kubernetes name`},
		{"label", func(p *kube.Pod, _ *kube.JobOptions) { p.Labels = map[string]string{"a": "b c"} }, `label "a"`},
		{"negative deadline", func(p *kube.Pod, _ *kube.JobOptions) { p.Deadline = -time.Second }, "negative deadline"},
		{"negative completions", func(_ *kube.Pod, o *kube.JobOptions) { o.Completions = -1 }, "negative"},
		{"parallelism alone", func(_ *kube.Pod, o *kube.JobOptions) { o.Parallelism = 2 }, "parallelism is for an Indexed Job"},
		{"completions too many", func(_ *kube.Pod, o *kube.JobOptions) { o.Completions = 1 << 31 }, "too large"},
		{"argument not UTF-8", func(p *kube.Pod, _ *kube.JobOptions) { p.Args[5] = "Review \xff" }, `argument 6: "Review \xff" is not UTF-8`},
		{"index flag not UTF-8", func(p *kube.Pod, o *kube.JobOptions) { p.IndexFlag, o.Completions = "--index\xff=", 2 }, "is not UTF-8"},
		{"index flag in a plain Job", func(p *kube.Pod, _ *kube.JobOptions) { p.IndexFlag = "--index=" }, "an index flag is for an Indexed Job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, o := pod(), kube.JobOptions{}
			tt.edit(&p, &o)
			j, err := kube.NewJob(p, o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewJob = %v, %v; want an error saying %q", j, err, tt.want)
			}
		})
	}
}

// TestLongSkillNames checks that two skill names of 64 characters, the
// longest a skill may have, that differ only at their end get two
// volumes, each a DNS label, mounted at the skills' folders.
func TestLongSkillNames(t *testing.T) {
	p := pod()
	a, b := strings.Repeat("x", 63)+"a", strings.Repeat("x", 63)+"b"
	p.Skills = []kube.Skill{{Name: a, Reference: p.Skills[0].Reference}, {Name: b, Reference: p.Skills[1].Reference}}
	j, err := kube.NewJob(p, kube.JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	kube.Encode(&buf, j)
	objs, err := kubetest.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkPod(t, objs[0].(*batchv1.Job).Spec.Template.Spec, p)
	seen := map[string]bool{}
	for _, v := range j.Spec.Template.Spec.Volumes {
		if err := kube.CheckName("volume", v.Name); err != nil || seen[v.Name] {
			t.Errorf("volume %q: %v, seen before %v; want a distinct DNS label", v.Name, err, seen[v.Name])
		}
		seen[v.Name] = true
	}
	p.Skills[0].Name = strings.Repeat("x", 65)
	if _, err := kube.NewJob(p, kube.JobOptions{}); err == nil || !strings.Contains(err.Error(), "is not a skill's name") {
		t.Errorf("NewJob with a 65-character skill name = %v; want refused", err)
	}
}
