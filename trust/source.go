package trust

import (
	"bytes"
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
)

// SourceCheck is what reading one published source must verify, as
// [Checker.CheckSource] finds it before the source is read: its signers
// rules, the caller's own and the policy's, and the policy's commits
// rules. A program that reads sources itself (package install does)
// verifies with it the pin it reads, before it downloads the content.
type SourceCheck struct {
	origin  source.Origin
	own     int          // how many of rules are the caller's, first
	rules   []SignerRule // every one must be satisfied
	commits []policy.CommitRule
	names   settingNames // the checker's (WithSettingNames)
}

// CheckSource checks o against the policy before anything of it is read
// (rule 2, as [Checker.Check] does) and returns what reading it must
// verify (rule 3): for an OCI source, the signers [RequireSigners] names;
// the signers rules own, of the caller's own (package install's: the
// signer its lock file records), checked first and as the policy's are;
// the policy's signers rules for o; and its commits rules for o. A refusal is a
// *[RefusedError].
func (c *Checker) CheckSource(o source.Origin, own ...SignerRule) (*SourceCheck, error) {
	if err := c.Check(o); err != nil {
		return nil, err
	}
	rules, err := c.policy.SignerRules(o)
	if err != nil {
		return nil, refused(Refusal{Origin: o, Rule: policy.Rule{Name: "signers"}, Reason: fmt.Sprintf("%s: %v", o.Display, err), Err: err})
	}
	if len(c.signers) > 0 && o.Kind == source.OCI {
		own = append([]SignerRule{{Rule: policy.Rule{Name: requiredSignersRule}, Requirements: c.signers}}, own...)
	}
	sc := &SourceCheck{origin: o, own: len(own), rules: slices.Clone(own), names: c.names}
	for _, r := range rules {
		sc.rules = append(sc.rules, signerRuleOf(r))
	}
	if o.Kind == "git" || o.Kind == "github" {
		sc.commits = c.policy.CommitRules(o)
	}
	return sc, nil
}

// SignerRules returns the signers rules a signature of the source must
// satisfy, every one of them: the caller's, then the policy's.
func (sc *SourceCheck) SignerRules() []SignerRule { return sc.rules }

// CommitRules returns the policy's commits rules the source's commit
// must satisfy, every one of them.
func (sc *SourceCheck) CommitRules() []policy.CommitRule { return sc.commits }

// Verified is who signed a source at a pin for the first signers rule
// of a [SourceCheck], and what verified it.
type Verified struct {
	// Signer is who signed.
	Signer signature.Signer
	// Requirement is the requirement of the rule that the signature met:
	// for a key signer, the key; for a keyless one, the identity and
	// issuer, and the trusted root that verified it (none: Sigstore's
	// public-good root).
	Requirement signature.Requirement
}

// PublicKeyPEM returns the key of s.Requirement in PKIX PEM, as cosign
// writes cosign.pub; "" for a keyless signer.
func (s Verified) PublicKeyPEM() (string, error) {
	if s.Requirement.Key == nil {
		return "", nil
	}
	return publicKeyPEM(s.Requirement.Key)
}

// VerifySignatures verifies the signatures v finds at pin against every
// signers rule of sc, and returns who signed for the first rule and the
// requirement it met. v is what checks the signatures of the source
// read: [SignatureVerifierOf] of a source.Signed (an OCI source of
// package source/oci), or the source itself; a nil v carries no
// signature, and is refused with source.ErrUnsigned. A refusal is a
// *[RefusedError] that names the rule and says, in its Reason, which
// signers it requires.
func (sc *SourceCheck) VerifySignatures(ctx context.Context, v SignatureVerifier, pin string) (Verified, error) {
	if len(sc.rules) == 0 {
		return Verified{}, nil
	}
	first, err := sc.verifySignatures(ctx, v, pin)
	var re *RefusedError
	if errors.As(err, &re) {
		r := &re.Refusals[0]
		from := r.Rule.Name // the caller's rule, named as its caller names it
		if r.Rule.Name == requiredSignersRule {
			from = sc.names.of(SettingRequireSigners)
		}
		if i := slices.IndexFunc(sc.rules, func(sr SignerRule) bool { return sr.Rule == r.Rule }); i >= sc.own {
			from = "the policy's " + r.Rule.String()
		}
		r.Reason = fmt.Sprintf("%s at %s must be signed by %s (%s): %v; nothing of it was installed", sc.origin.Display, sourceloc.ShortPin(pin), describe(sc.requirementsOf(r.Rule)), from, r.Err)
	}
	if err != nil {
		return Verified{}, err
	}
	req, err := sc.met(ctx, v, pin, first)
	if err != nil {
		return Verified{}, err
	}
	return Verified{Signer: first, Requirement: req}, nil
}

