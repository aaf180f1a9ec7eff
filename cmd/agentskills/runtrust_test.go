package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
)

// writePolicy writes the policy file of the scope rooted at root.
func writePolicy(t *testing.T, root, content string) string {
	t.Helper()
	p := filepath.Join(root, ".agents", policy.FileName)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lastJSONLine decodes the last line of out.
func lastJSONLine(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last line of %q is not JSON: %v", out, err)
	}
	return last
}

// TestRunPolicyRefuses checks that run enforces the workspace's policy
// before the agent starts: a folder the policy does not allow is refused
// with exit 1, the rule and the file on stderr, and code "policy" in the
// error line of --json.
func TestRunPolicyRefuses(t *testing.T) {
	r := newStubRig(t)
	workspace := t.TempDir()
	skills := t.TempDir()
	writeSkill(t, skills, "review", "---\nname: review\ndescription: Reviews.\n---\nRead the diff.\n")
	file := writePolicy(t, workspace, "version: 1\nsources:\n  allow: [github:acme/*]\n")
	args := []string{"run", "-a", "claude-code", "--agent-command", r.stub, "-w", workspace, "-s", filepath.Join(skills, "review")}

	code, out, errs := r.run(t, append(args, "hello")...)
	if code != 1 || out != "" {
		t.Fatalf("run = %d, stdout %q, stderr %q; want 1 and no output", code, out, errs)
	}
	for _, want := range []string{`skill "review" refused by the trust policy`, "sources.allow", file + ":3"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q does not say %q", errs, want)
		}
	}
	if r.started() {
		t.Error("run started the agent with a refused skill")
	}

	code, out, errs = r.run(t, append(args, "--json", "hello")...)
	last := lastJSONLine(t, out)
	if code != 1 || last["type"] != "error" || last["code"] != codePolicy || last["exit_code"] != 1.0 {
		t.Errorf("run --json = %d, last line %v (stderr %q); want 1 and an error line with code %q", code, last, errs, codePolicy)
	}
	if r.started() {
		t.Error("run --json started the agent with a refused skill")
	}
}

// TestRunTrustFlagsRefused checks that trust flags that cannot apply are
// bad usage, refused before anything is fetched.
func TestRunTrustFlagsRefused(t *testing.T) {
	r := newStubRig(t)
	skills := t.TempDir()
	writeSkill(t, skills, "review", "---\nname: review\ndescription: Reviews.\n---\n")
	pub := filepath.Join(t.TempDir(), "cosign.pub")
	os.WriteFile(pub, []byte("not a key"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"key without oci", []string{"--key", pub}, exitUsage, "no --skill is one"},
		{"identity without issuer", []string{"--certificate-identity", "me@example.org", "-s", "oci://127.0.0.1:1/x:1"}, exitUsage, "--certificate-oidc-issuer or --certificate-oidc-issuer-regexp"},
		{"trusted root alone", []string{"--trusted-root", pub, "-s", "oci://127.0.0.1:1/x:1"}, exitUsage, "--trusted-root is for keyless signatures"},
		{"missing key file", []string{"--key", filepath.Join(t.TempDir(), "nope.pub"), "-s", "oci://127.0.0.1:1/x:1"}, exitUsage, "nope.pub: open"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "-a", "claude-code", "--agent-command", r.stub, "-s", filepath.Join(skills, "review")}, tt.args...)
			code, out, errs := r.run(t, append(args, "hello")...)
			if code != tt.code || out != "" || !strings.Contains(errs, tt.want) {
				t.Errorf("run %q = %d, %q, stderr %q; want %d saying %q", tt.args, code, out, errs, tt.code, tt.want)
			}
			if r.started() {
				t.Errorf("run %q started the agent", tt.args)
			}
		})
	}
}
