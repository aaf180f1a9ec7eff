package main

import (
	"encoding/json"
	"os"
	"os/exec"
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

// policy show prints the effective policy, each file with its extends
// chain and pin, each rule with its line, and a loosening as a warning;
// --json the same as an object. The pins are in the project's lock file.
func TestPolicyShowExtends(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	companySrc := "git+file://" + filepath.ToSlash(repo) + "#ref=v1&path=company/agentskills.policy.yaml"
	teamSrc := "git+file://" + filepath.ToSlash(repo) + "#ref=v1&path=team/agentskills.policy.yaml"
	os.MkdirAll(filepath.Join(repo, "company"), 0o755)
	os.MkdirAll(filepath.Join(repo, "team"), 0o755)
	os.WriteFile(filepath.Join(repo, "company", policy.FileName), []byte("version: 1\naudit:\n  fail_on: medium\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "team", policy.FileName), []byte("version: 1\nextends: \""+companySrc+"\"\nsources:\n  pinned: true\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "policies")
	git("tag", "v1")
	commit := git("rev-parse", "HEAD")
	_, project := policyScope(t, map[string]string{"project/" + userPolicy: "version: 1\nextends: \"" + teamSrc + "\"\naudit:\n  fail_on: critical\n"})
	code, out, errs := runHere(t, "policy", "show")
	projFile := filepath.Join(project, ".agents", policy.FileName)
	company := companySrc + "@" + commit
	team := teamSrc + "@" + commit
	for _, want := range []string{
		"  audit.fail_on: medium (" + company + ":3)\n",
		"  sources.pinned: true (" + team + ":4)\n",
		"\n" + company + " (project)\n  chain: " + projFile + " extends " + team + " extends " + company + "\n  pinned at " + commit + ", content sha256:",
		"  line 2: extends: " + teamSrc + "\n",
		"warning: audit.fail_on (" + projFile + ":4): fail_on critical is above the extended file's medium",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("policy show = %d, %q, stderr %q; want %q", code, out, errs, want)
		}
	}
	lock, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil || !strings.Contains(string(lock), `"policy": {`) || strings.Count(string(lock), `"pin": "`+commit+`"`) != 2 {
		t.Errorf("lock file = %s, %v; want both files pinned at %s", lock, err, commit)
	}
	code, out, errs = runHere(t, "policy", "show", "--json")
	var shown struct {
		Files []struct {
			File, Scope, Pin string
			Chain            []string
		}
		Effective map[string]struct {
			Value, File string
			Line        int
		}
		Rules []struct {
			Rule, Value, File string
			Line              int
		}
		Loosenings []struct{ Rule, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || code != 0 {
		t.Fatalf("policy show --json = %d, %q, %v, stderr %q", code, out, err, errs)
	}
	if len(shown.Files) != 3 || shown.Files[0].File != company || shown.Files[0].Pin != commit || len(shown.Files[0].Chain) != 3 ||
		shown.Effective["audit.fail_on"].File != company || shown.Effective["audit.fail_on"].Line != 3 ||
		len(shown.Loosenings) != 1 || shown.Loosenings[0].Rule != "audit.fail_on" {
		t.Errorf("policy show --json = %+v", shown)
	}
	// Offline, from the cache and the lock file's pins: add enforces the
	// chain, the team's sources.pinned refusing a GitHub source unpinned
	// before anything is read.
	os.Rename(repo, repo+".gone")
	if code, out, errs = runHere(t, "policy", "show"); code != 0 || !strings.Contains(out, company) {
		t.Errorf("policy show offline = %d, %q, stderr %q", code, out, errs)
	}
	code, out, errs = runHere(t, "add", "github:acme/tools", "-a", "claude-code")
	if code != exitFailed || !strings.Contains(errs, "sources.pinned ("+team+":4)") {
		t.Errorf("add of an unpinned source under the team's pinned: true = %d, %q, stderr %q", code, out, errs)
	}
	// sync --frozen and verify pin nothing new.
	os.WriteFile(filepath.Join(project, ".agents", policy.FileName), []byte("version: 1\nextends: \"git+file:///nowhere#ref=v1\"\n"), 0o644)
	for _, args := range [][]string{{"sync", "--frozen"}, {"verify"}} {
		code, out, errs = runHere(t, args...)
		if code == 0 || !strings.Contains(errs, "does not pin it") {
			t.Errorf("%v with an extends not pinned = %d, %q, stderr %q", args, code, out, errs)
		}
	}
}
