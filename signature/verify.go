package signature

import (
	"crypto"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/opencontainers/go-digest"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentadaptor/agentadaptor/source"
)

// MaxBundleSize is the largest bundle read (rule 5), 1 MiB: a cosign
// bundle is a few kilobytes, its certificate and log entry included.
const MaxBundleSize = 1 << 20

// Verify checks a bundle against the manifest digest d and returns its
// signer when it satisfies one of reqs. A bundle over another digest, or
// that does not verify, is [source.ErrInvalidSignature]; one that verifies but whose
// signer no requirement names is [source.ErrUntrusted].
func Verify(bundle []byte, d digest.Digest, reqs ...Requirement) (Signer, error) {
	return verifier{trust: publicGood}.verify(bundle, d, reqs)
}

// verifier verifies bundles; trust gives the trusted root of a
// requirement that names none (Sigstore's public-good one, or a test's).
type verifier struct {
	trust func() (root.TrustedMaterial, error)
}

func (v verifier) verify(raw []byte, d digest.Digest, reqs []Requirement) (Signer, error) {
	if len(reqs) == 0 {
		return Signer{}, fmt.Errorf("%w: no requirement given: name a key or a certificate identity and issuer", ErrRequirement)
	}
	for i, r := range reqs {
		if err := r.validate(); err != nil {
			return Signer{}, fmt.Errorf("requirement %d: %w", i+1, err)
		}
	}
	b, err := parse(raw, d)
	if err != nil {
		return Signer{}, err
	}
	var errs []error
	untrusted, requirement := true, false
	for _, r := range reqs {
		s, err := v.verifyOne(b, d, r)
		if err == nil {
			return s, nil
		}
		untrusted = untrusted && errors.Is(err, source.ErrUntrusted)
		requirement = requirement || errors.Is(err, ErrRequirement)
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return Signer{}, errs[0]
	}
	sentinel := source.ErrInvalidSignature
	switch {
	case untrusted:
		sentinel = source.ErrUntrusted
	case requirement:
		sentinel = ErrRequirement
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
		for _, s := range []error{source.ErrInvalidSignature, source.ErrUntrusted, ErrKey, ErrRequirement} {
			msgs[i] = strings.TrimPrefix(msgs[i], s.Error()+": ")
		}
		msgs[i] = fmt.Sprintf("requirement %d: %s", i+1, msgs[i])
	}
	return Signer{}, fmt.Errorf("%w: no requirement is met: %s", sentinel, strings.Join(msgs, "; "))
}

// parsed is a bundle whose form was checked (rules 2 and 5), not yet its
// signature.
type parsed struct {
	b *bundle.Bundle
	// keyID is the key a key bundle names by its hint ("sha256:HEX"),
	// empty when it names none.
	keyID string
	// cert is the leaf certificate of a keyless bundle.
	cert *x509.Certificate
}

