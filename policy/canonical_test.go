package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// Rule 15: every rule is matched against the source's canonical
// location, and a pattern is made canonical as a location is: a signers
// rule written in one spelling applies to a source written in another,
// and so does an allow pattern.
func TestCanonicalMatching(t *testing.T) {
	key := writeKey(t)
	tests := []struct {
		pattern string
		src     source.Origin
	}{
		{"oci:ghcr.io/acme/*", source.Origin{Kind: "oci", Location: "ghcr.io:0443/acme/x"}},
		{"oci:ghcr.io/acme/*", source.Origin{Kind: "oci", Location: "GHCR.IO.:443/acme/x"}},
		{"oci:GHCR.IO:443/acme/*", source.Origin{Kind: "oci", Location: "ghcr.io/acme/x"}},
		{"oci:ghcr.io:0443/ACME/*", source.Origin{Kind: "oci", Location: "ghcr.io/acme/x"}},
		{"oci:xn--bcher-kva.example/acme/*", source.Origin{Kind: "oci", Location: "bücher.example/acme/x"}},
		{"oci:bücher.example/acme/*", source.Origin{Kind: "oci", Location: "xn--bcher-kva.example/acme/x"}},
		{"oci:[::1]:5000/acme/*", source.Origin{Kind: "oci", Location: "[0:0::1]:05000/acme/x"}},
		{"oci:127.0.0.1:5000/acme/*", source.Origin{Kind: "oci", Location: "127.0.0.1:005000/acme/x"}},
		{"git:git.acme.corp/team/*", source.Origin{Kind: "git", Location: "git.acme.corp:22/team//tools.git"}},
		{"git:git.acme.corp:0443/team/*", source.Origin{Kind: "git", Location: "git.acme.corp/team/tools"}},
		{"git:/srv/repos/acme/*", source.Origin{Kind: "git", Location: "/srv/repos//acme/tools/"}},
		{"git:github.com/acme/*", source.Origin{Kind: "git", Location: "github.com/ACME/Tools"}},
		{"github:ghe.acme.corp/acme/*", source.Origin{Kind: "git", Location: "ghe.acme.corp/acme/tools"}},
		{"github:ghe.acme.corp/acme/*", source.Origin{Kind: "github", Location: "GHE.acme.corp:443/acme/tools"}},
	}
	for _, tt := range tests {
		allow := mustParse(t, "version: 1\nsources:\n  allow: [\""+tt.pattern+"\"]\n")
		if err := allow.Check(tt.src); err != nil {
			t.Errorf("allow %s: Check(%+v) = %v, want allowed", tt.pattern, tt.src, err)
		}
		rule := "    keys: [\"" + key + "\"]\n"
		if tt.src.Kind != "oci" {
			rule = "    commits: {allowed_signers: \"" + key + "\"}\n"
		}
		signers := mustParse(t, "version: 1\nsigners:\n  - sources: [\""+tt.pattern+"\"]\n"+rule)
		rules, err := signers.SignerRules(tt.src)
		if n := len(rules) + len(signers.CommitRules(tt.src)); err != nil || n != 1 {
			t.Errorf("signers %s: rules for %+v = %d, %v; want the rule to apply", tt.pattern, tt.src, n, err)
		}
	}
}

// Rule 3: a signers rule applies whatever the case of a location's path
// (it is never skipped for a spelling in another case), where an allow
// pattern matches case for case.
func TestSignerRuleIgnoresCase(t *testing.T) {
	key := writeKey(t)
	src := source.Origin{Kind: "git", Location: "git.acme.corp/Team/Tools"}
	p := mustParse(t, "version: 1\nsigners:\n  - sources: [git:git.acme.corp/team/*]\n    commits: {allowed_signers: \""+key+"\"}\n")
	if got := p.CommitRules(src); len(got) != 1 {
		t.Errorf("CommitRules(%+v) = %v, want the rule for git.acme.corp/team/*", src, got)
	}
	allow := mustParse(t, "version: 1\nsources:\n  allow: [git:git.acme.corp/team/*]\n")
	if err := allow.Check(src); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("allow git.acme.corp/team/*: Check(%+v) = %v, want denied", src, err)
	}
}

// Rules 5 and 15: a location that cannot be made canonical matches no
// pattern and is refused by every rule that could apply, saying why.
func TestCanonicalRefused(t *testing.T) {
	key := writeKey(t)
	p := mustParse(t, "version: 1\nsigners:\n  - sources: [oci:ghcr.io/acme/*]\n    keys: [\""+key+"\"]\n")
	for _, loc := range []string{"ghcr.io:65536/acme/x", "ghcr.io:+443/acme/x", "ghcr.io:/acme/x", "0x7f.1/acme/x", "user@ghcr.io/acme/x", "ghcr.io/acme/%2e%2e/x", "ghcr.io/acme/../x"} {
		src := source.Origin{Kind: "oci", Location: loc}
		if err := p.Check(src); !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "canonical") {
			t.Errorf("Check(%+v) = %v, want denied: its location cannot be made canonical", src, err)
		}
		if rules, err := p.SignerRules(src); err == nil {
			t.Errorf("SignerRules(%+v) = %v, nil; want an error", src, rules)
		}
	}
}

// Rules 1 and 15: a pattern that cannot be made canonical is an error
// naming the file's line.
func TestPatternNotCanonical(t *testing.T) {
	for _, pat := range []string{"oci:ghcr.io:0/acme/*", "oci:ghcr.io:65536/acme/*", "git:git.acme.corp/a/../*", "oci:gh_cr.io/acme/*", "url:https://example.org:x/*", "github:ghe.acme.corp:0/acme/*"} {
		_, err := policy.Parse([]byte("version: 1\nsources:\n  allow:\n    - \""+pat+"\"\n"), "p.yaml")
		if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "p.yaml:4") {
			t.Errorf("Parse(allow %s) = %v; want ErrInvalid naming p.yaml:4", pat, err)
		}
	}
}

// writeKey writes testPub to a file and returns its path: a key for keys
// rules, a regular file for commits rules.
func writeKey(t *testing.T) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "release.pub")
	if err := os.WriteFile(name, []byte(testPub), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}
