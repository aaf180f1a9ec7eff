package source

import (
	"context"
	"errors"

	"github.com/opencontainers/go-digest"
)

// Errors of the Sigstore signatures of published content (an OCI
// artifact's), shared by the package that verifies bundles (signature,
// whose ErrUnsigned, ErrUntrusted and ErrInvalid they are) and the one
// that finds them (source/oci). Each error returned wraps one of them
// and says what was expected and what was found.
var (
	// ErrUnsigned: no signature at all was found for the digest.
	ErrUnsigned = errors.New("not signed")
	// ErrUntrusted: signatures were found, none by a signer the
	// requirements name (another key, another identity or issuer).
	ErrUntrusted = errors.New("not signed by a required signer")
	// ErrInvalidSignature: a bundle does not verify (damaged, over other
	// content, a bad certificate chain or log entry) or does not parse.
	ErrInvalidSignature = errors.New("invalid signature")
)

// BundleVerifier checks the Sigstore bundles a [Signed] source finds:
// *signature.BundleCheck is one, and keeps the signer of the bundle that
// verified. Package signature implements it, so that a source that finds
// bundles (source/oci) links no Sigstore code.
type BundleVerifier interface {
	// VerifyBundle returns nil when bundle verifies over the manifest
	// digest subject and is by a signer required; errors wrap
	// [ErrUntrusted] or [ErrInvalidSignature].
	VerifyBundle(bundle []byte, subject digest.Digest) error
	// String says which signers are required, for messages; "" when
	// none is, which a Signed source refuses.
	String() string
}

// Signed is implemented by a published source whose content at a pin
// carries Sigstore bundles (an OCI artifact's referrers): the Remote and
// the SkillSource of package source/oci. A trust checker verifies them
// (trust.SignatureVerifierOf).
type Signed interface {
	// VerifyBundles finds the bundles attached to the content at pin (a
	// manifest digest) and returns nil when v accepts one of them. Errors
	// wrap [ErrUnsigned], [ErrUntrusted] or [ErrInvalidSignature].
	VerifyBundles(ctx context.Context, pin string, v BundleVerifier) error
}
