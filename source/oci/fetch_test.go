package oci

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// TestPushThenFetchByTagAndDigest: what Push writes, in either format,
// Fetch reads back whole.
func TestPushThenFetchByTagAndDigest(t *testing.T) {
	for _, tc := range []struct {
		format    Format
		layerType string
		extra     map[string]string
	}{
		{FormatImage, ocispec.MediaTypeImageLayerGzip, map[string]string{AnnotationSkill: ArtifactType}},
		{FormatArtifact, LayerMediaType, nil},
	} {
		t.Run(string(tc.format), func(t *testing.T) { testPushThenFetch(t, tc.format, tc.layerType, tc.extra) })
	}
}

func testPushThenFetch(t *testing.T, format Format, layerType string, extra map[string]string) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	root, opts := testOptions(t)
	dir := newSkill(t, "review")
	ref := "oci://" + host + "/team/review:v1"

	pushed, err := Push(ctx, dir, ref, append(opts, WithFormat(format), WithVersion("1.0.0"), WithSourceURL("https://example.org/review"), WithRevision("abc123"))...)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	resolved, err := Resolve(ctx, ref, opts...)
	if err != nil {
		t.Fatalf("Resolve(%q) = %v", ref, err)
	}
	if resolved != pushed {
		t.Fatalf("Resolve(%q) = %s, want the pushed %s", ref, resolved, pushed)
	}

	// By the digest alone and by tag and digest.
	for _, pinned := range []string{"oci://" + host + "/team/review@" + pushed, ref + "@" + pushed} {
		a, err := Fetch(ctx, pinned, opts...)
		if err != nil {
			t.Fatalf("Fetch(%q) = %v", pinned, err)
		}
		if a.Digest != pushed || a.Name != "review" || a.Subpath != "" || a.Layer.MediaType != layerType {
			t.Errorf("Fetch(%q) = digest %s, name %q, subpath %q, layer %s; want %s, review, root, %s", pinned, a.Digest, a.Name, a.Subpath, a.Layer.MediaType, pushed, layerType)
		}
		want := map[string]string{
			ocispec.AnnotationTitle:       "review",
			ocispec.AnnotationDescription: "Reviews a change",
			ocispec.AnnotationVersion:     "1.0.0",
			ocispec.AnnotationSource:      "https://example.org/review",
			ocispec.AnnotationRevision:    "abc123",
		}
		maps.Copy(want, extra)
		if diff := cmp.Diff(want, a.Annotations); diff != "" {
			t.Errorf("Fetch(%q) annotations (-want +got):\n%s", pinned, diff)
		}
		s := a.Skill()
		src := s.Source.(SkillSource)
		if s.Key != "review" || src.Fingerprint != pushed || src.Format != skill.FormatTarGz {
			t.Errorf("Skill() = key %q, fingerprint %q, format %q; want review, %s, tar.gz", s.Key, src.Fingerprint, src.Format, pushed)
		}
		got, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, s)
		if err != nil {
			t.Fatalf("Materialize: %v", err)
		}
		want1, err := skill.ContentDigest(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := skill.ContentDigest(t.Context(), got); err != nil || d != want1 {
			t.Errorf("materialized %s has digest %s, %v; want the pushed folder's %s", got, d, err, want1)
		}
		if runtime.GOOS != "windows" {
			info, err := os.Stat(filepath.Join(got, "scripts", "run.sh"))
			if err != nil || info.Mode()&0o100 == 0 {
				t.Errorf("scripts/run.sh = %v, %v; want executable", info, err)
			}
		}
	}
}

func TestFetchNeedsAPin(t *testing.T) {
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	ref := "oci://" + host + "/team/review:v1"
	if _, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, source.ErrNotPinned) {
		t.Errorf("Fetch(%q) = %v, want source.ErrNotPinned", ref, err)
	}
	if _, err := Skill(t.Context(), ref, opts...); !errors.Is(err, source.ErrNotPinned) {
		t.Errorf("Skill(%q) = %v, want source.ErrNotPinned", ref, err)
	}
}

func TestResolveDigestNeedsNoNetwork(t *testing.T) {
	d := "sha256:" + strings.Repeat("a", 64)
	// Port 1 on loopback: nothing listens there.
	got, err := Resolve(t.Context(), "oci://127.0.0.1:1/a/b:v1@"+d)
	if err != nil || got != d {
		t.Errorf("Resolve = %q, %v; want %q", got, err, d)
	}
}

