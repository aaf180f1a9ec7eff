package signature

import (
	"crypto"
	"strings"

	"github.com/opencontainers/go-digest"
)

// BundleCheck checks Sigstore bundles against Reqs for a finder of
// bundles (source/oci's Verify, which takes it as its BundleVerifier),
// and keeps the signer of the bundle that verified. It is not safe for
// concurrent use: give each verification its own.
type BundleCheck struct {
	// Reqs are the requirements a bundle's signer must satisfy one of.
	Reqs []Requirement
	// Signer is the signer of the last bundle that verified.
	Signer Signer
}

// VerifyBundle is [Verify] of bundle over the digest d against c.Reqs;
// the signer is kept in c.Signer.
func (c *BundleCheck) VerifyBundle(bundle []byte, d digest.Digest) error {
	s, err := Verify(bundle, d, c.Reqs...)
	if err != nil {
		return err
	}
	c.Signer = s
	return nil
}

// String says what c.Reqs ask for: "" when they ask for nothing.
func (c *BundleCheck) String() string {
	names := make([]string, len(c.Reqs))
	for i, r := range c.Reqs {
		names[i] = r.String()
	}
	return strings.Join(names, " or ")
}

// KeySigner signs a digest with Key into a bundle, as [Sign] does, for a
// publisher of bundles (source/oci's Sign, which takes it as its
// BundleSigner).
type KeySigner struct {
	Key crypto.Signer
}

// SignBundle is [Sign] of d with s.Key.
func (s KeySigner) SignBundle(d digest.Digest) ([]byte, error) { return Sign(s.Key, d) }