// parse reads a bundle and checks it is a cosign signature of d: one DSSE
// signature over an in-toto statement with the single subject d and
// cosign's predicate type.
func parse(raw []byte, d digest.Digest) (*parsed, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("digest %q: %w: %v", d, source.ErrInvalidSignature, err)
	}
	if d.Algorithm() != digest.SHA256 {
		return nil, fmt.Errorf("digest %s: %w: want a sha256 digest, as cosign signs", d, source.ErrInvalidSignature)
	}
	if len(raw) > MaxBundleSize {
		return nil, fmt.Errorf("%w: the bundle is %d bytes, more than the %d a bundle may have", source.ErrInvalidSignature, len(raw), MaxBundleSize)
	}
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(raw, &pb); err != nil {
		return nil, fmt.Errorf("%w: not a Sigstore bundle (%s): %v", source.ErrInvalidSignature, BundleMediaType, err)
	}
	b, err := bundle.NewBundle(&pb)
	if err != nil {
		return nil, fmt.Errorf("%w: not a valid Sigstore bundle: %v", source.ErrInvalidSignature, err)
	}
	env := pb.GetDsseEnvelope()
	if env == nil {
		return nil, fmt.Errorf("%w: the bundle holds no DSSE envelope; want the in-toto statement cosign sign --new-bundle-format writes", source.ErrInvalidSignature)
	}
	if n := len(env.GetSignatures()); n != 1 {
		return nil, fmt.Errorf("%w: the DSSE envelope has %d signatures; want exactly 1", source.ErrInvalidSignature, n)
	}
	if env.GetPayloadType() != payloadType {
		return nil, fmt.Errorf("%w: DSSE payload type %q; want %q", source.ErrInvalidSignature, env.GetPayloadType(), payloadType)
	}
	if err := checkStatement(env.GetPayload(), d); err != nil {
		return nil, err
	}
	p := &parsed{b: b}
	switch m := pb.GetVerificationMaterial().GetContent().(type) {
	case *protobundle.VerificationMaterial_PublicKey:
		if h := m.PublicKey.GetHint(); h != "" {
			if sum, err := base64.StdEncoding.DecodeString(h); err == nil && len(sum) == 32 {
				p.keyID = "sha256:" + hex.EncodeToString(sum)
			}
		}
	default:
		vc, err := b.VerificationContent()
		if err != nil {
			return nil, fmt.Errorf("%w: the bundle's verification material: %v", source.ErrInvalidSignature, err)
		}
		p.cert = vc.Certificate()
		if p.cert == nil {
			return nil, fmt.Errorf("%w: the bundle has neither a public key nor a certificate", source.ErrInvalidSignature)
		}
	}
	return p, nil
}

// checkStatement checks that payload is cosign's statement over d.
func checkStatement(payload []byte, d digest.Digest) error {
	var st intoto.Statement
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(payload, &st); err != nil {
		return fmt.Errorf("%w: the DSSE payload is not an in-toto statement: %v", source.ErrInvalidSignature, err)
	}
	if st.GetType() != intoto.StatementTypeUri {
		return fmt.Errorf("%w: statement type %q; want %q", source.ErrInvalidSignature, st.GetType(), intoto.StatementTypeUri)
	}
	if st.GetPredicateType() != PredicateType {
		return fmt.Errorf("%w: predicate type %q; want %q (cosign sign)", source.ErrInvalidSignature, st.GetPredicateType(), PredicateType)
	}
	subjects := st.GetSubject()
	if len(subjects) != 1 {
		var covered []string
		for _, s := range subjects {
			covered = append(covered, subjectString(s.GetDigest()))
		}
		return fmt.Errorf("%w: the statement has %d subjects (%s); want exactly 1, %s", source.ErrInvalidSignature, len(subjects), strings.Join(covered, ", "), d)
	}
	got := subjects[0].GetDigest()
	if len(got) != 1 || got[d.Algorithm().String()] != d.Encoded() {
		return fmt.Errorf("%w: the signature covers %s, not %s", source.ErrInvalidSignature, subjectString(got), d)
	}
	return nil
}

