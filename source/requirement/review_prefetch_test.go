package requirement_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocitest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/requirement"
	"github.com/agentadaptor/agentadaptor/trust"
)

type recordingRT struct {
	mu   sync.Mutex
	urls []string
}

func (r *recordingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// REVIEW: a policy that allows only local folders refuses the required
// OCI skill, but the resolver has already contacted the denied registry
// and downloaded the skill's layer (a blob GET) before the trust check.
func TestReviewDeniedRegistryContactedBeforeTrustCheck(t *testing.T) {
	hermetic(t)
	reg := ocitest.New(t)
	reg.Push(t, "acme/semver", "v1.0.0", "semver", skillMD("semver", "", "Semver."))
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", "oci://"+reg.Host+"/acme/semver:^1", "Cut.")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse([]byte("version: 1\nsources:\n  allow: [\"local:/**\"]\n"), "test.policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	rt := &recordingRT{}
	r, err := requirement.New(requirement.WithCache(cache), requirement.WithOCIOptions(oci.WithHTTPClient(&http.Client{Transport: rt})))
	if err != nil {
		t.Fatal(err)
	}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))),
		adaptor.WithRequirementResolver(r), adaptor.WithRequires(), adaptor.WithSkills(skill.Dir(release)))
	_, err = agent.Run(t.Context(), "x")
	if !errors.Is(err, trust.ErrRefused) {
		t.Fatalf("Run = %v; want a refusal", err)
	}
	var blobs []string
	for _, u := range rt.urls {
		if strings.Contains(u, "/blobs/") {
			blobs = append(blobs, u)
		}
	}
	t.Logf("requests to the denied registry: %q", rt.urls)
	if len(rt.urls) > 0 {
		t.Errorf("the policy denies %s, yet the run sent %d requests to it (%d blob downloads) before refusing", reg.Host, len(rt.urls), len(blobs))
	}
}
