package github_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// TestTokenGoesOnlyToTheAPI follows a resolve and a download through the
// redirect to the archive host: the token reaches the API and nothing
// else, and the Go client's own redirect policy (which would forward it to
// another port of the same host) plays no part.
func TestTokenGoesOnlyToTheAPI(t *testing.T) {
	const token = "ghp_secret-token-for-the-api"
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	f.token = token
	c := f.client(t, github.WithToken(token))
	m, _ := materializer(t)
	pin, err := c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r", Path: "skills/pdf", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Materialize(t.Context(), c.Skill("pdf", pin)); err != nil {
		t.Fatal(err)
	}
	var api, archive int
	for _, r := range f.seen() {
		switch r.Server {
		case "api":
			api++
			if r.Auth != "Bearer "+token {
				t.Errorf("API request %s had Authorization %q, want the bearer token", r.Path, r.Auth)
			}
		case "archive":
			archive++
			if r.Auth != "" {
				t.Errorf("archive host request %s had Authorization %q, want none", r.Path, r.Auth)
			}
		}
	}
	if api != 2 || archive != 1 {
		t.Errorf("requests: %d to the API, %d to the archive host, want 2 and 1", api, archive)
	}
	for _, s := range []string{pin.String(), pin.Source.String()} {
		if strings.Contains(s, token) {
			t.Errorf("pin %q holds the token", s)
		}
	}
}

// TestTokenFromEnvironment checks where the token comes from (rule 7).
func TestTokenFromEnvironment(t *testing.T) {
	tests := []struct {
		name            string
		githubToken     string
		ghToken         string
		opts            []github.Option
		wantAuth        string
		wantErrMentions string
	}{
		{name: "none", wantAuth: "", wantErrMentions: "set GITHUB_TOKEN or GH_TOKEN"},
		{name: "GITHUB_TOKEN", githubToken: "tok-a", wantAuth: "Bearer tok-a", wantErrMentions: "GITHUB_TOKEN was refused"},
		{name: "GH_TOKEN", ghToken: "tok-b", wantAuth: "Bearer tok-b", wantErrMentions: "GH_TOKEN was refused"},
		{name: "GITHUB_TOKEN first", githubToken: "tok-a", ghToken: "tok-b", wantAuth: "Bearer tok-a", wantErrMentions: "GITHUB_TOKEN was refused"},
		{name: "WithToken first", githubToken: "tok-a", opts: []github.Option{github.WithToken("tok-c")}, wantAuth: "Bearer tok-c", wantErrMentions: "WithToken was refused"},
		{name: "WithToken empty", githubToken: "tok-a", opts: []github.Option{github.WithToken("")}, wantAuth: "", wantErrMentions: "set GITHUB_TOKEN or GH_TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GITHUB_TOKEN", tt.githubToken)
			t.Setenv("GH_TOKEN", tt.ghToken)
			f := newFake(t)
			f.addRepo(t, "o", "r")
			f.token = "the-only-good-token"
			c, err := github.New(append([]github.Option{github.WithAPIURL(f.api.URL)}, tt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"})
			if !errors.Is(err, source.ErrAuthRequired) || !strings.Contains(err.Error(), tt.wantErrMentions) {
				t.Errorf("Resolve = %v, want %v mentioning %q", err, source.ErrAuthRequired, tt.wantErrMentions)
			}
			for _, tok := range []string{"tok-a", "tok-b", "tok-c"} {
				if err != nil && strings.Contains(err.Error(), tok) {
					t.Errorf("Resolve = %q, which holds a token", err)
				}
			}
			if got := f.seen()[0].Auth; got != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tt.wantAuth)
			}
		})
	}
}

// TestTokenNeverInErrors makes every part of GitHub's answer echo the
// token back; no error may carry it.
func TestTokenNeverInErrors(t *testing.T) {
	const token = "echoed-secret-9f8e7d"
	tests := []struct {
		name string
		code int
	}{
		{"unauthorized", http.StatusUnauthorized},
		{"forbidden", http.StatusForbidden},
		{"not found", http.StatusNotFound},
		{"conflict", http.StatusConflict},
		{"server error", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.hook = func(w http.ResponseWriter, r *http.Request) bool {
				apiError(w, tt.code, "you sent "+r.Header.Get("Authorization"))
				return true
			}
			c := f.client(t, github.WithToken(token))
			_, err := c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r", Ref: "main"})
			if err == nil || strings.Contains(err.Error(), token) {
				t.Errorf("Resolve = %v, want an error without the token", err)
			}
			_, err = c.Opener(github.Pin{Source: github.Source{Owner: "o", Repo: "r"}, Commit: commitA})(t.Context())
			if err == nil || strings.Contains(err.Error(), token) {
				t.Errorf("Opener = %v, want an error without the token", err)
			}
		})
	}
}

