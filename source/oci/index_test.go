package oci

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

var (
	linuxAMD64 = ocispec.Platform{OS: "linux", Architecture: "amd64"}
	linuxARM64 = ocispec.Platform{OS: "linux", Architecture: "arm64"}
)

// requestLog records the paths a registry is asked for.
type requestLog struct {
	mu    sync.Mutex
	paths []string
}

// logRequests makes srv record in the log returned the path of every
// GET it answers.
func logRequests(srv *httptest.Server) *requestLog {
	l := &requestLog{}
	h := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			l.mu.Lock()
			l.paths = append(l.paths, r.URL.Path)
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
	return l
}

// count returns how many GETs asked for a path holding part, and forgets
// them all.
func (l *requestLog) count(part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.paths {
		if strings.Contains(p, part) {
			n++
		}
	}
	l.paths = nil
	return n
}

// skillImage is one platform manifest of a skill image, in the shape
// of the image Push writes by default: an image config with os,
// architecture, rootfs.diff_ids (the uncompressed layer's digest) and the
// annotations as labels; one layer, a standard tar+gzip, titled "." with
// oras's unpack annotations; the skill's annotations; artifactType set or
// not.
type skillImage struct {
	platform     ocispec.Platform
	layer        []byte // the layer's bytes; its media type is layerType
	layerType    string
	artifactType string
	annotations  map[string]string
	extraLayers  int
}

// push pushes the manifest and returns its descriptor, with its platform.
func (si skillImage) push(t *testing.T, r *remote.Repository) ocispec.Descriptor {
	t.Helper()
	mt := si.layerType
	if mt == "" {
		mt = ocispec.MediaTypeImageLayerGzip
	}
	layer := pushBlobBytes(t, r, mt, si.layer)
	diffID := layer.Digest
	if zr, err := gzip.NewReader(bytes.NewReader(si.layer)); err == nil {
		if plain, err := io.ReadAll(zr); err == nil {
			diffID = digest.FromBytes(plain)
		}
	}
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: ".", "io.deis.oras.content.unpack": "true", "io.deis.oras.content.digest": diffID.String()}
	config, err := json.Marshal(ocispec.Image{
		Platform: si.platform,
		Config:   ocispec.ImageConfig{Labels: si.annotations},
		RootFS:   ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
	})
	if err != nil {
		t.Fatal(err)
	}
	layers := []ocispec.Descriptor{layer}
	for i := range si.extraLayers {
		layers = append(layers, pushBlobBytes(t, r, ocispec.MediaTypeImageLayerGzip, testarchive.TarGzFiles(t, map[string]string{fmt.Sprintf("extra%d.md", i): "x"})))
	}
	m := pushManifest(t, r, ocispec.MediaTypeImageManifest, ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: si.artifactType,
		Config:       pushBlobBytes(t, r, ocispec.MediaTypeImageConfig, config),
		Layers:       layers,
		Annotations:  si.annotations,
	}, "")
	p := si.platform
	m.Platform = &p
	return m
}

// pushIndex pushes an index of manifests under tag.
func pushIndex(t *testing.T, r *remote.Repository, artifactType string, annotations map[string]string, tag string, manifests ...ocispec.Descriptor) ocispec.Descriptor {
	t.Helper()
	return pushManifest(t, r, ocispec.MediaTypeImageIndex, ocispec.Index{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageIndex,
		ArtifactType: artifactType,
		Manifests:    manifests,
		Annotations:  annotations,
	}, tag)
}

// reviewAnnotations are the annotations of a skill named review.
func reviewAnnotations() map[string]string {
	return map[string]string{
		ocispec.AnnotationTitle:       "review",
		ocispec.AnnotationDescription: "Reviews a change",
		ocispec.AnnotationVersion:     "1.2.0",
	}
}

// reviewLayer is a reproducible tar+gzip of a skill named review, at the
// root.
func reviewLayer(t *testing.T) []byte {
	return ocireg.Gzip(t, ocireg.Tar(t, map[string]string{"SKILL.md": skillMD("review", "Reviews a change"), "scripts/run.sh": "echo run\n"}))
}

// fetchAndMaterialize fetches ref and materializes it in a cache at
// root, returning the Artifact and the folder.
func fetchAndMaterialize(t *testing.T, ref, root string, opts []Option) (*Artifact, string) {
	t.Helper()
	a, err := Fetch(t.Context(), ref, opts...)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", ref, err)
	}
	dir, err := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root)).Materialize(t.Context(), a.Skill())
	if err != nil {
		t.Fatalf("Materialize(Fetch(%q)) = %v", ref, err)
	}
	return a, dir
}

