package install

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
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
		return New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(Trust{Policy: p}))
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
			_, err := newInstaller(t, f).Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "redirected to "+tt.hop) {
				t.Fatalf("Add(%s) = %v; want ErrRefused naming the hop %s", src, err, tt.hop)
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
		if _, err := newInstaller(t, f).Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatalf("Add(%s) = %v; want it installed through the allowed hop", src, err)
		}
	})
	t.Run("without a policy", func(t *testing.T) {
		f := newFixture(t)
		src := allowed.URL + "/kits/away.tgz"
		in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()))
		if _, err := in.Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatalf("Add(%s) without trust checks = %v; want the redirect followed", src, err)
		}
	})
}
