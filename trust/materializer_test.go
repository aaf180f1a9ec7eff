package trust_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocitest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// neverStarted is a driver that fails the test when it is called.
type neverStarted struct{ t *testing.T }

func (d neverStarted) Run(context.Context, *driver.Request) (*driver.Result, error) {
	d.t.Error("the driver was started")
	return nil, errors.New("the driver was started")
}

// mustPolicy parses a policy file's content.
func mustPolicy(t *testing.T, yaml string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(yaml), filepath.Join(t.TempDir(), policy.FileName))
	if err != nil {
		t.Fatalf("policy.Parse: %v", err)
	}
	return p
}

// policyAgent is an agent that enforces p and must never start its
// driver.
func policyAgent(t *testing.T, p *policy.Policy, refs []skill.Ref, opts ...trust.Option) *adaptor.Agent {
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	return adaptor.New(neverStarted{t}, adaptor.WithSkillMaterializer(trust.NewMaterializer(m, trust.NewChecker(p, opts...))), adaptor.WithSkills(refs...))
}

// originSource is an inline skill that says it comes from elsewhere, and
// whose signature check answers verify (none: it carries no signature).
type originSource struct {
	skill.InlineSource
	origin source.Origin
}

func (s originSource) Origin() source.Origin { return s.origin }

type signedSource struct {
	originSource
	verify func([]signature.Requirement) (signature.Signer, error)
}

func (s signedSource) VerifySignature(_ context.Context, _ string, reqs []signature.Requirement) (signature.Signer, error) {
	return s.verify(reqs)
}

func fromSource(key string, src skill.Source) skill.Skill {
	return skill.Skill{Key: key, Source: src}
}

// TestPolicyRefusesSources checks rules 1, 2 and 5 of "Trust": the origin
// of each skill is checked before anything is materialized, and a
// refusal names the skill, the rule and the file, and starts no driver.
func TestPolicyRefusesSources(t *testing.T) {
	dir := skillDir(t, "review")
	allowed := skillDir(t, "allowed")
	oci := source.Origin{Kind: "oci", Location: "registry.example/acme/review", Display: "oci://registry.example/acme/review:1"}
	tests := []struct {
		name     string
		policy   string
		skill    skill.Skill
		wantRule string
	}{
		{"folder not allowed", "version: 1\nsources:\n  allow: [" + "local:" + filepath.ToSlash(filepath.Dir(allowed)) + "/**]\n",
			skill.Dir(dir), "sources.allow"},
		{"registry not allowed", "version: 1\nsources:\n  allow: [oci:ghcr.io/acme/*]\n",
			fromSource("review", originSource{skill.InlineSource{SkillMD: skillMD("review")}, oci}), "sources.allow"},
		{"not pinned", "version: 1\nsources:\n  pinned: true\n",
			fromSource("review", originSource{skill.InlineSource{SkillMD: skillMD("review")}, oci}), "sources.pinned"},
		{"no source allowed", "version: 1\nsources:\n  allow: []\n",
			skill.Dir(dir), "sources.allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := policyAgent(t, mustPolicy(t, tt.policy), []skill.Ref{tt.skill})
			for _, call := range []func() error{
				func() error { _, err := agent.Run(t.Context(), "go"); return err },
				func() error { _, err := agent.Inspect(t.Context()); return err },
			} {
				err := call()
				var pe *trust.RefusedError
				if !errors.As(err, &pe) || !errors.Is(err, policy.ErrDenied) || !errors.Is(err, trust.ErrRefused) {
					t.Fatalf("Run() = %v, want a *RefusedError wrapping policy.ErrDenied", err)
				}
				if pe.Refusals[0].Rule.Name != tt.wantRule || !strings.HasSuffix(pe.Refusals[0].Rule.File, policy.FileName) || pe.Refusals[0].Rule.Line == 0 {
					t.Errorf("Refusal.Rule = %+v, want %s with its file and line", pe.Refusals[0].Rule, tt.wantRule)
				}
				msg := err.Error()
				for _, want := range []string{`skill "` + tt.skill.Key, tt.wantRule, policy.FileName} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not say %q", msg, want)
					}
				}
			}
		})
	}
}

