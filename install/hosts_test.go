package install

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestHostedSourceKinds checks rule 13's order for http(s) URLs: GitHub,
// then an archive by extension or #sha256=, then a repository on
// another host, else an archive recognised by content.
func TestHostedSourceKinds(t *testing.T) {
	t.Setenv("GH_HOST", "ghes.example.com")
	sum := strings.Repeat("0f", 32)
	in := New(Env{Home: t.TempDir(), Project: t.TempDir()})
	tests := []struct {
		source string
		want   string // the Remote's Repository, or "" for an archive download
	}{
		{"https://github.com/acme/tools/tree/main/skills", "github:acme/tools"},
		{"https://gitlab.com/group/sub/repo/-/tree/main/skills/review", "git:https://gitlab.com/group/sub/repo.git"},
		{"https://gitlab.com/group/sub/repo", "git:https://gitlab.com/group/sub/repo.git"},
		{"https://oauth2@gitlab.example.org/group/repo/-/tree/v1?ref_type=tags", "git:https://gitlab.example.org/group/repo.git"},
		{"https://codeberg.org/owner/repo/src/branch/main/skills", "git:https://codeberg.org/owner/repo.git"},
		{"https://git.example.org/owner/repo/src/tag/v1", "git:https://git.example.org/owner/repo.git"},
		{"https://bitbucket.org/owner/repo/src/main/skills", "git:https://bitbucket.org/owner/repo.git"},
		{"https://git.example.org/team/skills.git#ref=v1&path=skills", "git:https://git.example.org/team/skills.git"},
		{"https://other.example.org/o/r/tree/main/skills", "github:other.example.org/o/r"},
		{"https://GHES.example.com/O/R", "github:ghes.example.com/o/r"},
		{"https://ghes.example.com/o/r.git", "github:ghes.example.com/o/r"},
		// Archives.
		{"https://example.org/kit.tgz", ""},
		{"https://example.org/owner/repo", ""},
		{"https://example.org/download?id=3", ""},
		{"https://gitlab.com/group/repo/-/archive/main/repo-main.tar.gz", ""},
		{"https://gitlab.com/group/repo/-/raw/main/kit.zip", ""},
		{"https://gitlab.com/group/kit.ZIP", ""},
		{"https://codeberg.org/owner/repo/archive/main.tar.gz", ""},
		{"https://bitbucket.org/owner/repo/get/main.tar.gz", ""},
		{"https://git.example.org/team/skills.git#sha256=" + sum, ""},
		{"https://gitlab.com/group/repo/-/blob/main/SKILL.md", ""},
		{"http://gitlab.com/group/repo", ""},
		{"https://github.com/acme/tools/archive/v1.tar.gz", ""},
	}
	// The mark of a repository's address that cannot be read is an
	// error, never a download.
	for _, src := range []string{
		"https://user:secret@git.example.org/team/skills.git",
		"https://gitlab.com/group/repo/-/tree/a..b/skills",
		"https://gitlab.com/group/../repo/-/tree/main",
		"https://codeberg.org/owner/repo/src/branch/-x",
		"https://git.example.org/owner/re~po/src/tag/v1",
	} {
		rs, err := in.parseRemote(src)
		if !errors.Is(err, ErrInvalidSource) || strings.Contains(fmt.Sprint(err), "secret") {
			t.Errorf("parseRemote(%q) = %v, %v, want ErrInvalidSource without the password", src, rs, err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			rs, err := in.parseRemote(tt.source)
			if err != nil {
				t.Fatalf("parseRemote(%q) = %v", tt.source, err)
			}
			got := ""
			if rs != nil {
				got = rs.Repository()
			}
			if got != tt.want {
				t.Errorf("parseRemote(%q) reads %q, want %q", tt.source, got, tt.want)
			}
		})
	}
}

