package requirement_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/requirement"
)

// REVIEW: the run's error shows a requirement's credentials, though the
// source packages redact them from their own words.
func TestReviewRequirementErrorLeaksCredentials(t *testing.T) {
	hermetic(t)
	for _, text := range []string{
		"git+https://deploy:s3cretpassw0rd@127.0.0.1:1/acme/skills.git#ref=^1&path=changelog",
	} {
		release := filepath.Join(t.TempDir(), "release")
		if err := os.MkdirAll(release, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", text, "Cut.")), 0o644); err != nil {
			t.Fatal(err)
		}
		cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
		r, err := requirement.New(requirement.WithCache(cache))
		if err != nil {
			t.Fatal(err)
		}
		agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(cache), adaptor.WithRequirementResolver(r),
			adaptor.WithSkills(skill.WithRequires(skill.Dir(release))))
		_, err = agent.Run(t.Context(), "x")
		if err == nil || strings.Contains(err.Error(), "s3cretpassw0rd") {
			t.Errorf("Run = %v; the message shows the password", err)
		}
	}
}