func TestFetchToolHiveLayout(t *testing.T) {
	srv, host := ocireg.Start(t, true)
	files := map[string]string{
		"SKILL.md":                 "---\nname: code-review\ndescription: Reviews code\nversion: 1.0.0\nmetadata:\n  toolhive.requires: |\n    ghcr.io/org/base-skill:v1\n---\n# Review\n",
		"references/CHECKLIST.md":  "- tests\n",
		"scripts/lint.sh":          "#!/bin/sh\necho lint\n",
		"references/deep/notes.md": "notes\n",
	}
	requires := []string{"ghcr.io/org/base-skill:v1", "registry.example.org:5000/team/helper@sha256:" + strings.Repeat("ab", 32)}
	// The layout facts are ToolHive's; ocireg.PushToolHive says where
	// they come from.
	index := ocireg.PushToolHive(t, host, "org/review-skill", "v1", ocireg.ToolHiveSkill{Name: "code-review", Description: "Reviews code", Version: "1.0.0", Requires: requires, Files: files})
	ref := "oci://" + host + "/org/review-skill:v1@" + index.Digest.String()

	root, opts := testOptions(t)
	a, dir := fetchAndMaterialize(t, ref, root, opts)
	if a.Name != "code-review" || a.Subpath != "" || a.Digest != index.Digest.String() || a.Layer.MediaType != ocispec.MediaTypeImageLayerGzip {
		t.Errorf("Fetch(%q) = name %q, subpath %q, digest %s, layer %s; want code-review, the root, the index's digest, a tar+gzip layer", ref, a.Name, a.Subpath, a.Digest, a.Layer.MediaType)
	}
	if diff := cmp.Diff(requires, a.Requires); diff != "" {
		t.Errorf("Fetch(%q).Requires (-want +got):\n%s", ref, diff)
	}
	if got := a.Annotations["dev.toolhive.skills.version"]; got != "1.0.0" {
		t.Errorf("Fetch(%q).Annotations[dev.toolhive.skills.version] = %q, want 1.0.0", ref, got)
	}
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != content {
			t.Errorf("materialized %s = %q, %v; want %q", name, got, err, content)
		}
	}

	d, err := Describe(t.Context(), "oci://"+host+"/org/review-skill:v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	want := Description{Ref: Reference{Host: host, Repository: "org/review-skill", Tag: "v1", Digest: index.Digest.String()}, Name: "code-review", Description: "Reviews code", Version: "1.0.0", Requires: requires}
	if diff := cmp.Diff(want, *d); diff != "" {
		t.Errorf("Describe(ToolHive's layout) (-want +got):\n%s", diff)
	}

	// Offline: the index, both manifests and the layer come from the
	// cache.
	srv.Close()
	if _, dir2 := fetchAndMaterialize(t, ref, root, opts); dir2 != dir {
		t.Errorf("Fetch offline materialized %s, want %s", dir2, dir)
	}
}

func TestFetchSkillImageIndex(t *testing.T) {
	srv, host := ocireg.Start(t, true)
	log := logRequests(srv)
	r := rawRepo(t, host, "team/review")
	layer := reviewLayer(t)
	for _, tt := range []struct {
		name, artifactType string
		marked, ours       bool
	}{
		{"image manifests without an artifact type", "", false, false},
		{"image manifests marked as Push marks them", "", true, true},
		{"image manifests of this package's artifact type", ArtifactType, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			annotations := reviewAnnotations()
			if tt.marked {
				annotations[AnnotationSkill] = ArtifactType
			}
			amd := skillImage{platform: linuxAMD64, layer: layer, artifactType: tt.artifactType, annotations: annotations}.push(t, r)
			arm := skillImage{platform: linuxARM64, layer: layer, artifactType: tt.artifactType, annotations: annotations}.push(t, r)
			// buildx's attestations: left out, never read.
			att1 := imageWithLayer(t, r, ocispec.MediaTypeImageLayerGzip, []byte("not even an archive"), "")
			att1.Platform = &ocispec.Platform{OS: "unknown", Architecture: "unknown"}
			att2 := att1
			att2.Platform = nil
			att2.Annotations = map[string]string{"vnd.docker.reference.type": "attestation-manifest", "vnd.docker.reference.digest": amd.Digest.String()}
			index := pushIndex(t, r, tt.artifactType, map[string]string{ocispec.AnnotationSource: "https://example.org/review"}, "v1", amd, att1, arm, att2)
			ref := "oci://" + host + "/team/review@" + index.Digest.String()
			log.count("")

			a, dir := fetchAndMaterialize(t, ref, root, opts)
			wantAnnotations := maps.Clone(annotations)
			wantAnnotations[ocispec.AnnotationSource] = "https://example.org/review"
			if a.Name != "review" || a.Subpath != "" || a.Digest != index.Digest.String() || a.Requires != nil {
				t.Errorf("Fetch(%q) = name %q, subpath %q, digest %s, requires %q; want review, the root, the index's, none", ref, a.Name, a.Subpath, a.Digest, a.Requires)
			}
			if diff := cmp.Diff(wantAnnotations, a.Annotations); diff != "" {
				t.Errorf("Fetch(%q).Annotations (-want +got):\n%s", ref, diff)
			}
			if _, err := os.Stat(filepath.Join(dir, "scripts", "run.sh")); err != nil {
				t.Errorf("materialized skill lacks scripts/run.sh: %v", err)
			}
			if n := log.count(att1.Digest.Encoded()); n != 0 {
				t.Errorf("Fetch asked %d times for an attestation, want none", n)
			}

			d, err := Describe(t.Context(), ref, opts...)
			if err != nil {
				t.Fatal(err)
			}
			want := Description{Ref: Reference{Host: host, Repository: "team/review", Digest: index.Digest.String()}, Name: "review", Description: "Reviews a change", Version: "1.2.0", Skill: tt.ours}
			if diff := cmp.Diff(want, *d); diff != "" {
				t.Errorf("Describe(%q) (-want +got):\n%s", ref, diff)
			}
			if n := log.count("/blobs/"); n != 0 {
				t.Errorf("Describe asked for %d blobs, want none: it reads manifests only", n)
			}

			// A second Fetch, with the registry gone, reads only the cache.
			down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				t.Errorf("registry asked for %s with the cache full", r.URL)
				http.Error(w, "down", http.StatusServiceUnavailable)
			}))
			defer down.Close()
			h := srv.Config.Handler
			srv.Config.Handler = down.Config.Handler
			defer func() { srv.Config.Handler = h }()
			if _, dir2 := fetchAndMaterialize(t, ref, root, opts); dir2 != dir {
				t.Errorf("Fetch from the cache materialized %s, want %s", dir2, dir)
			}
			if _, err := Describe(t.Context(), ref, opts...); err != nil {
				t.Errorf("Describe(%q) from the cache = %v", ref, err)
			}
		})
	}
}

