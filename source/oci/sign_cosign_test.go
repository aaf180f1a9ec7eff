package oci

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cosigntest"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
)

// These tests run the real cosign (internal/testkit/cosigntest) against a
// registry on loopback, offline, with the flags the package doc lists.

// cosignRef is ref (oci://HOST/REPO:TAG@DIGEST) as cosign names it:
// HOST/REPO@DIGEST.
func cosignRef(t *testing.T, ref string) string {
	t.Helper()
	r, err := ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	return r.Host + "/" + r.Repository + "@" + r.Digest
}

// cosignVerify runs cosign verify --key pub on ref, with args.
func cosignVerify(t *testing.T, pub, ref string, args ...string) cosigntest.Result {
	t.Helper()
	args = append([]string{"verify", "--key", pub, "--insecure-ignore-tlog"}, args...)
	return cosigntest.Run(t, "", nil, append(args, cosignRef(t, ref))...)
}

// cosignSign runs cosign sign --key key on ref.
func cosignSign(t *testing.T, kp cosigntest.KeyPair, ref string) {
	t.Helper()
	cosigntest.MustRun(t, "", []string{"COSIGN_PASSWORD=" + kp.Password},
		"sign", "--key", kp.Private, "--use-signing-config=false", "--tlog-upload=false", "--allow-http-registry", "-y", cosignRef(t, ref))
}

// pkcs8Files writes key as a plain PKCS#8 PEM private key and its public
// key as PKIX PEM, and returns the pair.
func pkcs8Files(t *testing.T, key crypto.Signer) cosigntest.KeyPair {
	t.Helper()
	dir := t.TempDir()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	kp := cosigntest.KeyPair{Private: filepath.Join(dir, "key.pem"), Public: filepath.Join(dir, "key.pub")}
	if err := os.WriteFile(kp.Private, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kp.Public, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return kp
}

func loadPrivate(t *testing.T, kp cosigntest.KeyPair) crypto.Signer {
	t.Helper()
	data, err := os.ReadFile(kp.Private)
	if err != nil {
		t.Fatal(err)
	}
	key, err := signature.LoadPrivateKey(data, []byte(kp.Password))
	if err != nil {
		t.Fatalf("LoadPrivateKey(%s) = %v", kp.Private, err)
	}
	return key
}

func loadPublic(t *testing.T, kp cosigntest.KeyPair) crypto.PublicKey {
	t.Helper()
	data, err := os.ReadFile(kp.Public)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := signature.LoadPublicKey(data)
	if err != nil {
		t.Fatalf("LoadPublicKey(%s) = %v", kp.Public, err)
	}
	return pub
}

// keyKinds are the keys the interop tests sign with: each as a PKCS#8
// PEM file, and the same key imported by cosign import-key-pair
// (encrypted as cosign encrypts its own), with the extra arguments cosign
// verify needs for it (see the package doc).
type keyKind struct {
	name       string
	plain      cosigntest.KeyPair
	verifyArgs []string
}

func keyKinds(t *testing.T) []keyKind {
	t.Helper()
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p521, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return []keyKind{
		{"ECDSA P-256", pkcs8Files(t, ecdsaKey(t)), nil},
		{"ECDSA P-384", pkcs8Files(t, p384), []string{"--signature-digest-algorithm", "sha384"}},
		{"ECDSA P-521", pkcs8Files(t, p521), []string{"--signature-digest-algorithm", "sha512"}},
	}
}

// TestCosignVerifiesSign: what Sign attaches, with a key cosign generated
// (encrypted), a plain PKCS#8 key or one cosign imported, cosign verify
// --key accepts, on a registry with the referrers API and on one without;
// with another key, or before it is signed, cosign refuses.
func TestCosignVerifiesSign(t *testing.T) {
	cosigntest.Path(t)
	_, host := ocireg.Start(t, true)
	_, noAPI := ocireg.Start(t, false)
	other := cosigntest.GenerateKeyPair(t, "")
	generated := cosigntest.GenerateKeyPair(t, "s3cret")
	type signCase struct {
		name       string
		host       string
		kp         cosigntest.KeyPair
		verifyArgs []string
		format     Format
	}
	cases := []signCase{
		{"cosign generate-key-pair", host, generated, nil, ""},
		{"cosign generate-key-pair, referrers tag scheme", noAPI, generated, nil, ""},
		{"cosign generate-key-pair, artifact", host, generated, nil, FormatArtifact},
		{"cosign generate-key-pair, artifact, referrers tag scheme", noAPI, generated, nil, FormatArtifact},
	}
	for _, k := range keyKinds(t) {
		cases = append(cases,
			signCase{"PKCS#8 " + k.name, host, k.plain, k.verifyArgs, ""},
			signCase{"cosign import-key-pair " + k.name, host, cosigntest.ImportKeyPair(t, k.plain.Private, "pw"), k.verifyArgs, ""})
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, opts := testOptions(t)
			ref := pushSkill(t, tc.host, fmt.Sprintf("team/case%d", i), "v1", "review", append(opts, WithFormat(tc.format)))
			if r := cosignVerify(t, tc.kp.Public, ref, tc.verifyArgs...); r.Err == nil {
				t.Fatalf("cosign verify of an unsigned manifest succeeded:\n%s", r.Stdout)
			}
			if _, err := signRef(t.Context(), ref, loadPrivate(t, tc.kp), opts...); err != nil {
				t.Fatalf("signRef(%q) = %v", ref, err)
			}
			r := cosignVerify(t, tc.kp.Public, ref, tc.verifyArgs...)
			if r.Err != nil {
				t.Fatalf("cosign verify --key %s of what Sign attached: %v\n%s", tc.kp.Public, r.Err, r.Stderr)
			}
			pinned, _ := ParseReference(ref)
			if !strings.Contains(r.Stdout, `"docker-manifest-digest":"`+pinned.Digest+`"`) {
				t.Errorf("cosign verify printed %s; want the manifest digest %s", r.Stdout, pinned.Digest)
			}
			if r := cosignVerify(t, other.Public, ref); r.Err == nil {
				t.Errorf("cosign verify --key (another key) accepted what Sign attached")
			}
		})
	}
}

