package adaptor_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// errDenied is the refusal of checkingMaterializer.
var errDenied = errors.New("denied by the test's policy")

// refusal is a trust refusal as the agent recognizes one.
type refusal struct{ key string }

func (r *refusal) Error() string   { return fmt.Sprintf("skill %q refused: %v", r.key, errDenied) }
func (r *refusal) Unwrap() error   { return errDenied }
func (r *refusal) Refused() bool   { return true }
func (r *refusal) Is(e error) bool { return e == errDenied }

// checkingMaterializer is a materializer that is a skill.OriginChecker:
// it refuses the skills keyed in deny.
type checkingMaterializer struct {
	skill.Materializer
	deny    map[string]bool
	mu      sync.Mutex
	checked []string
}

func (m *checkingMaterializer) CheckOrigin(s skill.Skill) error {
	m.mu.Lock()
	m.checked = append(m.checked, s.Key)
	m.mu.Unlock()
	if m.deny[s.Key] {
		return &refusal{key: s.Key}
	}
	return nil
}

// Rule 5: the agent hands its materializer's origin check to the
// resolver (skill.Requirement.CheckOrigin), which refuses a denied
// source before it reads it; the run fails naming the refused skill at
// the end of the chain, as a refusal at materialization does (rule 12).
func TestRequiresOriginCheckedByResolver(t *testing.T) {
	var read []string
	resolver := skill.RequirementResolverFunc(func(_ context.Context, r skill.Requirement) (skill.Skill, error) {
		name := strings.TrimPrefix(r.Text, "pub:")
		if r.CheckOrigin == nil {
			t.Fatalf("ResolveRequirement(%q) without CheckOrigin", r.Text)
		}
		if err := r.CheckOrigin(skill.Skill{Key: name, Source: skill.PathSource{Path: "/published/" + name}}); err != nil {
			return skill.Skill{}, err
		}
		read = append(read, name)
		return skill.Inline(name, requiringMD(name, "", "")), nil
	})
	m := &checkingMaterializer{Materializer: skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t))), deny: map[string]bool{"evil": true}}
	rec := &drivertest.Driver{}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(m), adaptor.WithRequirementResolver(resolver), adaptor.WithRequires(),
		adaptor.WithSkills(skill.Inline("release", requiringMD("release", "pub:changelog", ""))))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Fatalf("Run with an allowed requirement = %v", err)
	}
	agent = adaptor.New(rec, adaptor.WithSkillMaterializer(m), adaptor.WithRequirementResolver(resolver), adaptor.WithRequires(),
		adaptor.WithSkills(skill.Inline("release", requiringMD("release", "pub:changelog pub:evil", ""))))
	_, err := agent.Run(t.Context(), "x")
	var re *skill.RequirementError
	if !errors.Is(err, errDenied) || !errors.As(err, &re) || re.ChainText() != "release -> evil" || !re.Refused() || re.Requirement != "" {
		t.Fatalf("Run = %v; want the refusal of release -> evil", err)
	}
	if slices.Contains(read, "evil") {
		t.Errorf("the resolver read the denied evil (read %q)", read)
	}
	if rec.Calls() != 1 {
		t.Errorf("the driver was called %d times; want once, for the allowed run", rec.Calls())
	}
}

// Rule 7: a requirement that resolves to the folder of a skill named
// with Required, a Reason or Metadata is that skill, which keeps them.
func TestRequiresNamedSkillKeepsItsFields(t *testing.T) {
	root := writeSkills(t, t.TempDir(), map[string]string{"release": "../changelog", "changelog": ""})
	required := skill.Dir(filepath.Join(root, "changelog"))
	required.Required = true
	reasoned := skill.Dir(filepath.Join(root, "changelog"))
	reasoned.Reason = "writes the changelog"
	reasoned.Metadata = map[string]string{"team": "docs"}
	for _, tc := range []struct {
		name string
		opts []adaptor.Option
		want func(reason string, md map[string]string) bool
	}{
		{"provider's required", []adaptor.Option{adaptor.WithSkillProvider(skill.Set{"changelog": required}),
			adaptor.WithSkills(skill.WithRequires(skill.Dir(filepath.Join(root, "release"))))},
			func(string, map[string]string) bool { return true }},
		{"named with a reason and metadata", []adaptor.Option{adaptor.WithSkills(reasoned, skill.WithRequires(skill.Dir(filepath.Join(root, "release"))))},
			func(reason string, md map[string]string) bool {
				return reason == "writes the changelog" && md["team"] == "docs"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &drivertest.Driver{}
			if _, err := reqAgent(t, rec, tc.opts...).Run(t.Context(), "x"); err != nil {
				t.Fatalf("Run = %v", err)
			}
			if got := reqKeys(rec.Last()); !slices.Contains(got, "changelog") || !slices.Contains(got, "release") {
				t.Fatalf("the driver saw %q", got)
			}
			for _, e := range rec.Last().Skills.Entries {
				if e.Key == "changelog" && !tc.want(e.Reason, e.Metadata) {
					t.Errorf("changelog's entry = Reason %q, Metadata %v; want the named declaration's", e.Reason, e.Metadata)
				}
			}
		})
	}
}

