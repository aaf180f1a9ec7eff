// Package pubkey reads the public keys package signature verifies with,
// using the standard library only, so that a package that must refuse a
// bad key early (package policy, when it reads a policy file) links no
// Sigstore code.
//
// Rules:
//
//  1. A key is PEM, a "PUBLIC KEY" block (PKIX, as cosign writes
//     cosign.pub), at most [MaxFile] bytes: ECDSA P-256, P-384 or P-521,
//     or Ed25519.
//  2. Errors carry the detail only, no sentinel: the caller wraps them
//     (package signature with its ErrKey, as "unusable key: DETAIL").
package pubkey

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// MaxFile is the most of a key file read (rule 1): a key in PEM is a few
// hundred bytes.
const MaxFile = 64 << 10

// Public is the PEM block type of a public key (PKIX).
const Public = "PUBLIC KEY"

// Parse reads a PEM public key (rule 1).
func Parse(pemBytes []byte) (crypto.PublicKey, error) {
	block, err := Decode(pemBytes, "public")
	if err != nil {
		return nil, err
	}
	if block.Type != Public {
		return nil, fmt.Errorf("PEM block %q is not a public key; want %q (as cosign.pub)", block.Type, Public)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the PUBLIC KEY is not a PKIX key: %v", err)
	}
	if err := Check(pub); err != nil {
		return nil, err
	}
	return pub, nil
}

// Decode returns the first PEM block of b, a key of kind ("public",
// "private") in messages.
func Decode(b []byte, kind string) (*pem.Block, error) {
	if len(b) > MaxFile {
		return nil, fmt.Errorf("%d bytes is too large for a %s key file (at most %d)", len(b), kind, MaxFile)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("no PEM block found; want a %s key in PEM (-----BEGIN ...-----)", kind)
	}
	return block, nil
}

// Check says why pub is not a key package signature verifies with: nil
// for ECDSA on P-256, P-384 or P-521, and for Ed25519 (rule 1).
func Check(pub crypto.PublicKey) error {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return nil
		}
		return fmt.Errorf("ECDSA curve %s is not supported; want P-256, P-384 or P-521", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return nil
	case *rsa.PublicKey:
		return errors.New("RSA keys are not supported; want ECDSA (P-256, P-384, P-521) or Ed25519 (cosign generate-key-pair makes ECDSA P-256)")
	}
	return fmt.Errorf("a %T key is not supported; want ECDSA (P-256, P-384, P-521) or Ed25519", pub)
}
