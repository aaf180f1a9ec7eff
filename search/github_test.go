package search_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/search"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// seen is what the GitHub stand-in saw of one request.
type seen struct {
	Path, Q, PerPage, Page, Auth string
}

// fakeGitHub is a stand-in GitHub API that answers the two searches from
// its lists, a page at a time, recording every request.
type fakeGitHub struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []seen

	repos []map[string]any // items of /search/repositories
	code  []map[string]any // items of /search/code
	// hook answers instead when it returns true.
	hook func(w http.ResponseWriter, r *http.Request) bool
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	f.requests = append(f.requests, seen{Path: r.URL.Path, Q: q.Get("q"), PerPage: q.Get("per_page"), Page: q.Get("page"), Auth: r.Header.Get("Authorization")})
	hook := f.hook
	f.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	var items []map[string]any
	switch r.URL.Path {
	case "/search/repositories":
		items = f.repos
	case "/search/code":
		if r.Header.Get("Authorization") == "" {
			apiError(w, http.StatusUnauthorized, "Requires authentication")
			return
		}
		items = f.code
	default:
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	per, _ := strconv.Atoi(q.Get("per_page"))
	page, _ := strconv.Atoi(q.Get("page"))
	if per <= 0 {
		per = 30
	}
	page = max(page, 1)
	from, to := min((page-1)*per, len(items)), min(page*per, len(items))
	if to < len(items) {
		next := *r.URL
		v := next.Query()
		v.Set("page", strconv.Itoa(page+1))
		next.RawQuery = v.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next", <%s>; rel="last"`, f.srv.URL, next.RequestURI(), f.srv.URL))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"total_count": len(items), "incomplete_results": false, "items": items[from:to]})
}

func (f *fakeGitHub) seen() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.requests...)
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

func repoItem(owner, name, description string) map[string]any {
	return map[string]any{"name": name, "full_name": owner + "/" + name, "description": description, "owner": map[string]any{"login": owner}}
}

func codeItem(owner, repo, path, description string) map[string]any {
	return map[string]any{"name": "SKILL.md", "path": path, "repository": map[string]any{"name": repo, "owner": map[string]any{"login": owner}, "description": description}}
}

// gitHubBackend is the GitHub backend over f, with token ("" for none).
func gitHubBackend(t *testing.T, f *fakeGitHub, token string) search.Backend {
	t.Helper()
	c, err := github.New(github.WithAPIURL(f.srv.URL), github.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	return search.GitHub(c)
}

func TestGitHubQueriesAndToken(t *testing.T) {
	f := newFakeGitHub(t)
	f.repos = []map[string]any{repoItem("acme", "pdf-skills", "PDF skills")}
	f.code = []map[string]any{
		codeItem("acme", "skills", "skills/pdf/SKILL.md", "Acme's skills"),
		codeItem("acme", "pdf", "SKILL.md", "one skill at the root"),
		codeItem("acme", "other", "docs/skill.md", "not a SKILL.md"),
		codeItem("acme", "bad", "../SKILL.md", "a path that is no path"),
	}
	for _, tc := range []struct {
		name, token string
		want        []string // sources
		wantAuth    string
		warn        error
	}{
		{"with a token", "s3cret", []string{"acme/skills/skills/pdf", "acme/pdf", "acme/pdf-skills"}, "Bearer s3cret", nil},
		{"without a token, code search is left out", "", []string{"acme/pdf-skills"}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.requests = nil
			res, err := search.Search(t.Context(), "pdf", []search.Backend{gitHubBackend(t, f, tc.token)})
			if err != nil {
				t.Fatal(err)
			}
			if got := sources(res); !equal(got, tc.want) {
				t.Errorf("Search(pdf) sources = %q, want %q", got, tc.want)
			}
			switch {
			case tc.warn == nil && len(res.Warnings) != 0:
				t.Errorf("Search(pdf) warnings = %v, want none", res.Warnings)
			case tc.warn != nil && (len(res.Warnings) != 1 || !errors.Is(res.Warnings[0], tc.warn) || res.Warnings[0].Backend != "GitHub" || !strings.Contains(res.Warnings[0].Error(), "GITHUB_TOKEN")):
				t.Errorf("Search(pdf) warnings = %v, want one of GitHub wrapping %v naming GITHUB_TOKEN", res.Warnings, tc.warn)
			}
			reqs := f.seen()
			wantQ := []string{"pdf topic:agent-skills", "pdf filename:SKILL.md"}
			if tc.token == "" {
				wantQ = wantQ[:1] // code search is not even asked
			}
			if len(reqs) != len(wantQ) {
				t.Fatalf("requests = %+v, want %d", reqs, len(wantQ))
			}
			for i, r := range reqs {
				if r.Q != wantQ[i] || r.Auth != tc.wantAuth || r.PerPage != "20" {
					t.Errorf("request %d = %+v, want q=%q per_page=20 Authorization %q", i, r, wantQ[i], tc.wantAuth)
				}
			}
			for _, r := range res.Results {
				if r.Install != "agentskills add "+r.Source || r.From != "GitHub" {
					t.Errorf("result %+v: want install %q from GitHub", r, "agentskills add "+r.Source)
				}
			}
		})
	}
}