func TestFetchIndexLimits(t *testing.T) {
	srv, host := ocireg.Start(t, true)
	log := logRequests(srv)
	r := rawRepo(t, host, "team/many")
	layer := reviewLayer(t)
	platforms := func(n int) []ocispec.Descriptor {
		var out []ocispec.Descriptor
		for i := range n {
			out = append(out, skillImage{platform: ocispec.Platform{OS: "linux", Architecture: fmt.Sprintf("arch%d", i)}, layer: layer, annotations: reviewAnnotations()}.push(t, r))
		}
		return out
	}
	sixteen := pushIndex(t, r, "", nil, "sixteen", platforms(maxPlatforms)...)
	seventeen := pushIndex(t, r, "", nil, "seventeen", platforms(maxPlatforms+1)...)
	log.count("")

	_, opts := testOptions(t)
	if _, err := Fetch(t.Context(), "oci://"+host+"/team/many@"+sixteen.Digest.String(), opts...); err != nil {
		t.Errorf("Fetch of an index of %d platforms = %v, want it read", maxPlatforms, err)
	}
	if n := log.count("/manifests/"); n != maxPlatforms+1 {
		t.Errorf("Fetch of an index of %d platforms asked for %d manifests, want the index and each platform's", maxPlatforms, n)
	}
	ref := "oci://" + host + "/team/many@" + seventeen.Digest.String()
	_, err := Fetch(t.Context(), ref, opts...)
	if !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "lists 17 platform manifests, and at most 16 are read") {
		t.Errorf("Fetch(%q) of 17 platforms = %v, want source.ErrNoSkill naming the limit", ref, err)
	}
	if n := log.count("/manifests/"); n != 1 {
		t.Errorf("Fetch of 17 platforms asked for %d manifests, want the index alone", n)
	}
	if _, err := Describe(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) {
		t.Errorf("Describe(%q) of 17 platforms = %v, want source.ErrNoSkill", ref, err)
	}
}

func TestFetchManifestListedTwice(t *testing.T) {
	srv, host := ocireg.Start(t, true)
	log := logRequests(srv)
	r := rawRepo(t, host, "team/twice")
	amd := skillImage{platform: linuxAMD64, layer: reviewLayer(t), annotations: reviewAnnotations()}.push(t, r)
	arm := amd
	arm.Platform = &linuxARM64
	index := pushIndex(t, r, "", nil, "v1", amd, arm, amd)
	log.count("")
	root, opts := testOptions(t)
	fetchAndMaterialize(t, "oci://"+host+"/team/twice@"+index.Digest.String(), root, opts)
	if n := log.count("/manifests/" + amd.Digest.String()); n != 1 {
		t.Errorf("Fetch of an index listing one manifest three times asked for it %d times, want once", n)
	}
}

