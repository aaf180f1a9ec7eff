package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// TestExtendsTeamAcceptTakesEffect: a user's file that extends a team
// file and says nothing of audit sets no threshold of its own, so the
// team's audit.accept of a finding takes effect; the threshold is still
// the default where no file of the chain says one.
func TestExtendsTeamAcceptTakesEffect(t *testing.T) {
	home := t.TempDir()
	writePolicy(t, home, "version: 1\nextends: team\n")
	f := &fetcher{files: map[string]string{
		"team": "version: 1\naudit:\n  accept:\n    - rule: reverse-shell\n      reason: our CLI installer\n",
	}}
	p, err := policy.LoadWith(home, "", f.opts())
	if err != nil {
		t.Fatal(err)
	}
	ar, _ := audit.LookupRule("reverse-shell")
	finding := audit.Finding{Rule: "reverse-shell", Severity: ar.Severity}
	if !p.Accepted(finding, "x", source.Origin{Kind: source.Inline}) {
		t.Errorf("the team's audit.accept of reverse-shell (%v) has no effect under a user's file that only extends it", ar.Severity)
	}
	if _, refused := p.UserRefusal(finding, "x", source.Origin{Kind: source.Inline}); refused {
		t.Error("UserRefusal: the user's chain refuses what its team file accepts")
	}
	// Another high finding: the team file's default threshold refuses it.
	other := audit.Finding{Rule: "download-exec", Severity: audit.High}
	if p.Accepted(other, "x", source.Origin{Kind: source.Inline}) {
		t.Error("a high finding nobody accepts is accepted")
	}
	if p.FailOn() != audit.High || p.FailOnRule().File != "team@pin-team" {
		t.Errorf("FailOn = %v by %v, want high by the team's file (its default)", p.FailOn(), p.FailOnRule())
	}
	// A file that extends and says fail_on keeps it.
	writePolicy(t, home, "version: 1\nextends: team\naudit:\n  fail_on: high\n")
	if p, err = policy.LoadWith(home, "", f.opts()); err != nil {
		t.Fatal(err)
	}
	if p.Accepted(finding, "x", source.Origin{Kind: source.Inline}) {
		t.Error("the user's own fail_on high does not refuse reverse-shell")
	}
}

// TestExtendsTrustIsTheUsersWord: each request carries the policy the
// source must pass: for the user's chain, the files loaded before it;
// for the project's chain, the user's whole chain.
func TestExtendsTrustIsTheUsersWord(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writePolicy(t, home, "version: 1\nextends: company\n")
	writePolicy(t, project, "version: 1\nextends: proj-base\n")
	f := &fetcher{files: map[string]string{
		"company":   "version: 1\nextends: base\nsources:\n  allow: [github:acme/*]\n",
		"base":      "version: 1\nsources:\n  allow: [github:acme/tools]\n",
		"proj-base": "version: 1\n",
	}}
	if _, err := policy.LoadWith(home, project, f.opts()); err != nil {
		t.Fatal(err)
	}
	allowed := func(p *policy.Policy, repo string) bool {
		return p.Check(source.Origin{Kind: source.GitHub, Location: repo, Pinned: true, Display: repo}) == nil
	}
	byName := map[string]*policy.Policy{}
	for _, r := range f.reqs {
		byName[r.Source] = r.Trust
	}
	switch {
	case !allowed(byName["company"], "evil/x"):
		t.Error("company: the user's own file alone allows everything")
	case allowed(byName["base"], "evil/x") || !allowed(byName["base"], "acme/docs"):
		t.Error("base: want the user's file and the company's (acme/*)")
	case allowed(byName["proj-base"], "acme/docs") || !allowed(byName["proj-base"], "acme/tools"):
		t.Error("proj-base: want the user's whole chain (acme/tools)")
	}
}

