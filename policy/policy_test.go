package policy_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
)

func mustParse(t *testing.T, yaml string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(yaml), filepath.Join(t.TempDir(), policy.FileName))
	if err != nil {
		t.Fatalf("Parse(%q) = %v", yaml, err)
	}
	return p
}

// Rule 3: the pattern language.
func TestPatterns(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct {
		pattern string
		src     source.Origin
		want    bool
	}{
		{"github:acme/*", source.Origin{Kind: "github", Location: "acme/tools"}, true},
		{"github:acme/*", source.Origin{Kind: "github", Location: "acme"}, false},
		{"github:acme/*", source.Origin{Kind: "github", Location: "acme/tools/sub"}, false},
		{"github:acme/*", source.Origin{Kind: "github", Location: "acmex/tools"}, false},
		{"github:acme/*", source.Origin{Kind: "github", Location: "evil/acme"}, false},
		{"github:acme/*", source.Origin{Kind: "git", Location: "acme/tools"}, false},
		{"github:acme/**", source.Origin{Kind: "github", Location: "acme/tools"}, true},
		{"github:acme/**", source.Origin{Kind: "github", Location: "acmex/tools"}, false},
		// A github location is OWNER/REPO (rule 15): one with more or fewer
		// elements is no repository's and is refused, whatever matches it.
		{"github:acme/**", source.Origin{Kind: "github", Location: "acme/tools/skills/review"}, false},
		{"github:acme/**", source.Origin{Kind: "github", Location: "acme"}, false},
		// A git pattern whose host is a wildcard matches a repository on
		// github.com at github.com/OWNER/REPO, whichever kind names it.
		{"git:*.com/acme/*", source.Origin{Kind: "github", Location: "acme/tools"}, true},
		{"git:**", source.Origin{Kind: "github", Location: "acme/tools"}, true},
		{"git:*.com/acme/*", source.Origin{Kind: "git", Location: "GitHub.com/Acme/Tools.git"}, true},
		{"git:git.acme.corp/**", source.Origin{Kind: "github", Location: "acme/tools"}, false},
		{"github:acme/*", source.Origin{Kind: "git", Location: "github.com/acme/tools"}, true},
		{"git:github.com/acme/*", source.Origin{Kind: "github", Location: "acme/tools"}, true},
		{"git:git.acme.corp/team/*.git", source.Origin{Kind: "git", Location: "git.acme.corp/team/tools.git"}, true},
		{"url:https://*.acme.corp/*", source.Origin{Kind: "url", Location: "https://evil.example?.acme.corp/x.tgz"}, false},
		{"url:https://*.acme.corp/*", source.Origin{Kind: "url", Location: "https://a.acme.corp?x=1/2"}, true},
		{"url:https://skills.acme.corp", source.Origin{Kind: "url", Location: "https://skills.acme.corp"}, true},
		{"url:https://**", source.Origin{Kind: "url", Location: "https://a.example/b/kit.tgz?x=1/2"}, true},
		{"url:https://**", source.Origin{Kind: "url", Location: "http://a.example/kit.tgz"}, false},
		{"github:acme/tool-?", source.Origin{Kind: "github", Location: "acme/tool-a"}, true},
		{"github:acme/[a-c]*", source.Origin{Kind: "github", Location: "acme/deploy"}, false},
		{"github:Acme/Tools", source.Origin{Kind: "github", Location: "ACME/tools"}, true},
		{"github:**/tools", source.Origin{Kind: "github", Location: "anyone/tools"}, true},
		{"git:git.acme.corp/skills/*", source.Origin{Kind: "git", Location: "GIT.ACME.CORP/skills/a"}, true},
		{"git:git.acme.corp/skills/*", source.Origin{Kind: "git", Location: "git.acme.corp/Skills/a"}, false},
		{"git:git.acme.corp/**", source.Origin{Kind: "git", Location: "git.acme.corp.evil.example/skills"}, false},
		{"git:*.acme.corp/**", source.Origin{Kind: "git", Location: "git.acme.corp/a/b"}, true},
		{"oci:ghcr.io/acme/*", source.Origin{Kind: "oci", Location: "ghcr.io/acme/skills"}, true},
		{"oci:ghcr.io/acme/*", source.Origin{Kind: "oci", Location: "ghcr.io/acme/team/skills"}, false},
		{"oci:ghcr.io/acme/**", source.Origin{Kind: "oci", Location: "ghcr.io/acme/team/skills"}, true},
		{"oci:ghcr.io/**/skills", source.Origin{Kind: "oci", Location: "ghcr.io/a/b/c/skills"}, true},
		{"oci:ghcr.io/**/skills", source.Origin{Kind: "oci", Location: "ghcr.io/a/b/c/skills2"}, false},
		{"url:https://skills.acme.corp/*", source.Origin{Kind: "url", Location: "https://skills.acme.corp/kit.tgz"}, true},
		{"url:https://skills.acme.corp/*", source.Origin{Kind: "url", Location: "HTTPS://Skills.Acme.Corp/kit.tgz"}, true},
		{"url:https://skills.acme.corp/*", source.Origin{Kind: "url", Location: "http://skills.acme.corp/kit.tgz"}, false},
		{"url:https://skills.acme.corp/*", source.Origin{Kind: "url", Location: "https://skills.acme.corp.evil/kit.tgz"}, false},
		{"url:https://skills.acme.corp/*", source.Origin{Kind: "url", Location: "https://skills.acme.corp/a/kit.tgz"}, false},
		{"local:/srv/skills/**", source.Origin{Kind: "local", Location: "/srv/skills/a/b"}, true},
		{"local:/srv/skills/**", source.Origin{Kind: "local", Location: "/srv/skills/../secret"}, false},
		{"local:/srv/skills/*", source.Origin{Kind: "local", Location: "/srv/skills/a/"}, true},
		{"local:/srv/skills/*", source.Origin{Kind: "local", Location: "/srv/Skills/a"}, false},
		{"local:/**", source.Origin{Kind: "local", Location: "/anything/at/all"}, true},
		{"local:~/work/**", source.Origin{Kind: "local", Location: filepath.Join(home, "work", "x")}, true},
		{"local:/srv/**", source.Origin{Kind: "inline"}, true}, // rule 5
	}
	for _, tt := range tests {
		p := mustParse(t, "version: 1\nsources:\n  allow: [\""+tt.pattern+"\"]\n")
		err := p.Check(tt.src)
		if got := err == nil; got != tt.want {
			t.Errorf("pattern %q: Check(%+v) = %v, want allowed %v", tt.pattern, tt.src, err, tt.want)
		}
	}
}

