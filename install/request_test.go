package install

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestContentsSelects checks FindRequest.Skills for Contents: it lists
// the skills selected by name or by folder, as Find returns them, and
// fails with a MissingSkillsError for a name the source does not hold.
func TestContentsSelects(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/skills/alpha", "alpha", "")
	f.writeSkill(t, "kit/skills/beta", "beta", "")
	f.writeSkill(t, "kit/skills/gamma", "gamma", "")
	kit := filepath.Join(f.sources, "kit")
	in := f.installer(t)
	for _, tt := range []struct {
		skills []string
		want   []string
	}{
		{nil, []string{"alpha", "beta", "gamma"}},
		{[]string{"beta"}, []string{"beta"}},
		{[]string{"skills/gamma", "alpha"}, []string{"alpha", "gamma"}},
	} {
		listed, err := in.Contents(t.Context(), FindRequest{Source: kit, Skills: tt.skills})
		if err != nil {
			t.Fatalf("Contents(%v) = %v", tt.skills, err)
		}
		var got []string
		for _, s := range listed {
			got = append(got, s.Name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Contents(%v) lists (-want +got):\n%s", tt.skills, diff)
		}
		found, err := in.Find(t.Context(), FindRequest{Source: kit, Skills: tt.skills})
		if err != nil || len(found) != len(tt.want) {
			t.Errorf("Find(%v) = %d skills, %v, want %d", tt.skills, len(found), err, len(tt.want))
		}
	}
	_, err := in.Contents(t.Context(), FindRequest{Source: kit, Skills: []string{"delta"}})
	var me *MissingSkillsError
	if !errors.As(err, &me) || !errors.Is(err, ErrInvalidSource) || len(me.Missing) != 1 || me.Missing[0] != "delta" {
		t.Errorf("Contents(delta) = %v, want a MissingSkillsError naming delta", err)
	}
}

// TestRemoveRequest checks RemoveRequest.Force: a changed copy is kept
// without it (ErrModified) and removed, after a backup, with it.
func TestRemoveRequest(t *testing.T) {
	f := newFixture(t)
	src := f.writeSkill(t, "alpha", "alpha", "")
	in := f.installer(t)
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(f.env.Project, ".agents", "skills", "alpha"), map[string]string{"notes.md": "mine"})
	if _, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"alpha"}}); !errors.Is(err, ErrModified) {
		t.Fatalf("Remove of an edited skill = %v, want ErrModified", err)
	}
	changes, err := in.Remove(t.Context(), RemoveRequest{Names: []string{"alpha"}, Force: true})
	if err != nil || !Changed(changes) {
		t.Fatalf("Remove(Force) = %v, %v, want the skill removed", changes, err)
	}
	st, err := in.List(t.Context(), ListRequest{Agents: agentsOf(t, "claude-code")})
	if err != nil || len(st) != 0 {
		t.Errorf("List after Remove(Force) = %v, %v, want nothing", st, err)
	}
}
