package oci

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
)

// overlay is a loopback registry that serves some paths from a table
// instead, so a test can serve what a real registry would refuse to
// store.
type overlay struct {
	host string
	mu   sync.Mutex
	docs map[string]overlayDoc
}

type overlayDoc struct {
	mediaType string
	body      []byte
}

func newOverlay(t *testing.T) *overlay {
	t.Helper()
	o := &overlay{docs: make(map[string]overlayDoc)}
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		doc, ok := o.docs[r.URL.Path]
		o.mu.Unlock()
		if os.Getenv("OVERLAYLOG") != "" {
			println(r.Method, r.URL.Path, ok)
		}
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			reg.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", doc.mediaType)
		w.Header().Set("Content-Length", strconv.Itoa(len(doc.body)))
		if r.Method == http.MethodGet {
			w.Write(doc.body)
		}
	}))
	t.Cleanup(srv.Close)
	o.host = strings.TrimPrefix(srv.URL, "http://")
	return o
}

func (o *overlay) serve(path, mediaType string, body []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs[path] = overlayDoc{mediaType, body}
}

// manifest serves m in repo under its digest, which it returns.
func (o *overlay) manifest(repo, mediaType string, m any) digest.Digest {
	data, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	d := digest.FromBytes(data)
	o.serve("/v2/"+repo+"/manifests/"+d.String(), mediaType, data)
	return d
}

// hostileDigests are digests a registry may name that this package does
// not hash with: unknown or unavailable algorithms, and malformed ones.
var hostileDigests = map[string]digest.Digest{
	"md5":        "md5:d41d8cd98f00b204e9800998ecf8427e",
	"blake3":     "blake3:af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
	"sha384":     "sha384:38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
	"malformed":  "sha256:XYZ",
	"no colon":   "d41d8cd98f00b204e9800998ecf8427e",
	"path shape": "sha256:../../../etc/passwd",
}

// TestHostileDigestsInManifests: rule 7 of What Fetch reads: a digest a registry names
// (an index's child, a layer) with an algorithm other than sha256 or
// sha512, or malformed, is refused with source.ErrNoSkill, not a crash.
func TestHostileDigestsInManifests(t *testing.T) {
	ctx := t.Context()
	o := newOverlay(t)
	r := rawRepo(t, o.host, "evil/x")
	goodLayer := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("x", "X")})
	empty := pushBlobBytes(t, r, ocispec.MediaTypeEmptyJSON, []byte("{}"))
	good := pushBlobBytes(t, r, LayerMediaType, goodLayer)
	for name, d := range hostileDigests {
		cases := map[string]func() digest.Digest{
			"index child": func() digest.Digest {
				body := []byte(`{"schemaVersion":2}`)
				o.serve("/v2/evil/x/manifests/"+d.String(), ocispec.MediaTypeImageManifest, body)
				child := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d, Size: int64(len(body))}
				return o.manifest("evil/x", ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{child}})
			},
			"layer": func() digest.Digest {
				l := good
				l.Digest = d
				o.serve("/v2/evil/x/blobs/"+d.String(), LayerMediaType, goodLayer)
				return o.manifest("evil/x", ocispec.MediaTypeImageManifest, ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType, Config: empty, Layers: []ocispec.Descriptor{l}})
			},
		}
		for where, push := range cases {
			t.Run(name+" "+where, func(t *testing.T) {
				_, opts := testOptions(t)
				ref := "oci://" + o.host + "/evil/x@" + push().String()
				_, err := Fetch(ctx, ref, opts...)
				if !errors.Is(err, source.ErrNoSkill) || !strings.Contains(err.Error(), "only sha256 and sha512 digests are accepted") {
					t.Fatalf("Fetch(%q) with a %s digest %q = %v, want source.ErrNoSkill naming the digest", ref, where, d, err)
				}
			})
		}
	}
}

// TestHostileDigestsInReferrers: rule 7 of What Fetch reads: a signature whose bundle layer
// names a digest this package does not hash with is not read; Verify
// reports it as invalid and does not crash.
func TestHostileDigestsInReferrers(t *testing.T) {
	ctx := t.Context()
	o := newOverlay(t)
	host := o.host
	_, opts := testOptions(t)
	ref := pushSkill(t, host, "team/review", "v1", "review", opts)
	r := rawRepo(t, host, "team/review")
	pinned, _ := ParseReference(ref)
	subject, err := r.Resolve(ctx, pinned.Digest)
	if err != nil {
		t.Fatal(err)
	}
	pushBlobBytes(t, r, ocispec.MediaTypeEmptyJSON, ocispec.DescriptorEmptyJSON.Data)
	for name, d := range hostileDigests {
		t.Run(name, func(t *testing.T) {
			bundle := []byte(`{"mediaType":"` + signature.BundleMediaType + `","name":"` + name + `"}`)
			data, _, err := referrerManifest(bundle, subject, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var m ocispec.Manifest
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			m.Layers[0].Digest = d
			o.serve("/v2/team/review/blobs/"+d.String(), signature.BundleMediaType, bundle)
			data, _ = json.Marshal(m)
			desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: m.ArtifactType, Digest: digest.FromBytes(data), Size: int64(len(data)), Annotations: m.Annotations}
			o.serve("/v2/team/review/manifests/"+desc.Digest.String(), ocispec.MediaTypeImageManifest, data)
			idx, _ := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{desc}})
			o.serve("/v2/team/review/referrers/"+subject.Digest.String(), ocispec.MediaTypeImageIndex, idx)
			_, err = verifyRef(ctx, ref, []signature.Requirement{keyRequirement(t, ecdsaKey(t))}, opts...)
			if err == nil || !strings.Contains(err.Error(), "only sha256 and sha512 digests are accepted") {
				t.Fatalf("verifyRef(%q) with a bundle layer of digest %q = %v, want an error naming the digest", ref, d, err)
			}
		})
	}
}