// TestVerifyCosignSign: what cosign sign --key attaches, Verify accepts
// with the public key, on a registry with the referrers API and on one
// without, for every kind of key; another key, changed content (the tag
// pushed again) and no signature are refused.
func TestVerifyCosignSign(t *testing.T) {
	cosigntest.Path(t)
	_, withAPI := ocireg.Start(t, true)
	_, noAPI := ocireg.Start(t, false)
	other := cosigntest.GenerateKeyPair(t, "")
	generated := cosigntest.GenerateKeyPair(t, "pw")
	type verifyCase struct {
		name   string
		host   string
		kp     cosigntest.KeyPair
		format Format
	}
	cases := []verifyCase{
		{"cosign generate-key-pair", withAPI, generated, ""},
		{"cosign generate-key-pair, referrers tag scheme", noAPI, generated, ""},
		{"cosign generate-key-pair, artifact", withAPI, generated, FormatArtifact},
		{"cosign generate-key-pair, artifact, referrers tag scheme", noAPI, generated, FormatArtifact},
	}
	for _, k := range keyKinds(t) {
		cases = append(cases, verifyCase{"cosign import-key-pair " + k.name, withAPI, cosigntest.ImportKeyPair(t, k.plain.Private, ""), ""})
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			_, opts := testOptions(t)
			opts = append(opts, WithFormat(tc.format))
			repo := fmt.Sprintf("team/case%d", i)
			ref := pushSkill(t, tc.host, repo, "v1", "review", opts)
			cosignSign(t, tc.kp, ref)

			pub := loadPublic(t, tc.kp)
			got, err := verifyRef(ctx, ref, []signature.Requirement{{Key: pub}}, opts...)
			if err != nil {
				t.Fatalf("verifyRef(%q) of what cosign signed = %v", ref, err)
			}
			wantID, _ := signature.KeyID(pub)
			if got.KeyID != wantID {
				t.Errorf("verifyRef(%q) = %+v, want key %s", ref, got, wantID)
			}
			_, err = verifyRef(ctx, ref, []signature.Requirement{{Key: loadPublic(t, other)}}, opts...)
			if !errors.Is(err, source.ErrUntrusted) {
				t.Errorf("verifyRef(%q) with another key = %v, want %v", ref, err, source.ErrUntrusted)
			}
			changed := pushSkill(t, tc.host, repo, "v1", "changed", opts)
			_, err = verifyRef(ctx, changed, []signature.Requirement{{Key: pub}}, opts...)
			if !errors.Is(err, source.ErrUnsigned) {
				t.Errorf("verifyRef(%q) after the tag moved to changed content = %v, want %v", changed, err, source.ErrUnsigned)
			}
		})
	}
}