// Rule 3: a local pattern relative to the policy file is in its folder.
func TestPatternRelativeLocal(t *testing.T) {
	project := t.TempDir()
	writePolicy(t, project, "version: 1\nsources:\n  allow: [local:../skills/**]\n")
	p, err := policy.Load("", project)
	if err != nil {
		t.Fatal(err)
	}
	in := source.Origin{Kind: "local", Location: filepath.Join(project, "skills", "review")}
	if err := p.Check(in); err != nil {
		t.Errorf("Check(%s) = %v, want nil", in.Location, err)
	}
	out := source.Origin{Kind: "local", Location: filepath.Join(project, ".agents", "skills", "review")}
	if err := p.Check(out); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("Check(%s) = %v, want denied", out.Location, err)
	}
}

// Rule 3: a pattern of many ** against a long location answers at once.
func TestPatternManyStars(t *testing.T) {
	pat := "oci:h" + strings.Repeat("/**", 62) + "/x"
	p := mustParse(t, "version: 1\nsources:\n  allow: [\""+pat+"\"]\n")
	loc := "h" + strings.Repeat("/a", 2000) + "/y"
	if err := p.Check(source.Origin{Kind: "oci", Location: loc}); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("Check(long location) = %v, want denied", err)
	}
}

// Rules 2 and 5: sources.allow absent, empty, given; inline sources.
func TestAllow(t *testing.T) {
	gh := source.Origin{Kind: "github", Location: "acme/tools", Display: "acme/tools"}
	inline := source.Origin{Kind: "inline", Display: "greet"}
	tests := []struct {
		name, yaml string
		src        source.Origin
		want       bool
	}{
		{"no file", "", gh, true},
		{"absent", "version: 1\n", gh, true},
		{"empty", "version: 1\nsources:\n  allow: []\n", gh, false},
		{"matches", "version: 1\nsources:\n  allow: [oci:r/*, github:acme/*]\n", gh, true},
		{"no match", "version: 1\nsources:\n  allow: [oci:r/*]\n", gh, false},
		{"inline with empty allow", "version: 1\nsources:\n  allow: []\n", inline, true},
		{"unknown kind", "version: 1\n", source.Origin{Kind: "ftp", Location: "x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &policy.Policy{}
			if tt.yaml != "" {
				p = mustParse(t, tt.yaml)
			}
			err := p.Check(tt.src)
			if got := err == nil; got != tt.want {
				t.Fatalf("Check(%+v) = %v, want allowed %v", tt.src, err, tt.want)
			}
			if err != nil && !errors.Is(err, policy.ErrDenied) {
				t.Errorf("Check(%+v) = %v, want %v", tt.src, err, policy.ErrDenied)
			}
		})
	}
}