// TestExtendsCredentialsShownNowhere: a URL's user information is in no
// message, layer, chain or entry.
func TestExtendsCredentialsShownNowhere(t *testing.T) {
	home := t.TempDir()
	src := "https://bob:s3cr3t@policies.example/team.yaml#sha256=" + strings.Repeat("a", 64)
	writePolicy(t, home, "version: 1\nextends: \""+src+"\"\n")
	files := map[string]string{src: "version: 1\nsources:\n  allow: [github:acme/*]\n"}
	opts := policy.LoadOptions{Extends: func(r policy.ExtendsRequest) (policy.Extended, error) {
		data, ok := files[r.Source]
		if !ok {
			return policy.Extended{}, errors.New("not found")
		}
		// The fetcher gives the source as named: LoadWith redacts it.
		return policy.Extended{Data: []byte(data), Source: r.Source, Pin: "sha256:" + strings.Repeat("a", 64)}, nil
	}}
	p, err := policy.LoadWith(home, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, l := range p.Layers() {
		shown = append(shown, l.File, l.Extends, strings.Join(l.Chain, " "))
		if l.Fetched != nil {
			shown = append(shown, l.Fetched.Source)
		}
	}
	for _, e := range p.Entries() {
		shown = append(shown, e.File, e.Value)
	}
	shown = append(shown, p.Check(source.Origin{Kind: source.GitHub, Location: "evil/x", Pinned: true, Display: "evil/x"}).Error())
	// A fetch that fails names the source without them too.
	delete(files, src)
	_, err = policy.LoadWith(home, "", opts)
	if err == nil {
		t.Fatal("LoadWith of a missing file succeeded")
	}
	shown = append(shown, err.Error())
	for _, s := range shown {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("shows the credentials: %s", s)
		}
	}
}

// TestEntriesQuoteControlCharacters: a value holding a newline or a
// terminal escape is one quoted line, not lines of its own.
func TestEntriesQuoteControlCharacters(t *testing.T) {
	for _, s := range []string{
		"version: 1\nsources:\n  allow: [\"github:acme/x\\nline 9: sources.allow: github:*/*\"]\n",
		"version: 1\nsources:\n  allow: [\"url:https://a.example/x\\u001b[2J\"]\n",
		"version: 1\nsigners:\n  - sources: [\"oci:r.example/a\"]\n    identity: \"a\\nline 3: fake\"\n    issuer: https://x\n",
		"version: 1\nrequired:\n  - source: github:acme/skills/changelog@^1\n    reason: \"needed\\u001b]0;x\\u0007\"\n",
	} {
		p, err := policy.Parse([]byte(s), "/p.yaml")
		if err != nil {
			continue // refused as it is read: nothing shown
		}
		for _, e := range p.Entries() {
			if strings.ContainsAny(e.Value, "\n\r\x1b\x07") {
				t.Errorf("entry %s: value %q holds a control character", e.Rule, e.Value)
			}
		}
	}
	p, err := policy.Parse([]byte("version: 1\nsources:\n  allow: [\"github:acme/x\\nfake\"]\n"), "/p.yaml")
	if err == nil && p.Entries()[0].Value != `"github:acme/x\nfake"` {
		t.Errorf("value = %s, want it quoted", p.Entries()[0].Value)
	}
}

// TestEntriesListRequired: policy show lists each required entry, with
// its file and line.
func TestEntriesListRequired(t *testing.T) {
	p, err := policy.Parse([]byte("version: 1\nrequired:\n  - source: github:acme/skills/changelog@^1\n    agents: [claude-code]\n    reason: every release   has notes\n  - source: oci://r.example/acme/lint\n"), "/p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range p.Entries() {
		got = append(got, e.Rule.String()+" "+e.Value)
	}
	want := []string{
		"required[1] (/p.yaml:3) github:acme/skills/changelog@^1 for claude-code: every release has notes",
		"required[2] (/p.yaml:6) oci://r.example/acme/lint",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Entries =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if errors.Is(err, policy.ErrInvalid) {
		t.Fatal(err)
	}
}
