package install

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestTrustPolicyChecksRedirects checks Trust rule 1 for downloads: when
// a policy is in force, every redirect of a URL source is checked as a
// URL source of its own, and a hop the policy does not allow is refused
// before it is requested, naming the hop; nothing is installed. A hop
// the policy allows is followed.
func TestTrustPolicyChecksRedirects(t *testing.T) {
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": "---\nname: kit\ndescription: a kit\n---\nInstructions.\n"})
	var deniedHits atomic.Int32
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deniedHits.Add(1)
		w.Write(body)
	}))
	defer denied.Close()
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/kits/away.tgz":
			http.Redirect(w, r, denied.URL+"/evil.tgz", http.StatusFound)
		case "/kits/hop.tgz":
			http.Redirect(w, r, "/kits/kit.tgz", http.StatusFound)
		case "/kits/out.tgz":
			http.Redirect(w, r, "/other/kit.tgz", http.StatusMovedPermanently)
		case "/kits/dots.tgz":
			http.Redirect(w, r, "/kits/%2e%2e/other/kit.tgz", http.StatusFound)
		case "/kits/kit.tgz", "/other/kit.tgz":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer allowed.Close()
	newInstaller := func(t *testing.T, f *fixture) *Installer {
		p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"url:"+allowed.URL+"/kits/**\"]\n")
		return New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
	}
	for _, tt := range []struct{ path, hop string }{
		{"/kits/away.tgz", denied.URL + "/evil.tgz"},
		{"/kits/out.tgz", allowed.URL + "/other/kit.tgz"},
		{"/kits/dots.tgz", allowed.URL + "/kits/%2e%2e/other/kit.tgz"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			f := newFixture(t)
			src := allowed.URL + tt.path
			deniedHits.Store(0)
			_, err := newInstaller(t, f).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			var re *trust.RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "redirected to "+tt.hop) {
				t.Fatalf("Add(%s) = %v; want a *trust.RefusedError naming the hop %s", src, err, tt.hop)
			}
			if !strings.Contains(tt.path, "dots") {
				var de *policy.DeniedError
				if !errors.As(err, &de) || de.Rule != "sources.allow" {
					t.Errorf("Add(%s) = %v; want a policy.DeniedError of sources.allow", src, err)
				}
			}
			if n := deniedHits.Load(); n != 0 {
				t.Errorf("Add(%s) requested the denied hop %d times", src, n)
			}
			assertNothingInstalled(t, f)
		})
	}
	t.Run("an allowed hop", func(t *testing.T) {
		f := newFixture(t)
		src := allowed.URL + "/kits/hop.tgz"
		if _, err := newInstaller(t, f).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatalf("Add(%s) = %v; want it installed through the allowed hop", src, err)
		}
	})
	t.Run("without a policy", func(t *testing.T) {
		f := newFixture(t)
		src := allowed.URL + "/kits/away.tgz"
		in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()))
		if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatalf("Add(%s) without trust checks = %v; want the redirect followed", src, err)
		}
	})
}

// TestTrustGitRedirects checks Trust rule 1 for git sources over http:
// a redirect to another host is refused before anything is asked there,
// a redirect within the host to a repository the policy does not allow
// is refused naming it, and one it allows is followed.
func TestTrustGitRedirects(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	for _, name := range []string{"acme/kit", "acme/moved", "evil/kit"} {
		gitRepo(t, filepath.Join(root, filepath.FromSlash(name)), map[string]string{"SKILL.md": "---\nname: kit\ndescription: a kit\n---\nInstructions.\n"})
	}
	var otherHits atomic.Int32
	other := gitHTTPServer(t, root)
	otherURL := other.URL
	counted := other.Config.Handler
	other.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		counted.ServeHTTP(w, r)
	})
	backend := gitHTTPServer(t, root).Config.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := r.URL.RequestURI()
		switch {
		case strings.HasPrefix(rest, "/acme/away/.git/"):
			http.Redirect(w, r, otherURL+"/acme/kit/.git/"+strings.TrimPrefix(rest, "/acme/away/.git/"), http.StatusFound)
		case strings.HasPrefix(rest, "/acme/old/.git/"):
			http.Redirect(w, r, "/acme/moved/.git/"+strings.TrimPrefix(rest, "/acme/old/.git/"), http.StatusMovedPermanently)
		case strings.HasPrefix(rest, "/team/kit/.git/"):
			http.Redirect(w, r, "/acme/kit/.git/"+strings.TrimPrefix(rest, "/team/kit/.git/"), http.StatusMovedPermanently)
		case strings.HasPrefix(rest, "/acme/out/.git/"):
			http.Redirect(w, r, "/evil/kit/.git/"+strings.TrimPrefix(rest, "/acme/out/.git/"), http.StatusMovedPermanently)
		default:
			backend.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	newInstaller := func(t *testing.T, f *fixture) *Installer {
		p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"git:"+host+"/acme/**\"]\n")
		return New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
	}
	for _, tt := range []struct{ path, want string }{
		{"/acme/away/.git", otherURL + "/acme/kit/.git"},
		{"/acme/out/.git", "sources.allow"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			f := newFixture(t)
			otherHits.Store(0)
			src := "git+" + srv.URL + tt.path
			_, err := newInstaller(t, f).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, trust.ErrRefused) || !errors.Is(err, source.ErrRedirected) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Add(%s) = %v; want trust.ErrRefused, a redirect refused, naming %s", src, err, tt.want)
			}
			if n := otherHits.Load(); n != 0 {
				t.Errorf("Add(%s) asked the other host %d times", src, n)
			}
			assertNothingInstalled(t, f)
		})
	}
	// A redirect to an address a commits rule names, which the source's
	// own does not: the rule would not be checked, so it is refused.
	t.Run("to a signed-commits address", func(t *testing.T) {
		f := newFixture(t)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "allowed_signers"), []byte("alice@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o644)
		p := parsePolicy(t, dir, "version: 1\nsources:\n  allow: [\"git:"+host+"/**\"]\nsigners:\n  - sources: [\"git:"+host+"/acme/**\"]\n    commits: {allowed_signers: allowed_signers}\n")
		in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
		src := "git+" + srv.URL + "/team/kit/.git"
		_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
		if !errors.Is(err, trust.ErrRefused) || !errors.Is(err, source.ErrRedirected) || !strings.Contains(err.Error(), "signers[1]") {
			t.Errorf("Add(%s) = %v; want trust.ErrRefused, a redirect refused, naming the commits rule", src, err)
		}
		assertNothingInstalled(t, f)
	})
	t.Run("an allowed redirect", func(t *testing.T) {
		f := newFixture(t)
		src := "git+" + srv.URL + "/acme/old/.git"
		if _, err := newInstaller(t, f).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Errorf("Add(%s) = %v; want it installed through the redirect the policy allows", src, err)
		}
	})
}