func TestFetchIndexRefused(t *testing.T) {
	srv, host := ocireg.Start(t, true)
	log := logRequests(srv)
	r := rawRepo(t, host, "bad/index")
	layer := reviewLayer(t)
	other := ocireg.Gzip(t, ocireg.Tar(t, map[string]string{"SKILL.md": skillMD("review", "Reviews a change, otherwise")}))

	tests := []struct {
		name       string
		push       func() ocispec.Descriptor
		want       []string
		noManifest bool // no platform manifest is asked for
	}{
		{"platforms with different layers", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: layer}.push(t, r)
			arm := skillImage{platform: linuxARM64, layer: other}.push(t, r)
			return pushIndex(t, r, "", nil, "differ", amd, arm)
		}, []string{
			"lists 2 manifests whose layers differ",
			"linux/amd64 (" + skillImage{platform: linuxAMD64, layer: layer}.push(t, r).Digest.String() + ") has the layer " + digest.FromBytes(layer).String(),
			"linux/arm64 (" + skillImage{platform: linuxARM64, layer: other}.push(t, r).Digest.String() + ") the layer " + digest.FromBytes(other).String(),
		}, false},
		{"platforms with layers of one digest and two sizes", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: layer}.push(t, r)
			arm := amd
			arm.Platform = &linuxARM64
			m := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
				Config: pushBlobBytes(t, r, ocispec.MediaTypeImageConfig, []byte(`{"os":"linux","architecture":"arm64","rootfs":{"type":"layers","diff_ids":[]}}`)),
				Layers: []ocispec.Descriptor{{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: digest.FromBytes(layer), Size: int64(len(layer)) + 1}}}
			arm = pushManifest(t, r, ocispec.MediaTypeImageManifest, m, "")
			arm.Platform = &linuxARM64
			return pushIndex(t, r, "", nil, "sizes", amd, arm)
		}, []string{"whose layers differ", fmt.Sprintf("(%d bytes)", len(layer)+1)}, false},
		{"a platform manifest with two layers", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: layer}.push(t, r)
			arm := skillImage{platform: linuxARM64, layer: layer, extraLayers: 1}.push(t, r)
			return pushIndex(t, r, "", nil, "twolayers", amd, arm)
		}, []string{"this one has 2:", "the index's manifest for linux/arm64 ("}, false},
		{"a nested index, by its media type", func() ocispec.Descriptor {
			inner := pushIndex(t, r, "", nil, "", skillImage{platform: linuxAMD64, layer: layer}.push(t, r))
			inner.Platform = &linuxAMD64
			return pushIndex(t, r, "", nil, "nested", inner)
		}, []string{"the index's manifest for linux/amd64 (", "is an index itself"}, true},
		{"attestations alone", func() ocispec.Descriptor {
			att := skillImage{platform: ocispec.Platform{OS: "unknown", Architecture: "unknown"}, layer: layer}.push(t, r)
			return pushIndex(t, r, "", nil, "attestations", att)
		}, []string{"lists no image manifest"}, true},
		{"a layer compressed with zstd, by its media type", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: layer, layerType: "application/vnd.oci.image.layer.v1.tar+zstd"}.push(t, r)
			return pushIndex(t, r, "", nil, "zstdtype", amd)
		}, []string{"compressed with zstd, which is not read", "application/vnd.oci.image.layer.v1.tar+zstd"}, false},
		{"a layer compressed with zstd, by its bytes", func() ocispec.Descriptor {
			zstd := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, bytes.Repeat([]byte{0}, 600)...)
			amd := skillImage{platform: linuxAMD64, layer: zstd}.push(t, r)
			return pushIndex(t, r, "", nil, "zstdbytes", amd)
		}, []string{"the layer is compressed with zstd, which is not read"}, false},
		{"a layer that is no archive", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: bytes.Repeat([]byte("text "), 200)}.push(t, r)
			return pushIndex(t, r, "", nil, "text", amd)
		}, []string{"not a tar+gzip archive, nor a plain tar archive"}, false},
		{"a layer that is a zip", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: zipFiles(t, map[string]string{"SKILL.md": skillMD("review", "Reviews a change")})}.push(t, r)
			return pushIndex(t, r, "", nil, "zip", amd)
		}, []string{"not a tar+gzip archive, nor a plain tar archive"}, false},
		{"requires annotation that is not JSON", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: layer, annotations: map[string]string{RequiresAnnotation: "ghcr.io/org/base:v1"}}.push(t, r)
			return pushIndex(t, r, "", nil, "requires", amd)
		}, []string{"the annotation dev.toolhive.skills.requires is not a JSON array of OCI references"}, false},
		{"requires annotation on the index, huge", func() ocispec.Descriptor {
			amd := skillImage{platform: linuxAMD64, layer: layer}.push(t, r)
			huge, _ := json.Marshal(slices.Repeat([]string{"ghcr.io/org/base:v1"}, 5000))
			return pushIndex(t, r, "", map[string]string{RequiresAnnotation: string(huge)}, "hugerequires", amd)
		}, []string{"dev.toolhive.skills.requires", "at most 65536 are read"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			d := tt.push()
			log.count("")
			ref := "oci://" + host + "/bad/index@" + d.Digest.String()
			_, err := Fetch(t.Context(), ref, opts...)
			if !errors.Is(err, source.ErrNoSkill) || !strings.HasPrefix(err.Error(), ref+": no skill: ") {
				t.Fatalf("Fetch(%q) = %v, want REF: source.ErrNoSkill: ...", ref, err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Fetch(%q) = %v, want it saying %q", ref, err, want)
				}
			}
			if n := log.count("/manifests/"); tt.noManifest && n != 1 {
				t.Errorf("Fetch(%q) asked for %d manifests, want the index alone", ref, n)
			}
			assertNoLayerCached(t, root)
			if strings.Contains(tt.name, "layer") && !strings.Contains(tt.name, "layers") {
				return // Describe downloads no layer and cannot tell
			}
			if _, err := Describe(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) {
				t.Errorf("Describe(%q) = %v, want source.ErrNoSkill", ref, err)
			}
		})
	}
}