// TestPolicyAllowsInline checks rule 5 of package policy as the agent
// applies it: an inline skill passes any sources.allow, and an allowed
// folder is run.
func TestPolicyAllowsInline(t *testing.T) {
	dir := skillDir(t, "review")
	p := mustPolicy(t, "version: 1\nsources:\n  allow: [local:"+filepath.ToSlash(dir)+"]\n")
	agent, rec := newAgent(t, withPolicy(t, p), adaptor.WithSkills(skill.Inline("tone", skillMD("tone")), skill.Dir(dir)))
	if _, err := agent.Run(t.Context(), "go"); err != nil {
		t.Fatalf("Run() = %v, want the inline skill and the allowed folder run", err)
	}
	if got := keys(rec.Last().Skills); len(got) != 2 {
		t.Errorf("the driver got %q, want both skills", got)
	}
}

// TestPolicyNoneChecksNothing checks rule 7: an agent without a policy
// runs a skill whatever its origin.
func TestPolicyNoneChecksNothing(t *testing.T) {
	agent, rec := newAgent(t, withPolicy(t, nil), adaptor.WithSkills(skill.Dir(skillDir(t, "review"))))
	if _, err := agent.Run(t.Context(), "go"); err != nil || len(rec.Requests()) != 1 {
		t.Fatalf("Run() = %v, want the driver run once", err)
	}
}

