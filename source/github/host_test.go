package github_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

func TestParseEnterprise(t *testing.T) {
	tests := []struct {
		in, ghHost string
		want       github.Source
		str        string
	}{
		{in: "https://ghes.example.com/o/r/tree/main/skills/pdf", want: github.Source{Host: "ghes.example.com", Owner: "o", Repo: "r", Ref: "main", Path: "skills/pdf"}},
		{in: "https://GHES.example.com:8443/o/r/tree/v1", want: github.Source{Host: "ghes.example.com:8443", Owner: "o", Repo: "r", Ref: "v1"}, str: "https://ghes.example.com:8443/o/r/tree/v1"},
		{in: "https://ghes.example.com/o/r", ghHost: "ghes.example.com", want: github.Source{Host: "ghes.example.com", Owner: "o", Repo: "r"}},
		{in: "https://ghes.example.com/o/r.git", ghHost: "GHES.example.com", want: github.Source{Host: "ghes.example.com", Owner: "o", Repo: "r"}, str: "https://ghes.example.com/o/r"},
		{in: "https://acme.ghe.com/o/r/tree/main", want: github.Source{Host: "acme.ghe.com", Owner: "o", Repo: "r", Ref: "main"}},
		{in: "https://github.com/o/r/tree/main/x", ghHost: "ghes.example.com", want: github.Source{Owner: "o", Repo: "r", Ref: "main", Path: "x"}, str: "o/r/x@main"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Setenv("GH_HOST", tt.ghHost)
			got, err := github.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			if got.String() != tt.want.String() || got.Host != tt.want.Host {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			want := tt.str
			if want == "" {
				want = tt.in
			}
			if got.String() != want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got.String(), want)
			}
			back, err := github.Parse(got.String())
			if err != nil || back.String() != got.String() || back.Host != got.Host {
				t.Errorf("Parse(%q) = %+v, %v, want it back", got.String(), back, err)
			}
		})
	}
}

func TestParseEnterpriseRefuses(t *testing.T) {
	tests := []struct {
		in, ghHost, want string
	}{
		{"https://ghes.example.com/o/r", "", "set GH_HOST=ghes.example.com"},
		{"https://ghes.example.com/o/r", "other.example.com", "set GH_HOST=ghes.example.com"},
		{"https://ghes.example.com/o/r", "github.com", "set GH_HOST"},
		{"https://gitlab.com/o/r/tree/main", "", "not GitHub"},
		{"https://codeberg.org/o/r", "codeberg.org", "not GitHub"},
		{"https://api.github.com/o/r/tree/main", "", "GitHub's own"},
		{"https://gist.github.com/o/r/tree/main", "", "GitHub's own"},
		{"https://ghes.example.com/o/r/tree/main/../x", "", "path"},
		{"https://ghes.example.com/o/r/tree/a..b", "", "ref"},
		{"https://ghes.example.com/o/r/blob/main/SKILL.md", "ghes.example.com", "/tree/REF/PATH"},
		{"https://ghes.example.com/o/r/tree/main?x=1", "", "query"},
		{"https://user:pw@ghes.example.com/o/r/tree/main", "", "user"},
		{"https://ghes_example.com/o/r/tree/main", "", "only letters"},
		{"http://ghes.example.com/o/r/tree/main", "", "only https://"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Setenv("GH_HOST", tt.ghHost)
			got, err := github.Parse(tt.in)
			if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %+v, %v, want %v saying %q", tt.in, got, err, source.ErrInvalid, tt.want)
			}
		})
	}
}