func TestOfflineSecondRun(t *testing.T) {
	ctx := t.Context()
	srv, host := ocireg.Start(t, true)
	root, opts := testOptions(t)
	dir := newSkill(t, "offline")
	ref := "oci://" + host + "/skills/offline:v1"
	d, err := Push(ctx, dir, ref, opts...)
	if err != nil {
		t.Fatal(err)
	}
	pinned := ref + "@" + d

	s, err := Skill(ctx, pinned, opts...)
	if err != nil {
		t.Fatal(err)
	}
	first, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()

	s, err = Skill(ctx, pinned, opts...)
	if err != nil {
		t.Fatalf("Skill(%q) with the registry down = %v, want it from the cache", pinned, err)
	}
	second, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, s)
	if err != nil {
		t.Fatalf("Materialize with the registry down = %v", err)
	}
	if second != first {
		t.Errorf("second Materialize = %s, want %s", second, first)
	}
	// The tag itself needs the registry.
	if _, err := Resolve(ctx, ref, opts...); err == nil {
		t.Errorf("Resolve(%q) with the registry down succeeded", ref)
	}
}

func TestOtherToolsLayouts(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "wild/skills")
	atRoot := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("greet", "Greets"), "notes.md": "n\n"})
	nested := testarchive.TarGzFiles(t, map[string]string{
		"skills/":                    "",
		"skills/review/":             "",
		"skills/review/SKILL.md":     skillMD("review", "Reviews"),
		"skills/review/sub/SKILL.md": skillMD("sub", "A skill inside the skill"),
		"README.md":                  "readme\n",
	})

	// An index with one image manifest (and an attestation beside it).
	image := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, atRoot, "image")
	attestation := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, map[string]string{"x.json": "{}"}), "attestation")
	attestation.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest"}
	index := pushManifest(t, r, ocispec.MediaTypeImageIndex, ocispec.Index{
		Versioned:   specs.Versioned{SchemaVersion: 2},
		MediaType:   ocispec.MediaTypeImageIndex,
		Manifests:   []ocispec.Descriptor{image, attestation},
		Annotations: map[string]string{ocispec.AnnotationTitle: "greet"},
	}, "index")
	// One layer under another media type, the skill a few folders down.
	plain := imageWithLayer(t, r, "application/vnd.oci.image.layer.v1.tar", nested, "plain")

	tests := []struct {
		name        string
		digest      digest.Digest
		wantName    string
		wantSubpath string
		wantFile    string
	}{
		{"index with one manifest", index.Digest, "greet", "", "notes.md"},
		{"single layer under another media type", plain.Digest, "review", "skills/review", "sub/SKILL.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			ref := "oci://" + host + "/wild/skills@" + tt.digest.String()
			a, err := Fetch(ctx, ref, opts...)
			if err != nil {
				t.Fatalf("Fetch(%q) = %v", ref, err)
			}
			if a.Name != tt.wantName || a.Subpath != tt.wantSubpath || a.Digest != tt.digest.String() {
				t.Errorf("Fetch(%q) = name %q, subpath %q, digest %s; want %q, %q, %s", ref, a.Name, a.Subpath, a.Digest, tt.wantName, tt.wantSubpath, tt.digest)
			}
			dir, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, a.Skill())
			if err != nil {
				t.Fatalf("Materialize: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tt.wantFile))); err != nil {
				t.Errorf("materialized skill lacks %s: %v", tt.wantFile, err)
			}
		})
	}
}

