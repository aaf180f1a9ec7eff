package copilot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func writeSkill(t *testing.T, dir, name, body string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: d\n---\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestShadows checks rule 1 of "Checks": a skill of the workspace or of
// the user under the name of one of the run's, with other content,
// refuses the run naming its folder; the same content does not.
func TestShadows(t *testing.T) {
	ours := writeSkill(t, t.TempDir(), "review", "Ours.")
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{Key: "review", RuntimeName: "review", Path: ours}}}
	tests := []struct {
		name   string
		folder string // under the workspace (w/) or the home (h/)
		body   string
		refuse bool
	}{
		{"workspace .github/skills", "w/.github/skills", "Theirs.", true},
		{"workspace .agents/skills", "w/.agents/skills", "Theirs.", true},
		{"user ~/.copilot/skills", "h/.copilot/skills", "Theirs.", true},
		{"user ~/.agents/skills", "h/.agents/skills", "Theirs.", true},
		{"same content", "w/.github/skills", "Ours.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			theirs := writeSkill(t, filepath.Join(root, filepath.FromSlash(tt.folder)), "review", tt.body)
			err := checkShadows(t.Context(), rs, otherSkillsDirs(filepath.Join(root, "w"), filepath.Join(root, "h")))
			var se *driver.ShadowError
			if got := errors.As(err, &se); got != tt.refuse || (got && se.Theirs != theirs) {
				t.Errorf("checkShadows with %s = %v, want refused %v naming %s", tt.folder, err, tt.refuse, theirs)
			}
		})
	}
}
