package oci

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/source"
)

// putCached writes data into the blob cache at root, as an earlier
// fetch would have kept it.
func putCached(t *testing.T, root string, data []byte) {
	t.Helper()
	b, err := openBlobs(root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tmp, name, err := b.create()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(data); err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	if err := b.commit(name, digest.FromBytes(data)); err != nil {
		t.Fatal(err)
	}
}

// offline returns a host on loopback that nothing answers on.
func offline(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	host := strings.TrimPrefix(srv.URL, "http://")
	srv.Close()
	return host
}

// TestAmbiguousDocumentIsRefused holds What Fetch reads, rule 5: a
// document that holds both manifests and config and layers, and no
// mediaType, could be read as an index (its manifest's layer) or as a
// manifest (its own layer); it is refused, whether the registry serves
// it or the cache holds it, so one pin never gives two skills.
func TestAmbiguousDocumentIsRefused(t *testing.T) {
	docs := map[digest.Digest]served{}
	one := add(t, docs, ocispec.MediaTypeImageLayerGzip, ocireg.Gzip(t, ocireg.Tar(t, map[string]string{"SKILL.md": skillMD("one", "first")})))
	two := add(t, docs, ocispec.MediaTypeImageLayerGzip, ocireg.Gzip(t, ocireg.Tar(t, map[string]string{"SKILL.md": skillMD("two", "second")})))
	cfg := add(t, docs, ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`))
	m2 := add(t, docs, ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "config": cfg, "layers": []any{two}})
	m2.Platform = &linuxAMD64
	both := map[string]any{"schemaVersion": 2, "config": cfg, "layers": []any{one}, "manifests": []any{m2}}
	asIndex := add(t, docs, ocispec.MediaTypeImageIndex, both)
	both["mediaType"] = ocispec.MediaTypeImageIndex
	typedIndex := add(t, docs, ocispec.MediaTypeImageIndex, both)
	both["mediaType"] = ocispec.MediaTypeImageManifest
	typedManifest := add(t, docs, ocispec.MediaTypeImageManifest, both)
	host := serveDocuments(t, docs)
	for _, d := range []ocispec.Descriptor{asIndex, typedIndex, typedManifest} {
		t.Run(d.MediaType+"/"+d.Digest.Encoded()[:8], func(t *testing.T) {
			root, opts := testOptions(t)
			ref := "oci://" + host + "/x/amb@" + d.Digest.String()
			for _, read := range []string{"online", "online again"} {
				if a, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "could be read as either") {
					t.Errorf("Fetch(%q) %s = %v, %v; want source.ErrNoSkill saying it could be read as either", ref, read, a, err)
				}
			}
			if blobs := cachedBlobs(t, root); len(blobs) != 0 {
				t.Errorf("cache holds %v after an ambiguous document", blobs)
			}
			// A cache an earlier release filled holds it: it is refused
			// from there too, without the network.
			putCached(t, root, docs[d.Digest].data)
			ref = "oci://" + offline(t) + "/x/amb@" + d.Digest.String()
			if a, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "could be read as either") {
				t.Errorf("Fetch(%q) from the cache = %v, %v; want source.ErrNoSkill saying it could be read as either", ref, a, err)
			}
			if _, err := Describe(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) {
				t.Errorf("Describe(%q) from the cache = %v, want source.ErrNoSkill", ref, err)
			}
		})
	}
}

// TestDocumentKindIsItsOwn holds What Fetch reads, rule 5: a document
// without a mediaType is read by its fields, online and from the cache
// alike; one the registry serves, or a tag's HEAD names, as the other
// kind is refused, and not cached.
func TestDocumentKindIsItsOwn(t *testing.T) {
	docs := map[digest.Digest]served{}
	layer := add(t, docs, ocispec.MediaTypeImageLayerGzip, reviewLayer(t))
	cfg := add(t, docs, ocispec.MediaTypeImageConfig, []byte(`{}`))
	plain := map[string]any{"schemaVersion": 2, "config": cfg, "layers": []any{layer}, "annotations": reviewAnnotations()}
	good := add(t, docs, ocispec.MediaTypeImageManifest, plain)
	plain["annotations"] = map[string]string{"x": "served as an index"}
	asIndex := add(t, docs, ocispec.MediaTypeImageIndex, plain)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		d := digest.Digest(path.Base(r.URL.Path))
		if strings.HasSuffix(r.URL.Path, "/manifests/v1") {
			d = asIndex.Digest
		}
		doc, ok := docs[d]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", doc.mediaType)
		w.Header().Set("Docker-Content-Digest", d.String())
		w.Header().Set("Content-Length", strconv.Itoa(len(doc.data)))
		if r.Method != http.MethodHead {
			w.Write(doc.data)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	root, opts := testOptions(t)
	ref := "oci://" + host + "/x/plain@" + good.Digest.String()
	online, err := Fetch(t.Context(), ref, opts...)
	if err != nil {
		t.Fatalf("Fetch(%q) of a manifest without a mediaType = %v", ref, err)
	}
	cached, err := Fetch(t.Context(), "oci://"+offline(t)+"/x/plain@"+good.Digest.String(), opts...)
	if err != nil || cached.Layer.Digest != online.Layer.Digest {
		t.Errorf("Fetch from the cache = %v, %v; want the layer %s read online", cached, err, online.Layer.Digest)
	}

	ref = "oci://" + host + "/x/plain@" + asIndex.Digest.String()
	want := "it is a manifest, but it was served or listed as an index"
	if _, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), want) {
		t.Errorf("Fetch(%q) of a manifest served as an index = %v, want source.ErrNoSkill saying %q", ref, err, want)
	}
	if _, err := Describe(t.Context(), "oci://"+host+"/x/plain:v1", opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), want) {
		t.Errorf("Describe by a tag whose HEAD says index, of a manifest = %v, want source.ErrNoSkill saying %q", err, want)
	}
	for _, b := range cachedBlobs(t, root) {
		if strings.Contains(b, asIndex.Digest.Encoded()) {
			t.Errorf("cache holds %s, a manifest served as an index", b)
		}
	}
	// Once cached (by an earlier release), the tag's HEAD still decides
	// nothing: Describe by the tag is refused from the cache as well.
	putCached(t, root, docs[asIndex.Digest].data)
	if _, err := Describe(t.Context(), "oci://"+host+"/x/plain:v1", opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), want) {
		t.Errorf("Describe by the tag, the manifest cached = %v, want source.ErrNoSkill saying %q", err, want)
	}
	if d, err := Describe(t.Context(), "oci://"+offline(t)+"/x/plain@"+asIndex.Digest.String(), opts...); err != nil || d.Name != "plain" {
		t.Errorf("Describe of the pin from the cache = %v, %v; want the manifest read by its fields", d, err)
	}
}

// TestPinAnsweredWithOtherContent holds What Fetch reads, rule 5: a
// registry that answers a pinned manifest, or a layer, with another
// document (naming it by its own digest) gives source.ErrIntegrity,
// and nothing is cached.
func TestPinAnsweredWithOtherContent(t *testing.T) {
	docs := map[digest.Digest]served{}
	layer := add(t, docs, ocispec.MediaTypeImageLayerGzip, reviewLayer(t))
	other := add(t, docs, ocispec.MediaTypeImageLayerGzip, ocireg.Gzip(t, ocireg.Tar(t, map[string]string{"SKILL.md": skillMD("other", "x")})))
	cfg := add(t, docs, ocispec.MediaTypeImageConfig, []byte(`{}`))
	m := add(t, docs, ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "config": cfg, "layers": []any{layer}})
	swapLayer := layer
	swapLayer.Digest = digest.FromString("another layer")
	m2 := add(t, docs, ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "config": cfg, "layers": []any{swapLayer}})
	pinned := digest.FromString("the pin")
	swaps := map[digest.Digest]digest.Digest{pinned: m.Digest, swapLayer.Digest: layer.Digest}
	_ = other
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		d := digest.Digest(path.Base(r.URL.Path))
		if s, ok := swaps[d]; ok {
			d = s
		}
		doc, ok := docs[d]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", doc.mediaType)
		w.Header().Set("Docker-Content-Digest", d.String())
		w.Header().Set("Content-Length", strconv.Itoa(len(doc.data)))
		w.Write(doc.data)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, tt := range []struct {
		name string
		pin  digest.Digest
	}{
		{"a manifest", pinned},
		{"a layer", m2.Digest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			ref := "oci://" + host + "/x/y@" + tt.pin.String()
			_, err := Fetch(t.Context(), ref, opts...)
			if !errors.Is(err, source.ErrIntegrity) || !strings.HasPrefix(err.Error(), ref+": "+source.ErrIntegrity.Error()+": ") || !strings.Contains(err.Error(), "answered the") {
				t.Errorf("Fetch(%q) = %v, want %q: source.ErrIntegrity: saying the registry answered with other content", ref, err, ref)
			}
			for _, b := range cachedBlobs(t, root) {
				if strings.Contains(b, layer.Digest.Encoded()) || strings.Contains(b, m.Digest.Encoded()) {
					t.Errorf("cache holds %s, content sent for another digest", b)
				}
			}
		})
	}
	_, opts := testOptions(t)
	ref := "oci://" + host + "/x/y@" + pinned.String()
	if _, err := Describe(t.Context(), ref, opts...); !errors.Is(err, source.ErrIntegrity) {
		t.Errorf("Describe(%q) = %v, want source.ErrIntegrity", ref, err)
	}
}

// TestIndexEntrySize holds What Fetch reads, rule 5: an index entry
// gives its manifest's size, which must be positive and match the
// manifest's bytes, sent or cached.
func TestIndexEntrySize(t *testing.T) {
	docs := map[digest.Digest]served{}
	layer := add(t, docs, ocispec.MediaTypeImageLayerGzip, reviewLayer(t))
	cfg := add(t, docs, ocispec.MediaTypeImageConfig, []byte(`{}`))
	m := add(t, docs, ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "config": cfg, "layers": []any{layer}})
	entry := func(size int64, p *ocispec.Platform) ocispec.Descriptor {
		d := m
		d.Size, d.Platform = size, p
		return d
	}
	index := func(entries ...ocispec.Descriptor) ocispec.Descriptor {
		return add(t, docs, ocispec.MediaTypeImageIndex, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex, "manifests": entries})
	}
	good := index(entry(m.Size, &linuxAMD64))
	tests := []struct {
		name    string
		index   ocispec.Descriptor
		cached  bool
		wantErr error
		want    string
	}{
		{"size -1", index(entry(-1, &linuxAMD64)), false, source.ErrNoSkill, "has the size -1"},
		{"size 0", index(entry(0, &linuxAMD64)), false, source.ErrNoSkill, "has the size 0"},
		{"a size that lies", index(entry(3, &linuxAMD64)), false, source.ErrIntegrity, "answered the manifest"},
		{"listed twice, the second time with a size that lies", index(entry(m.Size, &linuxAMD64), entry(3, &linuxARM64)), false, source.ErrIntegrity, "not the 3 its descriptor says"},
		{"a size that lies, the manifest cached", index(entry(m.Size+1, &linuxAMD64)), true, source.ErrIntegrity, "not the " + strconv.FormatInt(m.Size+1, 10) + " its descriptor says"},
	}
	host := serveDocuments(t, docs)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, opts := testOptions(t)
			if tt.cached {
				if _, err := Fetch(t.Context(), "oci://"+host+"/x/y@"+good.Digest.String(), opts...); err != nil {
					t.Fatal(err)
				}
			}
			ref := "oci://" + host + "/x/y@" + tt.index.Digest.String()
			if _, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Fetch(%q) = %v, want %v saying %q", ref, err, tt.wantErr, tt.want)
			}
		})
	}
}