// publishedFolder is a published skill's folder that says where it was
// published, as agentskills run gives its skills.
type publishedFolder struct{ skill.PathSource }

func (publishedFolder) Origin() source.Origin {
	return source.Origin{Kind: source.GitHub, Location: "acme/skills", Pinned: true, Display: "github:acme/skills@abc"}
}

// Rule 3: only a folder of this machine (skill.Dir) has requirements
// relative to it; a published skill held as a folder names its
// requirements by published source, so "../x" selects no folder beside
// it, and nothing of that folder is materialized.
func TestRequiresPublishedFolderNoRelative(t *testing.T) {
	root := writeSkills(t, t.TempDir(), map[string]string{"release": "../changelog", "changelog": ""})
	var seen []string
	m := &recordingMaterializer{next: skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t))), seen: &seen}
	pub := skill.Skill{Key: "release", Source: publishedFolder{skill.PathSource{Path: filepath.Join(root, "release")}}}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(skill.WithRequires(pub)))
	_, err := agent.Run(t.Context(), "x")
	var re *skill.RequirementError
	if !errors.Is(err, skill.ErrRequirement) || !errors.As(err, &re) || re.Requirement != "../changelog" || !strings.Contains(err.Error(), "published source") {
		t.Fatalf("Run = %v; want ErrRequirement for ../changelog saying a published skill names published sources", err)
	}
	if slices.Contains(seen, "changelog") {
		t.Errorf("the folder beside the published skill was materialized (%q)", seen)
	}
}

type recordingMaterializer struct {
	next skill.Materializer
	mu   sync.Mutex
	seen *[]string
}

func (m *recordingMaterializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	m.mu.Lock()
	*m.seen = append(*m.seen, s.Key)
	m.mu.Unlock()
	return m.next.Materialize(ctx, s)
}

// Rule 3: a relative requirement holds no backslash or colon, which a
// Windows path would read as a separator or a drive.
func TestRequiresRelativeNoBackslashOrColon(t *testing.T) {
	for _, text := range []string{`./..\..\secret`, `../changelog\..\..`, "./c:x", "../a:b"} {
		root := writeSkills(t, t.TempDir(), map[string]string{"release": text})
		_, err := reqAgent(t, &drivertest.Driver{}, adaptor.WithSkills(skill.WithRequires(skill.Dir(filepath.Join(root, "release"))))).Run(t.Context(), "x")
		if !errors.Is(err, skill.ErrRequirement) || !strings.Contains(err.Error(), "backslash or colon") {
			t.Errorf("requirement %q: Run = %v; want ErrRequirement refusing a backslash or colon", text, err)
		}
	}
}

// Rule 3: a relative requirement that climbs to a folder without a
// SKILL.md fails, and nothing of that folder reaches the skill cache.
func TestRequiresRelativeFolderWithoutSkill(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "home", "user", ".ssh")
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "id_ed25519"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(base, "proj", ".agents", "skills")
	rel, err := filepath.Rel(filepath.Join(skills, "evil"), secret)
	if err != nil {
		t.Fatal(err)
	}
	writeSkills(t, skills, map[string]string{"evil": "./" + filepath.ToSlash(rel)})
	root := cachetest.Root(t)
	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(root))
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithRequires(),
		adaptor.WithSkills(skill.Dir(filepath.Join(skills, "evil"))))
	if _, err := agent.Run(t.Context(), "x"); err == nil {
		t.Fatal("Run of a requirement naming a folder without SKILL.md succeeded")
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "PRIVATE KEY") {
				t.Errorf("the folder's file was copied into the skill cache: %s", p)
			}
		}
		return nil
	})
}