// A refusal names the rule, the file and line, and what to do.
func TestDeniedError(t *testing.T) {
	home := t.TempDir()
	name := writePolicy(t, home, "version: 1\nsources:\n  allow:\n    - github:anthropics/*\n")
	p, err := policy.Load(home, "")
	if err != nil {
		t.Fatal(err)
	}
	err = p.Check(source.Origin{Kind: "github", Location: "evil/skills", Display: "evil/skills@main"})
	var d *policy.DeniedError
	if !errors.As(err, &d) {
		t.Fatalf("Check = %v, want a *DeniedError", err)
	}
	want := &policy.DeniedError{Source: "evil/skills@main", Rule: "sources.allow", File: name, Line: 3,
		Reason: "no pattern of sources.allow matches github:evil/skills; use a source it allows, or add a pattern that matches it to " + name}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Check: (-want +got)\n%s", diff)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "evil/skills@main: denied by the policy: sources.allow ("+name+":3): ") {
		t.Errorf("Error() = %q", msg)
	}
}

// Rule 4: sources.pinned applies to published sources only.
func TestPinned(t *testing.T) {
	p := mustParse(t, "version: 1\nsources:\n  pinned: true\n")
	off := mustParse(t, "version: 1\nsources:\n  pinned: false\n")
	tests := []struct {
		src  source.Origin
		want bool
	}{
		{source.Origin{Kind: "github", Location: "a/b"}, false},
		{source.Origin{Kind: "github", Location: "a/b", Pinned: true}, true},
		{source.Origin{Kind: "git", Location: "h/r"}, false},
		{source.Origin{Kind: "oci", Location: "h/r"}, false},
		{source.Origin{Kind: "oci", Location: "h/r", Pinned: true}, true},
		{source.Origin{Kind: "url", Location: "https://h/k.tgz"}, false},
		{source.Origin{Kind: "local", Location: "/srv/x"}, true},
		{source.Origin{Kind: "inline"}, true},
	}
	for _, tt := range tests {
		err := p.Check(tt.src)
		if got := err == nil; got != tt.want {
			t.Errorf("pinned: Check(%+v) = %v, want allowed %v", tt.src, err, tt.want)
		}
		var d *policy.DeniedError
		if err != nil && (!errors.As(err, &d) || d.Rule != "sources.pinned" || d.Line != 3) {
			t.Errorf("pinned: Check(%+v) = %v, want sources.pinned at line 3", tt.src, err)
		}
		if err := off.Check(tt.src); err != nil {
			t.Errorf("pinned false: Check(%+v) = %v, want nil", tt.src, err)
		}
	}
}

