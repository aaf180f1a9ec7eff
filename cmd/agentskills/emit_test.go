package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"oras.land/oras-go/v2/registry/remote/credentials"
	extv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/kubetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

var updateEmit = flag.Bool("update-emit", false, "write testdata/emit/*.yaml from what --emit prints")

// emitTestdata is the golden files' folder, made absolute before a test
// changes its working folder (newStubRig does).
var emitTestdata, _ = filepath.Abs(filepath.Join("testdata", "emit"))

// emitRig is a registry on loopback holding skills, and the stand-in
// agent, which --emit must never start.
type emitRig struct {
	*stubRig
	host string
	// digests are the digests each tag resolved to, by skill name.
	digests map[string]string
}

func newEmitRig(t *testing.T) *emitRig {
	t.Helper()
	r := &emitRig{stubRig: newStubRig(t), digests: map[string]string{}}
	_, r.host = ocireg.Start(t, true)
	return r
}

// push pushes a skill named name, its SKILL.md at the layer's root, as
// oci://HOST/acme/NAME:1, and returns that tag.
func (r *emitRig) push(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	writeSkill(t, dir, name, "---\nname: "+name+"\ndescription: Does "+name+".\n---\nRead the diff.\n")
	tag := "oci://" + r.host + "/acme/" + name + ":1"
	opts := []oci.Option{oci.WithCredentials(credentials.NewMemoryStore())}
	dgst, err := oci.Push(t.Context(), filepath.Join(dir, name), tag, opts...)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	r.digests[name] = dgst
	return tag
}

// normalize replaces the registry's address, the skills' digests and the
// hash in the objects' names, which change from one test run to the
// next, by names, for the golden files.
func (r *emitRig) normalize(out string) string {
	out = strings.ReplaceAll(out, r.host, "REGISTRY")
	out = regexp.MustCompile(`(agentskills-[a-z-]+)-[0-9a-f]{10}\b`).ReplaceAllString(out, "$1-HASH")
	for name, d := range r.digests {
		out = strings.ReplaceAll(out, d, "sha256:DIGEST-OF-"+strings.ToUpper(name))
	}
	return out
}

// golden compares out with testdata/emit/NAME.yaml, which -update-emit
// writes.
func golden(t *testing.T, name, out string) {
	t.Helper()
	file := filepath.Join(emitTestdata, name+".yaml")
	if *updateEmit {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/agentskills -run TestRunEmit -args -update-emit writes it)", err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("%s differs (-want +got; -update-emit rewrites it):\n%s", file, diff)
	}
}

// credentials are values of the environment's credential variables,
// none of which may appear in what --emit prints.
var emitCredentials = map[string]string{
	"ANTHROPIC_API_KEY":               "sk-ant-emit-test-0f9e8d7c",
	"OPENAI_API_KEY":                  "sk-openai-emit-test-1a2b3c",
	"GEMINI_API_KEY":                  "gemini-emit-test-4d5e6f",
	"CLAUDE_CODE_OAUTH_TOKEN":         "oauth-emit-test-7a8b9c",
	"GITHUB_TOKEN":                    "ghp_emittest0123456789",
	"AGENTSKILLS_CLAUDE_CODE_COMMAND": "/home/secret-path/claude",
}

