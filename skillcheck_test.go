package adaptor_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// TestRunRefusesSkillsAgentsCannotLoad checks rule 7 of "Resolution": a
// skill whose SKILL.md an agent would not load fails the run before the
// driver is called, with an error that names the skill and what is wrong.
func TestRunRefusesSkillsAgentsCannotLoad(t *testing.T) {
	noFrontMatter := "# Greeting\nSay hello.\n"
	tests := []struct {
		name    string
		ref     skill.Skill
		kind    error  // what skillmd found
		problem string // in the message
	}{
		{"inline without front matter", skill.Inline("greet", noFrontMatter), skillmd.ErrFrontMatter, "must start with YAML frontmatter"},
		{"inline without description", skill.Inline("greet", "---\nname: greet\n---\nSay hello.\n"), skillmd.ErrRule, "Missing required field in frontmatter: description"},
		{"front matter not closed", skill.Inline("greet", "---\nname: greet\ndescription: Greets.\n"), skillmd.ErrFrontMatter, "not properly closed"},
		{"front matter not YAML", skill.Inline("greet", "---\nname: [greet\ndescription: Greets.\n---\n"), skillmd.ErrFrontMatter, "Invalid YAML"},
		{"blank name", skill.Inline("greet", "---\nname: ' '\ndescription: Greets.\n---\n"), skillmd.ErrRule, "Field 'name' must be a non-empty string"},
		{"FS without front matter", skill.FS(fstest.MapFS{"greet/SKILL.md": {Data: []byte(noFrontMatter)}}, "greet"), skillmd.ErrFrontMatter, "must start with YAML frontmatter"},
		{"archive without front matter", skill.Archive("greet", skill.ArchiveBytes(testarchive.TarGzFiles(t, map[string]string{"SKILL.md": noFrontMatter}))), skillmd.ErrFrontMatter, "must start with YAML frontmatter"},
		{"folder without front matter", skill.Dir(writeSkillFile(t, "greet", noFrontMatter)), skillmd.ErrFrontMatter, "must start with YAML frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent, rec := newAgent(t, adaptor.WithSkills(skill.Dir(skillDir(t, "review"))))
			for _, run := range []struct {
				name string
				run  func() error
			}{
				{"Agent.Run", func() error { _, err := agent.Run(t.Context(), "x", adaptor.WithSkills(tt.ref)); return err }},
				{"Thread.Run", func() error {
					_, err := agent.Thread("t").Run(t.Context(), "x", adaptor.WithSkills(tt.ref))
					return err
				}},
				{"Agent.Inspect", func() error { _, err := agent.Inspect(t.Context(), adaptor.WithSkills(tt.ref)); return err }},
			} {
				err := run.run()
				var ie *adaptor.InvalidSkillError
				if !errors.Is(err, adaptor.ErrInvalidSkill) || !errors.As(err, &ie) || ie.Key != "greet" || ie.RuntimeName != "greet" || !errors.Is(err, tt.kind) {
					t.Fatalf("%s(%s) = %v, want an *InvalidSkillError for greet wrapping %v", run.name, tt.name, err, tt.kind)
				}
				for _, want := range []string{`skill "greet"`, tt.problem, "name: greet", "description:"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s(%s) = %q, want it to say %q", run.name, tt.name, err, want)
					}
				}
			}
			if rec.Calls() != 0 {
				t.Errorf("the driver was called %d times for an invalid skill", rec.Calls())
			}
		})
	}
}

// TestRunAcceptsWhatAgentsLoad checks that warnings of skillmd's lenient
// mode, which agents accept, do not fail a run.
func TestRunAcceptsWhatAgentsLoad(t *testing.T) {
	for name, md := range map[string]string{
		"no name, the folder's is used": "---\ndescription: Greets.\n---\nSay hello.\n",
		"a key agents know":             "---\nname: greet\ndescription: Greets.\nuser-invocable: false\n---\n",
		"name other than the folder":    "---\nname: hello\ndescription: Greets.\n---\n",
		"description: with a colon":     "---\nname: greet\ndescription: Use when: greeting\n---\n",
	} {
		t.Run(name, func(t *testing.T) {
			agent, rec := newAgent(t, adaptor.WithSkills(skill.Inline("greet", md)))
			if _, err := agent.Run(t.Context(), "x"); err != nil || rec.Calls() != 1 {
				t.Errorf("Run with %q = %v, want the driver run", md, err)
			}
		})
	}
}

// TestSkillCheckFollowsContent checks that the check remembered for a
// skill's content does not let changed content through: a folder made
// invalid after a run that used it fails the next run.
func TestSkillCheckFollowsContent(t *testing.T) {
	dir := skillDir(t, "review")
	agent, rec := newAgent(t, adaptor.WithSkills(skill.Dir(dir)))
	for range 2 {
		if _, err := agent.Run(t.Context(), "x"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("# Review\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Run(t.Context(), "x"); !errors.Is(err, adaptor.ErrInvalidSkill) {
		t.Errorf("Run after the skill lost its front matter = %v, want ErrInvalidSkill", err)
	}
	if rec.Calls() != 2 {
		t.Errorf("driver calls = %d, want 2", rec.Calls())
	}
}

// writeSkillFile makes a folder named name holding a SKILL.md of md.
func writeSkillFile(t *testing.T, name, md string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
