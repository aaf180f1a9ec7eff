package trust_test

import (
	"crypto"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocitest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestPolicyOCISigners pushes skills to a registry on loopback, signs
// some, and runs them under a policy that requires the signature of one
// key for the registry's acme repositories (rules 1 and 3 of "Trust"): a
// skill signed by that key runs; an unsigned one and one signed by
// another key are refused before the driver starts, naming the rule.
func TestPolicyOCISigners(t *testing.T) {
	reg := ocitest.New(t)
	host, cache, opts := reg.Host, reg.Cache, reg.Options()
	key, other := ocitest.NewKey(t), ocitest.NewKey(t)
	p := signersPolicy(t, host+"/acme/*", key)

	tests := []struct {
		name    string
		signer  crypto.Signer // nil: unsigned
		wantErr error         // nil: it runs
	}{
		{"signed", key.Private, nil},
		{"unsigned", nil, source.ErrUnsigned},
		{"another key", other.Private, source.ErrUntrusted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pinned := reg.Push(t, "acme/"+strings.ReplaceAll(tt.name, " ", "-"), "1", "review", skillMD("review")+tt.name+"\n")
			if tt.signer != nil {
				reg.Sign(t, pinned, tt.signer)
			}
			a, err := oci.Fetch(t.Context(), pinned, opts...)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			s := a.Skill()
			if got := source.OriginOf(s.Source); got.Kind != source.OCI || got.Location != host+"/acme/"+strings.ReplaceAll(tt.name, " ", "-") || !got.Pinned {
				t.Errorf("OriginOf(Skill) = %+v, want the pinned oci repository", got)
			}
			if tt.wantErr == nil {
				agent, rec := newAgent(t, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))), adaptor.WithSkills(s))
				if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
					t.Fatalf("Run() = %v, want the signed skill run", err)
				}
				return
			}
			agent := adaptor.New(neverStarted{t}, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))), adaptor.WithSkills(s))
			_, err = agent.Run(t.Context(), "go")
			var pe *trust.RefusedError
			if !errors.As(err, &pe) || !errors.Is(err, tt.wantErr) || pe.Refusals[0].Rule.Name != "signers[1]" {
				t.Fatalf("Run() = %v, want a *RefusedError of signers[1] wrapping %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), pinned) {
				t.Errorf("error %q does not name the reference %s", err, pinned)
			}
		})
	}
}

// TestPolicyOCISkillWithoutOrigin checks rule 1 of "Trust" for an OCI
// skill whose source is the bare archive (the one oci.SkillSource
// embeds), which says not where it comes from: such a skill is not
// inline, so a policy that allows only other registries, or requires a
// signer, refuses it before the driver starts (through an Agent and the
// Materializer alike), naming how to give it an origin; with no such
// rule it runs.
func TestPolicyOCISkillWithoutOrigin(t *testing.T) {
	reg := ocitest.New(t)
	host, cache := reg.Host, reg.Cache
	s, err := oci.Skill(t.Context(), reg.Push(t, "evil/review", "1", "review", skillMD("review")), reg.Options()...)
	if err != nil {
		t.Fatalf("Skill: %v", err)
	}
	s.Source = s.Source.(oci.SkillSource).ArchiveSource
	pdir := t.TempDir()
	os.WriteFile(filepath.Join(pdir, "release.pub"), ocitest.NewKey(t).PEM, 0o644)

	tests := []struct {
		name, yaml, rule string // rule "": it runs
	}{
		{"another registry allowed", "sources:\n  allow: [oci:ghcr.io/acme/*]\n", "sources.allow"},
		{"signer required", "signers:\n  - sources: [oci:" + host + "/**]\n    keys: [release.pub]\n", "signers[1]"},
		{"no source rule", "audit:\n  fail_on: high\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.Parse([]byte("version: 1\n"+tt.yaml), filepath.Join(pdir, policy.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if tt.rule == "" {
				agent, rec := newAgent(t, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))), adaptor.WithSkills(s))
				if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
					t.Fatalf("Run() = %v, want the skill run", err)
				}
				return
			}
			check := func(what string, err error) {
				t.Helper()
				var pe *trust.RefusedError
				if !errors.As(err, &pe) || pe.Refusals[0].Rule.Name != tt.rule || pe.Refusals[0].Origin.Kind != source.Unknown || !strings.Contains(err.Error(), "Artifact.Skill") {
					t.Errorf("%s = %v, want a *RefusedError of %s for an unknown source, saying how to give it an origin", what, err, tt.rule)
				}
			}
			_, err = trust.NewMaterializer(cache, trust.NewChecker(p)).Materialize(t.Context(), s)
			check("NewMaterializer.Materialize", err)
			agent := adaptor.New(neverStarted{t}, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))), adaptor.WithSkills(s))
			_, err = agent.Run(t.Context(), "go")
			check("Run", err)
		})
	}
}

// TestPolicyOCISignersEverySpelling checks rule 1 of "Trust" for another
// spelling of a registry's host: a signers rule written for the
// registry applies to a skill fetched with its port written with a
// leading zero, whose origin is the canonical location, and its unsigned
// content is refused before the driver starts.
func TestPolicyOCISignersEverySpelling(t *testing.T) {
	reg := ocitest.New(t)
	host, cache, opts := reg.Host, reg.Cache, reg.Options()
	p := signersPolicy(t, host+"/acme/*", ocitest.NewKey(t))
	_, dgst, _ := strings.Cut(reg.Push(t, "acme/review", "1", "review", skillMD("review")), "@")
	name, port, _ := strings.Cut(host, ":")
	spelled := "oci://" + name + ":0" + port + "/acme/review@" + dgst
	a, err := oci.Fetch(t.Context(), spelled, opts...)
	if err != nil {
		t.Fatalf("Fetch(%s): %v", spelled, err)
	}
	s := a.Skill()
	if got := source.OriginOf(s.Source); got.Kind != source.OCI || got.Location != host+"/acme/review" {
		t.Errorf("OriginOf(Skill of %s) = %+v, want the canonical location %s/acme/review", spelled, got, host)
	}
	agent := adaptor.New(neverStarted{t}, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))), adaptor.WithSkills(s))
	_, err = agent.Run(t.Context(), "go")
	var pe *trust.RefusedError
	if !errors.As(err, &pe) || !errors.Is(err, source.ErrUnsigned) || pe.Refusals[0].Rule.Name != "signers[1]" {
		t.Fatalf("Run() of %s = %v, want a *RefusedError of signers[1] wrapping ErrUnsigned", spelled, err)
	}
}

// signersPolicy is a policy that requires a signature by key of the oci
// sources pattern names: rule signers[1], its key release.pub beside it.
func signersPolicy(t *testing.T, pattern string, key ocitest.Key) *policy.Policy {
	t.Helper()
	pdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(pdir, "release.pub"), key.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [oci:"+pattern+"]\n    keys: [release.pub]\n"), filepath.Join(pdir, policy.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