// Rule 7: a requirement that disagrees with a skill the agent or the run
// named is a conflict, blamed on that requirement; the merger is not
// asked, as no merge replaces a named skill.
func TestRequiresNamedSkillNotMerged(t *testing.T) {
	m := &mergingResolver{}
	named := m.skill("lib", "1")
	release := skill.Inline("release", requiringMD("release", "pub:lib@1 pub:lib@2", ""))
	_, err := reqAgent(t, &drivertest.Driver{}, adaptor.WithRequires(), adaptor.WithRequirementResolver(m), adaptor.WithSkills(named, release)).Run(t.Context(), "x")
	var ce *skill.SkillKeyConflictError
	if !errors.As(err, &ce) || ce.Key != "lib" || !slices.Equal(ce.Sources, []string{"agent", "release -> lib"}) {
		t.Fatalf("Run = %v; want a key conflict of lib between agent and release -> lib", err)
	}
	if len(m.merges) != 0 {
		t.Errorf("the merger was asked %q; lib is a named skill", m.merges)
	}
}

// countingResolver counts what its mergingResolver is asked.
type countingResolver struct {
	*mergingResolver
	asked map[string]int
}

func (c *countingResolver) ResolveRequirement(ctx context.Context, r skill.Requirement) (skill.Skill, error) {
	c.asked[r.Text]++
	return c.mergingResolver.ResolveRequirement(ctx, r)
}

// Rule 5: within a run, the resolver is asked once for each
// requirement of a skill, though a merge finds the closure again.
func TestRequiresResolvedOnce(t *testing.T) {
	c := &countingResolver{mergingResolver: &mergingResolver{}, asked: map[string]int{}}
	release := skill.Inline("release", requiringMD("release", "pub:lib@1 pub:lib@2", ""))
	rec := &drivertest.Driver{}
	if _, err := reqAgent(t, rec, adaptor.WithRequires(), adaptor.WithRequirementResolver(c), adaptor.WithSkills(release)).Run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	if len(c.merges) != 1 {
		t.Fatalf("merges asked %q; want one", c.merges)
	}
	for text, n := range c.asked {
		if n != 1 {
			t.Errorf("the resolver was asked for %q %d times; want once", text, n)
		}
	}
}

// Rule 11: the resolver is not asked for a requirement beyond the depth
// limit.
func TestRequiresDepthBeforeResolver(t *testing.T) {
	var asked []string
	r := skill.RequirementResolverFunc(func(_ context.Context, req skill.Requirement) (skill.Skill, error) {
		asked = append(asked, req.Text)
		var n int
		fmt.Sscanf(req.Text, "pub:s%d", &n)
		name := fmt.Sprintf("s%d", n)
		return skill.Inline(name, requiringMD(name, fmt.Sprintf("pub:s%d", n+1), "")), nil
	})
	_, err := reqAgent(t, &drivertest.Driver{}, adaptor.WithRequires(), adaptor.WithRequirementResolver(r),
		adaptor.WithSkills(skill.Inline("s0", requiringMD("s0", "pub:s1", "")))).Run(t.Context(), "x")
	if !errors.Is(err, skill.ErrRequirement) || !strings.Contains(err.Error(), "longer than 32") {
		t.Fatalf("Run = %v; want the depth limit", err)
	}
	if len(asked) != 32 {
		t.Errorf("the resolver was asked for %d requirements; want the 32 the limit admits", len(asked))
	}
}

// failingMerger resolves every requirement to another version of lib,
// and merges none.
type failingMerger struct{}

func (failingMerger) ResolveRequirement(_ context.Context, r skill.Requirement) (skill.Skill, error) {
	return skill.Inline("lib", requiringMD("lib", "", "From "+r.Text+".\n")), nil
}

func (failingMerger) MergeRequirements(context.Context, []skill.Requirement) (skill.Skill, bool, error) {
	return skill.Skill{}, false, source.ErrNotFound
}

// Rules 7 and 12: a run's error shows requirements without the
// credentials their URLs hold.
func TestRequiresErrorRedacted(t *testing.T) {
	release := skill.Inline("release", requiringMD("release", "git+https://deploy:s3cret@git.example/a.git#ref=^1 git+https://deploy:s3cret@git.example/b.git#ref=^1", ""))
	_, err := reqAgent(t, &drivertest.Driver{}, adaptor.WithRequires(), adaptor.WithRequirementResolver(failingMerger{}), adaptor.WithSkills(release)).Run(t.Context(), "x")
	if !errors.Is(err, skill.ErrRequirement) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Run = %v; want ErrRequirement without the password", err)
	}
}
