package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/source"
)

// Annotations of the referrer manifest that carries a bundle, as cosign 3
// writes them.
const (
	annotationBundleContent       = "dev.sigstore.bundle.content"
	annotationBundlePredicateType = "dev.sigstore.bundle.predicateType"
	// cosignSignPredicateType is the predicate type of the statement a
	// bundle of `cosign sign` signs.
	cosignSignPredicateType = "https://sigstore.dev/cosign/sign/v1"
	// bundleMediaTypePrefix starts the media types of every version of
	// a Sigstore bundle.
	bundleMediaTypePrefix = "application/vnd.dev.sigstore.bundle"
	// bundleMediaType is the media type of a Sigstore bundle, version
	// 0.3 (signature.BundleMediaType): the artifactType of the referrer
	// manifest that carries one, and of its single layer.
	bundleMediaType = bundleMediaTypePrefix + ".v0.3+json"
)

// Limits of Verify (rule 4 of Signatures in the package doc).
const (
	// maxBundles is how many bundles Verify reads for one manifest.
	maxBundles = 32
	// maxBundleSize caps a bundle, and maxReferrerSize the manifest that
	// carries it.
	maxBundleSize   = 1 << 20
	maxReferrerSize = 64 << 10
	// maxReferrerPages caps the pages of a referrers listing.
	maxReferrerPages = 16
)

// BundleSigner signs a manifest digest into a Sigstore bundle for
// [Sign]: signature.KeySigner is one (this package links no Sigstore
// code of its own).
type BundleSigner interface {
	SignBundle(subject digest.Digest) ([]byte, error)
}

// Sign signs the manifest that the pinned reference ref names with
// signer (signature.KeySigner{Key: key} signs as cosign sign --key does)
// and attaches the bundle to it as an OCI referrer, as cosign 3 attaches
// one (see package signature); it returns the referrer manifest's
// digest. Nothing is sent to a transparency log. The rules are under
// Signatures in the package doc.
func Sign(ctx context.Context, ref string, signer BundleSigner, opts ...Option) (string, error) {
	r, err := pinned(ref, "sign")
	if err != nil {
		return "", err
	}
	if signer == nil {
		return "", fmt.Errorf("%s: sign: no key given", ref)
	}
	c, err := newConfig(opts)
	if err != nil {
		return "", err
	}
	repo := c.repository(r)
	subject, err := repo.Resolve(ctx, r.Digest)
	if err != nil {
		return "", fmt.Errorf("%s: sign: find the manifest: %w", ref, c.classify(ctx, r, err))
	}
	bundle, err := signer.SignBundle(subject.Digest)
	if err != nil {
		return "", fmt.Errorf("%s: sign: %w", ref, err)
	}
	data, mdesc, err := referrerManifest(bundle, subject, time.Now())
	if err != nil {
		return "", fmt.Errorf("%s: sign: %w", ref, err)
	}
	if err := pushBlob(ctx, repo, ocispec.DescriptorEmptyJSON, func() (io.Reader, error) {
		return bytes.NewReader(ocispec.DescriptorEmptyJSON.Data), nil
	}); err != nil {
		return "", fmt.Errorf("%s: sign: push config: %w", ref, c.classify(ctx, r, err))
	}
	layer := bundleLayer(bundle)
	if err := pushBlob(ctx, repo, layer, func() (io.Reader, error) { return bytes.NewReader(bundle), nil }); err != nil {
		return "", fmt.Errorf("%s: sign: push bundle: %w", ref, c.classify(ctx, r, err))
	}
	// oras-go indexes the referrer under the referrers tag scheme itself
	// when the registry has no referrers API.
	if err := repo.Manifests().Push(ctx, mdesc, bytes.NewReader(data)); err != nil {
		return "", fmt.Errorf("%s: sign: push the signature's manifest: %w", ref, c.classify(ctx, r, err))
	}
	return mdesc.Digest.String(), nil
}

// pinned parses ref, which must hold a digest, for op.
func pinned(ref, op string) (Reference, error) {
	r, err := ParseReference(ref)
	if err != nil {
		return Reference{}, err
	}
	if r.Digest == "" {
		return Reference{}, fmt.Errorf("%s: %w: %s names a manifest by its digest: resolve the tag first and %s %s@DIGEST", ref, source.ErrNotPinned, op, op, ref)
	}
	return r, nil
}

// bundleLayer describes a bundle as the layer of its referrer manifest.
func bundleLayer(bundle []byte) ocispec.Descriptor {
	return ocispec.Descriptor{
		MediaType: bundleMediaType,
		Digest:    digest.FromBytes(bundle),
		Size:      int64(len(bundle)),
	}
}

