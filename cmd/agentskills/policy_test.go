package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
)

// policyTestPub is a public key in the PEM form cosign writes cosign.pub.
const policyTestPub = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEF8vUrgF/ZVhjBaWIxjbW7mONKB7c
kqq3tgPlsJgxfaYUZUY5fx4VVa9vbQSlLCnhnqZGILrPBOgGaVTQ7GVDGg==
-----END PUBLIC KEY-----
`

// policyScope makes a HOME and a project (the working folder), writes the
// files given (paths relative to HOME or to the project, under
// "home/" or "project/") and returns both.
func policyScope(t *testing.T, files map[string]string) (home, project string) {
	t.Helper()
	home, project = t.TempDir(), t.TempDir()
	for name, content := range files {
		scope, rel, _ := strings.Cut(name, "/")
		dir := home
		if scope == "project" {
			dir = project
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Chdir(project)
	return home, project
}

const userPolicy = ".agents/" + policy.FileName

// policy check explains, per source, what the user's and the project's
// files say, and exits 1 when one is denied.
func TestPolicyCheck(t *testing.T) {
	files := map[string]string{
		"home/" + userPolicy: `version: 1
sources:
  allow:
    - github:acme/*
    - oci:ghcr.io/acme/*
signers:
  - sources: [oci:ghcr.io/acme/*]
    keys: [keys/release.pub]
audit:
  fail_on: critical
`,
		"home/.agents/keys/release.pub": policyTestPub,
		"project/" + userPolicy: `version: 1
sources:
  allow:
    - github:acme/tools
    - oci:ghcr.io/acme/*
  pinned: true
audit:
  fail_on: medium
  accept:
    - rule: download-exec
      source: oci:ghcr.io/acme/*
      reason: installs our own CLI
`,
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		out      []string // lines in stdout, in order
		notOut   []string
		errs     string
		userOnly bool
	}{
		{
			name: "allowed and pinned",
			args: []string{"policy", "check", "--pinned", "oci:ghcr.io/acme/skills"},
			out: []string{
				"Policy file: HOME/" + userPolicy,
				"Policy file: PROJECT/" + userPolicy,
				"oci:ghcr.io/acme/skills: allowed",
				"  sources.allow (HOME/" + userPolicy + ":5): matches oci:ghcr.io/acme/*",
				"  sources.allow (PROJECT/" + userPolicy + ":5): matches oci:ghcr.io/acme/*",
				"  must be pinned: sources.pinned (PROJECT/" + userPolicy + ":6), it is",
				"  signature required: signers[1] (HOME/" + userPolicy + ":7): key HOME/.agents/keys/release.pub",
				"  audit: a finding at medium or above refuses a skill: audit.fail_on (PROJECT/" + userPolicy + ":8)",
				"  accepted: download-exec in any skill, audit.accept[1] (PROJECT/" + userPolicy + ":10): installs our own CLI",
			},
		},
		{
			name: "denied by the project",
			args: []string{"policy", "check", "--pinned", "github:acme/tools", "github:acme/other"},
			code: 1,
			out: []string{
				"github:acme/tools: allowed",
				"  no signature required",
				"github:acme/other: denied: sources.allow (PROJECT/" + userPolicy + ":3): no pattern of sources.allow matches github:acme/other; use a source it allows, or add a pattern that matches it to PROJECT/" + userPolicy,
				"  sources.allow (HOME/" + userPolicy + ":4): matches github:acme/*",
				"  sources.allow (PROJECT/" + userPolicy + ":3): no pattern matches",
			},
			notOut: []string{"accepted:"},
			errs:   "the policy denies a source",
		},
		{
			name: "not pinned",
			args: []string{"policy", "check", "oci:ghcr.io/acme/skills"},
			code: 1,
			out:  []string{"oci:ghcr.io/acme/skills: denied: sources.pinned (PROJECT/" + userPolicy + ":6): the source names no immutable version", "  must be pinned: sources.pinned (PROJECT/" + userPolicy + ":6), it is not"},
		},
		{
			// Sources as add takes them, answered as add would: the
			// policy sees the canonical location.
			name: "sources as add takes them",
			args: []string{"policy", "check", "oci://GHCR.IO:0443/acme/skills@sha256:" + strings.Repeat("ab", 32), "acme/tools@" + strings.Repeat("0f", 20)},
			out: []string{
				"oci://GHCR.IO:0443/acme/skills@sha256:" + strings.Repeat("ab", 32) + ": allowed",
				"  sources.allow (HOME/" + userPolicy + ":5): matches oci:ghcr.io/acme/*",
				"  must be pinned: sources.pinned (PROJECT/" + userPolicy + ":6), it is",
				"  signature required: signers[1] (HOME/" + userPolicy + ":7): key HOME/.agents/keys/release.pub",
				"acme/tools@" + strings.Repeat("0f", 20) + ": allowed",
				"  sources.allow (PROJECT/" + userPolicy + ":4): matches github:acme/tools",
			},
		},
		{
			name: "a location that cannot be made canonical",
			args: []string{"policy", "check", "oci://0x7f.1/acme/skills@sha256:" + strings.Repeat("ab", 32)},
			code: 1,
			out:  []string{"oci://0x7f.1/acme/skills@sha256:" + strings.Repeat("ab", 32) + ": denied: ", "cannot be made canonical"},
			errs: "the policy denies a source",
		},
		{
			name: "bad source",
			args: []string{"policy", "check", "oci://ghcr.io/acme/skills"},
			code: 2,
			errs: "names no tag or digest",
		},
		{
			name: "bad notation",
			args: []string{"policy", "check", "oci:ghcr.io:0/acme/skills"},
			code: 2,
			errs: "not from 1 to 65535",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := policyScope(t, files)
			code, out, errs := runHere(t, tt.args...)
			out = strings.ReplaceAll(strings.ReplaceAll(out, home, "HOME"), project, "PROJECT")
			if code != tt.code || !strings.Contains(errs, tt.errs) {
				t.Fatalf("%v = %d, stderr %q; want %d, stderr with %q", tt.args, code, errs, tt.code, tt.errs)
			}
			rest := out
			for _, l := range tt.out {
				i := strings.Index(rest, l)
				if i < 0 {
					t.Fatalf("%v: stdout lacks %q (in order):\n%s", tt.args, l, out)
				}
				rest = rest[i+len(l):]
			}
			for _, l := range tt.notOut {
				if strings.Contains(out, l) {
					t.Errorf("%v: stdout has %q:\n%s", tt.args, l, out)
				}
			}
		})
	}
}

// With no policy file, every source is allowed and check says where it
// looked; a policy file that does not parse exits 2 naming the line.
func TestPolicyCheckFiles(t *testing.T) {
	home, project := policyScope(t, nil)
	code, out, errs := runHere(t, "policy", "check", "github:anyone/anything")
	want := "No policy file (looked for " + filepath.Join(home, ".agents", policy.FileName) + " and " + filepath.Join(project, ".agents", policy.FileName) + ")."
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "github:anyone/anything: allowed\n  no policy file") {
		t.Errorf("policy check with no file = %d, %q, stderr %q; want allowed, saying where it looked", code, out, errs)
	}
	home, _ = policyScope(t, map[string]string{"home/" + userPolicy: "version: 1\nsources:\n  alow: [github:a/*]\n"})
	code, out, errs = runHere(t, "policy", "check", "github:a/b")
	name := filepath.Join(home, ".agents", policy.FileName)
	if code != 2 || !strings.Contains(errs, name+`:3: unknown key "alow" in sources`) || !strings.Contains(errs, "fix the file") {
		t.Errorf("policy check with a broken file = %d, %q, stderr %q; want 2 naming %s:3", code, out, errs, name)
	}
}

// policy export writes the signers rules of both files as YAML on
// stdout, notes on stderr what it leaves out, and exits 2 when nothing
// can be written or the format is not given.
func TestPolicyExport(t *testing.T) {
	files := map[string]string{
		"home/" + userPolicy: `version: 1
signers:
  - sources: [oci:ghcr.io/acme/*]
    keys: [keys/release.pub]
  - sources: [github:acme/*]
    commits: {allowed_signers: keys/release.pub}
`,
		"home/.agents/keys/release.pub": policyTestPub,
		"project/" + userPolicy: `version: 1
signers:
  - sources: [oci:registry.acme.corp/skills]
    identity: release@acme.example
    issuer: https://issuer.acme.example
`,
	}
	tests := []struct {
		name string
		args []string
		code int
		out  []string // in stdout, in order
		errs []string // in stderr, in order
	}{
		{
			name: "kyverno",
			args: []string{"policy", "export", "--format", "kyverno"},
			out: []string{"apiVersion: kyverno.io/v1", "kind: ClusterPolicy", "- name: signers-1", "- ghcr.io/acme/*:*",
				strings.Split(policyTestPub, "\n")[1], "- name: signers-2", "- registry.acme.corp/skills@*", "subject: release@acme.example"},
			errs: []string{"note: signers[2] (HOME/" + userPolicy + ":5): left out: its commits rule names git and github sources (github:acme/*)"},
		},
		{
			name: "policy-controller",
			args: []string{"policy", "export", "--format=policy-controller"},
			out:  []string{"kind: ClusterImagePolicy", "name: agentskills-signers-2", "glob: registry.acme.corp/skills:*", "subject: release@acme.example"},
			errs: []string{"note: signers[1] (HOME/" + userPolicy + ":3): left out: policy-controller v0.13.1 verifies Sigstore bundles"},
		},
		{
			name: "no format",
			args: []string{"policy", "export"},
			code: 2,
			errs: []string{"--format \"\": say which admission controller"},
		},
		{
			name: "another format",
			args: []string{"policy", "export", "--format", "gatekeeper"},
			code: 2,
			errs: []string{"--format \"gatekeeper\""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := policyScope(t, files)
			code, out, errs := runHere(t, tt.args...)
			errs = strings.ReplaceAll(strings.ReplaceAll(errs, home, "HOME"), project, "PROJECT")
			if code != tt.code {
				t.Fatalf("%v = %d, stdout %q, stderr %q; want %d", tt.args, code, out, errs, tt.code)
			}
			for _, c := range []struct {
				stream string
				lines  []string
			}{{out, tt.out}, {errs, tt.errs}} {
				stream, lines := c.stream, c.lines
				rest := stream
				for _, l := range lines {
					i := strings.Index(rest, l)
					if i < 0 {
						t.Fatalf("%v: output lacks %q (in order):\n%s", tt.args, l, stream)
					}
					rest = rest[i+len(l):]
				}
			}
			if tt.code != 0 && out != "" {
				t.Errorf("%v failed with stdout %q, want none", tt.args, out)
			}
		})
	}
}

// With nothing policy-controller can check, or no signers rule, export
// exits 2 saying what to add, and writes nothing to stdout.
func TestPolicyExportNothing(t *testing.T) {
	policyScope(t, nil)
	code, out, errs := runHere(t, "policy", "export", "--format", "kyverno")
	if code != 2 || out != "" || !strings.Contains(errs, "no policy file: no signer rule for oci sources: add a signers rule") {
		t.Errorf("policy export with no file = %d, %q, stderr %q; want 2 saying what to add", code, out, errs)
	}
	policyScope(t, map[string]string{
		"home/" + userPolicy:            "version: 1\nsigners:\n  - sources: [oci:ghcr.io/acme/*]\n    keys: [keys/release.pub]\n",
		"home/.agents/keys/release.pub": policyTestPub,
	})
	code, out, errs = runHere(t, "policy", "export", "--format", "policy-controller")
	if code != 2 || out != "" || !strings.Contains(errs, "and this rule names keys alone") || !strings.Contains(errs, "give a rule an identity and issuer") {
		t.Errorf("policy export of keys for policy-controller = %d, %q, stderr %q; want 2 with the note and what to do", code, out, errs)
	}
	home, _ := policyScope(t, map[string]string{"home/" + userPolicy: "version: 1\nsigners: {}\n"})
	code, _, errs = runHere(t, "policy", "export", "--format", "kyverno")
	if name := filepath.Join(home, ".agents", policy.FileName); code != 2 || !strings.Contains(errs, name+":2:") {
		t.Errorf("policy export with a broken file = %d, stderr %q; want 2 naming %s:2", code, errs, name)
	}
}