// TestFetchNestedIndexServedAsManifest: an index that its parent lists,
// and the registry serves, as an image manifest is read as what it says
// it is, and refused.
func TestFetchNestedIndexServedAsManifest(t *testing.T) {
	inner, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("x"), Size: 1, Platform: &linuxAMD64}}})
	if err != nil {
		t.Fatal(err)
	}
	outer, err := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(inner), Size: int64(len(inner)), Platform: &linuxARM64}}})
	if err != nil {
		t.Fatal(err)
	}
	// The inner index is served as the manifest the outer one lists.
	host := serveDocuments(t, map[digest.Digest]served{
		digest.FromBytes(inner): {inner, ocispec.MediaTypeImageManifest},
		digest.FromBytes(outer): {outer, ocispec.MediaTypeImageIndex},
	})
	_, opts := testOptions(t)
	ref := "oci://" + host + "/bad/nested@" + digest.FromBytes(outer).String()
	entry := "the index's manifest for linux/arm64 (" + digest.FromBytes(inner).String() + ")"
	kind := "it is an index, but it was served or listed as a manifest"
	if _, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), entry) || !strings.Contains(err.Error(), kind) {
		t.Errorf("Fetch(%q) = %v, want source.ErrNoSkill saying %q and %q", ref, err, kind, entry)
	}
}

// TestFetchDockerManifestList reads a skill image in Docker's media
// types: a manifest list over two Docker image manifests, each with a
// Docker image config and one rootfs layer.
func TestFetchDockerManifestList(t *testing.T) {
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "team/docker")
	layer := pushBlobBytes(t, r, "application/vnd.docker.image.rootfs.diff.tar.gzip", reviewLayer(t))
	var manifests []ocispec.Descriptor
	for _, p := range []ocispec.Platform{linuxAMD64, linuxARM64} {
		config, err := json.Marshal(ocispec.Image{Platform: p, RootFS: ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{layer.Digest}}})
		if err != nil {
			t.Fatal(err)
		}
		m := pushManifest(t, r, mediaTypeDockerManifest, ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: mediaTypeDockerManifest,
			Config:    pushBlobBytes(t, r, mediaTypeDockerConfig, config),
			Layers:    []ocispec.Descriptor{layer},
		}, "")
		m.Platform = &p
		manifests = append(manifests, m)
	}
	list := pushManifest(t, r, mediaTypeDockerList, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: mediaTypeDockerList, Manifests: manifests}, "v1")
	root, opts := testOptions(t)
	a, _ := fetchAndMaterialize(t, "oci://"+host+"/team/docker@"+list.Digest.String(), root, opts)
	if a.Name != "docker" || a.Subpath != "" || a.Layer.Digest != layer.Digest {
		t.Errorf("Fetch(a Docker manifest list) = name %q, subpath %q, layer %s; want docker (the repository), the root, %s", a.Name, a.Subpath, a.Layer.Digest, layer.Digest)
	}
}