// TestHostedPolicySource checks how the policy sees a repository on
// another host (# Trust, rule 1): kind git at HOST/PATH, a GitHub
// Enterprise one too, so that a github: pattern never matches it.
func TestHostedPolicySource(t *testing.T) {
	t.Setenv("GH_HOST", "")
	commit := strings.Repeat("a1", 20)
	in := New(Env{Home: t.TempDir(), Project: t.TempDir()})
	tests := []struct {
		name, source string
		want         source.Origin
	}{
		{"GitLab subgroup", "https://gitlab.com/group/sub/repo/-/tree/main/skills", source.Origin{Kind: "git", Location: "gitlab.com/group/sub/repo"}},
		{"GitLab repository page", "https://gitlab.com/group/sub/repo", source.Origin{Kind: "git", Location: "gitlab.com/group/sub/repo"}},
		{"GitLab at a commit, with a token", "https://glpat-secret@gitlab.com/group/repo/-/tree/" + commit,
			source.Origin{Kind: "git", Location: "gitlab.com/group/repo", Pinned: true, Display: "https://gitlab.com/group/repo/-/tree/" + commit}},
		{"Codeberg", "https://codeberg.org/owner/repo/src/branch/main", source.Origin{Kind: "git", Location: "codeberg.org/owner/repo"}},
		{"git address", "https://git.example.org/team/skills.git#ref=v1", source.Origin{Kind: "git", Location: "git.example.org/team/skills"}},
		{"GitHub Enterprise", "https://ghes.example.com/Acme/Tools/tree/main/skills", source.Origin{Kind: "git", Location: "ghes.example.com/acme/tools"}},
		{"GitHub Enterprise at a commit", "https://ghes.example.com/acme/tools/tree/" + commit, source.Origin{Kind: "git", Location: "ghes.example.com/acme/tools", Pinned: true}},
		{"GitHub Enterprise page without GH_HOST: an archive", "https://ghes.example.com/acme/tools", source.Origin{Kind: "url", Location: "https://ghes.example.com/acme/tools"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want.Display == "" {
				want.Display = tt.source
			}
			got, err := in.Origin(tt.source)
			if err != nil {
				t.Fatalf("Origin(%q) = %v", tt.source, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Origin(%q) (-want +got):\n%s", tt.source, diff)
			}
		})
	}
	// A '..' element, also encoded, is refused, not read as another
	// repository (# Trust, rule 1).
	for _, src := range []string{"https://gitlab.com/group/../evil/-/tree/main", "https://gitlab.com/group/%2e%2e/evil", "https://ghes.example.com/o/r/tree/main/../x"} {
		if got, err := in.Origin(src); !errors.Is(err, ErrInvalidSource) {
			t.Errorf("Origin(%q) = %+v, %v, want ErrInvalidSource", src, got, err)
		}
	}
	// A github: pattern means github.com: it refuses the Enterprise
	// repository of the same OWNER/REPO, which a git: pattern allows.
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"github:acme/*\"]\n")
	ghes, _ := in.Origin("https://ghes.example.com/acme/tools/tree/main")
	dotcom, _ := in.Origin("https://github.com/acme/tools/tree/main")
	if err := p.Check(ghes); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("Check(%+v) with github:acme/* = %v, want ErrDenied", ghes, err)
	}
	if err := p.Check(dotcom); err != nil {
		t.Errorf("Check(%+v) with github:acme/* = %v, want allowed", dotcom, err)
	}
	p = parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"git:ghes.example.com/acme/*\", \"git:gitlab.com/group/**\"]\n")
	gitlab, _ := in.Origin("https://gitlab.com/group/sub/repo/-/tree/main")
	for _, s := range []source.Origin{ghes, gitlab} {
		if err := p.Check(s); err != nil {
			t.Errorf("Check(%+v) with git: patterns = %v, want allowed", s, err)
		}
	}
}

// gitLabStandIn serves the repository in dir as group/sub/repo.git over
// smart HTTP (git http-backend), asking for user and password when
// password is set, and sends git's https://gitlab.com/ there with
// url.insteadOf in a temporary global git configuration, whose
// credential helper, when password is set, answers for the stand-in: a
// private repository read with the credentials git already has. It
// returns the paths and Authorization headers the stand-in saw.
func gitLabStandIn(t *testing.T, dir, password string) func() (paths, auths []string) {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git:", err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "group", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, filepath.Join(root, "group", "sub", "repo.git")); err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{
		Path:   gitPath,
		Args:   []string{"http-backend"},
		Stderr: io.Discard,
		Env:    []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull},
	}
	var mu sync.Mutex
	var paths, auths []string
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("reader:"+password))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if password != "" && r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Basic realm="gitlab"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	config := "[url \"" + srv.URL + "/\"]\n\tinsteadOf = https://gitlab.com/\n"
	if password != "" {
		config += "[credential]\n\thelper = \"!f() { echo username=reader; echo password=" + password + "; }; f\"\n"
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return func() ([]string, []string) {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...), append([]string(nil), auths...)
	}
}