// Rules 6 and 7: which signers rules apply, and what they require.
func TestSigners(t *testing.T) {
	dir := t.TempDir()
	for f, content := range map[string]string{"allowed_signers": "{}", "trusted_root.json": "{}", "release.pub": testPub} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pub, err := signature.LoadPublicKey([]byte(testPub))
	if err != nil {
		t.Fatal(err)
	}
	yaml := `version: 1
signers:
  - sources: [oci:ghcr.io/acme/*]
    identity_regexp: ^https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/.*
    issuer: https://token.actions.githubusercontent.com
  - sources: [oci:ghcr.io/**]
    identity: release@acme.corp
    issuer_regexp: ^https://accounts\.google\.com$
    trusted_root: trusted_root.json
  - sources: [git:git.acme.corp/**, github:acme/*]
    commits: {allowed_signers: allowed_signers}
  - sources: [oci:ghcr.io/acme/skills]
    keys: [release.pub, "` + strings.ReplaceAll(testPub, "\n", `\n`) + `"]
`
	name := filepath.Join(dir, policy.FileName)
	p, err := policy.Parse([]byte(yaml), name)
	if err != nil {
		t.Fatal(err)
	}
	acme := source.Origin{Kind: "oci", Location: "ghcr.io/acme/skills"}
	rules, err := p.SignerRules(acme)
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.SignerRule{
		{Rule: policy.Rule{Name: "signers[1]", File: name, Line: 3}, Sources: []string{"oci:ghcr.io/acme/*"}, Requirements: []policy.Signer{{
			IdentityRegexp: "^https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/.*",
			Issuer:         "https://token.actions.githubusercontent.com"}}},
		{Rule: policy.Rule{Name: "signers[2]", File: name, Line: 6}, Sources: []string{"oci:ghcr.io/**"}, Requirements: []policy.Signer{{
			Identity: "release@acme.corp", IssuerRegexp: `^https://accounts\.google\.com$`, TrustedRoot: []byte("{}"), TrustedRootFile: filepath.Join(dir, "trusted_root.json")}}},
		{Rule: policy.Rule{Name: "signers[4]", File: name, Line: 12}, Sources: []string{"oci:ghcr.io/acme/skills"}, Requirements: []policy.Signer{{Key: pub, KeyName: filepath.Join(dir, "release.pub")}, {Key: pub, KeyName: "the key at line 13"}}},
	}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("SignerRules(%s): (-want +got)\n%s", acme.Location, diff)
	}
	other := source.Origin{Kind: "oci", Location: "ghcr.io/other/skills"}
	if rules, _ := p.SignerRules(other); len(rules) != 1 {
		t.Errorf("SignerRules(%s) = %v, want one rule", other.Location, rules)
	}
	for _, s := range []source.Origin{{Kind: "oci", Location: "docker.io/acme/skills"}, {Kind: "github", Location: "acme/tools"}} {
		if rules, err := p.SignerRules(s); len(rules) != 0 || err != nil {
			t.Errorf("SignerRules(%+v) = %v, %v, want none", s, rules, err)
		}
	}
	for _, tt := range []struct {
		src  source.Origin
		want bool
	}{
		{source.Origin{Kind: "github", Location: "acme/tools"}, true},
		{source.Origin{Kind: "git", Location: "git.acme.corp/a/b"}, true},
		{source.Origin{Kind: "github", Location: "other/tools"}, false},
		{acme, false},
	} {
		rules := p.CommitRules(tt.src)
		if required := len(rules) > 0; required != tt.want || required && (rules[0].AllowedSigners != filepath.Join(dir, "allowed_signers") || rules[0].GPGKeyring != "") {
			t.Errorf("CommitRules(%+v) = %+v, want the allowed_signers file: %v", tt.src, rules, tt.want)
		}
	}
}

