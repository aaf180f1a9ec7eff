// Package signature signs skills and checks who signed them, with Sigstore
// bundles in the form cosign 3 writes and reads (cosign sign
// --new-bundle-format): a DSSE envelope over an in-toto statement whose
// subject is the signed manifest's digest and whose predicate type is
// https://sigstore.dev/cosign/sign/v1.
//
// # Rules
//
//  1. Keys. [LoadPrivateKey] reads the encrypted key pairs `cosign
//     generate-key-pair` writes (PEM "ENCRYPTED SIGSTORE PRIVATE KEY", and
//     cosign 1's "ENCRYPTED COSIGN PRIVATE KEY": scrypt and secretbox), opened
//     with the password given, and unencrypted PKCS#8 "PRIVATE KEY" PEM.
//     [LoadPublicKey] reads PKIX "PUBLIC KEY" PEM (cosign.pub). Only ECDSA
//     P-256, P-384, P-521 and Ed25519 keys are used; RSA, other curves, other
//     PEM types, a wrong password, garbage and files over 64 KiB are refused
//     with [ErrKey], saying what was found and what is read. ECDSA keys sign
//     as cosign signs with them, over the curve's hash (SHA-256, -384,
//     -512). Ed25519 keys sign pure Ed25519: cosign 3 signs Ed25519ph but
//     its verify --key checks pure Ed25519 only (it refuses its own
//     Ed25519 bundles), so pure is what cosign accepts; Verify accepts an
//     Ed25519 signature of either kind.
//  2. Signing. [Sign] writes what `cosign sign --key K --tlog-upload=false
//     --new-bundle-format` attaches: a Sigstore bundle v0.3
//     ([BundleMediaType]) holding a DSSE envelope, payload type
//     application/vnd.in-toto+json, over an in-toto v1 statement with one
//     subject whose digest is {"sha256": HEX} of the manifest, predicate type
//     [PredicateType] and an empty predicate; one signature; verification
//     material a public key named by cosign's hint (the base64 SHA-256 of the
//     key's PKIX DER form). No log entry and no timestamp.
//  3. Verifying with a key. A [Requirement] with a Key verifies the DSSE
//     signature with that key alone, as `cosign verify --key PUB
//     --insecure-ignore-tlog` does: no transparency log entry or timestamp is
//     needed or checked, and the requirement's TrustedRoot is not used.
//     The [Signer] is the key's [KeyID].
//  4. Verifying keyless. A Requirement with an identity and an issuer
//     verifies against its TrustedRoot (a trusted_root.json) with
//     sigstore-go: the certificate chains to a certificate authority of the
//     root at the time of a verified observer timestamp, the bundle holds a
//     transparency log entry (with its inclusion proof) of a log in the
//     root, and, when the root lists certificate transparency logs, the
//     certificate carries a signed certificate timestamp from one. Then the
//     certificate's subject alternative name and OIDC issuer must match: an
//     exact value, or a regular expression (Go's syntax) that must match
//     the whole value: it is anchored for the caller, as ^(?:EXPR)$, so
//     alice@example\.com matches the identity alice@example.com and not
//     evil-alice@example.com.attacker. That is stricter than cosign,
//     whose --certificate-identity-regexp matches anywhere in the value:
//     an expression written for cosign with ^ and $ means the same here,
//     and one meant as a prefix needs .* at its end. An expression that
//     does not compile on its own (an unbalanced parenthesis, which could
//     close the anchoring group) is [ErrRequirement]. An
//     empty TrustedRoot means Sigstore's public-good root, fetched with TUF
//     and cached under os.UserCacheDir()/agent-adaptor/sigstore-tuf; each
//     request is bounded by 30 seconds and a root that cannot be fetched is
//     an error saying to pass a trusted root. The Signer is the certificate's
//     identity and issuer.
//  5. What is signed. Whatever the requirement, a bundle verifies only when
//     its DSSE envelope has exactly one signature, payload type
//     application/vnd.in-toto+json, and holds an in-toto v1 statement with
//     predicate type [PredicateType] and exactly one subject whose digests
//     are exactly the sha256 digest verified. Otherwise it is
//     [source.ErrInvalidSignature], and the error names the digest the
//     bundle covers.
//  6. Hostile input. A bundle over [MaxBundleSize] (1 MiB) is refused before
//     it is parsed; a bundle that is not JSON, not a Sigstore bundle (v0.1 to
//     v0.3), a message signature rather than a DSSE envelope, or damaged, is
//     [source.ErrInvalidSignature]. No input makes Verify panic (FuzzVerify).
//  7. Errors. A bundle that does not verify is
//     [source.ErrInvalidSignature]; one that verifies but by a signer no
//     requirement names (another key, keyless for a key, another
//     identity or issuer) is [source.ErrUntrusted], naming the signer
//     found and the one wanted. These are package source's sentinels,
//     which source/oci returns too: one name for each meaning, with no
//     alias here. A requirement that names no signer, two kinds, one
//     half of an identity, a bad expression, or whose trusted root
//     cannot be read or fetched is [ErrRequirement]; an unusable key is
//     [ErrKey]. With several requirements the first met wins; when none
//     is, the error lists each one's reason and is source.ErrUntrusted
//     when every reason is, else ErrRequirement when one is, else
//     source.ErrInvalidSignature. A key bundle's hint is not trusted: it
//     only names, in an error, the key a signature claims when it does
//     not verify with the wanted one. This package never returns
//     [source.ErrUnsigned]: it is for callers that find no bundle at
//     all.
//  8. Not verified. Revocation (Sigstore has none: certificates live ten
//     minutes, and a key's compromise is the policy's business); for a key
//     signature, when it was made; whether a signer is the one a user should
//     trust (the caller's requirements say that).
//  9. Trust on first use. [Inspect] returns a keyless bundle's signer,
//     verified as rule 4 says but with no identity required, for the
//     caller to record and require from then on ([Requirement.Matches]). A
//     key bundle's signer cannot be learnt from the bundle: Inspect refuses
//     it with source.ErrUntrusted naming the key it claims, and the
//     caller passes the key.
//
// The package is pure Go and behaves the same on Linux, macOS and Windows;
// only the TUF cache folder differs, as os.UserCacheDir does.
package signature

