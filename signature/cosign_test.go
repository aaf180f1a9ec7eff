package signature

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
	"github.com/agentadaptor/agentadaptor/source"
)

// cosignBinary returns the real cosign at $AGENTADAPTOR_COSIGN. The test
// is skipped when it is unset, and fails when AGENTADAPTOR_REQUIRE_CLIS=1.
func cosignBinary(t *testing.T) string {
	t.Helper()
	p := os.Getenv("AGENTADAPTOR_COSIGN")
	if p == "" {
		testroot.Missing(t, "cosign 3", "AGENTADAPTOR_COSIGN is unset", "run .ci/install-cosign and set AGENTADAPTOR_COSIGN to the path it prints")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("AGENTADAPTOR_COSIGN: %v", err)
	}
	return p
}

// runCosign runs cosign in dir with COSIGN_PASSWORD=x.
func runCosign(t *testing.T, bin, dir string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=x", "HOME="+dir, "TUF_ROOT="+filepath.Join(dir, "tuf"))
	return cmd.CombinedOutput()
}

// cosignKeyPair is a folder holding cosign.key (password x) and cosign.pub
// as the real cosign wrote them.
type cosignKeyPair struct{ name, dir string }

// cosignKeyPairs has cosign write two key pairs: one it generates (ECDSA
// P-256) and an Ed25519 key it imports (which it signs with Ed25519ph).
func cosignKeyPairs(t *testing.T, bin string) []cosignKeyPair {
	t.Helper()
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(edDir, "ed.pem"), pkcs8PEM(t, ed), 0o600); err != nil {
		t.Fatal(err)
	}
	pairs := []struct {
		cosignKeyPair
		args []string
	}{
		{cosignKeyPair{"generated p256", t.TempDir()}, []string{"generate-key-pair"}},
		{cosignKeyPair{"imported ed25519", edDir}, []string{"import-key-pair", "--key", "ed.pem", "-o", "cosign", "-y"}},
	}
	var out []cosignKeyPair
	for _, p := range pairs {
		if b, err := runCosign(t, bin, p.dir, p.args...); err != nil {
			t.Fatalf("cosign %s: %v\n%s", p.args[0], err, b)
		}
		out = append(out, p.cosignKeyPair)
	}
	return out
}