// referrerManifest builds the manifest that attaches bundle to subject, as
// cosign 3 writes it (rule 1 of Signatures in the package doc), and
// returns it encoded with its descriptor.
func referrerManifest(bundle []byte, subject ocispec.Descriptor, created time.Time) ([]byte, ocispec.Descriptor, error) {
	config := ocispec.DescriptorEmptyJSON
	config.Data = nil
	config.ArtifactType = bundleMediaType
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: bundleMediaType,
		Config:       config,
		Layers:       []ocispec.Descriptor{bundleLayer(bundle)},
		Subject: &ocispec.Descriptor{
			MediaType: subject.MediaType,
			Digest:    subject.Digest,
			Size:      subject.Size,
		},
		Annotations: map[string]string{
			ocispec.AnnotationCreated:     created.UTC().Format(time.RFC3339),
			annotationBundleContent:       "dsse-envelope",
			annotationBundlePredicateType: cosignSignPredicateType,
		},
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	return data, ocispec.Descriptor{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: bundleMediaType,
		Digest:       digest.FromBytes(data),
		Size:         int64(len(data)),
	}, nil
}

// Verify finds the Sigstore bundles attached to the manifest that the
// pinned reference ref names (its referrers; the referrers tag scheme when
// the registry has no referrers API) and returns nil once one verifies
// with v against the manifest digest (a *signature.BundleCheck keeps its
// signer). Verified bundles are kept in the cache ([WithCache]), so a
// later Verify of the same reference needs no network. Errors wrap
// source.ErrUnsigned, source.ErrUntrusted or source.ErrInvalidSignature
// (package signature's ErrUnsigned, ErrUntrusted and ErrInvalid) and say
// what was expected and what was found. The rules, and the limits on
// what is read, are under Signatures in the package doc.
func Verify(ctx context.Context, ref string, v source.BundleVerifier, opts ...Option) error {
	r, err := pinned(ref, "verify")
	if err != nil {
		return err
	}
	d := digest.Digest(r.Digest)
	if err := d.Validate(); err != nil {
		return fmt.Errorf("%s: %w: %v", ref, source.ErrInvalid, err)
	}
	if v == nil || v.String() == "" {
		return fmt.Errorf("%s: verify: no signer is required: name a key or an identity to verify against", ref)
	}
	c, err := newConfig(opts)
	if err != nil {
		return err
	}
	b, err := openBlobs(c.cache.Root())
	if err != nil {
		return err
	}
	defer b.Close()
	// A bundle verified before, kept in the cache, needs no network.
	for _, bundle := range b.bundles(d) {
		if v.VerifyBundle(bundle, d) == nil {
			return nil
		}
	}
	vr := &verifier{cfg: c, ref: r, repo: c.repository(r), subject: d, check: v}
	bundle, err := vr.verify(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	if err := b.keepBundle(d, bundle); err != nil {
		return fmt.Errorf("%s: keep the verified signature in the cache: %w", ref, err)
	}
	return nil
}

// VerifyBundles is [Verify] of the reference pinned to pin, with the
// options given to [NewRemote]: package install has it checked before it
// installs a pin when signatures are required. It makes the Remote a
// [source.Signed].
func (r *Remote) VerifyBundles(ctx context.Context, pin string, v source.BundleVerifier) error {
	ref := r.ref
	ref.Digest = pin
	return Verify(ctx, ref.String(), v, r.opts...)
}

// verifier verifies the bundles attached to one manifest.
type verifier struct {
	cfg     *config
	ref     Reference
	repo    *remote.Repository
	subject digest.Digest
	check   source.BundleVerifier
}

// verify lists the bundles attached to v.subject and returns the first
// that v.check verifies.
func (v *verifier) verify(ctx context.Context) ([]byte, error) {
	v.repo.ReferrerListMaxPages = maxReferrerPages
	var found []ocispec.Descriptor
	// Listed unfiltered: a registry may report cosign's referrer under its
	// config's media type (see rule 3 of Signatures).
	err := v.repo.Referrers(ctx, ocispec.Descriptor{Digest: v.subject}, "", func(page []ocispec.Descriptor) error {
		for _, d := range page {
			if isSignature(d) {
				found = append(found, d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the signatures attached to %s: %w", v.subject, v.cfg.classify(ctx, v.ref, err))
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%w: no Sigstore bundle is attached to %s; expected a signature by %s (sign it with \"agentskills sign\" or \"cosign sign\")", source.ErrUnsigned, v.subject, v.check)
	}
	skipped := 0
	if len(found) > maxBundles {
		skipped = len(found) - maxBundles
		found = found[:maxBundles]
	}
	var (
		untrusted, invalid int
		unreadable         error
		problems           []string
	)
	for _, desc := range found {
		bundle, err := v.bundle(ctx, desc)
		if err == nil {
			if err = v.check.VerifyBundle(bundle, v.subject); err == nil {
				return bundle, nil
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch {
		case errors.Is(err, source.ErrUntrusted):
			untrusted++
		case errors.Is(err, source.ErrInvalidSignature):
			invalid++
		case unreadable == nil:
			unreadable = err
		}
		problems = append(problems, fmt.Sprintf("signature %s: %v", desc.Digest, err))
	}
	var sentinel error
	switch {
	case untrusted > 0:
		sentinel = source.ErrUntrusted
	case invalid > 0:
		sentinel = source.ErrInvalidSignature
	default:
		// Not one could be read: the registry's error says why.
		sentinel = unreadable
	}
	var kinds []string
	for _, k := range []struct {
		n    int
		what string
	}{{untrusted, "by another signer"}, {invalid, "invalid"}, {len(found) - untrusted - invalid, "unreadable"}, {skipped, fmt.Sprintf("not read (at most %d are)", maxBundles)}} {
		if k.n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", k.n, k.what))
		}
	}
	return nil, fmt.Errorf("%w: expected a signature by %s over %s; found %s (%s): %s",
		sentinel, v.check, v.subject, plural(len(found)+skipped, "signature"), strings.Join(kinds, ", "), strings.Join(problems, "; "))
}

// plural returns "1 signature" or "N signatures".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// isSignature reports whether the referrer desc carries a signature's
// bundle: its artifact type is a Sigstore bundle's, or it has cosign's
// bundle annotations, and it is not an attestation (another predicate
// type).
func isSignature(desc ocispec.Descriptor) bool {
	if pt, ok := desc.Annotations[annotationBundlePredicateType]; ok {
		return pt == cosignSignPredicateType
	}
	return strings.HasPrefix(desc.ArtifactType, bundleMediaTypePrefix)
}

// bundle fetches the referrer manifest desc and returns the bundle it
// carries, within the size limits.
func (v *verifier) bundle(ctx context.Context, desc ocispec.Descriptor) ([]byte, error) {
	if desc.Size > maxReferrerSize {
		return nil, fmt.Errorf("%w: its manifest is %d bytes; the limit is %d", source.ErrInvalidSignature, desc.Size, maxReferrerSize)
	}
	if err := checkDigest(desc.Digest); err != nil {
		return nil, fmt.Errorf("%w: its manifest: %v", source.ErrInvalidSignature, err)
	}
	rc, err := v.repo.Manifests().Fetch(ctx, desc)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", v.cfg.classify(ctx, v.ref, err))
	}
	var buf bytes.Buffer
	err = copyVerified(&buf, rc, desc)
	rc.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: fetch: %v", source.ErrInvalidSignature, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("%w: its manifest is not JSON: %v", source.ErrInvalidSignature, err)
	}
	if m.Subject == nil || m.Subject.Digest != v.subject {
		return nil, fmt.Errorf("%w: its manifest's subject is not %s", source.ErrInvalidSignature, v.subject)
	}
	if len(m.Layers) != 1 || !strings.HasPrefix(m.Layers[0].MediaType, bundleMediaTypePrefix) {
		return nil, fmt.Errorf("%w: a signature's manifest has one layer, a Sigstore bundle; this one has %s", source.ErrInvalidSignature, layerTypes(m.Layers))
	}
	layer := m.Layers[0]
	if layer.Size < 0 || layer.Size > maxBundleSize {
		return nil, fmt.Errorf("%w: the bundle is %d bytes; the limit is %d", source.ErrInvalidSignature, layer.Size, maxBundleSize)
	}
	if err := checkDigest(layer.Digest); err != nil {
		return nil, fmt.Errorf("%w: the bundle layer: %v", source.ErrInvalidSignature, err)
	}
	rc, err = v.repo.Blobs().Fetch(ctx, layer)
	if err != nil {
		return nil, fmt.Errorf("fetch the bundle: %w", v.cfg.classify(ctx, v.ref, err))
	}
	defer rc.Close()
	buf.Reset()
	if err := copyVerified(&buf, rc, layer); err != nil {
		return nil, fmt.Errorf("%w: fetch the bundle: %v", source.ErrInvalidSignature, err)
	}
	return buf.Bytes(), nil
}