// Rules 9, 10 and 14 in one file: the threshold and what is accepted.
func TestAudit(t *testing.T) {
	p := mustParse(t, `version: 1
audit:
  fail_on: Medium
  accept:
    - rule: download-exec
      skill: setup-*
      source: github:acme/*
      reason: installs our own CLI
    - rule: binary-file
      reason: we ship a compiled helper
`)
	if got := p.FailOn(); got != audit.Medium {
		t.Errorf("FailOn() = %v, want medium", got)
	}
	acme := source.Origin{Kind: "github", Location: "acme/tools"}
	evil := source.Origin{Kind: "github", Location: "evil/tools"}
	tests := []struct {
		rule  string
		sev   audit.Severity
		skill string
		src   source.Origin
		want  bool
	}{
		{"download-exec", audit.High, "setup-helper", acme, true},
		{"download-exec", audit.High, "setup-helper", evil, false},
		{"download-exec", audit.High, "other", acme, false},
		{"binary-file", audit.Medium, "anything", evil, true},
		{"reverse-shell", audit.Critical, "setup-helper", acme, false},
		{"credential-read", audit.Low, "setup-helper", acme, true}, // below the threshold: refuses nothing
	}
	for _, tt := range tests {
		f := audit.Finding{Rule: tt.rule, Severity: tt.sev}
		if got := p.Accepted(f, tt.skill, tt.src); got != tt.want {
			t.Errorf("Accepted(%s %d, %s, %s) = %v, want %v", tt.rule, tt.sev, tt.skill, tt.src.Location, got, tt.want)
		}
	}
	var none policy.Policy
	if got := none.FailOn(); got != audit.High {
		t.Errorf("FailOn() with no file = %v, want high", got)
	}
	if none.Accepted(audit.Finding{Rule: "download-exec", Severity: audit.High}, "x", acme) {
		t.Error("Accepted(high) with no file = true, want false")
	}
	if !none.Accepted(audit.Finding{Rule: "download-exec", Severity: audit.Medium}, "x", acme) {
		t.Error("Accepted(medium) with no file = false, want true")
	}
}

// Rules 11 to 14: the project's file tightens the user's, in every
// direction, and never loosens it.
func TestTighten(t *testing.T) {
	acme := source.Origin{Kind: "oci", Location: "ghcr.io/acme/skills"}
	team := source.Origin{Kind: "oci", Location: "ghcr.io/acme/team"}
	evil := source.Origin{Kind: "oci", Location: "ghcr.io/evil/skills"}
	pinnedAcme := acme
	pinnedAcme.Pinned = true
	high := audit.Finding{Rule: "download-exec", Severity: audit.High}
	medium := audit.Finding{Rule: "download-exec", Severity: audit.Medium}
	const accept = "audit:\n  accept:\n    - {rule: download-exec, reason: ours}\n"
	type check struct {
		name string
		ok   func(p *policy.Policy) bool
	}
	allowed := func(s source.Origin) func(*policy.Policy) bool {
		return func(p *policy.Policy) bool { return p.Check(s) == nil }
	}
	accepted := func(f audit.Finding) func(*policy.Policy) bool {
		return func(p *policy.Policy) bool { return p.Accepted(f, "kit", acme) }
	}
	signers := func(n int) func(*policy.Policy) bool {
		return func(p *policy.Policy) bool { l, err := p.SignerRules(acme); return err == nil && len(l) == n }
	}
	tests := []struct {
		name, user, project string
		checks              []check
	}{
		{"project narrows allow", "sources:\n  allow: [oci:ghcr.io/acme/*]\n", "sources:\n  allow: [oci:ghcr.io/acme/skills]\n",
			[]check{{"acme", allowed(acme)}, {"not team", not(allowed(team))}}},
		{"project cannot widen allow", "sources:\n  allow: [oci:ghcr.io/acme/*]\n", "sources:\n  allow: [oci:ghcr.io/**]\n",
			[]check{{"acme", allowed(acme)}, {"not evil", not(allowed(evil))}}},
		{"project allows where user is silent", "", "sources:\n  allow: [oci:ghcr.io/acme/*]\n",
			[]check{{"acme", allowed(acme)}, {"not evil", not(allowed(evil))}}},
		{"user pinned", "sources:\n  pinned: true\n", "sources:\n  pinned: false\n",
			[]check{{"unpinned refused", not(allowed(acme))}, {"pinned", allowed(pinnedAcme)}}},
		{"project pinned", "sources:\n  pinned: false\n", "sources:\n  pinned: true\n",
			[]check{{"unpinned refused", not(allowed(acme))}}},
		{"signers of both", "signers:\n  - {sources: [oci:ghcr.io/**], identity: a, issuer: b}\n", "signers:\n  - {sources: [oci:ghcr.io/acme/*], identity: c, issuer: d}\n",
			[]check{{"two lists", signers(2)}}},
		{"project fail_on stricter", "audit:\n  fail_on: critical\n", "audit:\n  fail_on: medium\n",
			[]check{{"failOn medium", func(p *policy.Policy) bool { return p.FailOn() == audit.Medium }}, {"medium refused", not(accepted(medium))}}},
		{"project fail_on laxer", "audit:\n  fail_on: low\n", "audit:\n  fail_on: critical\n",
			[]check{{"failOn low", func(p *policy.Policy) bool { return p.FailOn() == audit.Low }}, {"medium refused", not(accepted(medium))}}},
		{"project cannot accept what user refuses", "", accept,
			[]check{{"high refused", not(accepted(high))}}},
		{"user's acceptance does not lift project's threshold", accept + "  fail_on: high\n", "audit:\n  fail_on: medium\n",
			[]check{{"medium refused", not(accepted(medium))}, {"high refused", not(accepted(high))}}},
		{"both accept", accept, accept, []check{{"high accepted", accepted(high)}}},
		{"user accepts, project silent at default", accept, "sources:\n  pinned: false\n", []check{{"high refused", not(accepted(high))}}},
		{"user accepts, project threshold above", accept, "audit:\n  fail_on: critical\n", []check{{"high accepted", accepted(high)}}},
		{"project accepts what only it refuses", "audit:\n  fail_on: critical\n", "audit:\n  fail_on: medium\n  accept:\n    - {rule: download-exec, reason: ours}\n",
			[]check{{"high accepted", accepted(high)}, {"medium accepted", accepted(medium)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			writePolicy(t, home, "version: 1\n"+tt.user)
			writePolicy(t, project, "version: 1\n"+tt.project)
			p, err := policy.Load(home, project)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Files(); len(got) != 2 || !strings.HasPrefix(got[0], home) {
				t.Errorf("Files() = %q, want the user's then the project's", got)
			}
			for _, c := range tt.checks {
				if !c.ok(p) {
					t.Errorf("%s: does not hold", c.name)
				}
			}
		})
	}
}

func not(f func(*policy.Policy) bool) func(*policy.Policy) bool {
	return func(p *policy.Policy) bool { return !f(p) }
}

// Load: missing files are no rules; a broken one is ErrInvalid naming it.
func TestLoad(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	p, err := policy.Load(home, project)
	if err != nil || len(p.Files()) != 0 {
		t.Fatalf("Load(no files) = %v, %v, want no files", p.Files(), err)
	}
	if err := p.Check(source.Origin{Kind: "github", Location: "any/thing"}); err != nil {
		t.Errorf("Check with no files = %v", err)
	}
	name := writePolicy(t, project, "version: 1\nsources:\n  allow: github:a/*\n")
	if _, err := policy.Load(home, project); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), name+":3:") {
		t.Errorf("Load(broken) = %v, want %v naming %s:3", err, policy.ErrInvalid, name)
	}
	os.Remove(name)
	if err := os.Mkdir(name, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := policy.Load(home, project); !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load(a folder) = %v, want not a regular file", err)
	}
}