func TestNoSkill(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "bad/things")
	goodLayer := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("x", "X")})
	empty := pushBlobBytes(t, r, ocispec.MediaTypeEmptyJSON, []byte("{}"))
	artifact := func(typ string, layers ...ocispec.Descriptor) ocispec.Manifest {
		return ocispec.Manifest{
			Versioned:    specs.Versioned{SchemaVersion: 2},
			MediaType:    ocispec.MediaTypeImageManifest,
			ArtifactType: typ,
			Config:       empty,
			Layers:       layers,
		}
	}
	layer := func(mt string, data []byte) ocispec.Descriptor { return pushBlobBytes(t, r, mt, data) }

	tests := []struct {
		name string
		push func() ocispec.Descriptor
		want string
	}{
		{"wrong artifact type", func() ocispec.Descriptor {
			return pushManifest(t, r, ocispec.MediaTypeImageManifest, artifact("application/vnd.cncf.helm.chart.v1", layer(LayerMediaType, goodLayer)), "helm")
		}, `artifact type is "application/vnd.cncf.helm.chart.v1"`},
		{"skill artifact without layers", func() ocispec.Descriptor {
			return pushManifest(t, r, ocispec.MediaTypeImageManifest, artifact(ArtifactType), "nolayers")
		}, "no layers"},
		{"skill artifact with a layer of another type", func() ocispec.Descriptor {
			return pushManifest(t, r, ocispec.MediaTypeImageManifest, artifact(ArtifactType, layer(ocispec.MediaTypeImageLayerGzip, goodLayer)), "othertype")
		}, "one layer of type"},
		{"skill artifact whose skill is not at the root", func() ocispec.Descriptor {
			return pushManifest(t, r, ocispec.MediaTypeImageManifest, artifact(ArtifactType, layer(LayerMediaType, testarchive.TarGzFiles(t, map[string]string{"x/SKILL.md": skillMD("x", "X")}))), "deep")
		}, "no SKILL.md at its root"},
		{"image with two layers", func() ocispec.Descriptor {
			return pushManifest(t, r, ocispec.MediaTypeImageManifest, artifact("", layer(ocispec.MediaTypeImageLayerGzip, goodLayer), layer(ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, map[string]string{"a": "a"}))), "twolayers")
		}, "has 2:"},
		{"index with two manifests", func() ocispec.Descriptor {
			a := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, goodLayer, "a")
			b := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("y", "Y")}), "b")
			return pushManifest(t, r, ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{a, b}}, "twomanifests")
		}, "lists 2 manifests"},
		{"index of an index", func() ocispec.Descriptor {
			a := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, goodLayer, "inner-a")
			inner := pushManifest(t, r, ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{a}}, "inner")
			return pushManifest(t, r, ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{inner}}, "outer")
		}, "is an index itself"},
		{"layer without SKILL.md", func() ocispec.Descriptor {
			return imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, map[string]string{"README.md": "r"}), "noskill")
		}, "no SKILL.md within 5 folders"},
		{"layer with two skills", func() ocispec.Descriptor {
			return imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, map[string]string{"a/SKILL.md": skillMD("a", "A"), "b/SKILL.md": skillMD("b", "B")}), "twoskills")
		}, "holds 2 skills (a, b)"},
		{"layer that is not gzip", func() ocispec.Descriptor {
			return imageWithLayer(t, r, ocispec.MediaTypeImageLayer, []byte("plain text, no archive"), "text")
		}, "not a tar+gzip archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			ref := "oci://" + host + "/bad/things@" + tt.push().Digest.String()
			_, err := Fetch(ctx, ref, opts...)
			if !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Fetch(%q) = %v, want source.ErrNoSkill saying %q", ref, err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), ref+": ") {
				t.Errorf("Fetch(%q) = %v, want the reference first", ref, err)
			}
			assertNoLayerCached(t, root)
		})
	}
}

// assertNoLayerCached fails when the cache under root holds anything but
// manifests and indexes, or a skill tree.
func assertNoLayerCached(t *testing.T, root string) {
	t.Helper()
	for _, b := range cachedBlobs(t, root) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(b)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("{")) {
			t.Errorf("cache holds %s, which is no manifest, after a rejected download", b)
		}
	}
	if trees := skillTrees(t, root); len(trees) > 0 {
		t.Errorf("cache holds skill trees %v after a rejected download", trees)
	}
}

func TestUnsafeLayerIsNotCached(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "bad/unsafe")
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  error
	}{
		{"escaping name", map[string]string{"SKILL.md": skillMD("x", "X"), "../evil": "x"}, skill.ErrArchiveUnsafe},
		{"case-fold collision", map[string]string{"SKILL.md": skillMD("x", "X"), "a.md": "1", "A.md": "2"}, skill.ErrArchiveUnsafe},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			d := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, tt.files), "unsafe")
			ref := "oci://" + host + "/bad/unsafe@" + d.Digest.String()
			if _, err := Fetch(ctx, ref, opts...); !errors.Is(err, tt.want) {
				t.Fatalf("Fetch(%q) = %v, want %v", ref, err, tt.want)
			}
			assertNoLayerCached(t, root)
		})
	}
}

