package signature

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
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
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "signed by key "+id) || !strings.Contains(err.Error(), "want key "+otherID) {
				t.Errorf("Verify(other key) = %v, want ErrUntrusted naming %s and %s", err, id, otherID)
			}

			d2 := testDigest("another manifest")
			_, err = Verify(raw, d2, Requirement{Key: key.Public()})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "covers "+d.String()+", not "+d2.String()) {
				t.Errorf("Verify(other digest) = %v, want ErrInvalid naming %s and %s", err, d, d2)
			}

			_, err = Verify(damageSignature(t, raw), d, Requirement{Key: key.Public()})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does not verify with key "+id) {
				t.Errorf("Verify(damaged) = %v, want ErrInvalid", err)
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
