package signature

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"

	"github.com/agentadaptor/agentadaptor/internal/pubkey"
)

// PEM block types of the keys read.
const (
	pemSigstorePrivate = "ENCRYPTED SIGSTORE PRIVATE KEY" // cosign 2 and later
	pemCosignPrivate   = "ENCRYPTED COSIGN PRIVATE KEY"   // cosign 1
	pemPrivate         = "PRIVATE KEY"                    // PKCS#8
)

// maxKeyFile is the most of a key file read (rule 1): a key in PEM is a
// few hundred bytes.
const maxKeyFile = pubkey.MaxFile

// LoadPrivateKey reads a private key in PEM: the encrypted key pairs
// `cosign generate-key-pair` writes (opened with password, as cosign
// opens them with COSIGN_PASSWORD), or a plain PKCS#8 ECDSA (P-256, P-384,
// P-521) or Ed25519 key. Errors wrap [ErrKey].
func LoadPrivateKey(pemBytes, password []byte) (crypto.Signer, error) {
	block, err := decodePEM(pemBytes, "private")
	if err != nil {
		return nil, err
	}
	der := block.Bytes
	switch block.Type {
	case pemSigstorePrivate, pemCosignPrivate:
		der, err = encrypted.Decrypt(block.Bytes, password)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot open the %s (wrong password? cosign's password is the one given to cosign generate-key-pair as COSIGN_PASSWORD): %v", ErrKey, block.Type, err)
		}
	case pemPrivate:
	case "EC PRIVATE KEY", "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("%w: a PEM %q key is not read; want a cosign key pair (cosign generate-key-pair) or an unencrypted PKCS#8 ECDSA or Ed25519 key (openssl pkcs8 -topk8 -nocrypt converts one)", ErrKey, block.Type)
	default:
		return nil, fmt.Errorf("%w: PEM block %q is not a private key; want %q, %q or %q", ErrKey, block.Type, pemSigstorePrivate, pemCosignPrivate, pemPrivate)
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s does not hold a PKCS#8 key: %v", ErrKey, block.Type, err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: a %T key is not supported; want ECDSA (P-256, P-384, P-521) or Ed25519", ErrKey, k)
	}
	if _, err := keyAlgorithm(signer.Public()); err != nil {
		return nil, err
	}
	return signer, nil
}

// LoadPublicKey reads a PEM public key (PKIX, as cosign writes
// cosign.pub): ECDSA or Ed25519. Errors wrap [ErrKey].
func LoadPublicKey(pemBytes []byte) (crypto.PublicKey, error) {
	pub, err := pubkey.Parse(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return pub, nil
}

// decodePEM returns the first PEM block of b.
func decodePEM(b []byte, kind string) (*pem.Block, error) {
	block, err := pubkey.Decode(b, kind)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return block, nil
}

// KeyID returns "sha256:HEX" of pub's PKIX DER form.
func KeyID(pub crypto.PublicKey) (string, error) {
	sum, err := keyDigest(pub)
	if err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(sum), nil
}

// keyDigest is the SHA-256 of pub's PKIX DER form: cosign's key hint.
func keyDigest(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	sum := sha256.Sum256(der)
	return sum[:], nil
}

// algorithm is how a key signs, as cosign signs with it.
type algorithm struct {
	name    string      // cosign's key algorithm name
	hash    crypto.Hash // the hash signed
	details protocommon.PublicKeyDetails
}

// keyAlgorithm returns how a key signs: ECDSA with the hash that matches
// the curve, as cosign signs, and pure Ed25519 (cosign signs Ed25519ph,
// but its verify --key checks pure Ed25519 only; see rule 1).
func keyAlgorithm(pub crypto.PublicKey) (algorithm, error) {
	if err := pubkey.Check(pub); err != nil {
		return algorithm{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return algorithm{"ECDSA", crypto.SHA256, protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256}, nil
		case elliptic.P384():
			return algorithm{"ECDSA", crypto.SHA384, protocommon.PublicKeyDetails_PKIX_ECDSA_P384_SHA_384}, nil
		}
		return algorithm{"ECDSA", crypto.SHA512, protocommon.PublicKeyDetails_PKIX_ECDSA_P521_SHA_512}, nil
	}
	return algorithm{"ED25519", 0, protocommon.PublicKeyDetails_PKIX_ED25519}, nil
}