// tamper serves the registry h, but changes what it sends for blob
// requests through change.
func tamper(h http.Handler, change func(body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet || !strings.Contains(req.URL.Path, "/blobs/sha256:") {
			h.ServeHTTP(w, req)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := change(rec.Body.Bytes())
		for k, v := range rec.Header() {
			if k != "Content-Length" && k != "Docker-Content-Digest" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

func TestTamperedDownloadIsRefused(t *testing.T) {
	ctx := t.Context()
	for _, tt := range []struct {
		name   string
		change func([]byte) []byte
	}{
		{"a byte changed", func(b []byte) []byte {
			b = bytes.Clone(b)
			b[len(b)-10] ^= 0xff
			return b
		}},
		{"more bytes than declared", func(b []byte) []byte { return append(bytes.Clone(b), make([]byte, 1000)...) }},
		{"fewer bytes than declared", func(b []byte) []byte { return b[:len(b)/2] }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, host := ocireg.Start(t, true)
			root, opts := testOptions(t)
			d, err := Push(ctx, newSkill(t, "review"), "oci://"+host+"/team/review:v1", opts...)
			if err != nil {
				t.Fatal(err)
			}
			// A second registry that serves the same repository's blobs
			// altered.
			srv, _ := ocireg.Start(t, true)
			proxy := httptest.NewServer(tamper(srv.Config.Handler, tt.change))
			defer proxy.Close()
			phost := strings.TrimPrefix(proxy.URL, "http://")
			if _, err := Push(ctx, newSkill(t, "review"), "oci://"+phost+"/team/review:v1", opts...); err != nil {
				t.Fatal(err)
			}
			ref := "oci://" + phost + "/team/review@" + d
			_, err = Fetch(ctx, ref, opts...)
			if err == nil {
				t.Fatalf("Fetch(%q) of altered content succeeded", ref)
			}
			// A changed byte reaches the digest check; a length the
			// registry's headers already contradict is refused by the
			// client before that, as a broken response.
			if tt.name == "a byte changed" && !errors.Is(err, source.ErrIntegrity) {
				t.Errorf("Fetch(%q) of altered content = %v, want an integrity failure (source.ErrIntegrity)", ref, err)
			}
			assertNoLayerCached(t, root)
		})
	}
}

func TestLayerSizeLimit(t *testing.T) {
	ctx := t.Context()
	srv, host := ocireg.Start(t, true)
	root, opts := testOptions(t)
	d, err := Push(ctx, newSkill(t, "review"), "oci://"+host+"/team/review:v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	blobGets := 0
	h := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
			blobGets++
		}
		h.ServeHTTP(w, r)
	})
	ref := "oci://" + host + "/team/review@" + d
	_, err = Fetch(ctx, ref, append(opts, cacheAt(root, skill.WithMaxArchiveSize(10)))...)
	var over *extract.LimitError
	if !errors.Is(err, skill.ErrArchiveLimit) || !errors.As(err, &over) || over.Limit != extract.LimitArchiveSize || over.Max != 10 {
		t.Errorf("Fetch(%q) with a 10-byte limit = %v, want ErrArchiveLimit over MaxArchiveSize 10", ref, err)
	}
	if blobGets != 0 {
		t.Errorf("Fetch over the limit downloaded %d blobs, want none", blobGets)
	}
}

func TestDamagedCacheIsFetchedAgain(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	root, opts := testOptions(t)
	d, err := Push(ctx, newSkill(t, "review"), "oci://"+host+"/team/review:v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	ref := "oci://" + host + "/team/review@" + d
	a, err := Fetch(ctx, ref, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := openBlobs(root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	layerPath, _ := b.path(a.Layer.Digest)
	manifestPath, _ := b.path(digest.Digest(d))
	damage := func(p string) {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-1] ^= 0xff
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Open reads the cached layer and finds it damaged at its end.
	damage(layerPath)
	rc, err := a.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(rc)
	rc.Close()
	if !errors.Is(err, errDamaged) || !errors.Is(err, source.ErrIntegrity) {
		t.Fatalf("reading a damaged cached layer = %v, want errDamaged, an integrity failure (source.ErrIntegrity)", err)
	}
	if _, err := os.Stat(layerPath); !os.IsNotExist(err) {
		t.Errorf("damaged layer still cached: %v", err)
	}
	// The next Open downloads it again.
	rc, err = a.Open(ctx)
	if err != nil {
		t.Fatalf("Open after damage = %v", err)
	}
	if _, err := io.ReadAll(rc); err != nil {
		t.Errorf("reading the layer again = %v", err)
	}
	rc.Close()

	// Fetch finds a damaged manifest and layer and fetches them again.
	damage(manifestPath)
	damage(layerPath)
	if _, err := Fetch(ctx, ref, opts...); err != nil {
		t.Fatalf("Fetch with a damaged cache = %v", err)
	}
	if _, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(ctx, a.Skill()); err != nil {
		t.Errorf("Materialize after repair = %v", err)
	}
}

func TestNotFound(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	if _, err := Push(ctx, newSkill(t, "review"), "oci://"+host+"/team/review:v1", opts...); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		call func() error
	}{
		{"unknown tag", func() error { _, err := Resolve(ctx, "oci://"+host+"/team/review:v2", opts...); return err }},
		{"unknown repository", func() error { _, err := Resolve(ctx, "oci://"+host+"/team/nothing:v1", opts...); return err }},
		{"unknown digest", func() error {
			_, err := Fetch(ctx, "oci://"+host+"/team/review@sha256:"+strings.Repeat("0", 64), opts...)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, source.ErrNotFound) {
				t.Errorf("got %v, want source.ErrNotFound", err)
			}
		})
	}
}

func TestNotARegistry(t *testing.T) {
	ctx := t.Context()
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"not found everywhere", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{"a web site", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<html><body>Welcome</body></html>")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			_, opts := testOptions(t)
			host := strings.TrimPrefix(srv.URL, "http://")
			ref := "oci://" + host + "/team/review:v1"
			if _, err := Resolve(ctx, ref, opts...); !errors.Is(err, source.ErrNotServer) {
				t.Errorf("Resolve(%q) = %v, want source.ErrNotServer", ref, err)
			}
			pinned := ref + "@sha256:" + strings.Repeat("1", 64)
			if _, err := Fetch(ctx, pinned, opts...); !errors.Is(err, source.ErrNotServer) {
				t.Errorf("Fetch(%q) = %v, want source.ErrNotServer", pinned, err)
			}
			if _, err := Push(ctx, newSkill(t, "review"), ref, opts...); !errors.Is(err, source.ErrNotServer) {
				t.Errorf("Push(%q) = %v, want source.ErrNotServer", ref, err)
			}
		})
	}
}

