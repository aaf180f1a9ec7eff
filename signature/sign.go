package signature

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/opencontainers/go-digest"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// The statement cosign signs (rule 2).
const (
	// PredicateType is the predicate type of the in-toto statement `cosign
	// sign --new-bundle-format` signs.
	PredicateType = "https://sigstore.dev/cosign/sign/v1"
	// payloadType is the DSSE payload type of an in-toto statement.
	payloadType = "application/vnd.in-toto+json"
)

// Sign signs the manifest digest d with key and returns the bundle, as
// JSON, that cosign 3 would attach for `cosign sign --key` without a
// transparency log upload.
func Sign(key crypto.Signer, d digest.Digest) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("sign %q: %w", d, err)
	}
	if d.Algorithm() != digest.SHA256 {
		return nil, fmt.Errorf("sign %s: a %s digest cannot be signed; want sha256, as manifest digests are", d, d.Algorithm())
	}
	kp, err := newKeypair(key)
	if err != nil {
		return nil, err
	}
	payload, err := statement(d)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", d, err)
	}
	b, err := sign.Bundle(&sign.DSSEData{Data: payload, PayloadType: payloadType}, kp, sign.BundleOptions{})
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", d, err)
	}
	out, err := protojson.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", d, err)
	}
	return out, nil
}

// statement is the in-toto statement cosign signs for the manifest digest
// d, as cosign writes it: one subject with d's digest and empty
// annotations, cosign's predicate type and an empty predicate. protojson
// varies its whitespace from build to build on purpose; the statement is
// compacted so that the same digest always gives the same bytes.
func statement(d digest.Digest) ([]byte, error) {
	annotations, err := structpb.NewStruct(nil)
	if err != nil {
		return nil, err
	}
	st := &intoto.Statement{
		Type: intoto.StatementTypeUri,
		Subject: []*intoto.ResourceDescriptor{{
			Digest:      map[string]string{d.Algorithm().String(): d.Encoded()},
			Annotations: annotations,
		}},
		PredicateType: PredicateType,
		Predicate:     &structpb.Struct{},
	}
	raw, err := protojson.Marshal(st)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// keypair is a [sign.Keypair] over a caller's [crypto.Signer], signing as
// cosign signs with a key pair (its hint is cosign's: the base64 SHA-256
// of the public key's PKIX DER form).
type keypair struct {
	signer crypto.Signer
	alg    algorithm
	hint   []byte
}

var _ sign.Keypair = (*keypair)(nil)

func newKeypair(key crypto.Signer) (*keypair, error) {
	if key == nil {
		return nil, fmt.Errorf("%w: no key given", ErrKey)
	}
	pub := key.Public()
	alg, err := keyAlgorithm(pub)
	if err != nil {
		return nil, err
	}
	sum, err := keyDigest(pub)
	if err != nil {
		return nil, err
	}
	return &keypair{signer: key, alg: alg, hint: []byte(base64.StdEncoding.EncodeToString(sum))}, nil
}

func (k *keypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	switch k.alg.hash {
	case crypto.SHA256:
		return protocommon.HashAlgorithm_SHA2_256
	case crypto.SHA384:
		return protocommon.HashAlgorithm_SHA2_384
	}
	return protocommon.HashAlgorithm_SHA2_512 // ECDSA P-521, and Ed25519's own
}

func (k *keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails { return k.alg.details }
func (k *keypair) GetHint() []byte                                   { return k.hint }
func (k *keypair) GetKeyAlgorithm() string                           { return k.alg.name }
func (k *keypair) GetPublicKey() crypto.PublicKey                    { return k.signer.Public() }

func (k *keypair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(k.signer.Public())
	return string(b), err
}

// SignData signs data: ECDSA over the curve's hash, as cosign does, and
// Ed25519 over data itself (pure Ed25519, which cosign verify --key
// checks). It returns the signature and the hash signed (nil for Ed25519).
func (k *keypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	msg, sum := data, []byte(nil)
	if k.alg.hash != 0 {
		h := k.alg.hash.New()
		h.Write(data)
		sum = h.Sum(nil)
		msg = sum
	}
	sig, err := k.signer.Sign(rand.Reader, msg, k.alg.hash)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: the key did not sign: %v", ErrKey, err)
	}
	return sig, sum, nil
}