import (
	"crypto"
	"errors"
	"fmt"
)

// BundleMediaType is the media type of a Sigstore bundle, version 0.3: the
// artifactType of the OCI referrer manifest that carries one, and of its
// single layer.
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Errors of this package's own. Each error returned wraps one of them,
// or one of package source's (rule 7), and says what was expected and
// what was found.
var (
	// ErrKey: a key file that cannot be read (wrong password, unknown
	// format or algorithm).
	ErrKey = errors.New("unusable key")
	// ErrRequirement: a requirement that names no signer, or names one in
	// two ways (a key and an identity), whose expression does not compile,
	// or whose trusted root cannot be read or fetched.
	ErrRequirement = errors.New("bad signer requirement")
)

// Signer is who signed, as verified: what a lock file records and what a
// later verification compares with. Exactly one of KeyID and Identity is
// set.
type Signer struct {
	// KeyID is "sha256:HEX", the SHA-256 of the public key's PKIX DER
	// form, for a signature by a key.
	KeyID string `json:"key,omitempty"`
	// Identity is the certificate's subject alternative name (an email,
	// or a URI such as a workflow's), for a keyless signature.
	Identity string `json:"identity,omitempty"`
	// Issuer is the OIDC issuer named in the certificate, for a keyless
	// signature.
	Issuer string `json:"issuer,omitempty"`
}

// String says who the signer is in a user's words: "key sha256:...", or
// "IDENTITY (issuer ISSUER)".
func (s Signer) String() string {
	switch {
	case s.KeyID != "":
		return "key " + s.KeyID
	case s.Identity != "" || s.Issuer != "":
		return fmt.Sprintf("%s (issuer %s)", s.Identity, s.Issuer)
	}
	return "no signer"
}

// IsZero reports whether s names no signer.
func (s Signer) IsZero() bool { return s == Signer{} }

// Requirement names who must have signed: a key, or a certificate identity
// and issuer (each exact or a regular expression, as cosign's
// --certificate-identity[-regexp] and --certificate-oidc-issuer[-regexp])
// checked against a trusted root.
type Requirement struct {
	// Key is the public key a key signature must verify with.
	Key crypto.PublicKey
	// Identity or IdentityRegexp: the certificate's subject alternative
	// name, exactly, or matching the expression as a whole (rule 4: it is
	// anchored, ^(?:EXPR)$, stricter than cosign, which matches it
	// anywhere in the name).
	Identity, IdentityRegexp string
	// Issuer or IssuerRegexp: the OIDC issuer, exactly, or matching the
	// expression as a whole, anchored as IdentityRegexp is.
	Issuer, IssuerRegexp string
	// TrustedRoot is a trusted_root.json (the Sigstore trusted root
	// format): the certificate authorities, transparency logs and
	// timestamp authorities keyless signatures are checked against.
	// Empty means Sigstore's public-good root.
	TrustedRoot []byte
	// TrustedRootFile is the file TrustedRoot was read from, "" when it
	// came from no file. Verification does not use it: it says where the
	// root is for callers that record it (package install's lock file).
	TrustedRootFile string
}

// String says what the requirement asks for, in a user's words.
func (r Requirement) String() string {
	if r.Key != nil {
		id, err := KeyID(r.Key)
		if err != nil {
			return fmt.Sprintf("a %T key", r.Key)
		}
		return "key " + id
	}
	if r.Identity == "" && r.IdentityRegexp == "" && r.Issuer == "" && r.IssuerRegexp == "" {
		return "no signer"
	}
	return valueString("identity", r.Identity, r.IdentityRegexp) + " from " + valueString("issuer", r.Issuer, r.IssuerRegexp)
}

// Matches reports whether a signer verified earlier satisfies r (the key's
// ID, or the identity and issuer, against r's).
func (r Requirement) Matches(s Signer) bool {
	if r.validate() != nil {
		return false
	}
	if r.Key != nil {
		id, err := KeyID(r.Key)
		return err == nil && s.KeyID == id
	}
	return s.KeyID == "" && s.Identity != "" && r.match(s) == nil
}
