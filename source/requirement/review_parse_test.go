package requirement_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/requirement"
)

func TestReviewHostileTexts(t *testing.T) {
	hermetic(t)
	var mu sync.Mutex
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.URL.String())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	gh, err := github.New(github.WithAPIURL(srv.URL), github.WithToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := requirement.New(requirement.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), requirement.WithGitHubClient(gh))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"%2e%2e/x", "..%2fx", ".\\x", "file:///etc/skills", "acme/../../x", "acme/skills/../../evil@^1",
		"github:acme/skills/../../evil@^1", "github:acme/skills/%2e%2e/evil@^1", "github:acme/skills/..%2f..%2fevil@^1",
		"C:\\skills\\x", "\\\\server\\share\\x", "~/x", "github:../evil/x", "acme/skills/a\\..\\..\\b@^1",
		"git+file:///etc", "git+https://github.com/acme/../evil/x#ref=^1", "oci://ghcr.io/acme/../evil:^1",
	} {
		mu.Lock()
		hits = nil
		mu.Unlock()
		_, err := r.ResolveRequirement(t.Context(), skill.Requirement{Text: text, By: skill.Skill{Key: "by"}})
		mu.Lock()
		t.Logf("%-45q hits=%q err=%v", text, hits, err)
		mu.Unlock()
	}
}
