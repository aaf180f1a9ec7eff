package source

import "errors"

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
