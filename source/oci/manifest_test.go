package oci

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/source"
)

func TestParseManifestKinds(t *testing.T) {
	tests := []struct {
		name, data, served string
		want               manifestKind
		wantErr            bool
	}{
		{"oci manifest", `{"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{},"layers":[]}`, "", kindManifest, false},
		{"docker manifest", `{"mediaType":"application/vnd.docker.distribution.manifest.v2+json"}`, "", kindManifest, false},
		{"oci index", `{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`, "", kindIndex, false},
		{"docker list", `{"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json"}`, "", kindIndex, false},
		{"served as an index", `{"manifests":[]}`, ocispec.MediaTypeImageIndex, kindIndex, false},
		{"no media type, manifests", `{"manifests":[]}`, "", kindIndex, false},
		{"no media type, config", `{"config":{"mediaType":"x"}}`, "", kindManifest, false},
		{"no media type, nothing", `{}`, "", 0, true},
		{"another media type", `{"mediaType":"application/vnd.docker.distribution.manifest.v1+json"}`, "", 0, true},
		{"not JSON", `<html>`, "", 0, true},
		{"no media type, manifests and layers", `{"manifests":[],"layers":[]}`, "", 0, true},
		{"no media type, manifests and config", `{"manifests":[],"config":{}}`, ocispec.MediaTypeImageIndex, 0, true},
		{"an index's media type, manifests and config", `{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[],"config":{}}`, "", 0, true},
		{"a manifest's media type, manifests and layers", `{"mediaType":"application/vnd.oci.image.manifest.v1+json","manifests":[],"layers":[]}`, "", 0, true},
		{"an index's media type, layers", `{"mediaType":"application/vnd.oci.image.index.v1+json","layers":[]}`, "", 0, true},
		{"a manifest's media type, manifests", `{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","manifests":[]}`, "", 0, true},
		{"a null manifests field is none", `{"manifests":null,"config":{"mediaType":"x"}}`, "", kindManifest, false},
		{"field names match in any case", `{"Manifests":[],"LAYERS":[]}`, "", 0, true},
		{"an index served as a manifest", `{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`, ocispec.MediaTypeImageManifest, 0, true},
		{"no media type, config, served as an index", `{"config":{}}`, mediaTypeDockerList, 0, true},
		{"no media type, manifests, served as a manifest", `{"manifests":[]}`, mediaTypeDockerManifest, 0, true},
		{"served as something else", `{"config":{}}`, "application/json", kindManifest, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, kind, err := parseManifest([]byte(tt.data), tt.served)
			if tt.wantErr {
				if !errors.Is(err, source.ErrNoSkill) {
					t.Errorf("parseManifest(%q) = %v, want source.ErrNoSkill", tt.data, err)
				}
				return
			}
			if err != nil || kind != tt.want {
				t.Errorf("parseManifest(%q) = %v, %v; want %v", tt.data, kind, err, tt.want)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.agentskills.skill.v1","config":{"mediaType":"application/vnd.oci.empty.v1+json"},"layers":[{"mediaType":"application/vnd.agentskills.skill.content.v1.tar+gzip","size":3,"digest":"sha256:00"}]}`))
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"annotations":{"vnd.docker.reference.type":"attestation-manifest"}},{}]}`))
	f.Add([]byte(`{"config":null,"layers":null,"manifests":[null]}`))
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"platform":{"os":"unknown","architecture":"unknown"}},{"platform":{"os":"linux","architecture":"amd64"}}]}`))
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"dev.toolhive.skills.v1","config":{"mediaType":"application/vnd.oci.image.config.v1+json"},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+zstd"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, kind, err := parseManifest(data, "")
		if err != nil {
			return
		}
		if kind == kindIndex {
			platformManifests(m)
		} else {
			pickLayer(m)
		}
	})
}

// serveManifests answers /v2/ and GETs of the manifests given, by digest,
// as a registry would.
func serveManifests(t *testing.T, manifests map[digest.Digest][]byte, mediaType string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		d := digest.Digest(path.Base(r.URL.Path))
		data, ok := manifests[d]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", mediaType)
		w.Header().Set("Docker-Content-Digest", d.String())
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// served is a manifest, index or blob a test registry serves, and the
// media type it serves it as.
type served struct {
	data      []byte
	mediaType string
}

// serveDocuments answers /v2/ and GETs and HEADs of the documents given,
// by digest, each as its own media type.
func serveDocuments(t *testing.T, docs map[digest.Digest]served) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		d := digest.Digest(path.Base(r.URL.Path))
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
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// add adds v (bytes, or a value written as JSON) to docs as mediaType
// and returns its descriptor.
func add(t *testing.T, docs map[digest.Digest]served, mediaType string, v any) ocispec.Descriptor {
	t.Helper()
	data, ok := v.([]byte)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	d := digest.FromBytes(data)
	docs[d] = served{data, mediaType}
	return ocispec.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(data))}
}