// TestAddGitLabTree adds a folder of a private repository in a GitLab
// subgroup by its /-/tree/ address, from a smart-HTTP stand-in that git
// reaches through its own url.insteadOf (see gitLabStandIn): the lock
// file records the address as typed with the pin, and neither it nor
// the messages hold the password git's credential helper gave; a sync
// reads it again at the pin.
func TestAddGitLabTree(t *testing.T) {
	const password = "glpat-private-password"
	repo := filepath.Join(t.TempDir(), "repo")
	commit := gitRepo(t, repo, map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  skillMD("beta"),
		"docs/README.md":        "docs\n",
	})
	seen := gitLabStandIn(t, repo, password)
	const src = "https://gitlab.com/group/sub/repo/-/tree/main/skills/alpha?ref_type=heads"
	f := newFixture(t)
	in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()))
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")})
	if err != nil {
		t.Fatalf("Add(%s) = %v", src, err)
	}
	for _, c := range changes {
		if c.Skill != "alpha" {
			t.Errorf("Add(%s) changed %+v, want alpha alone", src, c)
		}
	}
	lockFile := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	if e := lock.Skills["alpha"]; e == nil || e.Source != src || e.Pin != commit {
		t.Errorf("the lock file records %+v for alpha, want source %s at %s", e, src, commit)
	}
	data, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), password) || strings.Contains(string(data), "127.0.0.1") {
		t.Errorf("the lock file holds the password or the stand-in's address:\n%s", data)
	}
	paths, auths := seen()
	if len(paths) == 0 || !strings.HasPrefix(paths[0], "/group/sub/repo.git/") {
		t.Errorf("the stand-in was asked for %q, want /group/sub/repo.git/...", paths)
	}
	if !cmpContains(auths, "Basic ") {
		t.Errorf("the stand-in saw no credentials (%q), want git's credential helper's", auths)
	}
	// A sync restores the skill from the recorded address at its pin.
	if err := os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "alpha")); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Sync(t.Context(), SyncRequest{}); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "alpha", "SKILL.md")); err != nil {
		t.Errorf("Sync did not restore alpha: %v", err)
	}
}

// cmpContains reports whether any of list starts with prefix.
func cmpContains(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestAddGitLabRefusedCredentials checks that a private repository
// without credentials fails as unavailable, saying so, and installs
// nothing.
func TestAddGitLabRefusedCredentials(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	gitLabStandIn(t, repo, "needed")
	// Keep git's rewrite to the stand-in, drop the credential helper.
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	data, err := os.ReadFile(global)
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := strings.Cut(string(data), "[credential]")
	if err := os.WriteFile(global, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()))
	const src = "https://gitlab.com/group/sub/repo/-/tree/main/skills/alpha"
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")})
	t.Logf("error: %v", err)
	if !errors.Is(err, ErrSourceUnavailable) || !strings.Contains(err.Error(), "gitlab.com/group/sub/repo") {
		t.Fatalf("Add(%s) without credentials = %v, want ErrSourceUnavailable naming the repository", src, err)
	}
	assertNothingInstalled(t, f)
}

// enterpriseFront is a stand-in GitHub Enterprise Server (TLS, on
// loopback) or github.com API (plain) in front of g: it records the
// Authorization header of every request, and passes g's own token on
// only for the token that host accepts, stripping prefix from the path.
func enterpriseFront(t *testing.T, g *fakeGitHub, tls bool, prefix, accept string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var auths []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") == "Bearer "+accept {
			r.Header.Set("Authorization", "Bearer "+g.token)
		} else {
			r.Header.Del("Authorization")
		}
		http.StripPrefix(prefix, g.api.Config.Handler).ServeHTTP(w, r)
	})
	srv := httptest.NewUnstartedServer(h)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auths...)
	}
}

