package trust_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// pinnedCommitSource is a skill source at a pin whose commit verifier
// records the commit it is asked about.
type pinnedCommitSource struct {
	originSource
	pin    string
	asked  *[]string
	signer string
}

func (s pinnedCommitSource) Pin() string { return s.pin }

func (s pinnedCommitSource) VerifyCommit(_ context.Context, commit string, _ source.CommitKeys) (string, error) {
	*s.asked = append(*s.asked, commit)
	return s.signer, nil
}

// TestVerifyCommitsTakesThePin checks rule 3: the one commit verifier is
// asked about the source's pin, for the Materializer as for a caller of
// Checker.VerifyCommits, which returns who signed it.
func TestVerifyCommitsTakesThePin(t *testing.T) {
	pdir := t.TempDir()
	os.WriteFile(filepath.Join(pdir, "allowed_signers"), []byte("dev@acme.example ssh-ed25519 AAAA\n"), 0o644)
	p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [github:acme/*]\n    commits: {allowed_signers: allowed_signers}\n"), filepath.Join(pdir, policy.FileName))
	if err != nil {
		t.Fatal(err)
	}
	const pin = "0123456789abcdef0123456789abcdef01234567"
	origin := source.Origin{Kind: "github", Location: "acme/tools", Pinned: true}
	var asked []string
	src := pinnedCommitSource{originSource{skill.InlineSource{SkillMD: skillMD("review")}, origin}, pin, &asked, "dev@acme.example"}

	c := trust.NewChecker(p)
	who, err := c.VerifyCommits(t.Context(), origin, src, pin)
	if err != nil || who != "dev@acme.example" {
		t.Fatalf("VerifyCommits() = %q, %v; want dev@acme.example", who, err)
	}
	agent, rec := newAgent(t, withPolicy(t, p), adaptor.WithSkills(fromSource("review", src)))
	if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
		t.Fatalf("Run() = %v, want the driver run", err)
	}
	if len(asked) != 2 || asked[0] != pin || asked[1] != pin {
		t.Errorf("commits asked = %q, want the pin %s twice", asked, pin)
	}

	_, err = c.VerifyCommits(t.Context(), origin, nil, pin)
	var re *trust.RefusedError
	if !errors.As(err, &re) || !errors.Is(err, source.ErrCommitSignature) || re.Rule.Name != "signers[1]" {
		t.Errorf("VerifyCommits(no verifier) = %v, want a *RefusedError of signers[1] wrapping %v", err, source.ErrCommitSignature)
	}
}

// TestCheckRefusesASource checks rules 2 and 5 for a source refused
// before any of its skills is known, as package install checks one: a
// *RefusedError that wraps the policy's *DeniedError and reads as
// ErrRefused followed by it.
func TestCheckRefusesASource(t *testing.T) {
	p := mustPolicy(t, "version: 1\nsources:\n  allow: [\"github:acme/*\"]\n")
	c := trust.NewChecker(p)
	if err := c.Check(source.Origin{Kind: "github", Location: "acme/tools"}); err != nil {
		t.Fatalf("Check(acme/tools) = %v, want nil", err)
	}
	err := c.Check(source.Origin{Kind: "github", Location: "evil/tools", Display: "evil/tools"})
	var re *trust.RefusedError
	var denied *policy.DeniedError
	if !errors.As(err, &re) || !errors.As(err, &denied) || !errors.Is(err, trust.ErrRefused) || !errors.Is(err, policy.ErrDenied) {
		t.Fatalf("Check(evil/tools) = %v, want a *RefusedError wrapping a *policy.DeniedError", err)
	}
	if want := trust.ErrRefused.Error() + ": " + denied.Error(); err.Error() != want {
		t.Errorf("Check(evil/tools) = %q, want %q", err, want)
	}
	if re.Rule.Name != denied.Rule {
		t.Errorf("RefusedError.Rule = %+v, want the denying rule %s", re.Rule, denied.Rule)
	}
}

// TestBlockingAndRefusing checks rule 4's filter: Blocking keeps the
// findings at or above the threshold the policy does not accept, and
// Refusing also lets through the rules AllowRisks names.
func TestBlockingAndRefusing(t *testing.T) {
	rep := audit.Report{Findings: []audit.Finding{
		{Rule: "download-exec", Severity: audit.Critical, File: "SKILL.md", Line: 3},
		{Rule: "hidden-unicode", Severity: audit.High, File: "SKILL.md", Line: 4},
		{Rule: "low-thing", Severity: audit.Low, File: "SKILL.md", Line: 5},
	}}
	c := trust.NewChecker(nil, trust.AllowRisks("hidden-unicode"))
	o := source.Origin{Kind: "inline"}
	rules := func(r audit.Report) string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, f.Rule)
		}
		return strings.Join(out, ",")
	}
	if got, want := rules(c.Blocking(rep, "x", o)), "download-exec,hidden-unicode"; got != want {
		t.Errorf("Blocking() = %s, want %s", got, want)
	}
	if got, want := rules(c.Refusing(rep, "x", o)), "download-exec"; got != want {
		t.Errorf("Refusing() = %s, want %s", got, want)
	}
}
