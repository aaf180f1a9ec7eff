package install

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestPolicySourceRefusesDotSegments checks Trust rule 1: a git or URL
// source whose path has a "." or ".." segment, also percent-encoded, is
// refused when it is mapped for the policy, so a pattern such as
// allowed/** cannot be escaped by allowed/../evil.
func TestPolicySourceRefusesDotSegments(t *testing.T) {
	in := New(Env{Home: t.TempDir(), Project: t.TempDir()})
	for _, src := range []string{
		"git+file:///srv/allowed/../evil/repo",
		"git+file:///srv/allowed/./repo",
		"git+https://git.example.org/allowed/../evil/skills.git",
		"git+https://git.example.org/allowed/%2e%2e/evil/skills.git",
		"git+https://git.example.org/allowed/%2E%2E/evil/skills.git#ref=v1",
		"git+ssh://git@git.example.org/allowed/..%2fevil/skills.git",
		"https://example.org/kits/../evil.tgz",
		"http://127.0.0.1:18765/kits/../evil.tgz",
		"http://127.0.0.1:18765/kits/%2e%2e/evil.tgz",
		"http://127.0.0.1:18765/kits/.%2E/evil.tgz",
		"http://127.0.0.1:18765/kits/..%2Fevil.tgz",
		"http://127.0.0.1:18765/kits/%2e/kit.tgz",
		"http://127.0.0.1:18765/kits/..",
	} {
		ps, err := in.Origin(src)
		if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "the source's path has a '..' segment; write it without") {
			t.Errorf("Origin(%q) = %+v, %v; want ErrInvalidSource about the '..' segment", src, ps, err)
		}
	}
	// Dots inside a name are not segments.
	for _, src := range []string{
		"https://example.org/kits/v1..2/kit.tgz",
		"https://example.org/kits/.well-known/kit.tgz",
		"git+https://git.example.org/team/skills..old.git",
	} {
		if _, err := in.Origin(src); err != nil {
			t.Errorf("Origin(%q) = %v; want it mapped", src, err)
		}
	}
}

// TestTrustPolicyDotSegmentsRefusedBeforeReading checks Trust rule 1
// end to end: with a policy allowing URL/kits/**, an Add of
// URL/kits/../evil.tgz (or %2e%2e) is refused before any request and
// nothing is installed.
func TestTrustPolicyDotSegmentsRefusedBeforeReading(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	for _, rel := range []string{"/kits/../evil.tgz", "/kits/%2e%2e/evil.tgz", "/kits/%2E%2E%2Fevil.tgz"} {
		t.Run(rel, func(t *testing.T) {
			f := newFixture(t)
			p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"url:"+srv.URL+"/kits/**\"]\n")
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
			src := srv.URL + rel
			hits.Store(0)
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "'..' segment") {
				t.Fatalf("Add(%s) = %v; want ErrInvalidSource about the '..' segment", src, err)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("Add(%s) sent %d requests", src, n)
			}
			assertNothingInstalled(t, f)
		})
	}
}