// A source of a kind the policy does not know is refused, saying which
// kinds there are; a policy with no file says so as the rule's place.
func TestUnknownKind(t *testing.T) {
	var p policy.Policy
	err := p.Check(source.Origin{Kind: "ftp", Location: "h/x", Display: "ftp://h/x"})
	want := `ftp://h/x: denied by the policy: source.kind (the default): kind "ftp" is not a kind of source the policy knows (github, git, oci, url, local, inline)`
	if err == nil || err.Error() != want {
		t.Errorf("Check(ftp) = %v, want %s", err, want)
	}
	if r := p.FailOnRule(); r.String() != "audit.fail_on (the default)" {
		t.Errorf("FailOnRule() = %s, want audit.fail_on (the default)", r)
	}
}

// Rule 14 with no user file: the default stands for the user's policy, so
// a project's file (a cloned repository's) cannot accept what the default
// refuses; it accepts only below the default threshold, or what a user's
// file accepts too.
func TestProjectAcceptWithoutUserFile(t *testing.T) {
	src := source.Origin{Kind: "github", Location: "evil/kit"}
	high := audit.Finding{Rule: "reverse-shell", Severity: audit.Critical}
	medium := audit.Finding{Rule: "download-exec", Severity: audit.Medium}
	tests := []struct {
		name, user, project string
		f                   audit.Finding
		want                bool
	}{
		{"project accepts critical, no user file", "", "audit:\n  accept:\n    - {rule: reverse-shell, reason: trust me}\n", high, false},
		{"project fail_on medium accepts medium, no user file", "", "audit:\n  fail_on: medium\n  accept:\n    - {rule: download-exec, reason: ours}\n", medium, true},
		{"user and project accept critical", "version: 1\naudit:\n  accept:\n    - {rule: reverse-shell, reason: ours}\n", "audit:\n  accept:\n    - {rule: reverse-shell, reason: ours}\n", high, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			if tt.user != "" {
				writePolicy(t, home, tt.user)
			}
			writePolicy(t, project, "version: 1\n"+tt.project)
			p, err := policy.Load(home, project)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Accepted(tt.f, "kit", src); got != tt.want {
				t.Errorf("Accepted(%s %s) = %v, want %v", tt.f.Rule, tt.f.Severity, got, tt.want)
			}
		})
	}
}

