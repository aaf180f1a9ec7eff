package signature

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentadaptor/agentadaptor/source"
)

// testDigest is a manifest digest made from s.
func testDigest(s string) digest.Digest { return digest.FromString(s) }

// TestSignFormat checks rule 2: the bundle is the one cosign writes.
func TestSignFormat(t *testing.T) {
	key := newKey(t, "p256")
	d := testDigest("manifest")
	raw, err := Sign(key, d)
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		MediaType            string `json:"mediaType"`
		VerificationMaterial struct {
			PublicKey struct {
				Hint string `json:"hint"`
			} `json:"publicKey"`
			TlogEntries               []any `json:"tlogEntries"`
			TimestampVerificationData any   `json:"timestampVerificationData"`
		} `json:"verificationMaterial"`
		DSSEEnvelope struct {
			Payload     []byte `json:"payload"`
			PayloadType string `json:"payloadType"`
			Signatures  []struct {
				Sig []byte `json:"sig"`
			} `json:"signatures"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	pub, _ := keyDigest(key.Public())
	if b.MediaType != BundleMediaType {
		t.Errorf("mediaType = %q, want %q", b.MediaType, BundleMediaType)
	}
	if want := base64.StdEncoding.EncodeToString(pub); b.VerificationMaterial.PublicKey.Hint != want {
		t.Errorf("hint = %q, want %q", b.VerificationMaterial.PublicKey.Hint, want)
	}
	if len(b.VerificationMaterial.TlogEntries) != 0 || b.VerificationMaterial.TimestampVerificationData != nil {
		t.Errorf("bundle has a log entry or a timestamp; want none: %s", raw)
	}
	if b.DSSEEnvelope.PayloadType != "application/vnd.in-toto+json" || len(b.DSSEEnvelope.Signatures) != 1 {
		t.Errorf("envelope = %+v, want one signature over an in-toto payload", b.DSSEEnvelope)
	}
	var st map[string]any
	if err := json.Unmarshal(b.DSSEEnvelope.Payload, &st); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"digest": map[string]any{"sha256": d.Encoded()}, "annotations": map[string]any{}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("statement (-want +got):\n%s", diff)
	}
}

// TestSignRefuses checks Sign's input checks.
func TestSignRefuses(t *testing.T) {
	tests := []struct {
		name string
		d    digest.Digest
		want string
	}{
		{name: "sha512 digest", d: digest.SHA512.FromString("x"), want: "want sha256"},
		{name: "bad digest", d: digest.Digest("sha256:abcd"), want: "sign"},
		{name: "rsa key", d: testDigest("x"), want: "RSA keys are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := newKey(t, "p256")
			if tt.name == "rsa key" {
				key = newKey(t, "rsa")
			}
			_, err := Sign(key, tt.d)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Sign(%s) = %v, want an error saying %q", tt.d, err, tt.want)
			}
		})
	}
}

// TestVerifyKey checks rules 3, 5 and 7 for key signatures, with every
// kind of key read.
func TestVerifyKey(t *testing.T) {
	for _, kind := range []string{"p256", "p384", "p521", "ed25519"} {
		t.Run(kind, func(t *testing.T) {
			key := newKey(t, kind)
			other := newKey(t, kind)
			d := testDigest("manifest " + kind)
			raw, err := Sign(key, d)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := KeyID(key.Public())
			otherID, _ := KeyID(other.Public())

			s, err := Verify(raw, d, Requirement{Key: key.Public()})
			if err != nil {
				t.Fatalf("Verify(own key) = %v, want %s", err, id)
			}
			if s != (Signer{KeyID: id}) {
				t.Errorf("Verify() = %+v, want key %s", s, id)
			}
			// The second requirement is met.
			if s, err := Verify(raw, d, Requirement{Key: other.Public()}, Requirement{Key: key.Public()}); err != nil || s.KeyID != id {
				t.Errorf("Verify(other, own) = %v, %v, want %s", s, err, id)
			}

			_, err = Verify(raw, d, Requirement{Key: other.Public()})
			if !errors.Is(err, source.ErrUntrusted) || !strings.Contains(err.Error(), "signed by key "+id) || !strings.Contains(err.Error(), "want key "+otherID) {
				t.Errorf("Verify(other key) = %v, want source.ErrUntrusted naming %s and %s", err, id, otherID)
			}

			d2 := testDigest("another manifest")
			_, err = Verify(raw, d2, Requirement{Key: key.Public()})
			if !errors.Is(err, source.ErrInvalidSignature) || !strings.Contains(err.Error(), "covers "+d.String()+", not "+d2.String()) {
				t.Errorf("Verify(other digest) = %v, want source.ErrInvalidSignature naming %s and %s", err, d, d2)
			}

			_, err = Verify(damageSignature(t, raw), d, Requirement{Key: key.Public()})
			if !errors.Is(err, source.ErrInvalidSignature) || !strings.Contains(err.Error(), "does not verify with key "+id) {
				t.Errorf("Verify(damaged) = %v, want source.ErrInvalidSignature", err)
			}
		})
	}
}

// damageSignature flips a bit of a bundle's DSSE signature.
func damageSignature(t *testing.T, raw []byte) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	sig := b["dsseEnvelope"].(map[string]any)["signatures"].([]any)[0].(map[string]any)
	bs, err := base64.StdEncoding.DecodeString(sig["sig"].(string))
	if err != nil {
		t.Fatal(err)
	}
	bs[len(bs)/2] ^= 1
	sig["sig"] = base64.StdEncoding.EncodeToString(bs)
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// phKeypair signs Ed25519ph, as cosign sign does with an Ed25519 key.
type phKeypair struct{ *keypair }

func (k phKeypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	sum := sha512.Sum512(data)
	sig, err := k.signer.Sign(rand.Reader, sum[:], &ed25519.Options{Hash: crypto.SHA512})
	return sig, sum[:], err
}

// TestVerifyEd25519ph checks rule 1's two kinds of Ed25519 signature:
// Ed25519ph (as cosign sign writes) verifies too, and a pure Ed25519
// signature by another key does not.
func TestVerifyEd25519ph(t *testing.T) {
	key := newKey(t, "ed25519")
	d := testDigest("manifest")
	kp, err := newKeypair(key)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := statement(d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.Bundle(&sign.DSSEData{Data: payload, PayloadType: payloadType}, phKeypair{kp}, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(raw, d, Requirement{Key: key.Public()}); err != nil {
		t.Errorf("Verify(Ed25519ph) = %v, want it verified", err)
	}
	if _, err := Verify(raw, d, Requirement{Key: newKey(t, "ed25519").Public()}); !errors.Is(err, source.ErrUntrusted) {
		t.Errorf("Verify(Ed25519ph, other key) = %v, want source.ErrUntrusted", err)
	}
}