// subjectString writes a subject's digests as "alg:hex" in order.
func subjectString(m map[string]string) string {
	if len(m) == 0 {
		return "no digest"
	}
	var parts []string
	for alg, v := range m {
		parts = append(parts, alg+":"+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, " and ")
}

// verifyOne verifies p against one requirement.
func (v verifier) verifyOne(p *parsed, d digest.Digest, r Requirement) (Signer, error) {
	policy := artifactPolicy(d)
	if r.Key != nil {
		want, err := KeyID(r.Key)
		if err != nil {
			return Signer{}, err
		}
		if p.cert != nil {
			return Signer{}, fmt.Errorf("%w: signed keyless by %s; want key %s", source.ErrUntrusted, certSigner(p.cert), want)
		}
		if err := verifyWithKey(p.b, r.Key, policy); err != nil {
			if p.keyID != "" && p.keyID != want {
				return Signer{}, fmt.Errorf("%w: signed by key %s; want key %s", source.ErrUntrusted, p.keyID, want)
			}
			return Signer{}, fmt.Errorf("%w: the signature does not verify with key %s: %v", source.ErrInvalidSignature, want, err)
		}
		return Signer{KeyID: want}, nil
	}
	if p.cert == nil {
		found := "a key"
		if p.keyID != "" {
			found = "key " + p.keyID
		}
		return Signer{}, fmt.Errorf("%w: signed by %s; want a certificate for %s", source.ErrUntrusted, found, r)
	}
	tm, err := v.trustedMaterial(r)
	if err != nil {
		return Signer{}, err
	}
	s, err := verifyCertificate(p, policy, tm)
	if err != nil {
		return Signer{}, err
	}
	if err := r.match(s); err != nil {
		return Signer{}, err
	}
	return s, nil
}

// verifyCertificate verifies a keyless bundle against tm (rule 4) and
// returns the signer its certificate names, whoever that is.
func verifyCertificate(p *parsed, policy verify.ArtifactPolicyOption, tm root.TrustedMaterial) (Signer, error) {
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
	if len(tm.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	sv, err := verify.NewVerifier(tm, opts...)
	if err != nil {
		return Signer{}, fmt.Errorf("%w: the trusted root cannot verify: %v", source.ErrInvalidSignature, err)
	}
	if _, err := sv.Verify(p.b, verify.NewPolicy(policy, verify.WithoutIdentitiesUnsafe())); err != nil {
		return Signer{}, fmt.Errorf("%w: the keyless signature by %s does not verify against the trusted root: %v", source.ErrInvalidSignature, certSigner(p.cert), err)
	}
	return certSigner(p.cert), nil
}

// Inspect returns who signed bundle over the manifest digest d, for trust
// on first use, verified as far as the bundle allows without a
// requirement (rule 9). A keyless bundle is verified as rule 4 says,
// against trustedRoot (empty: Sigstore's public-good root), but with no
// identity or issuer required: the signer returned is the certificate's,
// for the caller to show, record and require later. A key bundle cannot
// be verified without its public key (it names the key only by a hint
// anyone can write), so Inspect returns an [source.ErrUntrusted] error naming the
// key the bundle claims: verify it with a [Requirement] holding the key.
// Errors are as [Verify]'s.
func Inspect(bundle []byte, d digest.Digest, trustedRoot []byte) (Signer, error) {
	return verifier{trust: publicGood}.inspect(bundle, d, trustedRoot)
}

func (v verifier) inspect(raw []byte, d digest.Digest, trustedRoot []byte) (Signer, error) {
	p, err := parse(raw, d)
	if err != nil {
		return Signer{}, err
	}
	if p.cert == nil {
		claimed := "a key it does not name"
		if p.keyID != "" {
			claimed = "key " + p.keyID
		}
		return Signer{}, fmt.Errorf("%w: the bundle claims a signature by %s, which only that public key can verify: pass the key", source.ErrUntrusted, claimed)
	}
	tm, err := v.trustedMaterial(Requirement{TrustedRoot: trustedRoot})
	if err != nil {
		return Signer{}, err
	}
	return verifyCertificate(p, artifactPolicy(d), tm)
}

// artifactPolicy has sigstore-go check the statement's subject against d
// too (parse has checked it is the only one).
func artifactPolicy(d digest.Digest) verify.ArtifactPolicyOption {
	sum, _ := hex.DecodeString(d.Encoded())
	return verify.WithArtifactDigest(d.Algorithm().String(), sum)
}

// certSigner is who a Fulcio certificate names.
func certSigner(c *x509.Certificate) Signer {
	sum, err := certificate.SummarizeCertificate(c)
	if err != nil {
		return Signer{Identity: "(unreadable certificate)"}
	}
	return Signer{Identity: sum.SubjectAlternativeName, Issuer: sum.Extensions.Issuer}
}

// verifyWithKey verifies a key bundle with pub, as cosign verify --key
// --insecure-ignore-tlog does: the DSSE signature only, no log entry or
// timestamp needed. An Ed25519 signature verifies when it is pure Ed25519
// (what Sign writes and cosign verify checks) or Ed25519ph (what cosign
// sign writes).
func verifyWithKey(b *bundle.Bundle, pub crypto.PublicKey, policy verify.ArtifactPolicyOption) error {
	var verifiers []sigsig.Verifier
	if k, ok := pub.(ed25519.PublicKey); ok {
		pure, err := sigsig.LoadED25519Verifier(k)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrKey, err)
		}
		ph, err := sigsig.LoadED25519phVerifier(k)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrKey, err)
		}
		verifiers = []sigsig.Verifier{pure, ph}
	} else {
		sv, err := sigsig.LoadDefaultVerifier(pub)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrKey, err)
		}
		verifiers = []sigsig.Verifier{sv}
	}
	var err error
	for _, sv := range verifiers {
		key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
		tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
		var v *verify.Verifier
		if v, err = verify.NewVerifier(tm, verify.WithNoObserverTimestamps()); err != nil {
			return err
		}
		if _, err = v.Verify(b, verify.NewPolicy(policy, verify.WithKey())); err == nil {
			return nil
		}
	}
	return err
}

