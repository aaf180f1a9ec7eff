package search_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/search"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

// indexJSON is a v0.2.0 index of the skills named, each described by
// its description.
func indexJSON(skills ...[2]string) string {
	var entries []string
	for _, s := range skills {
		entries = append(entries, fmt.Sprintf(`{"name":%q,"type":"skill-md","description":%q,"url":"/.well-known/agent-skills/%s/SKILL.md","digest":"sha256:%s"}`,
			s[0], s[1], s[0], strings.Repeat("a", 64)))
	}
	return `{"$schema":"` + webindex.Schema + `","skills":[` + strings.Join(entries, ",") + `]}`
}

// staticSite serves body at the index's path, recording what it is asked.
func staticSite(t *testing.T, body string) (*httptest.Server, func() []string) {
	t.Helper()
	var (
		mu    sync.Mutex
		asked []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path+"?"+r.URL.RawQuery+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path != webindex.Path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := asked
		asked = nil
		return out
	}
}

func indexBackend(t *testing.T, addr string) search.Backend {
	t.Helper()
	b, err := search.Index(addr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIndex(t *testing.T) {
	srv, asked := staticSite(t, indexJSON(
		[2]string{"pdf-forms", "Fills PDF forms"},
		[2]string{"review", "Reviews changes"},
		[2]string{"pdf", "Reads PDF files"},
		[2]string{"Bad_Name", "pdf: an entry webindex skips"},
	))
	for _, tc := range []struct {
		name, addr, query string
		want              []search.Result
	}{
		{"a site; exact name first", srv.URL, "pdf", []search.Result{
			{Name: "pdf", Description: "Reads PDF files", Source: srv.URL, Install: "agentskills add " + srv.URL + " --skill pdf", From: "index " + srv.URL},
			{Name: "pdf-forms", Description: "Fills PDF forms", Source: srv.URL, Install: "agentskills add " + srv.URL + " --skill pdf-forms", From: "index " + srv.URL},
		}},
		{"the index's address; by description", srv.URL + webindex.Path, "changes", []search.Result{
			{Name: "review", Description: "Reviews changes", Source: srv.URL + webindex.Path, Install: "agentskills add " + srv.URL + webindex.Path + " --skill review", From: "index " + srv.URL + webindex.Path},
		}},
		{"every word", srv.URL + "/", "reads pdf", []search.Result{
			{Name: "pdf", Description: "Reads PDF files", Source: srv.URL + "/", Install: "agentskills add " + srv.URL + "/ --skill pdf", From: "index " + srv.URL + "/"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked()
			res, err := search.Search(t.Context(), tc.query, []search.Backend{indexBackend(t, tc.addr)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 0 || len(res.Results) != len(tc.want) {
				t.Fatalf("Search(%q) = %+v, %v; want %+v", tc.query, res.Results, res.Warnings, tc.want)
			}
			for i := range tc.want {
				if res.Results[i] != tc.want[i] {
					t.Errorf("Search(%q)[%d] = %+v, want %+v", tc.query, i, res.Results[i], tc.want[i])
				}
			}
			// The query never leaves the machine (rule 11).
			if got, want := asked(), []string{webindex.Path + "? "}; !equal(got, want) {
				t.Errorf("the site was asked %q, want %q", got, want)
			}
		})
	}
}

func TestIndexHostile(t *testing.T) {
	huge := indexJSON([2]string{"pdf", strings.Repeat("x", webindex.MaxIndexSize)})
	redirect := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
	}
	for _, tc := range []struct {
		name    string
		handler http.Handler
		says    string
	}{
		{"malformed JSON", body(`{"$schema":`), "not a JSON object"},
		{"v0.1.0", body(`{"skills":[]}`), "no \"$schema\""},
		{"huge", body(huge), "larger than"},
		{"missing", http.NotFoundHandler(), "404 Not Found"},
		{"redirect to ftp", redirect("ftp://example.com/index.json"), "refused a redirect"},
		{"redirect loop", redirect(webindex.Path), "redirects"},
		{"slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }), "no answer within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			res, err := search.Search(t.Context(), "pdf", []search.Backend{indexBackend(t, srv.URL)}, search.WithTimeout(2*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), tc.says) || res.Warnings[0].Backend != "index "+srv.URL {
				t.Errorf("Search = %+v, %v; want one warning of index %s saying %q", res.Results, res.Warnings, srv.URL, tc.says)
			}
		})
	}
}

func body(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, s) }
}

func TestIndexAddresses(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"https://example.com", true},
		{"https://example.com/", true},
		{"https://example.com" + webindex.Path, true},
		{"http://127.0.0.1:8080", true},
		{"http://localhost", true},
		{"http://example.com", false},
		{"https://example.com/docs", false},
		{"https://user:pw@example.com", false},
		{"https://example.com/?q=1", false},
		{"https://example.com/#x", false},
		{"file:///etc/passwd", false},
		{"example.com", false},
		{"", false},
	} {
		_, err := search.Index(tc.addr)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, search.ErrInvalidConfig) {
			t.Errorf("Index(%q) = %v, want ok %v", tc.addr, err, tc.ok)
		}
	}
}

// TestEveryBackend searches an index, a registry and GitHub at once.
func TestEveryBackend(t *testing.T) {
	srv, _ := staticSite(t, indexJSON([2]string{"pdf", "Reads PDF files"}))
	host, _ := filled(t)
	gh := newFakeGitHub(t)
	gh.repos = []map[string]any{repoItem("acme", "pdf", "PDF skills"), repoItem("acme", "tools", "pdf and more")}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("indexes:\n  - %s\nregistries:\n  - %s\n", srv.URL, host)
	if err := os.WriteFile(search.ConfigPath(home), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := search.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	backends, err := c.Backends(ociOptions(t)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := search.Search(t.Context(), "pdf", append(backends, gitHubBackend(t, gh, "")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{srv.URL, "oci://" + host + "/acme/pdf:latest", "acme/pdf", "acme/tools"}
	if got := sources(res); !equal(got, want) {
		t.Errorf("Search = %q, want %q", got, want)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings = %v, want none", res.Warnings)
	}
}