// recordingTransport records the URLs asked for and answers none.
type recordingTransport struct{ urls []string }

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.urls = append(rt.urls, r.URL.String())
	return nil, errors.New("no network in this test")
}

func TestTLSUnlessLoopback(t *testing.T) {
	for _, tt := range []struct {
		host, scheme string
	}{
		{"registry.example.org", "https"},
		{"registry.example.org:5000", "https"},
		{"10.1.2.3:5000", "https"},
		{"localhost:5000", "http"},
		{"127.0.0.1:5000", "http"},
		{"127.1.2.3", "http"},
		{"[::1]:5000", "http"},
	} {
		t.Run(tt.host, func(t *testing.T) {
			rt := &recordingTransport{}
			_, opts := testOptions(t)
			_, err := Resolve(t.Context(), "oci://"+tt.host+"/a/b:v1", append(opts, WithHTTPClient(&http.Client{Transport: rt}))...)
			if err == nil {
				t.Fatal("Resolve succeeded without a network")
			}
			if len(rt.urls) == 0 {
				t.Fatal("Resolve asked for nothing")
			}
			for _, u := range rt.urls {
				if !strings.HasPrefix(u, tt.scheme+"://"+tt.host+"/") {
					t.Errorf("Resolve asked for %s, want %s://%s/...", u, tt.scheme, tt.host)
				}
			}
		})
	}
}

func TestCredentialsFromDockerConfig(t *testing.T) {
	ctx := t.Context()
	srv, host := ocireg.Start(t, true)
	h := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`)
			return
		}
		h.ServeHTTP(w, r)
	})
	root := t.TempDir()
	ref := "oci://" + host + "/private/review:v1"

	config := t.TempDir()
	t.Setenv("DOCKER_CONFIG", config)
	if _, err := Push(ctx, newSkill(t, "review"), ref, cacheAt(root)); !errors.Is(err, source.ErrAuthRequired) || !strings.Contains(err.Error(), "docker login "+host) {
		t.Fatalf("Push without credentials = %v, want source.ErrAuthRequired saying docker login", err)
	}

	// "alice:s3cret" in base64, as docker login writes it.
	auth := `{"auths":{"` + host + `":{"auth":"YWxpY2U6czNjcmV0"}}}`
	if err := os.WriteFile(filepath.Join(config, "config.json"), []byte(auth), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Push(ctx, newSkill(t, "review"), ref, cacheAt(root))
	if err != nil {
		t.Fatalf("Push with credentials = %v", err)
	}
	if got, err := Resolve(ctx, ref, cacheAt(root)); err != nil || got != d {
		t.Errorf("Resolve with credentials = %s, %v; want %s", got, err, d)
	}
	if _, err := Fetch(ctx, ref+"@"+d, cacheAt(root)); err != nil {
		t.Errorf("Fetch with credentials = %v", err)
	}

	// A configuration that cannot be read is an error that says so.
	if err := os.WriteFile(filepath.Join(config, "config.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(ctx, ref, cacheAt(root)); err == nil || !strings.Contains(err.Error(), "Docker configuration") {
		t.Errorf("Resolve with a broken Docker configuration = %v, want an error naming it", err)
	}
}