// keyPolicy writes an Ed25519 public key beside a policy file whose
// signers rule requires it for oci:registry.example/acme/*, and returns
// the policy and the key's requirement.
func keyPolicy(t *testing.T) (*policy.Policy, crypto.PublicKey) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "release.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "version: 1\nsigners:\n  - sources: [oci:registry.example/acme/*]\n    keys: [release.pub]\n"
	p, err := policy.Parse([]byte(yaml), filepath.Join(dir, policy.FileName))
	if err != nil {
		t.Fatalf("policy.Parse: %v", err)
	}
	return p, pub
}

// TestPolicySigners checks rule 3 of "Trust": the signers rules of the
// policy are checked with the source's SignatureVerifier, and a source
// without a signature, or signed by another, is refused naming the rule.
func TestPolicySigners(t *testing.T) {
	p, pub := keyPolicy(t)
	oci := source.Origin{Kind: "oci", Location: "registry.example/acme/review", Pinned: true, Display: "oci://registry.example/acme/review@sha256:1"}
	inline := originSource{skill.InlineSource{SkillMD: skillMD("review")}, oci}
	verifier := func(err error) func([]signature.Requirement) (signature.Signer, error) {
		return func(reqs []signature.Requirement) (signature.Signer, error) {
			if len(reqs) != 1 || reqs[0].Key == nil || !reqs[0].Key.(ed25519.PublicKey).Equal(pub) {
				t.Errorf("VerifySignature(%v): want the policy's key", reqs)
			}
			if err != nil {
				return signature.Signer{}, err
			}
			return signature.Signer{KeyID: "sha256:1"}, nil
		}
	}
	tests := []struct {
		name    string
		src     skill.Source
		wantErr error // nil: the run proceeds
	}{
		{"signed", signedSource{inline, verifier(nil)}, nil},
		{"another signer", signedSource{inline, verifier(fmt.Errorf("%w: signed by key sha256:2", source.ErrUntrusted))}, source.ErrUntrusted},
		{"unsigned", signedSource{inline, verifier(fmt.Errorf("%w: no bundle", source.ErrUnsigned))}, source.ErrUnsigned},
		{"no signature to check", inline, source.ErrUnsigned},
		{"another source", originSource{skill.InlineSource{SkillMD: skillMD("review")}, source.Origin{Kind: "oci", Location: "ghcr.io/other/review"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refs := []skill.Ref{fromSource("review", tt.src)}
			if tt.wantErr == nil {
				agent, rec := newAgent(t, withPolicy(t, p), adaptor.WithSkills(refs...))
				if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
					t.Fatalf("Run() = %v, want the driver run", err)
				}
				return
			}
			_, err := policyAgent(t, p, refs).Run(t.Context(), "go")
			var pe *trust.RefusedError
			if !errors.As(err, &pe) || !errors.Is(err, tt.wantErr) || !errors.Is(err, policy.ErrDenied) {
				t.Fatalf("Run() = %v, want a *RefusedError wrapping %v", err, tt.wantErr)
			}
			if pe.Refusals[0].Rule.Name != "signers[1]" || pe.Refusals[0].Rule.Line != 3 || !strings.Contains(err.Error(), pe.Refusals[0].Rule.File) {
				t.Errorf("Run() = %v (rule %+v), want it to name signers[1] and its file and line", err, pe.Refusals[0].Rule)
			}
		})
	}
}

// TestRequireSigners checks rule 3 for the checker's own signers: an
// OCI skill must carry a signature by one of them, without a policy, and
// a skill of another kind is not concerned.
func TestRequireSigners(t *testing.T) {
	k := ocitest.NewKey(t)
	oci := source.Origin{Kind: "oci", Location: "registry.example/acme/review", Pinned: true, Display: "oci://registry.example/acme/review@sha256:1"}
	inline := originSource{skill.InlineSource{SkillMD: skillMD("review")}, oci}
	var asked [][]signature.Requirement
	signed := func(err error) signedSource {
		return signedSource{inline, func(reqs []signature.Requirement) (signature.Signer, error) {
			asked = append(asked, reqs)
			return signature.Signer{KeyID: k.ID}, err
		}}
	}
	opt := trust.RequireSigners(k.Requirement())
	agent, rec := newAgent(t, withPolicy(t, nil, opt), adaptor.WithSkills(fromSource("review", signed(nil))))
	if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
		t.Fatalf("Run(signed) = %v, want the driver run", err)
	}
	if len(asked) != 1 || len(asked[0]) != 1 || asked[0][0].Key == nil {
		t.Errorf("VerifySignature asked for %v, want the required key", asked)
	}
	_, err := policyAgent(t, nil, []skill.Ref{fromSource("review", signed(fmt.Errorf("%w: signed by key sha256:2", source.ErrUntrusted)))}, opt).Run(t.Context(), "go")
	var re *trust.RefusedError
	if !errors.As(err, &re) || !errors.Is(err, source.ErrUntrusted) || re.Refusals[0].Rule.Name != "trust.RequireSigners" || !strings.Contains(err.Error(), "trust.RequireSigners") {
		t.Fatalf("Run(another signer) = %v, want a *RefusedError of trust.RequireSigners wrapping %v", err, source.ErrUntrusted)
	}
	_, err = policyAgent(t, nil, []skill.Ref{fromSource("review", inline)}, opt).Run(t.Context(), "go")
	if !errors.As(err, &re) || !errors.Is(err, source.ErrUnsigned) {
		t.Fatalf("Run(no signature to check) = %v, want a *RefusedError wrapping %v", err, source.ErrUnsigned)
	}
	agent, rec = newAgent(t, withPolicy(t, nil, opt), adaptor.WithSkills(skill.Inline("tone", skillMD("tone"))))
	if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
		t.Fatalf("Run(inline) = %v, want the driver run: the rule names OCI sources only", err)
	}
}

// TestRequireSignersNamed checks that a refusal by RequireSigners names
// the rule as WithSettingNames names SettingRequireSigners (a
// command-line tool's flag), and its advice fits either name.
func TestRequireSignersNamed(t *testing.T) {
	k := ocitest.NewKey(t)
	oci := source.Origin{Kind: "oci", Location: "registry.example/acme/review", Pinned: true, Display: "oci://registry.example/acme/review@sha256:1"}
	bad := signedSource{originSource{skill.InlineSource{SkillMD: skillMD("review")}, oci}, func([]signature.Requirement) (signature.Signer, error) {
		return signature.Signer{}, fmt.Errorf("%w: signed by key sha256:2", source.ErrUntrusted)
	}}
	for _, tt := range []struct {
		names     map[string]string
		want, not string
	}{
		{nil, "the signers required (trust.RequireSigners): ", "--key"},
		{map[string]string{trust.SettingRequireSigners: "--key"}, "the signers required (--key): ", "trust.RequireSigners"},
	} {
		_, err := policyAgent(t, nil, []skill.Ref{fromSource("review", bad)}, trust.RequireSigners(k.Requirement()), trust.WithSettingNames(tt.names)).Run(t.Context(), "go")
		var re *trust.RefusedError
		if !errors.As(err, &re) || re.Refusals[0].Rule.Name != "trust.RequireSigners" {
			t.Fatalf("Run(another signer) = %v, want a refusal by trust.RequireSigners", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.not) || !strings.Contains(msg, "or require another signer)") || strings.Contains(msg, "(the default)") {
			t.Errorf("Run(another signer), names %v = %q, want it to say %q and not %q", tt.names, msg, tt.want, tt.not)
		}
	}
}

// pinnedSignedSource is a signedSource at a pin, which counts its
// signature checks.
type pinnedSignedSource struct {
	signedSource
	pin string
}

func (s pinnedSignedSource) Pin() string { return s.pin }

// TestSignatureBeforeCache checks rule 3's order: a skill whose signature
// is refused leaves nothing in the skill cache, as its pin is verified
// before it is materialized; and a verdict on a pin is remembered by the
// origin and the pin, so a signed one is verified once.
func TestSignatureBeforeCache(t *testing.T) {
	k := ocitest.NewKey(t)
	oci := source.Origin{Kind: "oci", Location: "registry.example/acme/review", Display: "oci://registry.example/acme/review:1"}
	inline := originSource{skill.InlineSource{SkillMD: skillMD("review")}, oci}
	calls := 0
	src := func(err error) pinnedSignedSource {
		return pinnedSignedSource{signedSource{inline, func([]signature.Requirement) (signature.Signer, error) {
			calls++
			return signature.Signer{KeyID: k.ID}, err
		}}, "sha256:" + strings.Repeat("a", 64)}
	}
	root := t.TempDir()
	m := trust.NewMaterializer(skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)), trust.NewChecker(nil, trust.RequireSigners(k.Requirement())))
	_, err := m.Materialize(t.Context(), fromSource("review", src(fmt.Errorf("%w: signed by key sha256:2", source.ErrUntrusted))))
	if !errors.Is(err, source.ErrUntrusted) || !errors.As(err, new(*trust.RefusedError)) {
		t.Fatalf("Materialize(another signer) = %v, want a *RefusedError wrapping %v", err, source.ErrUntrusted)
	}
	var files []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if len(files) > 0 {
		t.Errorf("a refused skill left %q in the skill cache", files)
	}
	calls = 0
	for range 2 {
		if _, err := m.Materialize(t.Context(), fromSource("review", src(nil))); err != nil {
			t.Fatalf("Materialize(signed) = %v", err)
		}
	}
	if calls != 1 {
		t.Errorf("the signature of one pin was checked %d times, want once", calls)
	}
}

// commitSource is an inline skill from a git or GitHub origin whose
// pinned commit's check answers verify.
type commitSource struct {
	originSource
	verify func(source.CommitKeys) (string, error)
}

func (s commitSource) VerifyCommit(_ context.Context, _ string, keys source.CommitKeys) (string, error) {
	return s.verify(keys)
}

// TestPolicyCommits checks rule 3 of "Trust" for a signers rule with
// commits: the source's CommitVerifier is asked with the rule's keys, and
// a source with no commit to check, or a commit not signed by them, is
// refused naming the rule.
func TestPolicyCommits(t *testing.T) {
	pdir := t.TempDir()
	allowed := filepath.Join(pdir, "allowed_signers")
	os.WriteFile(allowed, []byte("dev@acme.example ssh-ed25519 AAAA\n"), 0o644)
	p, err := policy.Parse([]byte("version: 1\nsigners:\n  - sources: [github:acme/*]\n    commits: {allowed_signers: allowed_signers}\n"), filepath.Join(pdir, policy.FileName))
	if err != nil {
		t.Fatal(err)
	}
	gh := originSource{skill.InlineSource{SkillMD: skillMD("review")}, source.Origin{Kind: "github", Location: "acme/tools", Pinned: true}}
	verifier := func(err error) func(source.CommitKeys) (string, error) {
		return func(keys source.CommitKeys) (string, error) {
			if keys.AllowedSigners != allowed {
				t.Errorf("VerifyCommit(%+v): want the policy's allowed signers %s", keys, allowed)
			}
			return "dev@acme.example", err
		}
	}
	tests := []struct {
		name    string
		src     skill.Source
		wantErr bool
	}{
		{"signed", commitSource{gh, verifier(nil)}, false},
		{"not signed", commitSource{gh, verifier(fmt.Errorf("%w: no signature", source.ErrCommitSignature))}, true},
		{"no commit to check", gh, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refs := []skill.Ref{fromSource("review", tt.src)}
			if !tt.wantErr {
				agent, rec := newAgent(t, withPolicy(t, p), adaptor.WithSkills(refs...))
				if _, err := agent.Run(t.Context(), "go"); err != nil || rec.Calls() != 1 {
					t.Fatalf("Run() = %v, want the driver run", err)
				}
				return
			}
			_, err := policyAgent(t, p, refs).Run(t.Context(), "go")
			var pe *trust.RefusedError
			if !errors.As(err, &pe) || !errors.Is(err, source.ErrCommitSignature) || pe.Refusals[0].Rule.Name != "signers[1]" {
				t.Fatalf("Run() = %v, want a *RefusedError of signers[1] wrapping %v", err, source.ErrCommitSignature)
			}
		})
	}
}