// TestAddGitHubEnterprise adds a folder of a GitHub Enterprise
// repository by its /tree/ address, through the host's /api/v3, and one
// of github.com, with both hosts' tokens in the environment: each host
// sees only its own token, and the lock file records the address as
// typed with its pin, and no token.
func TestAddGitHubEnterprise(t *testing.T) {
	const dotcomToken, gheToken = "ghp_dotcom-public", "ghe_enterprise-secret"
	g := newFakeGitHub(t)
	g.publish("main", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta")})
	ghes, gheAuths := enterpriseFront(t, g, true, "/api/v3", gheToken)
	dotcom, dotcomAuths := enterpriseFront(t, g, false, "", dotcomToken)
	t.Setenv("GITHUB_API_URL", dotcom.URL)
	t.Setenv("GITHUB_TOKEN", dotcomToken)
	t.Setenv("GH_ENTERPRISE_TOKEN", gheToken)
	host := strings.TrimPrefix(ghes.URL, "https://")
	t.Setenv("GH_HOST", host) // the user's Enterprise host: its token goes there only
	tests := []struct {
		source, skill string
		auths         func() []string
		want          string
	}{
		{"https://" + host + "/o/skills/tree/main/skills/alpha", "alpha", gheAuths, gheToken},
		{"https://github.com/o/skills/tree/main/skills/beta", "beta", dotcomAuths, dotcomToken},
	}
	for _, tt := range tests {
		t.Run(tt.skill, func(t *testing.T) {
			f := newFixture(t)
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithHTTPClient(ghes.Client()))
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{tt.source}, Agents: agentsOf(t, "codex")}); err != nil {
				t.Fatalf("Add(%s) = %v", tt.source, err)
			}
			lockFile := filepath.Join(f.env.Project, ".agents", lockName)
			lock, err := readLock(lockFile)
			if err != nil {
				t.Fatal(err)
			}
			if e := lock.Skills[tt.skill]; e == nil || e.Source != tt.source || e.Pin != commitA {
				t.Errorf("the lock file records %+v for %s, want source %s at %s", e, tt.skill, tt.source, commitA)
			}
			data, _ := os.ReadFile(lockFile)
			if strings.Contains(string(data), gheToken) || strings.Contains(string(data), dotcomToken) {
				t.Errorf("the lock file holds a token:\n%s", data)
			}
		})
	}
	for _, tt := range tests {
		auths := tt.auths()
		if len(auths) == 0 {
			t.Errorf("the stand-in of %s saw no request", tt.source)
		}
		for _, a := range auths {
			if a != "Bearer "+tt.want {
				t.Errorf("the stand-in of %s saw Authorization %q, want only its own token", tt.source, a)
			}
		}
	}
}

// TestGitHubPrefixedEnterpriseAddress checks that an Enterprise address
// written after github: is seen by the policy as the repository of its
// host, not as github.com's repository of the same name: a policy that
// allows github:acme/* refuses it before any request (# Trust, rule 1).
func TestGitHubPrefixedEnterpriseAddress(t *testing.T) {
	t.Setenv("GH_HOST", "")
	const text = "github:https://ghes.invalid/acme/skills/tree/main/skills/alpha"
	f := newFixture(t)
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"github:acme/*\"]\n")
	in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
	got, err := in.Origin(text)
	if err != nil || got.Kind != "git" || got.Location != "ghes.invalid/acme/skills" {
		t.Errorf("Origin(%s) = %+v, %v; want kind git at ghes.invalid/acme/skills", text, got, err)
	}
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{text}, Agents: agentsOf(t, "codex")}); !errors.Is(err, trust.ErrRefused) {
		t.Errorf("Add(%s) under a policy allowing github:acme/* = %v, want trust.ErrRefused", text, err)
	}
	assertNothingInstalled(t, f)
}

// TestPolicySourceKindIsParsesKind checks # Trust, rule 1: the policy
// sees a source as the kind source.Parse tells, which is the kind that
// is read, whatever its spelling.
func TestPolicySourceKindIsParsesKind(t *testing.T) {
	t.Setenv("GH_HOST", "")
	in := New(Env{Home: t.TempDir(), Project: t.TempDir()})
	for text, kind := range map[string]string{
		"oci://ghcr.io/acme/skills:v1":                 "oci",
		"git+https://gitlab.com/acme/skills.git":       "git",
		"https://gitlab.com/acme/skills/-/tree/main/x": "git",
		"github:acme/skills":                           "github",
		"acme/skills":                                  "github",
		"https://github.com/acme/skills":               "github",
		"https://github.com/acme/skills/tree/main/x":   "github",
		"http://github.com/acme/skills":                "url", // not a GitHub source: a download, as Add reads it
		"https://github.com/acme/skills?tab=readme":    "url",
		"https://example.com/kit.zip":                  "url",
		"https://example.com/":                         "url",
		"./kit":                                        "local",
	} {
		spec, err := source.Parse(text)
		if err != nil {
			t.Fatalf("source.Parse(%q) = %v", text, err)
		}
		got, err := in.Origin(text)
		if err != nil || string(got.Kind) != kind {
			t.Errorf("Origin(%q) = %+v, %v; want kind %s (source.Parse: %s)", text, got, err, kind, spec.Kind)
		}
	}
}