func TestEnterpriseAPIURL(t *testing.T) {
	for host, want := range map[string]string{
		"ghes.example.com":      "https://ghes.example.com/api/v3",
		"ghes.example.com:8443": "https://ghes.example.com:8443/api/v3",
		"acme.ghe.com":          "https://api.acme.ghe.com",
	} {
		if got := github.EnterpriseAPIURL(host); got != want {
			t.Errorf("EnterpriseAPIURL(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestWithHostRefuses(t *testing.T) {
	for _, host := range []string{"gitlab.com", "api.github.com", "bad host", "user@ghes.example.com", "ghes.example.com/path"} {
		if _, err := github.New(github.WithHost(host)); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("New(WithHost(%q)) = %v, want ErrInvalid", host, err)
		}
	}
	if _, err := github.New(github.WithHost("github.com")); err != nil {
		t.Errorf("New(WithHost(github.com)) = %v, want the default client", err)
	}
}

// enterprise is a stand-in GitHub Enterprise Server: the fake's API
// under /api/v3 of a TLS server on loopback, whose address is the host.
func enterprise(t *testing.T, f *fakeGitHub) (host string, client *http.Client) {
	t.Helper()
	srv := httptest.NewTLSServer(http.StripPrefix("/api/v3", f.api.Config.Handler))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "https://"), srv.Client()
}

// TestEnterpriseTokenOnlyToItsHost reads a repository of an Enterprise
// stand-in and one of a github.com stand-in in one environment holding
// both hosts' tokens: each API sees its own token and never the other's,
// the archive host sees none, and nothing shown holds either (rule 17).
func TestEnterpriseTokenOnlyToItsHost(t *testing.T) {
	const dotcomToken, gheToken = "ghp_dotcom-token", "ghe_enterprise-token"
	ghe := newFake(t)
	ghe.addRepo(t, "o", "r", sampleRepo()...)
	ghe.token = gheToken
	dotcom := newFake(t)
	dotcom.addRepo(t, "o", "r", sampleRepo()...)
	dotcom.token = dotcomToken
	host, client := enterprise(t, ghe)
	t.Setenv("GITHUB_API_URL", dotcom.api.URL)
	t.Setenv("GITHUB_TOKEN", dotcomToken)
	t.Setenv("GH_TOKEN", dotcomToken)
	t.Setenv("GH_ENTERPRISE_TOKEN", gheToken)
	t.Setenv("GITHUB_ENTERPRISE_TOKEN", "")
	t.Setenv("GH_HOST", host) // the user's host: its token goes there

	for _, text := range []string{"https://" + host + "/o/r/tree/main/skills/pdf", "https://github.com/o/r/tree/main/skills/pdf"} {
		src, err := github.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		r := github.NewRemote(src, github.WithHTTPClient(client))
		pin, err := r.Resolve(t.Context())
		if err != nil {
			t.Fatalf("Resolve(%s) = %v", text, err)
		}
		a, err := r.Open(t.Context(), pin, "", nil)
		if err != nil {
			t.Fatalf("Open(%s) = %v", text, err)
		}
		a.Close()
		for _, s := range []string{src.String(), r.Repository(), pin} {
			if strings.Contains(s, dotcomToken) || strings.Contains(s, gheToken) {
				t.Errorf("%q holds a token", s)
			}
		}
	}
	for name, f := range map[string]*fakeGitHub{"enterprise": ghe, "github.com": dotcom} {
		want := "Bearer " + gheToken
		if f == dotcom {
			want = "Bearer " + dotcomToken
		}
		var api int
		for _, r := range f.seen() {
			switch {
			case r.Server == "api" && r.Auth != want:
				t.Errorf("%s API request %s had Authorization %q, want %q", name, r.Path, r.Auth, want)
			case r.Server == "archive" && r.Auth != "":
				t.Errorf("%s archive request %s had Authorization %q, want none", name, r.Path, r.Auth)
			case r.Server == "api":
				api++
			}
		}
		if api == 0 {
			t.Errorf("the %s stand-in saw no API request", name)
		}
	}
}

// TestEnterpriseTokenFromEnvironment checks where an Enterprise host's
// token comes from (rule 17), and that github.com's never goes there.
func TestEnterpriseTokenFromEnvironment(t *testing.T) {
	tests := []struct {
		name               string
		ghe, githube       string
		opts               []github.Option
		wantAuth, wantHint string
	}{
		{name: "none, though github.com's are set", wantHint: "set GH_ENTERPRISE_TOKEN or GITHUB_ENTERPRISE_TOKEN"},
		{name: "GH_ENTERPRISE_TOKEN", ghe: "tok-a", wantAuth: "Bearer tok-a", wantHint: "GH_ENTERPRISE_TOKEN was refused"},
		{name: "GITHUB_ENTERPRISE_TOKEN", githube: "tok-b", wantAuth: "Bearer tok-b", wantHint: "GITHUB_ENTERPRISE_TOKEN was refused"},
		{name: "GH_ENTERPRISE_TOKEN first", ghe: "tok-a", githube: "tok-b", wantAuth: "Bearer tok-a", wantHint: "GH_ENTERPRISE_TOKEN was refused"},
		{name: "WithToken first", ghe: "tok-a", opts: []github.Option{github.WithToken("tok-c")}, wantAuth: "Bearer tok-c", wantHint: "WithToken was refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GITHUB_TOKEN", "github-com-token")
			t.Setenv("GH_TOKEN", "github-com-token")
			t.Setenv("GITHUB_API_URL", "https://api.github.invalid")
			t.Setenv("GH_ENTERPRISE_TOKEN", tt.ghe)
			t.Setenv("GITHUB_ENTERPRISE_TOKEN", tt.githube)
			f := newFake(t)
			f.addRepo(t, "o", "r")
			f.token = "the-only-good-token"
			host, client := enterprise(t, f)
			t.Setenv("GH_HOST", host)
			src, err := github.Parse("https://" + host + "/o/r/tree/main")
			if err != nil {
				t.Fatal(err)
			}
			_, err = github.NewRemote(src, append([]github.Option{github.WithHTTPClient(client)}, tt.opts...)...).Resolve(t.Context())
			if !errors.Is(err, source.ErrAuthRequired) || !strings.Contains(err.Error(), tt.wantHint) || !strings.Contains(err.Error(), host+"/o/r") {
				t.Errorf("Resolve = %v, want ErrAuthRequired naming %s/o/r and saying %q", err, host, tt.wantHint)
			}
			for _, r := range f.seen() {
				if r.Auth != tt.wantAuth {
					t.Errorf("request %s had Authorization %q, want %q", r.Path, r.Auth, tt.wantAuth)
				}
			}
		})
	}
}