// TestRunEmit prints a run of two oci:// skills as a Job and as
// agent-sandbox's objects: they decode strictly into the official types,
// match the golden files, mount each skill at the digest its tag
// resolved to, and run the same command with the skills at their mount
// paths; no credential of the environment is printed, and no agent
// starts.
func TestRunEmit(t *testing.T) {
	r := newEmitRig(t)
	for k, v := range emitCredentials {
		t.Setenv(k, v)
	}
	review := r.push(t, "review")
	lint := r.push(t, "lint")
	flags := []string{"run", "-a", "claude-code", "-s", review, "-s", lint, "--runner-image", "ghcr.io/acme/runner:1",
		"--secret", "model-credentials", "--run-timeout", "10m", "--model", "opus", "--permission-mode", "acceptEdits",
		"--allowed-tools", "Bash(git diff:*)", "--disallowed-tools", "WebFetch", "--max-turns", "5",
		"--agent-arg=--append-system-prompt=Be brief", "--allow-risk", "download-exec", "--json", "--quiet"}
	prompt := "Review the last commit:\nyes, all of it"
	wantArgs := []string{"run", "--agent=claude-code", "--skill=/skills/review", "--skill=/skills/lint", "--model=opus",
		"--permission-mode=acceptEdits", "--allowed-tools=Bash(git diff:*)", "--disallowed-tools=WebFetch", "--max-turns=5",
		"--agent-arg=--append-system-prompt=Be brief", "--allow-risk=download-exec", "--json", "--quiet", "--", prompt}

	for _, emit := range []string{"kubernetes", "agent-sandbox"} {
		t.Run(emit, func(t *testing.T) {
			code, out, errs := r.run(t, append(flags, "--emit", emit, "--", prompt)...)
			if code != 0 {
				t.Fatalf("run --emit %s = %d, stderr %q", emit, code, errs)
			}
			if r.started() {
				t.Error("run --emit started the agent")
			}
			for k, v := range emitCredentials {
				if strings.Contains(out, v) {
					t.Errorf("the output holds $%s's value", k)
				}
			}
			golden(t, "run-"+emit, r.normalize(out))
			objs, err := kubetest.Decode([]byte(out))
			if err != nil {
				t.Fatalf("kubetest.Decode: %v\n%s", err, out)
			}
			var spec corev1.PodSpec
			var deadline *int64
			switch emit {
			case "kubernetes":
				if len(objs) != 1 {
					t.Fatalf("%d objects; want one Job", len(objs))
				}
				j := objs[0].(*batchv1.Job)
				spec, deadline = j.Spec.Template.Spec, j.Spec.ActiveDeadlineSeconds
				if *j.Spec.BackoffLimit != 0 || *j.Spec.TTLSecondsAfterFinished != 86400 {
					t.Errorf("backoffLimit %d, ttl %d; want 0, 86400", *j.Spec.BackoffLimit, *j.Spec.TTLSecondsAfterFinished)
				}
			default:
				if len(objs) != 3 {
					t.Fatalf("%d objects; want a template, a pool and a claim", len(objs))
				}
				tmpl := objs[0].(*extv1beta1.SandboxTemplate)
				spec, deadline = tmpl.Spec.PodTemplate.Spec, tmpl.Spec.PodTemplate.Spec.ActiveDeadlineSeconds
				if claim := objs[2].(*extv1beta1.SandboxClaim); claim.Spec.WarmPoolRef.Name != objs[1].(*extv1beta1.SandboxWarmPool).Name {
					t.Errorf("the claim names the pool %q", claim.Spec.WarmPoolRef.Name)
				}
			}
			if deadline == nil || *deadline != 600 {
				t.Errorf("activeDeadlineSeconds %v; want 600, from --run-timeout", deadline)
			}
			c := spec.Containers[0]
			if diff := cmp.Diff(wantArgs, c.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if c.Image != "ghcr.io/acme/runner:1" || len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef.Name != "model-credentials" {
				t.Errorf("image %s, envFrom %+v; want the runner image and the Secret", c.Image, c.EnvFrom)
			}
			refs := map[string]string{}
			for _, v := range spec.Volumes {
				if v.Image != nil {
					refs[v.Name] = v.Image.Reference
				}
			}
			want := map[string]string{
				"skills-review": r.host + "/acme/review@" + r.digests["review"],
				"skills-lint":   r.host + "/acme/lint@" + r.digests["lint"],
			}
			if diff := cmp.Diff(want, refs); diff != "" {
				t.Errorf("image volumes (-want +got):\n%s", diff)
			}
		})
	}

	// The same run printed twice is the same Job; another prompt another.
	_, a, _ := r.run(t, append(flags, "--emit", "kubernetes", "--", prompt)...)
	_, b, _ := r.run(t, append(flags, "--emit", "kubernetes", "--", prompt)...)
	_, c, _ := r.run(t, append(flags, "--emit", "kubernetes", "--", "another")...)
	name := func(out string) string {
		objs, err := kubetest.Decode([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].(*batchv1.Job).Name
	}
	if name(a) != name(b) || name(a) == name(c) {
		t.Errorf("names %s, %s, %s; want the first two equal, the third not", name(a), name(b), name(c))
	}
}

// TestRunEmitPinned checks that a skill given by digest keeps it, and one
// given by tag is pinned to what the tag names when --emit runs: a tag
// moved later does not change a Job printed before.
func TestRunEmitPinned(t *testing.T) {
	r := newEmitRig(t)
	tag := r.push(t, "review")
	first := r.digests["review"]
	args := []string{"run", "-a", "codex", "--emit", "kubernetes", "--runner-image", "runner:dev", "-s"}
	code, before, errs := r.run(t, append(args, tag, "go")...)
	if code != 0 {
		t.Fatalf("run --emit = %d, stderr %q", code, errs)
	}
	// The tag now names other content.
	dir := t.TempDir()
	writeSkill(t, dir, "review", "---\nname: review\ndescription: Does more.\n---\nRead it all.\n")
	second, err := oci.Push(t.Context(), filepath.Join(dir, "review"), tag, oci.WithCredentials(credentials.NewMemoryStore()))
	if err != nil || second == first {
		t.Fatalf("Push = %s, %v; want another digest than %s", second, err, first)
	}
	_, after, _ := r.run(t, append(args, tag, "go")...)
	_, byDigest, _ := r.run(t, append(args, strings.TrimSuffix(tag, ":1")+"@"+first, "go")...)
	for _, tt := range []struct{ name, out, want string }{{"before", before, first}, {"after", after, second}, {"by digest", byDigest, first}} {
		if !strings.Contains(tt.out, r.host+"/acme/review@"+tt.want+"\n") {
			t.Errorf("%s: the output does not mount %s:\n%s", tt.name, tt.want, tt.out)
		}
	}
}

// TestRunEmitRefused checks what --emit refuses before printing
// anything: bad usage (exit 2) for a skill that is not an image, a
// missing or malformed runner image or Secret, --resume, flags of --emit
// without it; the trust checks (exit 1) for a skill the signers refuse.
func TestRunEmitRefused(t *testing.T) {
	r := newEmitRig(t)
	tag := r.push(t, "review")
	local := t.TempDir()
	writeSkill(t, local, "mine", "---\nname: mine\ndescription: Mine.\n---\n")
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	keyFile := filepath.Join(t.TempDir(), "cosign.pub")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)

	// A skill in the artifact format, which no runtime mounts.
	dir := t.TempDir()
	writeSkill(t, dir, "old", "---\nname: old\ndescription: Old.\n---\n")
	artifact := "oci://" + r.host + "/acme/old:1"
	if _, err := oci.Push(t.Context(), filepath.Join(dir, "old"), artifact, oci.WithFormat(oci.FormatArtifact), oci.WithCredentials(credentials.NewMemoryStore())); err != nil {
		t.Fatal(err)
	}

	emit := []string{"run", "-a", "claude-code", "--emit", "kubernetes", "--runner-image", "runner:dev"}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"local folder", append(slices.Clone(emit), "-s", filepath.Join(local, "mine"), "go"), 2, `this is a local source: publish the skill's folder with "agentskills push ` + filepath.Join(local, "mine") + ` oci://`},
		{"archive", append(slices.Clone(emit), "-s", "./kit.tgz", "go"), 2, `this is a local source: publish the skill's folder with "agentskills push DIR oci://HOST/REPO:TAG"`},
		{"github", append(slices.Clone(emit), "-s", "acme/skills", "go"), 2, "this is a github source"},
		{"no runner image", []string{"run", "-a", "claude-code", "--emit", "kubernetes", "-s", tag, "go"}, 2, "--emit needs --runner-image REF"},
		{"runner image with a scheme", []string{"run", "-a", "claude-code", "--emit", "kubernetes", "--runner-image", "oci://ghcr.io/acme/runner:1", "-s", tag, "go"}, 2, "has no scheme"},
		{"unknown emit", []string{"run", "-a", "claude-code", "--emit", "helm", "--runner-image", "runner:dev", "-s", tag, "go"}, 2, `--emit "helm": give kubernetes`},
		{"runner image alone", []string{"run", "-a", "claude-code", "--runner-image", "runner:dev", "-s", tag, "go"}, 2, "--runner-image is the image of the pod --emit prints"},
		{"secret alone", []string{"run", "-a", "claude-code", "--secret", "creds", "-s", tag, "go"}, 2, "--secret names the Secret of the pod --emit prints"},
		{"bad secret", append(slices.Clone(emit), "--secret", "Model Keys", "-s", tag, "go"), 2, `--secret "Model Keys" is not a Kubernetes name`},
		{"resume", append(slices.Clone(emit), "--resume", "4f1c2d3e-0000-4000-8000-000000000000", "-s", tag, "go"), 2, "--resume continues a session recorded here"},
		{"unknown agent", []string{"run", "-a", "vim", "--emit", "kubernetes", "--runner-image", "runner:dev", "-s", tag, "go"}, 2, `cannot run agent "vim"`},
		{"flag the agent lacks", []string{"run", "-a", "codex", "--max-turns", "3", "--emit", "kubernetes", "--runner-image", "runner:dev", "-s", tag, "go"}, 2, "Codex has no turn limit"},
		{"artifact", append(slices.Clone(emit), "-s", artifact, "go"), 2, "its layer is of type application/vnd.agentskills.skill.content.v1.tar+gzip, which container runtimes do not mount"},
		{"unsigned", append(slices.Clone(emit), "--key", keyFile, "-s", tag, "go"), 1, "not signed"},
		{"policy", append(slices.Clone(emit), "-s", tag, "go"), 1, "sources.allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "policy" {
				writePolicy(t, r.home, "version: 1\nsources:\n  allow: [github:acme/*]\n")
				defer os.Remove(filepath.Join(r.home, ".agents", "agentskills.policy.yaml"))
			}
			code, out, errs := r.run(t, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.want) {
				t.Errorf("run = %d, stderr %q; want %d saying %q", code, errs, tt.code, tt.want)
			}
			if out != "" {
				t.Errorf("stdout %q; want nothing printed", out)
			}
			if r.started() {
				t.Error("the agent started")
			}
		})
	}
}

