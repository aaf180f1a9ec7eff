package requirement_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/requirement"
)

type countingMerger struct {
	*requirement.Resolver
	sizes []int
}

func (c *countingMerger) MergeRequirements(ctx context.Context, rs []skill.Requirement) (skill.Skill, bool, error) {
	c.sizes = append(c.sizes, len(rs))
	start := time.Now()
	s, ok, err := c.Resolver.MergeRequirements(ctx, rs)
	fmt.Printf("MergeRequirements(%d requirements) took %v: %v\n", len(rs), time.Since(start), err)
	return s, ok, err
}

// REVIEW: one SKILL.md lists k ranges of one repository that all pick
// the same tag (so they agree and accumulate), then one that picks
// another: the merger is handed all k+1 and joinRanges builds 2^k
// groups. k may be 63 (skillmd.MaxRequires is 64).
func TestReviewMergeExplosionReachable(t *testing.T) {
	hermetic(t)
	url, _ := repo(t, "", "v1.0.0", "v1.2.0")
	const k = 17
	var reqs []string
	for i := range k {
		reqs = append(reqs, fmt.Sprintf("%s#ref=^1||^0.%d&path=changelog", url, i+1))
	}
	reqs = append(reqs, url+"#ref=~1.0&path=changelog")
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", strings.Join(reqs, " "), "Cut.")), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	m := &countingMerger{Resolver: r}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(cache), adaptor.WithRequirementResolver(m),
		adaptor.WithSkills(skill.WithRequires(skill.Dir(release))))
	_, err = agent.Run(t.Context(), "x")
	t.Logf("Run = %.300v; merges asked with %v requirements", err, m.sizes)
}