// Rule 5: a source that does not say where it comes from is not inline:
// any rule that could apply refuses it, saying how to give it an origin.
func TestUnknownSource(t *testing.T) {
	src := source.Origin{Kind: "unknown", Display: "an archive without an origin"}
	tests := []struct {
		name, yaml, rule string // rule "": allowed
	}{
		{"no rules", "version: 1\n", ""},
		{"allow", "version: 1\nsources:\n  allow: [oci:ghcr.io/acme/*]\n", "sources.allow"},
		{"pinned", "version: 1\nsources:\n  pinned: true\n", "sources.pinned"},
		{"signers", "version: 1\nsigners:\n  - {sources: [oci:ghcr.io/acme/*], identity: a, issuer: b}\n", "signers[1]"},
		{"audit only", "version: 1\naudit:\n  fail_on: medium\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mustParse(t, tt.yaml).Check(src)
			var denied *policy.DeniedError
			switch {
			case tt.rule == "" && err != nil:
				t.Errorf("Check(unknown) = %v, want allowed", err)
			case tt.rule != "" && (!errors.As(err, &denied) || denied.Rule != tt.rule || !strings.Contains(err.Error(), "source.OriginSource")):
				t.Errorf("Check(unknown) = %v, want refused by %s saying how to give an origin", err, tt.rule)
			}
		})
	}
	var zero policy.Policy
	if err := zero.Check(src); err != nil {
		t.Errorf("zero Policy Check(unknown) = %v, want allowed", err)
	}
}

// Explain says that a project's acceptance with no user's file counts
// only below the default threshold (rule 14).
func TestExplainProjectAccept(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writePolicy(t, project, "version: 1\naudit:\n  accept:\n    - {rule: reverse-shell, reason: trust me}\n")
	p, err := policy.Load(home, project)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Explain(source.Origin{Kind: "github", Location: "evil/kit"}), "\n")
	if !strings.Contains(got, "accepted: reverse-shell") || !strings.Contains(got, "below high only") {
		t.Errorf("Explain = %s, want the project's acceptance said to count below high only", got)
	}
}

// Rule 16: only the user's own file refuses in UserRefusal's sense; the
// default that stands for a missing one, and a project's file, do not.
func TestUserRefusal(t *testing.T) {
	src := source.Origin{Kind: "local", Location: "/kit"}
	high := audit.Finding{Rule: "prerequisite-install", Severity: audit.High}
	medium := audit.Finding{Rule: "download-exec", Severity: audit.Medium}
	tests := []struct {
		name, user, project string
		f                   audit.Finding
		want                bool
	}{
		{"no user file, high", "", "", high, false},
		{"no user file, project refuses medium", "", "audit:\n  fail_on: medium\n", medium, false},
		{"user file at the default threshold, high", "version: 1\n", "", high, true},
		{"user file at the default threshold, medium", "version: 1\n", "", medium, false},
		{"user file refuses medium", "version: 1\naudit:\n  fail_on: medium\n", "", medium, true},
		{"user file accepts", "version: 1\naudit:\n  accept:\n    - {rule: prerequisite-install, reason: ours}\n", "", high, false},
		{"user file accepts another skill", "version: 1\naudit:\n  accept:\n    - {rule: prerequisite-install, skill: other, reason: ours}\n", "", high, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			if tt.user != "" {
				writePolicy(t, home, tt.user)
			}
			if tt.project != "" {
				writePolicy(t, project, "version: 1\n"+tt.project)
			}
			p, err := policy.Load(home, project)
			if err != nil {
				t.Fatal(err)
			}
			r, got := p.UserRefusal(tt.f, "kit", src)
			if got != tt.want || got && (r.Name != "audit.fail_on" || !strings.HasSuffix(r.File, policy.FileName)) {
				t.Errorf("UserRefusal(%s %s) = %v, %v; want %v, naming the user's file", tt.f.Rule, tt.f.Severity, r, got, tt.want)
			}
		})
	}
}