// zipFiles returns a zip archive of files (path: content).
func zipFiles(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, content); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFetchPlainTarLayer(t *testing.T) {
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "team/tar")
	plain := ocireg.Tar(t, map[string]string{"SKILL.md": skillMD("review", "Reviews a change"), "notes.md": "n\n"})
	amd := skillImage{platform: linuxAMD64, layer: plain, layerType: ocispec.MediaTypeImageLayer, annotations: reviewAnnotations()}.push(t, r)
	index := pushIndex(t, r, "", nil, "v1", amd)
	root, opts := testOptions(t)
	ref := "oci://" + host + "/team/tar@" + index.Digest.String()
	a, dir := fetchAndMaterialize(t, ref, root, opts)
	if got := a.Source().Format; got != skill.FormatTar {
		t.Errorf("Fetch(%q).Source().Format = %q, want tar", ref, got)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "notes.md")); err != nil || string(got) != "n\n" {
		t.Errorf("materialized notes.md = %q, %v", got, err)
	}
	// Through the Remote install uses, too.
	rm, err := ParseReference("oci://" + host + "/team/tar:v1")
	if err != nil {
		t.Fatal(err)
	}
	arch, err := NewRemote(rm, opts...).Open(t.Context(), index.Digest.String(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	arch.Close()
	if arch.Format != skill.FormatTar {
		t.Errorf("Remote.Open(%q).Format = %q, want tar", ref, arch.Format)
	}

	// A tar that GNU tar wrote (its own magic, "ustar  ").
	t.Run("GNU tar", func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"SKILL.md": skillMD("review", "Reviews a change"), "run.sh*": "echo\n"})
		amd := skillImage{platform: linuxAMD64, layer: testarchive.Made(t, "tar", dir, "SKILL.md", "run.sh"), layerType: ocispec.MediaTypeImageLayer}.push(t, r)
		root, opts := testOptions(t)
		a, dir2 := fetchAndMaterialize(t, "oci://"+host+"/team/tar@"+pushIndex(t, r, "", nil, "", amd).Digest.String(), root, opts)
		if info, err := os.Stat(filepath.Join(dir2, "run.sh")); a.Source().Format != skill.FormatTar || err != nil || info.Mode()&0o100 == 0 {
			t.Errorf("GNU tar layer: format %q, run.sh %v, %v; want tar, executable", a.Source().Format, info, err)
		}
	})

	// This package's artifact format is tar+gzip only.
	empty := pushBlobBytes(t, r, ocispec.MediaTypeEmptyJSON, []byte("{}"))
	art := pushManifest(t, r, ocispec.MediaTypeImageManifest, ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType,
		Config: empty, Layers: []ocispec.Descriptor{pushBlobBytes(t, r, LayerMediaType, plain)},
	}, "artifact")
	ref = "oci://" + host + "/team/tar@" + art.Digest.String()
	if _, err := Fetch(t.Context(), ref, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "the layer is not a tar+gzip archive") {
		t.Errorf("Fetch(%q) of an artifact whose layer is a plain tar = %v, want source.ErrNoSkill", ref, err)
	}
}

func TestFetchImageOfThisPackagesTypeHoldsSkillAtRoot(t *testing.T) {
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "team/deep")
	deep := ocireg.Gzip(t, ocireg.Tar(t, map[string]string{"review/SKILL.md": skillMD("review", "Reviews a change")}))
	for _, tt := range []struct {
		artifactType string
		marked       bool
		wantErr      bool
	}{
		{ArtifactType, false, true},
		{"", true, true},
		{"", false, false},
		{toolhiveArtifactType, false, false},
	} {
		var annotations map[string]string
		if tt.marked {
			annotations = map[string]string{AnnotationSkill: ArtifactType}
		}
		amd := skillImage{platform: linuxAMD64, layer: deep, artifactType: tt.artifactType, annotations: annotations}.push(t, r)
		ref := "oci://" + host + "/team/deep@" + pushIndex(t, r, "", nil, "", amd).Digest.String()
		_, opts := testOptions(t)
		a, err := Fetch(t.Context(), ref, opts...)
		switch {
		case tt.wantErr && (!errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "no SKILL.md at its root")):
			t.Errorf("Fetch(%q) of artifact type %q (marked: %v), the skill in a folder = %v, want source.ErrNoSkill", ref, tt.artifactType, tt.marked, err)
		case !tt.wantErr && (err != nil || a.Subpath != "review"):
			t.Errorf("Fetch(%q) of artifact type %q, the skill in a folder = %+v, %v; want the subpath review", ref, tt.artifactType, a, err)
		}
	}
}

