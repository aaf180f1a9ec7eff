package policy_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// FuzzParse checks that Parse of any bytes either fails with ErrInvalid
// or gives a policy whose every method answers, for a few sources.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"version: 1\n",
		"version: 1\nsources:\n  allow: [github:acme/*, \"oci:ghcr.io/**/x\", \"local:~/s/**\", \"url:https://h/*\"]\n  pinned: true\n",
		"version: 1\nsigners:\n  - sources: [oci:r/*]\n    identity_regexp: ^a.*$\n    issuer: b\n",
		"version: 1\naudit:\n  fail_on: low\n  accept:\n    - {rule: symlink, skill: \"s*\", source: \"github:a/**\", reason: r}\n",
		"version: 1\nsources:\n  allow: &a [github:a/b]\n",
		"version: 1\n---\nversion: 1\n",
		"version: 1\nsources: [" + strings.Repeat("[", 100) + "\n",
		"version: 1\nrequired:\n  - source: github:acme/x/y@^1\n    agents: [codex]\n    reason: r\n  - {source: \"git+https://h/r.git#ref=>=1 <2&path=p\"}\n  - source: oci://h/r:v1.2.3\n",
	} {
		f.Add([]byte(seed))
	}
	sources := []source.Origin{
		{Kind: "github", Location: "acme/tools"},
		{Kind: "oci", Location: "ghcr.io/a/b/x", Pinned: true},
		{Kind: "local", Location: "/s/x"},
		{Kind: "inline"},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := policy.Parse(data, filepath.Join(t.TempDir(), policy.FileName))
		if err != nil {
			if !errors.Is(err, policy.ErrInvalid) {
				t.Fatalf("Parse(%q) = %v, want %v", data, err, policy.ErrInvalid)
			}
			return
		}
		for _, r := range p.Required() {
			if r.Source == "" || r.Line <= 0 {
				t.Errorf("Required() holds %+v, without its source or line", r)
			}
			r.Admits("v1.0.0")
		}
		for _, s := range sources {
			if err := p.Check(s); err != nil && !errors.Is(err, policy.ErrDenied) {
				t.Errorf("Check(%+v) = %v, want nil or %v", s, err, policy.ErrDenied)
			}
			if _, err := p.SignerRules(s); err != nil {
				t.Errorf("SignerRules(%+v) = %v", s, err)
			}
			p.CommitRules(s)
			p.Accepted(audit.Finding{Rule: "symlink", Severity: audit.High}, "s", s)
			if lines := p.Explain(s); len(lines) == 0 {
				t.Errorf("Explain(%+v) is empty", s)
			}
		}
	})
}