// verifySignatures checks every signers rule of sc against the
// signatures v finds at pin, and returns who signed for the first rule.
// A refusal is a *[RefusedError] naming the rule, whose Err is the
// verifier's error.
func (sc *SourceCheck) verifySignatures(ctx context.Context, v SignatureVerifier, pin string) (signature.Signer, error) {
	var first signature.Signer
	for i, r := range sc.rules {
		s, err := verifyRule(ctx, sc.origin, v, pin, r)
		if err != nil {
			if re, ok := err.(*RefusedError); ok {
				re.Refusals[0].names = sc.names
			}
			return signature.Signer{}, err
		}
		if i == 0 {
			first = s
		}
	}
	return first, nil
}

// requirementsOf returns the requirements of sc's signers rule named
// rule.
func (sc *SourceCheck) requirementsOf(rule policy.Rule) []signature.Requirement {
	for _, r := range sc.rules {
		if r.Rule == rule {
			return r.Requirements
		}
	}
	return nil
}

// met returns the requirement of sc's first rule that the signer s of
// the source at pin met: for a key, the key of its ID; for a keyless
// signer, the one whose trusted root verified it. When requirements that
// s meets name different roots, each is verified alone, in order, with v.
func (sc *SourceCheck) met(ctx context.Context, v SignatureVerifier, pin string, s signature.Signer) (signature.Requirement, error) {
	reqs := sc.rules[0].Requirements
	if s.KeyID != "" {
		for _, r := range reqs {
			if r.Key == nil {
				continue
			}
			if k, err := signature.KeyID(r.Key); err == nil && k == s.KeyID {
				return r, nil
			}
		}
		return signature.Requirement{}, fmt.Errorf("%s at %s: %w: signer %s verified, but no required key has that ID", sc.origin.Display, sourceloc.ShortPin(pin), ErrRefused, s.KeyID)
	}
	var meets []signature.Requirement
	for _, q := range reqs {
		if q.Key == nil && q.Matches(s) {
			meets = append(meets, q)
		}
	}
	if len(meets) > 1 && slices.ContainsFunc(meets[1:], func(q signature.Requirement) bool { return !bytes.Equal(q.TrustedRoot, meets[0].TrustedRoot) }) {
		i := slices.IndexFunc(meets, func(q signature.Requirement) bool {
			_, err := v.VerifySignature(ctx, pin, []signature.Requirement{q})
			return err == nil
		})
		if i < 0 {
			return signature.Requirement{}, fmt.Errorf("%s at %s: %w: signer %s verified, but against no single trusted root of the requirements", sc.origin.Display, sourceloc.ShortPin(pin), ErrRefused, s)
		}
		meets = meets[i:]
	}
	if len(meets) == 0 {
		return signature.Requirement{}, fmt.Errorf("%s at %s: %w: signer %s verified, but no requirement names it", sc.origin.Display, sourceloc.ShortPin(pin), ErrRefused, s)
	}
	return meets[0], nil
}

// VerifyCommits verifies the commit at pin with v against every commits
// rule of sc, and returns who signed it for the first rule ("" when sc
// has none). v is the source read, when it has a commit to check (a git
// or github source of package source/git or source/github); a nil v has
// none, and is refused. A refusal is a *[RefusedError] that names the
// rule, whose Err wraps source.ErrCommitSignature, and says in its Reason
// what to do.
func (sc *SourceCheck) VerifyCommits(ctx context.Context, v source.CommitVerifier, pin string) (string, error) {
	if len(sc.commits) == 0 {
		return "", nil
	}
	who, err := verifyCommits(ctx, sc.origin, v, pin, sc.commits)
	var re *RefusedError
	switch {
	case errors.As(err, &re) && v == nil:
		r := &re.Refusals[0]
		r.Reason = fmt.Sprintf("%s: the policy's %s requires a signed commit, but this source cannot check one", sc.origin.Display, r.Rule)
	case errors.As(err, &re):
		r := &re.Refusals[0]
		r.Reason = fmt.Sprintf("%s at %s: the policy's %s requires a commit signed by a key it names: %v; nothing of it was installed (ask the publisher to sign the commit, pin a signed one, or change the policy)", sc.origin.Display, sourceloc.ShortPin(pin), r.Rule, r.Err)
	}
	return who, err
}

// publicKeyPEM is pub in PKIX PEM, as cosign writes cosign.pub.
func publicKeyPEM(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}
