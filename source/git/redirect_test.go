package git_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// recorder is an http.Handler that records the requests it gets, for a
// test to see what reached a host.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	next http.Handler // nil: every request is not found
}

func (h *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.reqs = append(h.reqs, r.Clone(context.Background()))
	h.mu.Unlock()
	if h.next == nil {
		http.NotFound(w, r)
		return
	}
	h.next.ServeHTTP(w, r)
}

func (h *recorder) requests() []*http.Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reqs
}

// redirector redirects every request to the same path and query at base.
func redirector(t *testing.T, base string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, base+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRedirectToAnotherHost checks rule 6 against the real git: a
// repository whose server redirects to another host is refused with
// source.ErrRedirected naming it, by every call that asks the remote,
// and the other host gets no request, so a header of WithHeader (or a
// credential) never reaches it.
func TestRedirectToAnotherHost(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	other := &recorder{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	// The other host serves the repository too: git would get it there.
	other.next = httpServer(t, r, "", nil).Config.Handler
	from := redirector(t, otherSrv.URL)
	src := git.Source{URL: from.URL + "/skills.git", Ref: "v1", Path: "skills/review"}
	c := newClient(t, git.WithHeader("X-Token", "git-secret-31337"), git.WithHeader("Authorization", "Bearer git-secret-31337"))
	remote := git.NewRemote(src, git.WithHeader("X-Token", "git-secret-31337"))
	defer remote.Close()
	calls := map[string]func() error{
		"Resolve": func() error { _, err := c.Resolve(t.Context(), src); return err },
		"Fetch": func() error {
			_, rc, err := c.Fetch(t.Context(), src)
			if err == nil {
				rc.Close()
			}
			return err
		},
		"Tags":   func() error { _, err := c.Tags(t.Context(), src); return err },
		"LookUp": func() error { _, err := remote.LookUp(t.Context()); return err },
		"Opener": func() error {
			rc, err := c.Opener(git.Pin{Source: src, Commit: r.v1})(t.Context())
			if err == nil {
				rc.Close()
			}
			return err
		},
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, source.ErrRedirected) || !strings.Contains(err.Error(), otherSrv.URL) {
			t.Errorf("%s of a repository redirected to another host = %v; want %v naming %s", name, err, source.ErrRedirected, otherSrv.URL)
		}
		if err != nil && strings.Contains(err.Error(), "git-secret-31337") {
			t.Errorf("%s = %q, which holds a header value", name, err)
		}
	}
	for _, req := range other.requests() {
		t.Errorf("the other host got %s %s (X-Token %q)", req.Method, req.URL, req.Header.Get("X-Token"))
	}
}

// TestRedirectWithinHost checks that a redirect to another repository
// address on the same host (a renamed repository, a missing .git) is
// followed by every call, that WithRedirectCheck sees the new address
// and can refuse it, and that a loop of redirects ends.
func TestRedirectWithinHost(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	var mu sync.Mutex
	var tokens []string
	backend := httpServer(t, r, "", nil).Config.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		tokens = append(tokens, req.Header.Get("X-Token"))
		mu.Unlock()
		switch {
		case strings.HasPrefix(req.URL.Path, "/old/"):
			http.Redirect(w, req, "/"+strings.TrimPrefix(req.URL.RequestURI(), "/old/"), http.StatusMovedPermanently)
		case strings.HasPrefix(req.URL.Path, "/loop/"):
			http.Redirect(w, req, "/loop"+req.URL.RequestURI(), http.StatusFound)
		case strings.HasPrefix(req.URL.Path, "/away/"):
			http.Redirect(w, req, "/login", http.StatusFound)
		default:
			backend.ServeHTTP(w, req)
		}
	}))
	t.Cleanup(srv.Close)
	src := git.Source{URL: srv.URL + "/old/skills.git", Ref: "v1", Path: "skills/review"}
	var seen []string
	c := newClient(t, git.WithHeader("X-Token", "t"), git.WithRedirectCheck(func(_ context.Context, to string) error {
		seen = append(seen, to)
		return nil
	}))
	pin, err := c.Resolve(t.Context(), src)
	if err != nil || pin.Commit != r.v1 {
		t.Fatalf("Resolve through a redirect within the host = %+v, %v; want %s", pin, err, r.v1)
	}
	if len(seen) == 0 || seen[0] != srv.URL+"/skills.git" {
		t.Errorf("WithRedirectCheck saw %q, want %s", seen, srv.URL+"/skills.git")
	}
	rc, err := c.Opener(pin)(t.Context())
	if err != nil {
		t.Fatalf("Opener through a redirect within the host = %v", err)
	}
	rc.Close()
	if tags, err := c.Tags(t.Context(), src); err != nil || len(tags) == 0 {
		t.Errorf("Tags through a redirect within the host = %v, %v", tags, err)
	}
	mu.Lock()
	for _, tok := range tokens {
		if tok != "t" {
			t.Errorf("a request to the host came without its header: %q", tok)
		}
	}
	mu.Unlock()

	// Through the user's url.insteadOf: the redirect is read where git
	// was sent.
	global := filepath.Join(t.TempDir(), "gitconfig")
	writeFile(t, global, "[url \""+srv.URL+"/\"]\n\tinsteadOf = http://127.0.0.1:1/\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	if pin, err := newClient(t).Resolve(t.Context(), git.Source{URL: "http://127.0.0.1:1/old/skills.git", Ref: "v1"}); err != nil || pin.Commit != r.v1 {
		t.Errorf("Resolve through url.insteadOf and a redirect = %+v, %v; want %s", pin, err, r.v1)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)

	refuse := errors.New("not this one")
	c = newClient(t, git.WithRedirectCheck(func(context.Context, string) error { return refuse }))
	if _, err := c.Resolve(t.Context(), src); !errors.Is(err, refuse) || !errors.Is(err, source.ErrRedirected) {
		t.Errorf("Resolve with a check that refuses the redirect = %v; want it and %v", err, source.ErrRedirected)
	}
	c = newClient(t)
	for _, path := range []string{"/loop/skills.git", "/away/skills.git"} {
		_, err := c.Resolve(t.Context(), git.Source{URL: srv.URL + path})
		if !errors.Is(err, source.ErrRedirected) {
			t.Errorf("Resolve of %s = %v; want %v", path, err, source.ErrRedirected)
		}
	}
}