func TestManifestSizeLimit(t *testing.T) {
	ctx := t.Context()
	huge := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("huge"), Size: maxManifestSize + 1}
	index, err := json.Marshal(ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{huge},
	})
	if err != nil {
		t.Fatal(err)
	}
	big := []byte(`{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[],"x":"` + strings.Repeat("x", maxManifestSize) + `"}`)
	host := serveManifests(t, map[digest.Digest][]byte{
		digest.FromBytes(index): index,
		digest.FromBytes(big):   big,
	}, ocispec.MediaTypeImageIndex)
	for _, tt := range []struct {
		name string
		d    digest.Digest
	}{
		{"an index that lists a manifest over the limit", digest.FromBytes(index)},
		{"an index over the limit", digest.FromBytes(big)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, opts := testOptions(t)
			ref := "oci://" + host + "/big/index@" + tt.d.String()
			if _, err := Fetch(ctx, ref, opts...); !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "the limit is") {
				t.Errorf("Fetch(%q) = %v, want source.ErrNoSkill over the manifest limit", ref, err)
			}
			if tt.d == digest.FromBytes(big) {
				if blobs := cachedBlobs(t, root); len(blobs) != 0 {
					t.Errorf("cache holds %v after a refused manifest", blobs)
				}
			}
		})
	}
}

func TestSweepRemovesOldDownloads(t *testing.T) {
	root, _ := testOptions(t)
	b, err := openBlobs(root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	oldF, oldName, err := b.create()
	if err != nil {
		t.Fatal(err)
	}
	oldF.Close()
	past := time.Now().Add(-staleAfter - time.Hour)
	if err := os.Chtimes(b.tmpPath(oldName), past, past); err != nil {
		t.Fatal(err)
	}
	newF, newName, err := b.create()
	if err != nil {
		t.Fatal(err)
	}
	newF.Close()
	if _, err := os.Stat(b.tmpPath(oldName)); !os.IsNotExist(err) {
		t.Errorf("download left %v ago = %v, want it removed", staleAfter+time.Hour, err)
	}
	if _, err := os.Stat(b.tmpPath(newName)); err != nil {
		t.Errorf("download in progress = %v, want it kept", err)
	}
	if got := path.Dir(oldName); got != "tmp" {
		t.Errorf("download name %q, want one in tmp", oldName)
	}
	info, err := os.Stat(filepath.Join(root, cacheDir))
	if err != nil || info.Mode().Perm()&0o077 != 0 {
		t.Errorf("cache folder = %v, %v; want it private", info, err)
	}
}

func TestArtifactName(t *testing.T) {
	ctx := t.Context()
	_, host := ocireg.Start(t, true)
	r := rawRepo(t, host, "team/kit")
	atRoot := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("x", "X")})
	nested := testarchive.TarGzFiles(t, map[string]string{"tools/lint/SKILL.md": skillMD("lint", "Lints")})
	empty := pushBlobBytes(t, r, ocispec.MediaTypeEmptyJSON, []byte("{}"))
	withTitle := func(title string, layer []byte) ocispec.Descriptor {
		l := pushBlobBytes(t, r, LayerMediaType, layer)
		m := ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			Config: empty, Layers: []ocispec.Descriptor{l},
		}
		if title != "" {
			m.Annotations = map[string]string{ocispec.AnnotationTitle: title}
		}
		return pushManifest(t, r, ocispec.MediaTypeImageManifest, m, "t")
	}
	tests := []struct {
		name string
		desc ocispec.Descriptor
		want string
	}{
		{"a title that is a skill name", withTitle("greet-people", atRoot), "greet-people"},
		{"a title that is no skill name", withTitle("Greet People", atRoot), "kit"},
		{"a title over 64 characters", withTitle(strings.Repeat("a", 65), atRoot), "kit"},
		{"a title with a double hyphen", withTitle("a--b", atRoot), "kit"},
		{"no title, the skill in a folder", withTitle("", nested), "lint"},
		{"no title, the skill at the root", withTitle("", atRoot), "kit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, opts := testOptions(t)
			a, err := Fetch(ctx, "oci://"+host+"/team/kit@"+tt.desc.Digest.String(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			if a.Name != tt.want || a.Skill().Key != tt.want {
				t.Errorf("Fetch().Name = %q, Skill().Key = %q; want %q", a.Name, a.Skill().Key, tt.want)
			}
		})
	}
}

func TestOpenOfAnArtifactNotFetched(t *testing.T) {
	if _, err := new(Artifact).Open(t.Context()); err == nil || !strings.Contains(err.Error(), "Fetch") {
		t.Errorf("Open of a zero Artifact = %v, want an error naming Fetch", err)
	}
}

func TestManifestThatDoesNotMatchItsDigest(t *testing.T) {
	real := []byte(`{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`)
	forged := []byte(`{"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{}]}`)
	d := digest.FromBytes(real)
	host := serveManifests(t, map[digest.Digest][]byte{d: forged}, ocispec.MediaTypeImageIndex)
	root, opts := testOptions(t)
	ref := "oci://" + host + "/forged/index@" + d.String()
	if _, err := Fetch(t.Context(), ref, opts...); err == nil {
		t.Fatalf("Fetch(%q) of a forged manifest succeeded", ref)
	}
	if blobs := cachedBlobs(t, root); len(blobs) != 0 {
		t.Errorf("cache holds %v after a forged manifest", blobs)
	}
}
