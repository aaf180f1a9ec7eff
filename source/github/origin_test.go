package github_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// Skill's source says where it comes from, as a trust policy sees it,
// and materializes as the archive it embeds.
func TestSkillOrigin(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "O", "R", entry{name: "SKILL.md", body: skillMD("r")})
	c := f.client(t)
	m, _ := materializer(t)
	pin, err := c.Resolve(t.Context(), github.Source{Owner: "O", Repo: "R"})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Skill("r", pin)
	o, ok := s.Source.(source.OriginSource)
	if !ok {
		t.Fatalf("Skill source %T has no Origin method", s.Source)
	}
	// The client reads it from the stand-in's API, whose host it names
	// (rule 16): not github.com.
	want := source.Origin{Kind: "git", Location: strings.TrimPrefix(f.api.URL, "http://") + "/o/r", Pinned: true, Display: "github:O/R@" + pin.Commit}
	if got := o.Origin(); got != want {
		t.Errorf("Origin() = %+v, want %+v", got, want)
	}
	dir, err := m.Materialize(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"SKILL.md": "- " + skillMD("r")}, cachetest.Tree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}