// TestCosignKeyPair checks rules 1, 2 and 3 with the real cosign: a key
// pair `cosign generate-key-pair` or `cosign import-key-pair` writes is
// read, and `cosign
// verify-blob-attestation --key` accepts the bundle Sign writes with it
// (the blob stands for the manifest: its sha256 is the digest signed),
// and refuses it for other content.
func TestCosignKeyPair(t *testing.T) {
	bin := cosignBinary(t)
	pairs := cosignKeyPairs(t, bin)
	for _, kp := range pairs {
		t.Run(kp.name, func(t *testing.T) { testCosignKeyPair(t, bin, kp.dir) })
	}
	// scrypt is slow under the race detector: one wrong password is enough.
	privPEM, err := os.ReadFile(filepath.Join(pairs[0].dir, "cosign.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPrivateKey(privPEM, []byte("y")); !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), "wrong password") {
		t.Fatalf("LoadPrivateKey(cosign.key, wrong password) = %v, want ErrKey saying wrong password", err)
	}
}

func testCosignKeyPair(t *testing.T, bin, dir string) {
	privPEM, err := os.ReadFile(filepath.Join(dir, "cosign.key"))
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := os.ReadFile(filepath.Join(dir, "cosign.pub"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := LoadPrivateKey(privPEM, []byte("x"))
	if err != nil {
		t.Fatalf("LoadPrivateKey(cosign.key) = %v", err)
	}
	pub, err := LoadPublicKey(pubPEM)
	if err != nil {
		t.Fatalf("LoadPublicKey(cosign.pub) = %v", err)
	}

	manifest := []byte(`{"schemaVersion":2}`)
	d := digest.FromBytes(manifest)
	raw, err := Sign(key, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(raw, d, Requirement{Key: pub}); err != nil {
		t.Fatalf("Verify(cosign.pub) = %v", err)
	}
	for name, content := range map[string][]byte{"manifest": manifest, "other": []byte("other")} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bundle.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "damaged.json"), damageSignature(t, raw), 0o644); err != nil {
		t.Fatal(err)
	}
	verifyArgs := func(blob string, bundle ...string) []string {
		b := "bundle.json"
		if len(bundle) > 0 {
			b = bundle[0]
		}
		return []string{"verify-blob-attestation", "--key", "cosign.pub", "--bundle", b,
			"--new-bundle-format", "--insecure-ignore-tlog", "--use-signed-timestamps=false",
			"--type", PredicateType, blob}
	}
	if out, err := runCosign(t, bin, dir, verifyArgs("manifest")...); err != nil {
		t.Fatalf("cosign verify-blob-attestation of our bundle: %v\n%s", err, out)
	}
	if out, err := runCosign(t, bin, dir, verifyArgs("other")...); err == nil {
		t.Fatalf("cosign verify-blob-attestation of other content passed:\n%s", out)
	}
	if out, err := runCosign(t, bin, dir, verifyArgs("manifest", "damaged.json")...); err == nil {
		t.Fatalf("cosign verify-blob-attestation of a damaged bundle passed:\n%s", out)
	} else if !bytes.Contains(out, []byte("signature")) {
		t.Errorf("cosign refused a damaged bundle, not for its signature:\n%s", out)
	}
}

// pushImage starts a loopback registry, pushes a small image and returns
// its reference by digest and the digest.
func pushImage(t *testing.T) (string, digest.Digest) {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	name := strings.TrimPrefix(srv.URL, "http://") + "/skills/demo"
	r, err := remote.NewRepository(name)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	push := func(mt string, data []byte) ocispec.Descriptor {
		desc := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if err := r.Push(t.Context(), desc, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return desc
	}
	config := push(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`))
	layer := push(ocispec.MediaTypeImageLayer, []byte("skill"))
	m, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    config,
		Layers:    []ocispec.Descriptor{layer},
	})
	if err != nil {
		t.Fatal(err)
	}
	desc := push(ocispec.MediaTypeImageManifest, m)
	return name + "@" + desc.Digest.String(), desc.Digest
}

// TestCosignSignVerifies checks rules 1, 3 and 5 the other way round:
// the bundle the real `cosign sign --key K --tlog-upload=false` writes for
// an image verifies with Verify and the key's public half, for both of
// cosignKeyPairs; it is refused for another digest and another key.
func TestCosignSignVerifies(t *testing.T) {
	bin := cosignBinary(t)
	for _, tt := range cosignKeyPairs(t, bin) {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir
			ref, d := pushImage(t)
			out, err := runCosign(t, bin, dir, "sign", "--key", "cosign.key", "--tlog-upload=false", "--use-signing-config=false",
				"--new-bundle-format", "--allow-http-registry", "--upload=false", "--bundle", "bundle.json", "-y", ref)
			if err != nil {
				t.Fatalf("cosign sign: %v\n%s", err, out)
			}
			raw, err := os.ReadFile(filepath.Join(dir, "bundle.json"))
			if err != nil {
				t.Fatal(err)
			}
			pubPEM, err := os.ReadFile(filepath.Join(dir, "cosign.pub"))
			if err != nil {
				t.Fatal(err)
			}
			pub, err := LoadPublicKey(pubPEM)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := KeyID(pub)
			// Rule 2: cosign signs the very statement Sign signs, and
			// names the key by the same hint.
			var got struct {
				VerificationMaterial struct {
					PublicKey struct{ Hint string } `json:"publicKey"`
				} `json:"verificationMaterial"`
				DSSEEnvelope struct {
					Payload     []byte `json:"payload"`
					PayloadType string `json:"payloadType"`
				} `json:"dsseEnvelope"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			want, err := statement(d)
			if err != nil {
				t.Fatal(err)
			}
			// protojson varies its whitespace on purpose: compare
			// the statements compacted.
			var cosigns bytes.Buffer
			if err := json.Compact(&cosigns, got.DSSEEnvelope.Payload); err != nil {
				t.Fatalf("cosign's payload is not JSON: %v", err)
			}
			if !bytes.Equal(cosigns.Bytes(), want) || got.DSSEEnvelope.PayloadType != payloadType {
				t.Errorf("cosign signed %s %s, Sign signs %s %s", got.DSSEEnvelope.PayloadType, got.DSSEEnvelope.Payload, payloadType, want)
			}
			sum, _ := keyDigest(pub)
			if h := base64.StdEncoding.EncodeToString(sum); got.VerificationMaterial.PublicKey.Hint != h {
				t.Errorf("cosign's key hint = %q, Sign's = %q", got.VerificationMaterial.PublicKey.Hint, h)
			}
			s, err := Verify(raw, d, Requirement{Key: pub})
			if err != nil || s.KeyID != id {
				t.Fatalf("Verify(cosign's bundle) = %v, %v, want key %s", s, err, id)
			}
			if _, err := Verify(raw, testDigest("other"), Requirement{Key: pub}); !errors.Is(err, source.ErrInvalidSignature) {
				t.Errorf("Verify(cosign's bundle, other digest) = %v, want source.ErrInvalidSignature", err)
			}
			other := newKey(t, "p256")
			if _, err := Verify(raw, d, Requirement{Key: other.Public()}); !errors.Is(err, source.ErrUntrusted) || !strings.Contains(err.Error(), id) {
				t.Errorf("Verify(cosign's bundle, other key) = %v, want source.ErrUntrusted naming %s", err, id)
			}
		})
	}
}