// Rule 6: a key package signature would refuse is refused when the
// policy is read, naming file:line, in package signature's words.
func TestKeyRefusedAsSignatureRefuses(t *testing.T) {
	dir := t.TempDir()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkix := func(pub any) []byte {
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}
	for name, data := range map[string][]byte{
		"garbage":   []byte("not a key"),
		"private":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}),
		"not-pkix":  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}}),
		"rsa":       pkix(&rsaKey.PublicKey),
		"p224":      pkix(&p224.PublicKey),
		"too-large": []byte(strings.Repeat("x", 64<<10+1)),
	} {
		file := filepath.Join(dir, name+".pub")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, want := signature.LoadPublicKey(data)
		if want == nil {
			t.Fatalf("%s: signature.LoadPublicKey accepts it", name)
		}
		path := filepath.Join(dir, policy.FileName)
		_, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [oci:r/a]\n    keys: ["+file+"]\n"), path)
		if err == nil || !errors.Is(err, policy.ErrInvalid) || !strings.HasSuffix(err.Error(), ": "+path+":4: signers[1].keys: "+file+": "+want.Error()) {
			t.Errorf("%s: Parse: %v; want ...%s:4: signers[1].keys: %s: %v", name, err, path, file, want)
		}
	}
}

// Rules 6, 7 and 13: Signers lists every signers rule of both files, the
// user's first, whatever source it applies to, its patterns canonical.
func TestSignersAll(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "allowed_signers"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	writePolicy(t, home, `version: 1
signers:
  - sources: [oci:GHCR.IO:443/acme/*, oci:localhost:80/x/**]
    identity: dev@acme.example
    issuer: https://issuer.example
  - sources: [github:Acme/*]
    commits: {allowed_signers: ../allowed_signers}
`)
	writePolicy(t, project, "version: 1\nsigners:\n  - sources: [oci:registry.acme.corp/skills]\n    keys: [\""+strings.ReplaceAll(testPub, "\n", `\n`)+"\"]\n")
	p, err := policy.Load(home, project)
	if err != nil {
		t.Fatal(err)
	}
	sigs, commits := p.Signers()
	var got []string
	for _, r := range sigs {
		got = append(got, r.Name+" "+strings.Join(r.Sources, ",")+" "+r.File)
	}
	want := []string{
		"signers[1] oci:ghcr.io/acme/*,oci:localhost/x/** " + filepath.Join(home, ".agents", policy.FileName),
		"signers[1] oci:registry.acme.corp/skills " + filepath.Join(project, ".agents", policy.FileName),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Signers(): (-want +got)\n%s", diff)
	}
	if len(sigs) == 2 && (len(sigs[1].Requirements) != 1 || sigs[1].Requirements[0].Key == nil || sigs[0].Requirements[0].Identity != "dev@acme.example") {
		t.Errorf("Signers() requirements = %+v, %+v", sigs[0].Requirements, sigs[1].Requirements)
	}
	if len(commits) != 1 || !slices.Equal(commits[0].Sources, []string{"github:acme/*"}) || commits[0].AllowedSigners != filepath.Join(home, "allowed_signers") {
		t.Errorf("Signers() commits = %+v, want the github rule", commits)
	}
	if sigs, commits := (&policy.Policy{}).Signers(); sigs != nil || commits != nil {
		t.Errorf("Signers() of no file = %v, %v, want none", sigs, commits)
	}
}
