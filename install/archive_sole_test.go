package install

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

// TestArchiveOfOneFolder checks that add reads an archive as package
// skill's Archive does (one rule, rule 17 of internal/extract): `tar -czf
// kit.tgz kit`, or a zip of the folder, is the skill kit; an archive whose
// root holds more is searched from its root (rule 12), finding the skills
// of its folders, where Archive needs WithSubpath; one holding only a link
// holds no skill.
func TestArchiveOfOneFolder(t *testing.T) {
	kit := map[string]string{"kit/SKILL.md": skillMD("kit"), "kit/scripts/run.sh": "echo run\n"}
	with := func(extra map[string]string) map[string]string {
		out := maps.Clone(kit)
		maps.Copy(out, extra)
		return out
	}
	tests := []struct {
		name  string
		tree  map[string]string
		paths []string
		want  []string // the skills installed; nil when the source holds none
	}{
		{"one folder", kit, []string{"kit"}, []string{"kit"}},
		{"one folder beside .git", with(map[string]string{".git/config": "[core]\n"}), []string{".git", "kit"}, []string{"kit"}},
		{"two folders", with(map[string]string{"other/SKILL.md": skillMD("other")}), []string{"kit", "other"}, []string{"kit", "other"}},
		{"a file and a folder", with(map[string]string{"README.md": "read me\n"}), []string{"README.md", "kit"}, []string{"kit"}},
		{"a link as the folder", with(map[string]string{"link": "-> kit"}), []string{"link"}, nil},
	}
	for _, format := range []string{"tar.gz", "zip"} {
		for _, tt := range tests {
			t.Run(format+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				testarchive.Tree(t, dir, tt.tree)
				archive := filepath.Join(t.TempDir(), "kit."+format)
				if err := os.WriteFile(archive, testarchive.Made(t, format, dir, tt.paths...), 0o644); err != nil {
					t.Fatal(err)
				}
				f := newFixture(t)
				changes, err := f.installer(t).Add(t.Context(), AddRequest{Sources: []string{archive}, Agents: agentsOf(t, "claude-code")})
				if tt.want == nil {
					if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "holds no skill") {
						t.Errorf("Add(%s of %v) = %v, want ErrInvalidSource: it holds no skill", format, tt.paths, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Add(%s of %v) = %v", format, tt.paths, err)
				}
				var got []string
				for _, c := range changes {
					if c.Action == ActionInstalled && c.Kind == KindCanonical {
						got = append(got, c.Skill)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tt.want) {
					t.Errorf("Add(%s of %v) installed %v, want %v", format, tt.paths, got, tt.want)
				}
				if b, err := os.ReadFile(filepath.Join(f.canonicalOf("kit"), "scripts", "run.sh")); err != nil || string(b) != "echo run\n" {
					t.Errorf("kit's scripts/run.sh = %q, %v", b, err)
				}
			})
		}
	}
}
