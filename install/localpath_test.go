package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestTypedSourceRule checks rule 13's reading of a typed source that
// could be a path: a missing folder is named as such (with the nearest
// name), OWNER/REPO whose OWNER exists here is a mistyped path and never
// a GitHub lookup, OWNER/REPO whose OWNER does not exist is GitHub as
// before (and says so when it fails), and github: forces GitHub.
func TestTypedSourceRule(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("main", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	g.publish("HEAD", commitA, g.trees[commitA])
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	t.Chdir(f.sources)
	f.writeSkill(t, "skills/good-one", "good-one", "")
	f.writeSkill(t, "o/skills", "local", "")

	tests := []struct {
		source string
		want   string   // the skill found, or "" for an error
		errs   []string // what the error says
		github bool     // whether GitHub was asked
	}{
		{source: "skills/good-onee", errs: []string{"no file or folder skills/good-onee here (did you mean skills/good-one?)",
			"not read as the GitHub repository skills/good-onee because skills exists here", "./skills/good-onee for a folder", "github:skills/good-onee for the GitHub repository"}},
		{source: "skills/good-onee/sub@main", errs: []string{"no file or folder skills/good-onee/sub@main here (did you mean skills/good-one/sub@main?)"}},
		{source: "./skills/good-onee", errs: []string{"no file or folder ./skills/good-onee here (did you mean ./skills/good-one?)"}},
		{source: "./nothing/at/all", errs: []string{"no file or folder ./nothing/at/all here"}},
		{source: "skills/good-one", want: "good-one"},
		{source: "o/skills", want: "local"},
		{source: "github:o/skills@main", want: "alpha", github: true},
		{source: "p/skills", errs: []string{"(p/skills is read as a GitHub repository, as no file or folder of that name exists here)"}, github: true},
		{source: "github:o", errs: []string{"want OWNER/REPO"}},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			g.take()
			got, err := in.Contents(t.Context(), FindRequest{Source: tt.source})
			asked := len(g.take()) > 0
			if asked != tt.github {
				t.Errorf("Contents(%q) asked GitHub: %v, want %v", tt.source, asked, tt.github)
			}
			if tt.want != "" {
				if err != nil || len(got) != 1 || got[0].Name != tt.want {
					t.Errorf("Contents(%q) = %v, %v, want the skill %s", tt.source, got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrInvalidSource) {
				t.Fatalf("Contents(%q) = %v, want ErrInvalidSource", tt.source, err)
			}
			for _, want := range tt.errs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Contents(%q) = %v, want it to say %q", tt.source, err, want)
				}
			}
		})
	}
}

// TestAddSkillFile checks that a source that is a SKILL.md file stands
// for that skill's folder and that skill alone, as validate reads it.
func TestAddSkillFile(t *testing.T) {
	f := newFixture(t)
	in := f.installer(t)
	dir := f.writeSkill(t, "kit/outer", "outer", "")
	f.writeSkill(t, "kit/outer/inner", "inner", "")
	src := filepath.Join(dir, "SKILL.md")
	found, err := in.Find(t.Context(), FindRequest{Source: src})
	if err != nil || len(found) != 1 || found[0].Key != "outer" || found[0].Source != skill.Dir(dir).Source {
		t.Fatalf("Find(%s) = %v, %v, want the skill outer alone, in its folder", src, found, err)
	}
	changes, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "codex")})
	if err != nil {
		t.Fatalf("Add(SKILL.md) = %v", err)
	}
	if got := strings.Join(actions(changes), " "); got != "outer/:canonical:installed outer/codex:canonical:installed" {
		t.Errorf("Add(SKILL.md) = %s, want outer installed alone", got)
	}
	lock, err := os.ReadFile(filepath.Join(f.env.Project, ".agents", "agentskills.lock"))
	if err != nil || !strings.Contains(string(lock), `"source": "../sources/kit/outer"`) {
		t.Errorf("lock file = %s, %v; want the skill's folder recorded as its source", lock, err)
	}
}