func TestGitHubAPIURLFromEnvironment(t *testing.T) {
	f := newFakeGitHub(t)
	f.repos = []map[string]any{repoItem("acme", "pdf", "")}
	t.Setenv("GITHUB_API_URL", f.srv.URL+"/")
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "from-gh")
	c, err := github.New()
	if err != nil {
		t.Fatal(err)
	}
	res, err := search.Search(t.Context(), "pdf", []search.Backend{search.GitHub(c)})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("Search = %+v, %v; want one result", res, err)
	}
	if reqs := f.seen(); len(reqs) == 0 || reqs[0].Auth != "Bearer from-gh" {
		t.Errorf("requests = %+v, want the token of GH_TOKEN", reqs)
	}
}

func TestGitHubPagination(t *testing.T) {
	f := newFakeGitHub(t)
	for i := range 250 {
		f.repos = append(f.repos, repoItem("acme", fmt.Sprintf("skills-%03d", i), "pdf"))
	}
	for _, tc := range []struct {
		limit     int
		wantPages []string
	}{
		{20, []string{""}},
		{100, []string{""}},
		{150, []string{"", "2"}},
		{1000, []string{"", "2", "3"}},
	} {
		t.Run(strconv.Itoa(tc.limit), func(t *testing.T) {
			f.requests = nil
			res, err := search.Search(t.Context(), "pdf", []search.Backend{gitHubBackend(t, f, "")}, search.WithLimit(tc.limit))
			if err != nil {
				t.Fatal(err)
			}
			if want := min(tc.limit, 250); len(res.Results) != want {
				t.Errorf("Search(limit %d) = %d results, want %d", tc.limit, len(res.Results), want)
			}
			var pages []string
			for _, r := range f.seen() {
				if r.Path == "/search/repositories" {
					pages = append(pages, r.Page)
				}
			}
			if !equal(pages, tc.wantPages) {
				t.Errorf("Search(limit %d) asked pages %q, want %q", tc.limit, pages, tc.wantPages)
			}
		})
	}
}

func TestGitHubHostileAnswers(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the token went to another server: %s", r.URL)
		}
		w.Write([]byte(`{"items":[]}`))
	}))
	t.Cleanup(other.Close)
	reset := time.Now().Add(time.Hour).Unix()
	for _, tc := range []struct {
		name  string
		hook  func(w http.ResponseWriter, r *http.Request) bool
		token string
		want  error
		says  string
	}{
		{"rate limited", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
			apiError(w, http.StatusForbidden, "API rate limit exceeded")
			return true
		}, "", source.ErrRateLimited, "set GITHUB_TOKEN or GH_TOKEN"},
		{"secondary rate limit", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Retry-After", "60")
			apiError(w, http.StatusTooManyRequests, "slow down")
			return true
		}, "tok", source.ErrRateLimited, "another token"},
		{"422", func(w http.ResponseWriter, r *http.Request) bool {
			apiError(w, http.StatusUnprocessableEntity, "Validation Failed")
			return true
		}, "", source.ErrInvalid, "Validation Failed"},
		{"token refused", func(w http.ResponseWriter, r *http.Request) bool {
			apiError(w, http.StatusUnauthorized, "Bad credentials")
			return true
		}, "tok", source.ErrAuthRequired, "GitHub code search"},
		{"malformed JSON", func(w http.ResponseWriter, r *http.Request) bool {
			w.Write([]byte(`{"items": [`))
			return true
		}, "", source.ErrNotServer, "not GitHub's search JSON"},
		{"items of the wrong type", func(w http.ResponseWriter, r *http.Request) bool {
			w.Write([]byte(`{"items": {"name": 3}}`))
			return true
		}, "", source.ErrNotServer, "not GitHub's search JSON"},
		{"huge page", func(w http.ResponseWriter, r *http.Request) bool {
			w.Write([]byte(`{"items":[`))
			item, _ := json.Marshal(repoItem("acme", "pdf", strings.Repeat("x", 1<<16)))
			for range 70 {
				w.Write(item)
				w.Write([]byte(","))
			}
			return true
		}, "", source.ErrNotServer, "larger than 4194304 bytes"},
		{"5xx", func(w http.ResponseWriter, r *http.Request) bool {
			apiError(w, http.StatusBadGateway, "oops")
			return true
		}, "", nil, "502 Bad Gateway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			f.hook = tc.hook
			res, err := search.Search(t.Context(), "pdf", []search.Backend{gitHubBackend(t, f, tc.token)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 1 {
				t.Fatalf("Search warnings = %v, want one", res.Warnings)
			}
			w := res.Warnings[0]
			if tc.want != nil && !errors.Is(w, tc.want) || !strings.Contains(w.Error(), tc.says) {
				t.Errorf("Search warning = %v, want %v saying %q", w, tc.want, tc.says)
			}
			if tc.token != "" && strings.Contains(w.Error(), tc.token+" ") {
				t.Errorf("Search warning = %v: it shows the token", w)
			}
		})
	}
	t.Run("next page elsewhere", func(t *testing.T) {
		f := newFakeGitHub(t)
		f.hook = func(w http.ResponseWriter, r *http.Request) bool {
			var items []map[string]any
			for i := range 20 {
				items = append(items, repoItem("acme", fmt.Sprintf("pdf-%d", i), ""))
			}
			w.Header().Set("Link", fmt.Sprintf(`<%s/search/repositories?page=2>; rel="next"`, other.URL))
			json.NewEncoder(w).Encode(map[string]any{"items": items})
			return true
		}
		res, err := search.Search(t.Context(), "pdf", []search.Backend{gitHubBackend(t, f, "tok")}, search.WithLimit(40))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 20 {
			t.Errorf("Search = %d results, want the 20 of the first page", len(res.Results))
		}
	})
}