func TestFetchRequiresOverlay(t *testing.T) {
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "team/req")
	layer := reviewLayer(t)
	for _, tt := range []struct {
		name            string
		index, manifest string // the annotation's value; "" for none
		want            []string
	}{
		{"on the index only", `["ghcr.io/a/b:v1"]`, "", []string{"ghcr.io/a/b:v1"}},
		{"on the manifest only", "", `["ghcr.io/a/c:v2"]`, []string{"ghcr.io/a/c:v2"}},
		{"the manifest's over the index's", `["ghcr.io/a/b:v1"]`, `["ghcr.io/a/c:v2"]`, []string{"ghcr.io/a/c:v2"}},
		{"an empty list", "", `[]`, nil},
		{"the first platform's, not the second's", "", `["ghcr.io/a/c:v2"]`, []string{"ghcr.io/a/c:v2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			annotations := func(v string) map[string]string {
				if v == "" {
					return nil
				}
				return map[string]string{RequiresAnnotation: v}
			}
			amd := skillImage{platform: linuxAMD64, layer: layer, annotations: annotations(tt.manifest)}.push(t, r)
			second := map[string]string{RequiresAnnotation: `["ghcr.io/a/second:v1"]`}
			if !strings.HasPrefix(tt.name, "the first") {
				second = nil
			}
			arm := skillImage{platform: linuxARM64, layer: layer, annotations: second}.push(t, r)
			index := pushIndex(t, r, "", annotations(tt.index), "", amd, arm)
			_, opts := testOptions(t)
			ref := "oci://" + host + "/team/req@" + index.Digest.String()
			a, err := Fetch(t.Context(), ref, opts...)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Describe(t.Context(), ref, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Requires, tt.want) || !slices.Equal(d.Requires, tt.want) {
				t.Errorf("Fetch(%q).Requires = %q, Describe = %q; want %q", ref, a.Requires, d.Requires, tt.want)
			}
		})
	}
}

func TestParseRequires(t *testing.T) {
	dgst := "sha256:" + strings.Repeat("0", 64)
	many := func(n int) string {
		data, _ := json.Marshal(slices.Repeat([]string{"ghcr.io/org/x:v1"}, n))
		return string(data)
	}
	tests := []struct {
		name, value string
		want        []string
		wantErr     string
	}{
		{"tag", `["ghcr.io/org/base-skill:v1"]`, []string{"ghcr.io/org/base-skill:v1"}, ""},
		{"digest, tag and digest, port", `["ghcr.io/org/a@` + dgst + `","ghcr.io/org/b:v2@` + dgst + `","localhost:5000/c/d:1"]`, []string{"ghcr.io/org/a@" + dgst, "ghcr.io/org/b:v2@" + dgst, "localhost:5000/c/d:1"}, ""},
		{"empty array", `[]`, nil, ""},
		{"at the count limit", many(maxRequires), slices.Repeat([]string{"ghcr.io/org/x:v1"}, maxRequires), ""},
		{"over the count limit", many(maxRequires + 1), nil, "it lists 65, and at most 64 are read"},
		{"over the size limit", `["` + strings.Repeat("a", maxRequiresBytes) + `"]`, nil, "at most 65536 are read"},
		{"empty", ``, nil, `: ""`},
		{"not JSON", `ghcr.io/org/base:v1`, nil, `"ghcr.io/org/base:v1"`},
		{"null", `null`, nil, `"null"`},
		{"an object", `{"a":"ghcr.io/org/base:v1"}`, nil, "not a JSON array"},
		{"a string", `"ghcr.io/org/base:v1"`, nil, "not a JSON array"},
		{"trailing data", `["ghcr.io/org/base:v1"] []`, nil, "not a JSON array"},
		{"a number", `["ghcr.io/org/base:v1", 3]`, nil, "entry 2, 3, is not a string"},
		{"a null entry", `[null]`, nil, "entry 1, null, is not a string"},
		{"an empty entry", `[""]`, nil, `entry 1, "", is not one`},
		{"no tag or digest", `["ghcr.io/org/base"]`, nil, `entry 1, "ghcr.io/org/base", is not one`},
		{"no host", `["base:v1"]`, nil, "entry 1"},
		{"a first element that is no host", `["org/x:v1"]`, nil, `entry 1, "org/x:v1", names no registry: its first element, "org", is no host name`},
		{"a first element that is no host, says what to write", `["ghcr.io/org/x:v1","org/x:v1"]`, nil, "write the registry in full, as docker.io/org/x:v1"},
		{"a host with a dot", `["registry.example/x:v1"]`, []string{"registry.example/x:v1"}, ""},
		{"localhost", `["localhost/x:v1"]`, []string{"localhost/x:v1"}, ""},
		{"a host with a port", `["reg:5000/x@` + dgst + `"]`, []string{"reg:5000/x@" + dgst}, ""},
		{"an address", `["127.0.0.1/x:v1","[::1]:5000/y:v1"]`, []string{"127.0.0.1/x:v1", "[::1]:5000/y:v1"}, ""},
		{"spaces around", `[" ghcr.io/org/x:v1"]`, nil, "entry 1"},
		{"a fragment", `["ghcr.io/org/x:v1#frag"]`, nil, "entry 1"},
		{"credentials", `["user:pass@ghcr.io/org/x:v1"]`, nil, "entry 1"},
		{"a trailing space", `["ghcr.io/org/x:v1 "]`, nil, "entry 1"},
		{"a newline", `["ghcr.io/org/x:v1\n"]`, nil, "entry 1"},
		{"a query", `["ghcr.io/org/x:v1?q=1"]`, nil, "entry 1"},
		{"a port out of range", `["ghcr.io:99999/x:v1"]`, nil, "entry 1"},
		{"an empty path element", `["ghcr.io//x:v1"]`, nil, "entry 1"},
		{"a parent element", `["ghcr.io/../x:v1"]`, nil, "entry 1"},
		{"a NUL", `["\u0000ghcr.io/x:v1"]`, nil, "entry 1"},
		{"invalid UTF-8", "[\"ghcr.io/x:v1\xff\"]", nil, "entry 1"},
		{"a tag after the path", `["ghcr.io/org/x:v1/sub"]`, nil, "entry 1"},
		{"listed twice, kept as written", `["ghcr.io/org/x:v1","ghcr.io/org/x:v1"]`, []string{"ghcr.io/org/x:v1", "ghcr.io/org/x:v1"}, ""},
		{"a scheme", `["oci://ghcr.io/org/base:v1"]`, nil, "entry 1"},
		{"a docker scheme", `["docker://ghcr.io/org/base:v1"]`, nil, "entry 1"},
		{"a version range", `["ghcr.io/org/base:^1.2"]`, nil, "entry 1"},
		{"uppercase repository", `["ghcr.io/Org/base:v1"]`, nil, "entry 1"},
		{"a bad digest", `["ghcr.io/org/base@sha256:12"]`, nil, "entry 1"},
		{"a long entry is clipped", `["` + strings.Repeat("x", 500) + `"]`, nil, strings.Repeat("x", 80) + `..."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRequires(map[string]string{RequiresAnnotation: tt.value})
			if tt.wantErr != "" {
				if !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("parseRequires(%.40q) = %q, %v; want source.ErrNoSkill saying %q", tt.value, got, err, tt.wantErr)
				}
				if err != nil && len(err.Error()) > 400 {
					t.Errorf("parseRequires(%.40q) wrote a message of %d bytes, want it short", tt.value, len(err.Error()))
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("parseRequires(%.40q) = %q, %v; want %q", tt.value, got, err, tt.want)
			}
		})
	}
	if got, err := parseRequires(map[string]string{"other": "x"}); got != nil || err != nil {
		t.Errorf("parseRequires(no annotation) = %q, %v; want nil, nil", got, err)
	}
}

func FuzzParseRequires(f *testing.F) {
	for _, seed := range []string{
		`["ghcr.io/org/base-skill:v1"]`, `[]`, `null`, `[null]`, `[""]`, `["ghcr.io/org/base:^1.2"]`,
		`["oci://ghcr.io/org/base:v1"]`, `["ghcr.io/org/a@sha256:` + strings.Repeat("0", 64) + `"]`, `{"a":1}`, `["a", 3]`, `["org/x:v1"]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		refs, err := parseRequires(map[string]string{RequiresAnnotation: value})
		if err != nil {
			if !errors.Is(err, source.ErrNoSkill) {
				t.Fatalf("parseRequires(%q) = %v, want source.ErrNoSkill", value, err)
			}
			return
		}
		if len(refs) > maxRequires || len(value) > maxRequiresBytes {
			t.Fatalf("parseRequires(%q) accepted %d references from %d bytes", value, len(refs), len(value))
		}
		for _, ref := range refs {
			if r, err := ParseReference(Scheme + ref); err != nil || r.Range != "" || strings.Contains(ref, "://") || !registryHost(r.Host) {
				t.Fatalf("parseRequires(%q) accepted %q, which is no reference", value, ref)
			}
		}
	})
}

