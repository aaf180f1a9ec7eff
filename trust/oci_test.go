package trust_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"oras.land/oras-go/v2/registry/remote/credentials"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
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
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true)))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	opts := []oci.Option{oci.WithCache(cache), oci.WithCredentials(credentials.NewMemoryStore())}

	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	pdir := t.TempDir()
	os.WriteFile(filepath.Join(pdir, "release.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
	p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [oci:"+host+"/acme/*]\n    keys: [release.pub]\n"), filepath.Join(pdir, policy.FileName))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		signer  ed25519.PrivateKey // nil: unsigned
		wantErr error              // nil: it runs
	}{
		{"signed", priv, nil},
		{"unsigned", nil, signature.ErrUnsigned},
		{"another key", other, signature.ErrUntrusted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "review")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("review")+tt.name+"\n"), 0o644)
			tag := "oci://" + host + "/acme/" + strings.ReplaceAll(tt.name, " ", "-") + ":1"
			dgst, err := oci.Push(t.Context(), dir, tag, opts...)
			if err != nil {
				t.Fatalf("Push: %v", err)
			}
			pinned := tag + "@" + dgst
			if tt.signer != nil {
				if _, err := oci.Sign(t.Context(), pinned, signature.KeySigner{Key: tt.signer}, opts...); err != nil {
					t.Fatalf("Sign: %v", err)
				}
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
			if !errors.As(err, &pe) || !errors.Is(err, tt.wantErr) || pe.Rule.Name != "signers[1]" {
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
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true)))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	opts := []oci.Option{oci.WithCache(cache), oci.WithCredentials(credentials.NewMemoryStore())}
	dir := filepath.Join(t.TempDir(), "review")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("review")), 0o644)
	tag := "oci://" + host + "/evil/review:1"
	dgst, err := oci.Push(t.Context(), dir, tag, opts...)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	s, err := oci.Skill(t.Context(), tag+"@"+dgst, opts...)
	if err != nil {
		t.Fatalf("Skill: %v", err)
	}
	s.Source = s.Source.(oci.SkillSource).ArchiveSource
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	pdir := t.TempDir()
	os.WriteFile(filepath.Join(pdir, "release.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)

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
				if !errors.As(err, &pe) || pe.Rule.Name != tt.rule || pe.Origin.Kind != source.Unknown || !strings.Contains(err.Error(), "Artifact.Skill") {
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
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true)))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	opts := []oci.Option{oci.WithCache(cache), oci.WithCredentials(credentials.NewMemoryStore())}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	pdir := t.TempDir()
	os.WriteFile(filepath.Join(pdir, "release.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
	p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [oci:"+host+"/acme/*]\n    keys: [release.pub]\n"), filepath.Join(pdir, policy.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "review")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("review")), 0o644)
	dgst, err := oci.Push(t.Context(), dir, "oci://"+host+"/acme/review:1", opts...)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
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
	if !errors.As(err, &pe) || !errors.Is(err, signature.ErrUnsigned) || pe.Rule.Name != "signers[1]" {
		t.Fatalf("Run() of %s = %v, want a *RefusedError of signers[1] wrapping ErrUnsigned", spelled, err)
	}
}