// TestClientServesOneHost refuses a source of another host than the
// client's, before any request, so that no token goes astray.
func TestClientServesOneHost(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	dotcom := f.client(t, github.WithToken("dotcom"))
	ghes, err := github.New(github.WithHost("ghes.example.com"), github.WithAPIURL(f.api.URL), github.WithToken("ghe"))
	if err != nil {
		t.Fatal(err)
	}
	enterpriseSrc := github.Source{Host: "ghes.example.com", Owner: "o", Repo: "r", Ref: "main"}
	dotcomSrc := github.Source{Owner: "o", Repo: "r", Ref: "main"}
	for _, tt := range []struct {
		c   *github.Client
		src github.Source
	}{{dotcom, enterpriseSrc}, {ghes, dotcomSrc}, {ghes, github.Source{Host: "other.example.com", Owner: "o", Repo: "r"}}} {
		if _, err := tt.c.Resolve(t.Context(), tt.src); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Resolve(%s) by another host's client = %v, want ErrInvalid", tt.src, err)
		}
		if _, err := tt.c.Opener(github.Pin{Source: tt.src, Commit: commitA})(t.Context()); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Opener(%s) by another host's client = %v, want ErrInvalid", tt.src, err)
		}
	}
	if n := len(f.seen()); n != 0 {
		t.Errorf("the stand-in saw %d requests, want none", n)
	}
	if _, err := ghes.Resolve(t.Context(), enterpriseSrc); err != nil {
		t.Errorf("Resolve(%s) by its host's client = %v", enterpriseSrc, err)
	}
}

// TestSourceOrigin checks rule 16: a source of github.com is kind github
// at OWNER/REPO, one of another host kind git at HOST/OWNER/REPO, for the
// source as parsed and for its skill alike.
func TestSourceOrigin(t *testing.T) {
	t.Setenv("GITHUB_API_URL", "")
	tests := []struct {
		src        github.Source
		kind, loc  string
		repository string
	}{
		{github.Source{Owner: "Acme", Repo: "Skills"}, "github", "acme/skills", "github:acme/skills"},
		{github.Source{Host: "ghes.example.com", Owner: "Acme", Repo: "Skills", Ref: "main"}, "git", "ghes.example.com/acme/skills", "github:ghes.example.com/acme/skills"},
	}
	for _, tt := range tests {
		got, err := tt.src.Origin()
		if err != nil || string(got.Kind) != tt.kind || got.Location != tt.loc || got.Pinned {
			t.Errorf("%+v.Origin() = %+v, %v; want %q, %q, not pinned", tt.src, got, err, tt.kind, tt.loc)
		}
		if got := github.NewRemote(tt.src).Repository(); got != tt.repository {
			t.Errorf("NewRemote(%+v).Repository() = %q, want %q", tt.src, got, tt.repository)
		}
		c, err := github.New(github.WithHost(tt.src.Host))
		if err != nil {
			t.Fatal(err)
		}
		o := c.Skill("k", github.Pin{Source: tt.src, Commit: commitA}).Source.(github.SkillSource).Origin()
		if string(o.Kind) != tt.kind || o.Location != tt.loc || !o.Pinned {
			t.Errorf("Origin of %+v = %+v, want kind %q at %q, pinned", tt.src, o, tt.kind, tt.loc)
		}
	}
}

