package requirement_test

import (
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/requirement"
)

// REVIEW: rule 5 says WithGitHubClient gives the client "for every
// source"; the client refuses an Enterprise host's source before any
// request, so every GHES requirement fails.
func TestReviewGitHubClientEveryHost(t *testing.T) {
	gh, err := github.New(github.WithAPIURL("http://127.0.0.1:1"), github.WithToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := requirement.New(requirement.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), requirement.WithGitHubClient(gh))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ResolveRequirement(t.Context(), skill.Requirement{Text: "https://ghe.example.com/acme/skills/tree/main/changelog", By: skill.Skill{Key: "by"}})
	t.Logf("web address: %v", err)
	_, err = r.ResolveRequirement(t.Context(), skill.Requirement{Text: "github:ghe.example.com/acme/skills/changelog@^1", By: skill.Skill{Key: "by"}})
	t.Logf("github:HOST: %v", err)
}