// TestEmitRunFlags checks that each of run's flags is either given to the
// pod's run as it was given (runFlagArgs) or used where --emit runs, so
// that a flag added to run is not silently left out of the pod.
func TestEmitRunFlags(t *testing.T) {
	passed := []string{"model", "permission-mode", "skip-permissions", "allowed-tools", "disallowed-tools", "max-turns", "agent-arg", "agent-command", "allow-risk", "json", "quiet"}
	here := map[string]string{
		"agent":                          "given as --agent",
		"skill":                          "given as the mount paths",
		"workspace":                      "the folder whose policy applies here; the pod's is /workspace",
		"resume":                         "refused with --emit",
		"timeout":                        "the skills are fetched here; the pod downloads nothing",
		"run-timeout":                    "the Job's activeDeadlineSeconds",
		"key":                            "signers are checked here",
		"certificate-identity":           "signers are checked here",
		"certificate-identity-regexp":    "signers are checked here",
		"certificate-oidc-issuer":        "signers are checked here",
		"certificate-oidc-issuer-regexp": "signers are checked here",
		"trusted-root":                   "signers are checked here",
		"emit":                           "what is printed",
		"runner-image":                   "the pod's image",
		"secret":                         "the pod's envFrom",
		"help":                           "cobra's",
	}
	cmd := newRunCmd(newStreams(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}))
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(passed, f.Name) && here[f.Name] == "" {
			t.Errorf("run's flag --%s is neither given to the pod's run (runFlagArgs) nor used by --emit: say which in emit.go and in this test", f.Name)
		}
	})
	opts := &runOptions{model: "m", json: true, quiet: true, agentFlags: agentFlags{permissionMode: "p", skipPermissions: true, allowedTools: []string{"a"},
		disallowedTools: []string{"d"}, maxTurns: 2, agentArgs: []string{"--x"}, agentCommand: "/usr/local/bin/claude"}, trust: trustFlags{allowRisks: []string{"r"}}}
	args := strings.Join(runFlagArgs(opts), " ")
	for _, f := range passed {
		if !strings.Contains(args, "--"+f) {
			t.Errorf("runFlagArgs = %s; want --%s in it", args, f)
		}
	}
}