// TestSourceOriginAPIHost checks rule 16 for a source without a host
// read through another API than github.com's ($GITHUB_API_URL, as
// Enterprise runners set it, or WithAPIURL): it is that host's
// repository, kind git at HOST/OWNER/REPO, so that a github: pattern,
// which means github.com, never matches it.
func TestSourceOriginAPIHost(t *testing.T) {
	src := github.Source{Owner: "Acme", Repo: "Skills"}
	for _, tt := range []struct{ api, kind, loc string }{
		{"", "github", "acme/skills"},
		{"https://api.github.com", "github", "acme/skills"},
		{"https://API.GitHub.com:443/", "github", "acme/skills"},
		{"https://api.github.com./", "github", "acme/skills"},
		{"https://api.github.com.:0443", "github", "acme/skills"},
		{"https://api.acme.ghe.com./", "git", "acme.ghe.com/acme/skills"},
		{"https://ghe.acme.corp/api/v3", "git", "ghe.acme.corp/acme/skills"},
		{"https://GHE.acme.corp:0443/api/v3", "git", "ghe.acme.corp/acme/skills"},
		{"https://api.acme.ghe.com", "git", "acme.ghe.com/acme/skills"},
		{"http://127.0.0.1:8080", "git", "127.0.0.1:8080/acme/skills"},
	} {
		t.Setenv("GITHUB_API_URL", tt.api)
		got, err := src.Origin()
		if err != nil || string(got.Kind) != tt.kind || got.Location != tt.loc {
			t.Errorf("with GITHUB_API_URL=%s, Origin() = %+v, %v; want %q, %q", tt.api, got, err, tt.kind, tt.loc)
		}
		c, err := github.New()
		if err != nil {
			t.Fatal(err)
		}
		o := c.Skill("k", github.Pin{Source: src, Commit: commitA}).Source.(github.SkillSource).Origin()
		if string(o.Kind) != tt.kind || o.Location != tt.loc {
			t.Errorf("with GITHUB_API_URL=%s, Origin() = %+v; want kind %q at %q", tt.api, o, tt.kind, tt.loc)
		}
	}
	t.Setenv("GITHUB_API_URL", "https://ghe.acme.corp:0/api/v3")
	if _, err := src.Origin(); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("with GITHUB_API_URL naming port 0, Origin() = %v; want ErrInvalid", err)
	}
}

