// Package signature signs skills and checks who signed them, with Sigstore
// bundles in the form cosign 3 writes and reads (cosign sign
// --new-bundle-format): a DSSE envelope over an in-toto statement whose
// subject is the signed manifest's digest and whose predicate type is
// https://sigstore.dev/cosign/sign/v1.
//
// (The package doc is the design: rules, numbered, each with a test. To be
// written by the package's implementation.)
package signature

import (
	"crypto"
	"errors"

	"github.com/opencontainers/go-digest"
)

// BundleMediaType is the media type of a Sigstore bundle, version 0.3: the
// artifactType of the OCI referrer manifest that carries one, and of its
// single layer.
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Errors. Each error returned wraps one of them and says what was expected
// and what was found.
var (
	// ErrUnsigned: no signature at all was found for the digest.
	ErrUnsigned = errors.New("signature: not signed")
	// ErrUntrusted: signatures were found, none by a signer the
	// requirements name (another key, another identity or issuer).
	ErrUntrusted = errors.New("signature: not signed by a required signer")
	// ErrInvalid: a bundle does not verify (damaged, over other content,
	// a bad certificate chain or log entry) or does not parse.
	ErrInvalid = errors.New("signature: invalid signature")
	// ErrKey: a key file that cannot be read (wrong password, unknown
	// format or algorithm).
	ErrKey = errors.New("signature: unusable key")
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
func (s Signer) String() string { panic("unimplemented") }

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
	// name, exactly, or matching the expression (anchored as cosign
	// anchors it).
	Identity, IdentityRegexp string
	// Issuer or IssuerRegexp: the OIDC issuer, exactly or matching.
	Issuer, IssuerRegexp string
	// TrustedRoot is a trusted_root.json (the Sigstore trusted root
	// format): the certificate authorities, transparency logs and
	// timestamp authorities keyless signatures are checked against.
	// Empty means Sigstore's public-good root.
	TrustedRoot []byte
}

// String says what the requirement asks for, in a user's words.
func (r Requirement) String() string { panic("unimplemented") }

// Matches reports whether a signer verified earlier satisfies r (the key's
// ID, or the identity and issuer, against r's).
func (r Requirement) Matches(s Signer) bool { panic("unimplemented") }

// LoadPrivateKey reads a private key in PEM: the encrypted key pairs
// `cosign generate-key-pair` writes (opened with password, as cosign
// opens them with COSIGN_PASSWORD), or a plain PKCS#8 ECDSA (P-256, P-384,
// P-521) or Ed25519 key. Errors wrap [ErrKey].
func LoadPrivateKey(pemBytes, password []byte) (crypto.Signer, error) {
	panic("unimplemented")
}

// LoadPublicKey reads a PEM public key (PKIX, as cosign writes
// cosign.pub): ECDSA or Ed25519. Errors wrap [ErrKey].
func LoadPublicKey(pemBytes []byte) (crypto.PublicKey, error) {
	panic("unimplemented")
}

// KeyID returns "sha256:HEX" of pub's PKIX DER form.
func KeyID(pub crypto.PublicKey) (string, error) { panic("unimplemented") }

// Sign signs the manifest digest d with key and returns the bundle, as
// JSON, that cosign 3 would attach for `cosign sign --key` without a
// transparency log upload.
func Sign(key crypto.Signer, d digest.Digest) ([]byte, error) { panic("unimplemented") }

// Verify checks a bundle against the manifest digest d and returns its
// signer when it satisfies one of reqs. A bundle over another digest, or
// that does not verify, is [ErrInvalid]; one that verifies but whose
// signer no requirement names is [ErrUntrusted].
func Verify(bundle []byte, d digest.Digest, reqs ...Requirement) (Signer, error) {
	panic("unimplemented")
}