// TestRedirects checks the redirects the client follows (rule 6) and that
// a signed download address does not end up in an error.
func TestRedirects(t *testing.T) {
	tests := []struct {
		name     string
		location string
		want     string
	}{
		{"to plain http elsewhere", "http://example.com/archive.tar.gz", "refused a redirect to http://example.com/archive.tar.gz"},
		{"to another scheme", "ftp://127.0.0.1/archive.tar.gz", "refused a redirect"},
		{"to a closed server", "CLOSED", "download commit"},
		{"in a loop", "LOOP", "more than 10 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			closed := newFake(t)
			closedURL := closed.archive.URL
			closed.archive.Close()
			f.hook = func(w http.ResponseWriter, r *http.Request) bool {
				loc := tt.location
				switch loc {
				case "CLOSED":
					loc = closedURL + "/x.tar.gz?token=SIGNEDDOWNLOAD"
				case "LOOP":
					loc = r.URL.Path
				}
				http.Redirect(w, r, loc, http.StatusFound)
				return true
			}
			_, err := f.client(t).Opener(github.Pin{Source: github.Source{Owner: "o", Repo: "r"}, Commit: commitA})(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Opener = %v, want an error saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "SIGNEDDOWNLOAD") {
				t.Errorf("Opener = %q, which holds the signed address's query", err)
			}
		})
	}
}

// TestAPIURL checks where the API address comes from and which are
// refused (rule 4), and that a GitHub Enterprise style path is kept.
func TestAPIURL(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r")
	ghe := http.NewServeMux()
	ghe.Handle("/api/v3/", http.StripPrefix("/api/v3", f.api.Config.Handler))

	t.Run("enterprise path", func(t *testing.T) {
		srv := httptest.NewServer(ghe)
		t.Cleanup(srv.Close)
		c, err := github.New(github.WithAPIURL(srv.URL+"/api/v3/"), github.WithToken(""))
		if err != nil {
			t.Fatal(err)
		}
		pin, err := c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"})
		if err != nil {
			t.Fatalf("Resolve through /api/v3 = %v", err)
		}
		rc, err := c.Opener(pin)(t.Context())
		if err != nil {
			t.Fatalf("Opener through /api/v3 = %v", err)
		}
		rc.Close()
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("GITHUB_API_URL", f.api.URL+"/")
		c, err := github.New(github.WithToken(""))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"}); err != nil {
			t.Errorf("Resolve with GITHUB_API_URL = %v", err)
		}
	})
	t.Run("WithAPIURL first", func(t *testing.T) {
		t.Setenv("GITHUB_API_URL", "https://example.invalid")
		c, err := github.New(github.WithAPIURL(f.api.URL), github.WithToken(""))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"}); err != nil {
			t.Errorf("Resolve with WithAPIURL = %v", err)
		}
	})
	t.Run("default", func(t *testing.T) {
		t.Setenv("GITHUB_API_URL", "")
		if _, err := github.New(); err != nil {
			t.Errorf("New() = %v", err)
		}
	})
	for _, api := range []string{
		"http://api.example.com",
		"ftp://127.0.0.1",
		"https://user:secret@api.example.com",
		"https://api.example.com?x=1",
		"https:///path",
		"::",
	} {
		t.Run(api, func(t *testing.T) {
			_, err := github.New(github.WithAPIURL(api))
			if !errors.Is(err, source.ErrInvalid) {
				t.Errorf("New(WithAPIURL(%q)) = %v, want %v", api, err, source.ErrInvalid)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("New(WithAPIURL(%q)) = %q, which holds the password", api, err)
			}
		})
	}
}

// TestRenamedRepository follows GitHub's redirect from a renamed
// repository on the API host itself: the token goes along, since the
// origin is the API's.
func TestRenamedRepository(t *testing.T) {
	const token = "tok-renamed-repo"
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	f.token = token
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/repos/o/old/"); ok {
			http.Redirect(w, r, "/repos/o/r/"+rest, http.StatusMovedPermanently)
			return true
		}
		return false
	}
	pin, err := f.client(t, github.WithToken(token)).Resolve(t.Context(), github.Source{Owner: "o", Repo: "old", Ref: "v1"})
	if err != nil || pin.Commit != commitB {
		t.Fatalf("Resolve(o/old@v1) = %+v, %v, want commit %s", pin, err, commitB)
	}
	for _, r := range f.seen() {
		if r.Auth != "Bearer "+token {
			t.Errorf("request %s had Authorization %q, want the token", r.Path, r.Auth)
		}
	}
}
