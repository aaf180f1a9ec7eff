package agentdir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

func TestSkillLinks(t *testing.T) {
	src := t.TempDir()
	ours := cachetest.WriteSkill(t, src, "review", "ours")
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{{RuntimeName: "review", Path: ours}}}

	user := t.TempDir()
	theirs := cachetest.WriteSkill(t, user, "lint", "theirs")
	cachetest.WriteSkill(t, user, ".system", "hidden")
	os.WriteFile(filepath.Join(user, "notes.txt"), nil, 0o644)

	for _, tt := range []struct {
		name    string
		userDir string
		same    bool // a user skill "review" with our content
		other   bool // a user skill "review" with other content
		want    map[string]string
		shadow  bool
	}{
		{name: "no user folder", want: map[string]string{"review": ours}},
		{name: "missing user folder", userDir: filepath.Join(user, "none"), want: map[string]string{"review": ours}},
		{name: "the user's own beside ours", userDir: user, want: map[string]string{"review": ours, "lint": theirs}},
		{name: "same name, same content: ours", userDir: user, same: true, want: map[string]string{"review": ours, "lint": theirs}},
		{name: "same name, other content", userDir: user, other: true, shadow: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.userDir
			if tt.same || tt.other {
				dir = t.TempDir()
				os.CopyFS(dir, os.DirFS(user))
				body := "ours"
				if tt.other {
					body = "other"
				}
				cachetest.WriteSkill(t, dir, "review", body)
				for k, v := range tt.want {
					if v == theirs {
						tt.want[k] = filepath.Join(dir, "lint")
					}
				}
			}
			got, err := SkillLinks(t.Context(), rs, dir)
			var se *driver.ShadowError
			if tt.shadow {
				if !errors.As(err, &se) || se.Name != "review" || se.Theirs != filepath.Join(dir, "review") {
					t.Fatalf("SkillLinks = %v, %v; want a *driver.ShadowError for review", got, err)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("SkillLinks = %v, %v; want %v", got, err, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("SkillLinks[%q] = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
