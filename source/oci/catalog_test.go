package oci

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/google/go-cmp/cmp"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/source"
)

func TestRepositoriesAndTags(t *testing.T) {
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	dir := newSkill(t, "review")
	for i := range 3 {
		for _, tag := range []string{"1.0", "2.0"} {
			if _, err := Push(t.Context(), dir, fmt.Sprintf("oci://%s/acme/r%d:%s", host, i, tag), opts...); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The stand-in registry lists its catalog in a map's order: the test
	// checks how many distinct repositories of the three come back.
	all := []string{"acme/r0", "acme/r1", "acme/r2"}
	for _, tc := range []struct{ limit, want int }{{10, 3}, {2, 2}, {0, 0}, {-1, 0}} {
		got, err := Repositories(t.Context(), host, tc.limit, opts...)
		distinct := slices.Compact(slices.Sorted(slices.Values(got)))
		if err != nil || len(got) != tc.want || len(distinct) != tc.want || slices.ContainsFunc(got, func(r string) bool { return !slices.Contains(all, r) }) {
			t.Errorf("Repositories(limit %d) = %q, %v; want %d of %q", tc.limit, got, err, tc.want, all)
		}
	}
	if got, err := Tags(t.Context(), host, "acme/r1", 10, opts...); err != nil || !slices.Equal(got, []string{"1.0", "2.0"}) {
		t.Errorf("Tags = %q, %v; want 1.0 2.0", got, err)
	}
	if got, err := Tags(t.Context(), host, "acme/r1", 1, opts...); err != nil || !slices.Equal(got, []string{"1.0"}) {
		t.Errorf("Tags(limit 1) = %q, %v; want 1.0", got, err)
	}
	if _, err := Tags(t.Context(), host, "acme/none", 10, opts...); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Tags(no such repository) = %v, want %v", err, source.ErrNotFound)
	}
	for _, bad := range [][2]string{{"", "acme/r1"}, {"host:port", "acme/r1"}, {host, "Acme"}, {host, "../x"}} {
		if _, err := Tags(t.Context(), bad[0], bad[1], 10, opts...); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Tags(%q, %q) = %v, want %v", bad[0], bad[1], err, source.ErrInvalid)
		}
	}
	if _, err := Repositories(t.Context(), "host:port", 10, opts...); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Repositories(host:port) = %v, want %v", err, source.ErrInvalid)
	}
}

func TestDescribe(t *testing.T) {
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	dgst, err := Push(t.Context(), newSkill(t, "review"), "oci://"+host+"/acme/review:1.0", append(opts, WithFormat(FormatArtifact), WithVersion("1.0.0"))...)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Push(t.Context(), newSkill(t, "review"), "oci://"+host+"/acme/review-image:1.0", append(opts, WithVersion("1.0.0"))...)
	if err != nil {
		t.Fatal(err)
	}
	// An index over the skill's manifest, and an image of another tool.
	r := rawRepo(t, host, "acme/review")
	m, err := r.Resolve(t.Context(), "1.0")
	if err != nil {
		t.Fatal(err)
	}
	pushManifest(t, r, ocispec.MediaTypeImageIndex, ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{m}, Annotations: map[string]string{ocispec.AnnotationDescription: "the index's"}}, "indexed")
	imageWithLayer(t, rawRepo(t, host, "acme/image"), ocispec.MediaTypeImageLayerGzip, []byte("x"), "latest")

	for _, tc := range []struct {
		ref  string
		want Description
	}{
		{"oci://" + host + "/acme/review:1.0", Description{Name: "review", Description: "Reviews a change", Version: "1.0.0", Skill: true}},
		{"oci://" + host + "/acme/review@" + dgst, Description{Name: "review", Description: "Reviews a change", Version: "1.0.0", Skill: true}},
		{"oci://" + host + "/acme/review:indexed", Description{Name: "review", Description: "Reviews a change", Version: "1.0.0", Skill: true}},
		{"oci://" + host + "/acme/review-image:1.0", Description{Name: "review", Description: "Reviews a change", Version: "1.0.0", Skill: true}},
		{"oci://" + host + "/acme/review-image@" + img, Description{Name: "review", Description: "Reviews a change", Version: "1.0.0", Skill: true}},
		{"oci://" + host + "/acme/image:latest", Description{Name: "image"}},
	} {
		d, err := Describe(t.Context(), tc.ref, opts...)
		if err != nil {
			t.Errorf("Describe(%s) = %v", tc.ref, err)
			continue
		}
		d.Ref = Reference{}
		if diff := cmp.Diff(tc.want, *d); diff != "" {
			t.Errorf("Describe(%s) (-want +got):\n%s", tc.ref, diff)
		}
	}
	if _, err := Describe(t.Context(), "oci://"+host+"/acme/review:none", opts...); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Describe(no such tag) = %v, want %v", err, source.ErrNotFound)
	}
	if _, err := Describe(t.Context(), "oci://"+host+"/acme/review", opts...); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Describe(no tag) = %v, want %v", err, source.ErrInvalid)
	}
}

// TestListingsEndlessEmptyPages lists the repositories and tags of a
// hostile registry whose every page is empty and links to another: the
// listing stops at the second empty page, saying so, instead of asking
// for pages until its context ends.
func TestListingsEndlessEmptyPages(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v2/":
			w.Write([]byte("{}"))
			return
		case "/v2/_catalog", "/v2/acme/r/tags/list":
		default:
			http.NotFound(w, r)
			return
		}
		n := requests.Add(1)
		if n > 1000 { // the test's own bound
			http.Error(w, "the client asked for 1000 empty pages", http.StatusTeapot)
			return
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s?n=100&last=p%d>; rel="next"`, r.URL.Path, n))
		w.Write([]byte(`{"repositories":[],"name":"acme/r","tags":[]}`))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	_, opts := testOptions(t)
	if _, err := Repositories(t.Context(), host, 10, opts...); !errors.Is(err, source.ErrNotServer) || !strings.Contains(err.Error(), "empty page") {
		t.Errorf("Repositories of endless empty pages = %v, want %v saying so", err, source.ErrNotServer)
	}
	requests.Store(0)
	if _, err := Tags(t.Context(), host, "acme/r", 10, opts...); !errors.Is(err, source.ErrNotServer) || !strings.Contains(err.Error(), "empty page") {
		t.Errorf("Tags of endless empty pages = %v, want %v saying so", err, source.ErrNotServer)
	}
}
