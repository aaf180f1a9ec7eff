package oci

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
)

// verifyRef is Verify with a check of reqs, returning the signer it
// keeps.
func verifyRef(ctx context.Context, ref string, reqs []signature.Requirement, opts ...Option) (signature.Signer, error) {
	check := &signature.BundleCheck{Reqs: reqs}
	if err := Verify(ctx, ref, check, opts...); err != nil {
		return signature.Signer{}, err
	}
	return check.Signer, nil
}

// signRef is Sign with key, as signature.KeySigner signs; a nil key is
// no signer.
func signRef(ctx context.Context, ref string, key crypto.Signer, opts ...Option) (string, error) {
	if key == nil {
		return Sign(ctx, ref, nil, opts...)
	}
	return Sign(ctx, ref, signature.KeySigner{Key: key}, opts...)
}

func ecdsaKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func keyRequirement(t *testing.T, key crypto.Signer) signature.Requirement {
	t.Helper()
	return signature.Requirement{Key: key.Public()}
}

func keyID(t *testing.T, key crypto.Signer) string {
	t.Helper()
	id, err := signature.KeyID(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// pushSkill pushes a new skill named name to host/repo:tag and returns
// the pinned reference.
func pushSkill(t *testing.T, host, repo, tag, name string, opts []Option) string {
	t.Helper()
	ref := "oci://" + host + "/" + repo + ":" + tag
	d, err := Push(t.Context(), newSkill(t, name), ref, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ref + "@" + d
}

// TestReferrerManifest: rule 1 of Signatures, the manifest that carries
// a bundle is the one cosign 3 writes.
func TestReferrerManifest(t *testing.T) {
	bundle := []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`)
	subject := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType, Digest: digest.FromString("skill"), Size: 123}
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	data, desc, err := referrerManifest(bundle, subject, created)
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest != digest.FromBytes(data) || desc.Size != int64(len(data)) || desc.MediaType != ocispec.MediaTypeImageManifest || desc.ArtifactType != signature.BundleMediaType {
		t.Errorf("referrerManifest descriptor = %+v, want the digest and size of the manifest, its media and artifact types", desc)
	}
	var got ocispec.Manifest
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		Config: ocispec.Descriptor{
			MediaType:    "application/vnd.oci.empty.v1+json",
			ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json",
			Digest:       "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
			Size:         2,
		},
		Layers: []ocispec.Descriptor{{
			MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
			Digest:    digest.FromBytes(bundle),
			Size:      int64(len(bundle)),
		}},
		Subject: &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations: map[string]string{
			"org.opencontainers.image.created":  "2026-03-04T04:06:07Z",
			"dev.sigstore.bundle.content":       "dsse-envelope",
			"dev.sigstore.bundle.predicateType": "https://sigstore.dev/cosign/sign/v1",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("referrerManifest (-want +got):\n%s", diff)
	}
}

// TestSignVerify: rules 2, 3 and 5 of Signatures, on a registry with the
// referrers API and on one without (the referrers tag scheme), with
// ECDSA and Ed25519 keys.
func TestSignVerify(t *testing.T) {
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, withAPI := ocireg.Start(t, true)
	_, withoutAPI := ocireg.Start(t, false)
	for _, tc := range []struct {
		name string
		host string
		key  crypto.Signer
	}{
		{"referrers API, ECDSA", withAPI, ecdsaKey(t)},
		{"referrers API, Ed25519", withAPI, edKey},
		{"tag scheme, ECDSA", withoutAPI, ecdsaKey(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, opts := testOptions(t)
			repo := "team/" + strings.ToLower(strings.NewReplacer(" ", "", ",", "-").Replace(tc.name))
			ref := pushSkill(t, tc.host, repo, "v1", "review", opts)
			sigDigest, err := signRef(t.Context(), ref, tc.key, opts...)
			if err != nil {
				t.Fatalf("signRef(%q) = %v", ref, err)
			}
			if err := digest.Digest(sigDigest).Validate(); err != nil {
				t.Errorf("signRef(%q) = %q, want a digest: %v", ref, sigDigest, err)
			}
			got, err := verifyRef(t.Context(), ref, []signature.Requirement{keyRequirement(t, tc.key)}, opts...)
			if err != nil {
				t.Fatalf("verifyRef(%q) = %v", ref, err)
			}
			if want := (signature.Signer{KeyID: keyID(t, tc.key)}); got != want {
				t.Errorf("verifyRef(%q) = %+v, want %+v", ref, got, want)
			}
			// Another of the requirements is enough.
			reqs := []signature.Requirement{keyRequirement(t, ecdsaKey(t)), keyRequirement(t, tc.key)}
			if _, err := verifyRef(t.Context(), ref, reqs, opts...); err != nil {
				t.Errorf("verifyRef(%q) with the key second of two = %v", ref, err)
			}
		})
	}
}

// TestVerifyRefuses: rule 5 of Signatures: an unsigned manifest, a
// signature by another key, and a bundle over another manifest attached
// to this one are refused with errors that name what was expected and
// found.
func TestVerifyRefuses(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	key, other := ecdsaKey(t), ecdsaKey(t)
	want := []signature.Requirement{keyRequirement(t, key)}

	signed := pushSkill(t, host, "team/review", "v1", "review", opts)
	if _, err := signRef(ctx, signed, key, opts...); err != nil {
		t.Fatal(err)
	}
	// The tag moved to changed content: the new manifest is not signed.
	changed := pushSkill(t, host, "team/review", "v1", "changed", opts)
	byOther := pushSkill(t, host, "team/review", "other", "other", opts)
	if _, err := signRef(ctx, byOther, other, opts...); err != nil {
		t.Fatal(err)
	}
	// A bundle that signs signed, attached to moved.
	moved := pushSkill(t, host, "team/review", "moved", "moved", opts)
	attachBundleOf(t, host, "team/review", signed, moved)

	for _, tc := range []struct {
		name     string
		ref      string
		sentinel error
		says     []string
	}{
		{"unsigned", changed, source.ErrUnsigned, []string{"no Sigstore bundle", keyID(t, key)}},
		{"another key", byOther, source.ErrUntrusted, []string{"expected a signature by", keyID(t, key), "found 1 signature (1 by another signer)"}},
		{"bundle over another manifest", moved, source.ErrInvalidSignature, []string{"expected a signature by", keyID(t, key), "found 1 signature (1 invalid)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := verifyRef(ctx, tc.ref, want, opts...)
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("verifyRef(%q) = %+v, %v; want %v", tc.ref, s, err, tc.sentinel)
			}
			for _, w := range append(tc.says, tc.ref) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("verifyRef(%q) = %v; want it to say %q", tc.ref, err, w)
				}
			}
		})
	}
}

// attachBundleOf copies the bundle attached to from as a referrer of to,
// as an attacker who reuses a signature would.
func attachBundleOf(t *testing.T, host, repo, from, to string) {
	t.Helper()
	ctx := t.Context()
	r := rawRepo(t, host, repo)
	fromRef, _ := ParseReference(from)
	toRef, _ := ParseReference(to)
	var refs []ocispec.Descriptor
	if err := r.Referrers(ctx, ocispec.Descriptor{Digest: digest.Digest(fromRef.Digest)}, "", func(p []ocispec.Descriptor) error {
		refs = append(refs, p...)
		return nil
	}); err != nil || len(refs) != 1 {
		t.Fatalf("referrers of %s = %v, %v; want one", from, refs, err)
	}
	rc, err := r.Manifests().Fetch(ctx, refs[0])
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	err = json.NewDecoder(rc).Decode(&m)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	subject, err := r.Resolve(ctx, toRef.Digest)
	if err != nil {
		t.Fatal(err)
	}
	m.Subject = &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	data, _ := json.Marshal(m)
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: m.ArtifactType, Digest: digest.FromBytes(data), Size: int64(len(data))}
	if err := r.Manifests().Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyOffline: rule 6 of Signatures: a verified bundle is kept in
// the cache, and a later Verify of the same pin needs no registry; a
// damaged copy is not trusted.
func TestVerifyOffline(t *testing.T) {
	ctx := t.Context()
	srv, host := ocireg.Start(t, true)
	root, opts := testOptions(t)
	key := ecdsaKey(t)
	reqs := []signature.Requirement{keyRequirement(t, key)}
	ref := pushSkill(t, host, "team/review", "v1", "review", opts)
	if _, err := signRef(ctx, ref, key, opts...); err != nil {
		t.Fatal(err)
	}
	if _, err := verifyRef(ctx, ref, reqs, opts...); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	got, err := verifyRef(ctx, ref, reqs, opts...)
	if err != nil || got.KeyID != keyID(t, key) {
		t.Fatalf("verifyRef(%q) offline, from the cache = %+v, %v; want the signer", ref, got, err)
	}
	// A requirement the kept bundle does not satisfy asks the registry,
	// which is gone.
	if _, err := verifyRef(ctx, ref, []signature.Requirement{keyRequirement(t, ecdsaKey(t))}, opts...); err == nil {
		t.Errorf("verifyRef(%q) offline with another key = nil, want an error", ref)
	}
	// A damaged copy is removed, not trusted.
	kept, _ := filepath.Glob(filepath.Join(root, cacheDir, sigDir, "sha256", "*", "*"))
	if len(kept) != 1 {
		t.Fatalf("kept bundles = %v, want one", kept)
	}
	if err := os.WriteFile(kept[0], []byte(`{"damaged":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := verifyRef(ctx, ref, reqs, opts...); err == nil {
		t.Errorf("verifyRef(%q) offline with a damaged kept bundle = nil, want an error", ref)
	}
	if _, err := os.Stat(kept[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the damaged kept bundle is still there: %v", err)
	}
}

// TestVerifyLimits: rule 4 of Signatures: a bundle larger than the limit
// is not downloaded.
func TestVerifyLimits(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	ref := pushSkill(t, host, "team/review", "v1", "review", opts)
	r := rawRepo(t, host, "team/review")
	pinned, _ := ParseReference(ref)
	subject, err := r.Resolve(ctx, pinned.Digest)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte(" "), maxBundleSize+1)
	pushBlobBytes(t, r, ocispec.MediaTypeEmptyJSON, ocispec.DescriptorEmptyJSON.Data)
	pushBlobBytes(t, r, signature.BundleMediaType, big)
	data, desc, err := referrerManifest(big, subject, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Manifests().Push(ctx, desc, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	_, err = verifyRef(ctx, ref, []signature.Requirement{keyRequirement(t, ecdsaKey(t))}, opts...)
	if !errors.Is(err, source.ErrInvalidSignature) || !strings.Contains(err.Error(), "the limit is 1048576") {
		t.Errorf("verifyRef(%q) with a bundle over the limit = %v, want %v naming the limit", ref, err, source.ErrInvalidSignature)
	}
}

// TestVerifyReadsAtMost: rule 4 of Signatures: at most maxBundles
// signatures are read, and the error says how many were left.
func TestVerifyReadsAtMost(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	ref := pushSkill(t, host, "team/review", "v1", "review", opts)
	for range maxBundles + 1 {
		if _, err := signRef(ctx, ref, ecdsaKey(t), opts...); err != nil {
			t.Fatal(err)
		}
	}
	_, err := verifyRef(ctx, ref, []signature.Requirement{keyRequirement(t, ecdsaKey(t))}, opts...)
	want := fmt.Sprintf("found %d signatures (%d by another signer, 1 not read (at most %d are))", maxBundles+1, maxBundles, maxBundles)
	if !errors.Is(err, source.ErrUntrusted) || !strings.Contains(err.Error(), want) {
		t.Errorf("verifyRef(%q) with %d signatures by others = %v, want %v saying %q", ref, maxBundles+1, err, source.ErrUntrusted, want)
	}
}

func TestSignVerifyNeedAPin(t *testing.T) {
	key := ecdsaKey(t)
	_, opts := testOptions(t)
	ref := "oci://127.0.0.1:1/team/review:v1"
	if _, err := signRef(t.Context(), ref, key, opts...); !errors.Is(err, source.ErrNotPinned) {
		t.Errorf("signRef(%q) = %v, want %v", ref, err, source.ErrNotPinned)
	}
	if _, err := verifyRef(t.Context(), ref, []signature.Requirement{keyRequirement(t, key)}, opts...); !errors.Is(err, source.ErrNotPinned) {
		t.Errorf("verifyRef(%q) = %v, want %v", ref, err, source.ErrNotPinned)
	}
}

// TestRemoteVerify: the Remote that install uses verifies a pin as
// Verify does.
func TestRemoteVerify(t *testing.T) {
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	key := ecdsaKey(t)
	ref := pushSkill(t, host, "team/review", "v1", "review", opts)
	if _, err := signRef(t.Context(), ref, key, opts...); err != nil {
		t.Fatal(err)
	}
	parsed, _ := ParseReference(ref)
	pin := parsed.Digest
	parsed.Digest = ""
	r := NewRemote(parsed, opts...)
	check := &signature.BundleCheck{Reqs: []signature.Requirement{keyRequirement(t, key)}}
	err := r.VerifyBundles(t.Context(), pin, check)
	if err != nil || check.Signer.KeyID != keyID(t, key) {
		t.Errorf("Remote.VerifyBundles(%s) = %v, signer %+v; want the signer", pin, err, check.Signer)
	}
}

// TestBundleMediaType checks that the media type Sign writes is package
// signature's, which this package does not import.
func TestBundleMediaType(t *testing.T) {
	if bundleMediaType != signature.BundleMediaType {
		t.Errorf("bundleMediaType = %q, want signature.BundleMediaType %q", bundleMediaType, signature.BundleMediaType)
	}
}