// validate checks r names exactly one kind of signer, completely.
func (r Requirement) validate() error {
	keyless := r.Identity != "" || r.IdentityRegexp != "" || r.Issuer != "" || r.IssuerRegexp != ""
	switch {
	case r.Key != nil && keyless:
		return fmt.Errorf("%w: both a key and a certificate identity are named; name one", ErrRequirement)
	case r.Key != nil:
		_, err := keyAlgorithm(r.Key)
		return err
	case !keyless:
		return fmt.Errorf("%w: no key and no certificate identity named", ErrRequirement)
	case (r.Identity == "") == (r.IdentityRegexp == ""):
		return fmt.Errorf("%w: name the certificate identity either exactly or as an expression, one of the two (as cosign's --certificate-identity or --certificate-identity-regexp)", ErrRequirement)
	case (r.Issuer == "") == (r.IssuerRegexp == ""):
		return fmt.Errorf("%w: name the OIDC issuer either exactly or as an expression, one of the two (as cosign's --certificate-oidc-issuer or --certificate-oidc-issuer-regexp)", ErrRequirement)
	}
	for _, e := range []string{r.IdentityRegexp, r.IssuerRegexp} {
		if e == "" {
			continue
		}
		if _, err := wholeMatch(e); err != nil {
			return fmt.Errorf("%w: %v", ErrRequirement, err)
		}
	}
	return nil
}

// match checks a keyless signer against r's identity and issuer; the
// error names what was wanted and what was found.
func (r Requirement) match(s Signer) error {
	if !matchValue(r.Identity, r.IdentityRegexp, s.Identity) {
		return fmt.Errorf("%w: signed by identity %q; want %s", source.ErrUntrusted, s.Identity, valueString("identity", r.Identity, r.IdentityRegexp))
	}
	if !matchValue(r.Issuer, r.IssuerRegexp, s.Issuer) {
		return fmt.Errorf("%w: identity %q was issued by %q; want %s", source.ErrUntrusted, s.Identity, s.Issuer, valueString("issuer", r.Issuer, r.IssuerRegexp))
	}
	return nil
}

// matchValue matches got exactly against exact, or against the
// expression expr as a whole (rule 4): expr is anchored, so that it must
// match all of got, not a part of it as cosign's does.
func matchValue(exact, expr, got string) bool {
	if expr == "" {
		return got == exact
	}
	re, err := wholeMatch(expr)
	return err == nil && re.MatchString(got)
}

// wholeMatch compiles expr anchored at both ends, ^(?:expr)$. expr must
// compile on its own first: an expression with an unbalanced parenthesis
// (`x)|(.*`) could otherwise close the group and escape the anchors.
func wholeMatch(expr string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err
	}
	return regexp.Compile(`^(?:` + expr + `)$`)
}

func valueString(what, exact, expr string) string {
	if expr != "" {
		return fmt.Sprintf("%s matching %q", what, expr)
	}
	return fmt.Sprintf("%s %q", what, exact)
}