// TestEnterpriseHostileServer checks what an Enterprise host that
// misbehaves gets: a redirect of an API request to another origin
// (github.com's stand-in) is followed without the token, and a rate
// limit says which variables give the host's token.
func TestEnterpriseHostileServer(t *testing.T) {
	const gheToken = "ghe_enterprise-token"
	t.Setenv("GH_ENTERPRISE_TOKEN", gheToken)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "")
	dotcom := newFake(t)
	dotcom.addRepo(t, "o", "r", sampleRepo()...)
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if strings.Contains(r.URL.Path, "/commits/") {
			http.Redirect(w, r, dotcom.api.URL+strings.TrimPrefix(r.URL.Path, "/api/v3"), http.StatusFound)
			return
		}
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", "0")
		apiError(w, http.StatusForbidden, "API rate limit exceeded")
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	t.Setenv("GH_HOST", host)
	src, err := github.Parse("https://" + host + "/o/r/tree/main")
	if err != nil {
		t.Fatal(err)
	}
	r := github.NewRemote(src, github.WithHTTPClient(srv.Client()))
	pin, err := r.Resolve(t.Context())
	if err != nil || pin != commitA {
		t.Fatalf("Resolve through a redirect = %q, %v, want %s", pin, err, commitA)
	}
	for _, req := range dotcom.seen() {
		if req.Auth != "" {
			t.Errorf("the other origin saw Authorization %q on %s, want none", req.Auth, req.Path)
		}
	}
	mu.Lock()
	if len(auths) == 0 || auths[0] != "Bearer "+gheToken {
		t.Errorf("the Enterprise host saw %q, want its token", auths)
	}
	mu.Unlock()
	_, err = r.Open(t.Context(), commitA, "", nil)
	var rl *github.RateLimitError
	if !errors.As(err, &rl) || rl.Host != host || !strings.Contains(err.Error(), "GH_ENTERPRISE_TOKEN") {
		t.Errorf("Open from a rate-limited host = %v, want a RateLimitError of %s", err, host)
	}
	t.Setenv("GH_ENTERPRISE_TOKEN", "")
	_, err = r.Open(t.Context(), commitA, "", nil)
	if !errors.As(err, &rl) || !strings.Contains(err.Error(), "set GH_ENTERPRISE_TOKEN or GITHUB_ENTERPRISE_TOKEN") {
		t.Errorf("Open from a rate-limited host without a token = %v, want it to say which variables give one", err)
	}
}

// TestEnterpriseTokenOnlyToGHHost reads a /tree/ address of a host that
// GH_HOST does not name, as a lock file or a page someone else wrote can
// hold: the environment's Enterprise token is not sent to it (rule 17),
// and the refusal says how to send it; with GH_HOST naming the host it is.
func TestEnterpriseTokenOnlyToGHHost(t *testing.T) {
	const gheToken = "ghe_enterprise-secret"
	for _, tt := range []struct {
		name, ghHost string
		wantAuth     bool
	}{
		{"GH_HOST unset", "", false},
		{"GH_HOST another host", "ghes.example.com", false},
		{"GH_HOST this host", "HOST", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GH_ENTERPRISE_TOKEN", gheToken)
			t.Setenv("GITHUB_ENTERPRISE_TOKEN", "")
			f := newFake(t)
			f.addRepo(t, "o", "r")
			f.token = gheToken
			host, client := enterprise(t, f)
			if tt.ghHost == "HOST" {
				tt.ghHost = host
			}
			t.Setenv("GH_HOST", tt.ghHost)
			src, err := github.Parse("https://" + host + "/o/r/tree/main")
			if err != nil {
				t.Fatal(err)
			}
			_, err = github.NewRemote(src, github.WithHTTPClient(client)).Resolve(t.Context())
			if tt.wantAuth && err != nil {
				t.Errorf("Resolve with GH_HOST=%s = %v, want the token sent", host, err)
			}
			if !tt.wantAuth && (!errors.Is(err, source.ErrAuthRequired) || !strings.Contains(err.Error(), "GH_HOST="+host)) {
				t.Errorf("Resolve = %v, want ErrAuthRequired saying to set GH_HOST=%s", err, host)
			}
			for _, r := range f.seen() {
				if got := r.Auth != ""; got != tt.wantAuth {
					t.Errorf("request %s had Authorization %q; want a token: %v", r.Path, r.Auth, tt.wantAuth)
				}
			}
		})
	}
}

// TestSourceOriginPinned: a source is pinned by a full commit id in
// lower-case hex, or in either case on an Enterprise host, whose web
// address is read in either case.
func TestSourceOriginPinned(t *testing.T) {
	t.Setenv("GITHUB_API_URL", "")
	upper := strings.ToUpper(commitA)
	for _, tt := range []struct {
		src    github.Source
		pinned bool
	}{
		{github.Source{Owner: "acme", Repo: "tools", Ref: commitA}, true},
		{github.Source{Owner: "acme", Repo: "tools", Ref: "main"}, false},
		{github.Source{Owner: "acme", Repo: "tools", Ref: upper}, false},
		{github.Source{Host: "ghes.example.com", Owner: "acme", Repo: "tools", Ref: upper}, true},
	} {
		got, err := tt.src.Origin()
		if err != nil || got.Pinned != tt.pinned || got.Display != tt.src.String() {
			t.Errorf("%+v.Origin() = %+v, %v; want pinned %v, shown as %s", tt.src, got, err, tt.pinned, tt.src.String())
		}
	}
}
