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