// BenchmarkFetchFromCache measures a Fetch that the cache answers: a
// single manifest, and an index over two platform manifests sharing its
// layer (one more manifest read and compared per platform).
func BenchmarkFetchFromCache(b *testing.B) {
	_, host := ocireg.Start(b, true)
	files := map[string]string{"SKILL.md": skillMD("review", "Reviews a change"), "reference.md": strings.Repeat("details\n", 4096)}
	index := ocireg.PushToolHive(b, host, "team/review", "v1", ocireg.ToolHiveSkill{Name: "review", Description: "Reviews a change", Files: files})
	r, err := remote.NewRepository(host + "/team/review")
	if err != nil {
		b.Fatal(err)
	}
	r.PlainHTTP = true
	rc, err := r.Manifests().Fetch(b.Context(), index)
	if err != nil {
		b.Fatal(err)
	}
	var idx ocispec.Index
	err = json.NewDecoder(rc).Decode(&idx)
	rc.Close()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		d    digest.Digest
	}{{"manifest", idx.Manifests[0].Digest}, {"index", index.Digest}} {
		b.Run(bc.name, func(b *testing.B) {
			root := b.TempDir()
			opts := []Option{cacheAt(root)}
			ref := "oci://" + host + "/team/review@" + bc.d.String()
			if _, err := Fetch(b.Context(), ref, opts...); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Fetch(b.Context(), ref, opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