// TestCosignEd25519: cosign signs with an Ed25519 key as Ed25519ph, and
// Verify accepts its signature; Sign signs pure Ed25519, which cosign
// verify --key v3.1.3 accepts, while it refuses cosign's own Ed25519ph
// signature (it checks Ed25519 keys as pure Ed25519 and has no flag for
// Ed25519ph): the package doc says so, and this test notices when a
// cosign release changes either.
func TestCosignEd25519(t *testing.T) {
	cosigntest.Path(t)
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, host := ocireg.Start(t, true)
	plain := pkcs8Files(t, ed)
	imported := cosigntest.ImportKeyPair(t, plain.Private, "")
	reqs := []signature.Requirement{{Key: loadPublic(t, plain)}}
	for _, tc := range []struct {
		name          string
		cosignAccepts bool
		sign          func(t *testing.T, ref string, opts []Option)
	}{
		{"cosign sign", false, func(t *testing.T, ref string, _ []Option) { cosignSign(t, imported, ref) }},
		{"Sign", true, func(t *testing.T, ref string, opts []Option) {
			if _, err := signRef(t.Context(), ref, loadPrivate(t, plain), opts...); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, opts := testOptions(t)
			ref := pushSkill(t, host, "team/"+strings.ReplaceAll(strings.ToLower(tc.name), " ", ""), "v1", "review", opts)
			tc.sign(t, ref, opts)
			if _, err := verifyRef(t.Context(), ref, reqs, opts...); err != nil {
				t.Errorf("verifyRef(%q) = %v", ref, err)
			}
			for _, pub := range []string{plain.Public, imported.Public} {
				if r := cosignVerify(t, pub, ref); (r.Err == nil) != tc.cosignAccepts {
					t.Errorf("cosign verify --key %s of the signature by %s: error %v, want accepted = %v: cosign %s changed how it checks Ed25519; update the package doc and this test", pub, tc.name, r.Err, tc.cosignAccepts, cosigntest.Version)
				}
			}
		})
	}
}

// TestCosignImageIndex: rule 7 of Signatures with the real cosign: on
// an image, cosign sign signs the index as Sign does (the referrer's
// subject is the index), each verifies the other's signature of the
// index, and neither takes it for a signature of a platform manifest.
func TestCosignImageIndex(t *testing.T) {
	cosigntest.Path(t)
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	kp := cosigntest.GenerateKeyPair(t, "pw")
	ours := pkcs8Files(t, ecdsaKey(t))
	_, opts := testOptions(t)
	ref := pushSkill(t, host, "team/image", "v1", "review", opts)
	pinned, _ := ParseReference(ref)
	r := rawRepo(t, host, "team/image")
	top, err := r.Resolve(ctx, pinned.Digest)
	if err != nil || top.MediaType != ocispec.MediaTypeImageIndex {
		t.Fatalf("Push wrote %s, %v; want an index", top.MediaType, err)
	}

	cosignSign(t, kp, ref)
	if _, err := signRef(ctx, ref, loadPrivate(t, ours), opts...); err != nil {
		t.Fatal(err)
	}
	var refs []ocispec.Descriptor
	if err := r.Referrers(ctx, top, "", func(p []ocispec.Descriptor) error { refs = append(refs, p...); return nil }); err != nil || len(refs) != 2 {
		t.Fatalf("referrers of the index = %v, %v; want cosign's and ours", refs, err)
	}
	for _, d := range refs {
		var m ocispec.Manifest
		fetchJSON(t, r, d, &m)
		if m.Subject == nil || m.Subject.MediaType != ocispec.MediaTypeImageIndex || m.Subject.Digest != top.Digest || m.Subject.Size != top.Size {
			t.Errorf("signature %s's subject = %+v, want the index %s", d.Digest, m.Subject, top.Digest)
		}
	}
	if _, err := verifyRef(ctx, ref, []signature.Requirement{{Key: loadPublic(t, kp)}}, opts...); err != nil {
		t.Errorf("verifyRef(%q) of cosign's signature of the index = %v", ref, err)
	}
	if res := cosignVerify(t, ours.Public, ref); res.Err != nil {
		t.Errorf("cosign verify of Sign's signature of the index: %v\n%s", res.Err, res.Stderr)
	}

	var index ocispec.Index
	fetchJSON(t, r, top, &index)
	platform := "oci://" + host + "/team/image@" + index.Manifests[0].Digest.String()
	if _, err := verifyRef(ctx, platform, []signature.Requirement{{Key: loadPublic(t, kp)}}, opts...); !errors.Is(err, source.ErrUnsigned) {
		t.Errorf("verifyRef(the amd64 manifest) = %v, want %v", err, source.ErrUnsigned)
	}
	if res := cosignVerify(t, ours.Public, platform); res.Err == nil {
		t.Errorf("cosign verify accepted the amd64 manifest, which nobody signed")
	}
}
