package oci

import (
	"context"
	"crypto"

	"github.com/agentadaptor/agentadaptor/signature"
)

// Sign signs the manifest that the pinned reference ref names with key and
// attaches the bundle to it as an OCI referrer, as cosign 3 attaches one
// (see [signature]); it returns the referrer manifest's digest.
func Sign(ctx context.Context, ref string, key crypto.Signer, opts ...Option) (string, error) {
	panic("unimplemented")
}

// Verify finds the Sigstore bundles attached to the manifest that the
// pinned reference ref names (its referrers; the referrers tag scheme when
// the registry has no referrers API) and returns the signer of the first
// that verifies against the manifest digest and satisfies one of reqs.
// Verified bundles are kept in the cache ([WithCache]), so a later Verify
// of the same reference needs no network. Errors wrap
// [signature.ErrUnsigned], [signature.ErrUntrusted] or
// [signature.ErrInvalid] and say what was expected and what was found.
func Verify(ctx context.Context, ref string, reqs []signature.Requirement, opts ...Option) (signature.Signer, error) {
	panic("unimplemented")
}
