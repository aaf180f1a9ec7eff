package adaptor_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentadaptor/agentadaptor/source"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// REVIEW: a hostile SKILL.md names a folder far outside its own with
// "../" segments; the folder has no SKILL.md. Does the run copy it into
// the skill cache before failing?
func TestReviewRelativeEscapeCopiesFolder(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "home", "user", ".ssh")
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "id_ed25519"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(base, "proj", ".agents", "skills")
	rel, _ := filepath.Rel(filepath.Join(skills, "evil"), secret)
	writeSkills(t, skills, map[string]string{"evil": "./" + filepath.ToSlash(rel)})
	root := cachetest.Root(t)
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root))
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithRequires(),
		adaptor.WithSkills(skill.Dir(filepath.Join(skills, "evil"))))
	_, err := agent.Run(t.Context(), "x")
	t.Logf("requirement %q: Run = %v", "./"+filepath.ToSlash(rel), err)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "PRIVATE KEY") {
				t.Errorf("the secret folder's file was copied into the skill cache: %s", p)
			}
		}
		return nil
	})
}

// REVIEW: a provider's Required skill (or a named skill with a Reason)
// is the very folder a followed skill requires; the run fails with a
// key conflict though both name the same folder.
func TestReviewRequiredNamedSameFolderConflicts(t *testing.T) {
	root := writeSkills(t, t.TempDir(), map[string]string{"release": "../changelog", "changelog": ""})
	changelog := skill.Dir(filepath.Join(root, "changelog"))
	changelog.Required = true
	agent := reqAgent(t, &drivertest.Driver{}, adaptor.WithSkillProvider(skill.Set{"changelog": changelog}),
		adaptor.WithSkills(skill.WithRequires(skill.Dir(filepath.Join(root, "release")))))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Errorf("provider-required changelog, also required by release: Run = %v", err)
	}
	withReason := skill.Dir(filepath.Join(root, "changelog"))
	withReason.Reason = "writes the changelog"
	agent = reqAgent(t, &drivertest.Driver{}, adaptor.WithSkills(withReason, skill.WithRequires(skill.Dir(filepath.Join(root, "release")))))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Errorf("named changelog with a Reason, also required by release: Run = %v", err)
	}
}

// publishedFolder is a published skill's downloaded folder that says
// where it came from, as cmd/agentskills run's runOrigin does.
type publishedFolder struct {
	skill.PathSource
}

func (publishedFolder) Origin() source.Origin {
	return source.Origin{Kind: source.GitHub, Location: "acme/skills", Pinned: true, Display: "github:acme/skills@abc"}
}

type originRecorder struct {
	next skill.Materializer
	mu   sync.Mutex
	seen map[string]source.Origin
}

func (o *originRecorder) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	o.mu.Lock()
	o.seen[s.Key] = source.OriginOf(s.Source)
	o.mu.Unlock()
	return o.next.Materialize(ctx, s)
}

// REVIEW: a published skill presented as a folder with its origin (an
// OriginSource, as agentskills run builds them) requires "../x": the
// agent resolves it as a plain local folder, so the required skill is
// judged by the policy as local, not as the publisher's, and the rule
// that a published skill names its requirements by published source
// (source/requirement rule 1) is not applied.
func TestReviewPublishedFolderRelativeBecomesLocal(t *testing.T) {
	root := writeSkills(t, t.TempDir(), map[string]string{"release": "../../../../../../../../tmp/anything/changelog", "changelog": ""})
	_ = os.MkdirAll("/tmp/anything", 0o755)
	writeSkills(t, "/tmp/anything", map[string]string{"changelog": ""})
	rec := &originRecorder{next: skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t))), seen: map[string]source.Origin{}}
	pub := skill.Skill{Key: "release", Source: publishedFolder{skill.PathSource{Path: filepath.Join(root, "release")}}}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(rec), adaptor.WithSkills(skill.WithRequires(pub)))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Fatalf("Run = %v", err)
	}
	t.Logf("origins: release %+v, changelog %+v", rec.seen["release"], rec.seen["changelog"])
	if rec.seen["changelog"].Kind == source.Local {
		t.Errorf("the published skill's relative requirement was selected as a local folder (%s), outside the published tree", rec.seen["changelog"].Location)
	}
}

// REVIEW: the user names lib at version 1; release requires pub:lib@1
// (which agrees with it) and pub:lib@2 (which does not). The merger is
// asked to merge the requirement that agreed, the closure is found
// again, and the conflict reported blames pub:lib@1, the requirement
// that agreed with the user's skill, not pub:lib@2.
func TestReviewMergeAgainstNamedSkill(t *testing.T) {
	m := &mergingResolver{}
	named := m.skill("lib", "1")
	release := skill.Inline("release", requiringMD("release", "pub:lib@1 pub:lib@2", ""))
	agent := reqAgent(t, &drivertest.Driver{}, adaptor.WithRequires(), adaptor.WithRequirementResolver(m), adaptor.WithSkills(named, release))
	_, err := agent.Run(t.Context(), "x")
	t.Logf("Run = %v; merges asked: %q", err, m.merges)
	var ce *skill.SkillKeyConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("Run = %v; want a key conflict", err)
	}
	if len(m.merges) != 0 {
		t.Errorf("the merger was asked %q though lib is the user's named skill, which no merge can replace", m.merges)
	}
}

// REVIEW: the resolver (the network, for package source/requirement's)
// is asked for a requirement that the depth limit then refuses.
func TestReviewResolvedBeyondDepthLimit(t *testing.T) {
	var asked []string
	r := skill.RequirementResolverFunc(func(_ context.Context, req skill.Requirement) (skill.Skill, error) {
		asked = append(asked, req.Text)
		var n int
		fmt.Sscanf(req.Text, "pub:s%d", &n)
		name := fmt.Sprintf("s%d", n)
		return skill.Inline(name, requiringMD(name, fmt.Sprintf("pub:s%d", n+1), "")), nil
	})
	agent := reqAgent(t, &drivertest.Driver{}, adaptor.WithRequires(), adaptor.WithRequirementResolver(r),
		adaptor.WithSkills(skill.Inline("s0", requiringMD("s0", "pub:s1", ""))))
	_, err := agent.Run(t.Context(), "x")
	t.Logf("Run = %v; resolver asked %d times, last %q", err, len(asked), asked[len(asked)-1])
	if len(asked) > 32 {
		t.Errorf("the resolver was asked for %d requirements; the depth limit admits 32", len(asked))
	}
}
