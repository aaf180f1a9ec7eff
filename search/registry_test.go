package search_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	orasremote "oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/search"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// ociOptions gives a test its own cache and no credentials.
func ociOptions(t *testing.T) []oci.Option {
	t.Helper()
	return []oci.Option{
		oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))),
		oci.WithCredentials(credentials.NewMemoryStore()),
	}
}

// newRegistry starts a registry on loopback and returns its host and a
// function that puts wrap in front of it from then on.
func newRegistry(t *testing.T) (string, func(wrap func(http.Handler) http.Handler)) {
	t.Helper()
	base := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	var front atomic.Pointer[http.Handler]
	front.Store(&base)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*front.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), func(wrap func(http.Handler) http.Handler) {
		h := wrap(base)
		front.Store(&h)
	}
}

// push publishes a skill named name with description to ref, as
// agentskills push does.
func push(t *testing.T, ref, name, description string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := oci.Push(t.Context(), dir, ref, ociOptions(t)...); err != nil {
		t.Fatal(err)
	}
}

// pushImage publishes an image of another tool to host/repo:tag: an
// image config and one layer, no artifact type.
func pushImage(t *testing.T, host, repo, tag string) {
	t.Helper()
	r, err := orasremote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	blob := func(mediaType string, data []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, data)
		if err := r.Push(t.Context(), d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	config := blob(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`))
	layer := blob(ocispec.MediaTypeImageLayerGzip, []byte("not really a layer"))
	m, _ := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, Config: config, Layers: []ocispec.Descriptor{layer},
		Annotations: map[string]string{ocispec.AnnotationTitle: "pdf", ocispec.AnnotationDescription: "an image about pdf"}})
	if err := r.PushReference(t.Context(), content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, m), bytes.NewReader(m), tag); err != nil {
		t.Fatal(err)
	}
}

// filled is a registry holding two skills and an image, and its
// function that puts a handler in front of it.
func filled(t *testing.T) (string, func(wrap func(http.Handler) http.Handler)) {
	host, front := newRegistry(t)
	push(t, oci.Scheme+host+"/acme/pdf:1.0", "pdf", "Fills PDF forms, old")
	push(t, oci.Scheme+host+"/acme/pdf:latest", "pdf", "Fills PDF forms")
	push(t, oci.Scheme+host+"/acme/review:1.0", "review", "Reviews changes, first")
	push(t, oci.Scheme+host+"/acme/review:2.0", "code-review", "Reviews changes")
	pushImage(t, host, "acme/pdf-image", "latest")
	return host, front
}

func registryBackend(t *testing.T, entry string) search.Backend {
	t.Helper()
	b, err := search.Registry(entry, ociOptions(t)...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRegistry(t *testing.T) {
	host, _ := filled(t)
	for _, tc := range []struct {
		name, entry, query string
		want               []search.Result
	}{
		{"catalog, by name; tag latest; an image is no entry", host, "pdf", []search.Result{{
			Name: "pdf", Description: "Fills PDF forms", Source: "oci://" + host + "/acme/pdf:latest",
			Install: "agentskills add oci://" + host + "/acme/pdf:latest", From: "registry " + host,
		}}},
		{"catalog, by description; the last tag without latest", host, "reviews", []search.Result{{
			Name: "code-review", Description: "Reviews changes", Source: "oci://" + host + "/acme/review:2.0",
			Install: "agentskills add oci://" + host + "/acme/review:2.0", From: "registry " + host,
		}}},
		{"by the repository's path", host, "acme", []search.Result{
			{Name: "pdf", Description: "Fills PDF forms", Source: "oci://" + host + "/acme/pdf:latest", Install: "agentskills add oci://" + host + "/acme/pdf:latest", From: "registry " + host},
			{Name: "code-review", Description: "Reviews changes", Source: "oci://" + host + "/acme/review:2.0", Install: "agentskills add oci://" + host + "/acme/review:2.0", From: "registry " + host},
		}},
		{"one repository", host + "/acme/review", "review", []search.Result{{
			Name: "code-review", Description: "Reviews changes", Source: "oci://" + host + "/acme/review:2.0",
			Install: "agentskills add oci://" + host + "/acme/review:2.0", From: "registry " + host + "/acme/review",
		}}},
		{"no match", host, "nothing", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := search.Search(t.Context(), tc.query, []search.Backend{registryBackend(t, tc.entry)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("warnings = %v", res.Warnings)
			}
			if len(res.Results) != len(tc.want) {
				t.Fatalf("Search(%q) = %+v, want %+v", tc.query, res.Results, tc.want)
			}
			for i := range tc.want {
				if res.Results[i] != tc.want[i] {
					t.Errorf("Search(%q)[%d] = %+v, want %+v", tc.query, i, res.Results[i], tc.want[i])
				}
			}
		})
	}
}

func TestRegistryHostile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry func(host string) string
		wrap  func(http.Handler) http.Handler
		says  string
	}{
		{"no catalog", nil, answer("/v2/_catalog", http.StatusNotFound, `{"errors":[{"code":"UNSUPPORTED"}]}`), "keeps its catalog to itself"},
		{"catalog refused", nil, answer("/v2/_catalog", http.StatusUnauthorized, `{"errors":[{"code":"UNAUTHORIZED"}]}`), "docker login"},
		{"huge catalog", nil, answer("/v2/_catalog", http.StatusOK, `{"repositories":["`+strings.Repeat("a", 2<<20)+`"]}`), "catalog"},
		{"malformed catalog", nil, answer("/v2/_catalog", http.StatusOK, `{"repositories":[`), "list its repositories"},
		{"a manifest that is not its digest", func(h string) string { return h + "/acme/pdf" }, tamper("/v2/acme/pdf/manifests/sha256:"), "acme/pdf"},
		{"not a registry", nil, answer("/v2/", http.StatusOK, "<html>hello</html>"), "not an OCI registry"},
		{"slow", nil, stall("/v2/_catalog"), "no answer within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, front := filled(t)
			front(tc.wrap)
			entry := host
			if tc.entry != nil {
				entry = tc.entry(host)
			}
			res, err := search.Search(t.Context(), "pdf", []search.Backend{registryBackend(t, entry)}, search.WithTimeout(2*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), tc.says) || res.Warnings[0].Backend != "registry "+entry {
				t.Errorf("Search warnings = %v, want one of registry %s saying %q", res.Warnings, entry, tc.says)
			}
			if len(res.Results) != 0 {
				t.Errorf("Search = %+v, want nothing", res.Results)
			}
		})
	}
}

// answer answers GET requests for path (every path under it, when it
// ends with "/") with code and body.
func answer(path string, code int, body string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && (r.URL.Path == path || strings.HasSuffix(path, "/") && strings.HasPrefix(r.URL.Path, path)) {
				w.Header().Set("Content-Type", "application/json")
				if strings.HasPrefix(body, "<") {
					w.Header().Set("Content-Type", "text/html")
				}
				w.WriteHeader(code)
				io.WriteString(w, body)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// tamper changes one byte of manifests fetched by digest under prefix.
func tamper(prefix string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, prefix) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			if i := strings.Index(string(body), "Fills"); i >= 0 {
				body[i] = 'K'
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

// stall answers requests for path only when the client gives up.
func stall(path string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				<-r.Context().Done()
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

func TestRegistryEntries(t *testing.T) {
	for _, tc := range []struct {
		entry string
		ok    bool
	}{
		{"ghcr.io", true},
		{"localhost:5000", true},
		{"ghcr.io/acme/skills", true},
		{"127.0.0.1:5000/acme", true},
		{"", false},
		{"ghcr.io/Acme", false},
		{"ghcr.io/acme:1.0", false},
		{"ghcr.io/acme@sha256:" + strings.Repeat("a", 64), false},
		{"https://ghcr.io", false},
		{"ghcr.io/", false},
		{"ghcr.io/../etc", false},
		{"host:port", false},
		{"user@ghcr.io", false},
	} {
		_, err := search.Registry(tc.entry)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, search.ErrInvalidConfig) {
			t.Errorf("Registry(%q) = %v, want ok %v", tc.entry, err, tc.ok)
		}
	}
}
