package skill_test

import (
	"cmp"
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// soleSkill is the SKILL.md of the archives TestArchiveOfOneFolder makes.
const soleSkill = "---\nname: kit\ndescription: A kit.\n---\nUse the kit.\n"

// TestArchiveOfOneFolder checks Archive's rule for an archive of one
// folder, on archives that tar and zip make as a user would: `tar -czf
// kit.tgz kit` is the skill kit, with no WithSubpath; a root that holds
// more, a link in place of the folder, or a folder without a SKILL.md is
// refused, naming what the root holds; an archive of the folder's
// content (`tar -czf kit.tgz -C kit .`) is read as before.
func TestArchiveOfOneFolder(t *testing.T) {
	kit := map[string]string{"kit/SKILL.md": soleSkill, "kit/scripts/run.sh": "echo run\n", "kit/docs/guide.md": "guide\n"}
	want := map[string]string{"SKILL.md": "- " + soleSkill, "scripts/run.sh": "x echo run\n", "docs/guide.md": "- guide\n"}
	with := func(extra map[string]string) map[string]string {
		out := maps.Clone(kit)
		maps.Copy(out, extra)
		return out
	}
	tests := []struct {
		name  string
		tree  map[string]string
		paths []string // what the archiver is given, in the tree's folder
		fail  string   // what the error says; "" when the archive is the skill
		kind  error    // the error's kind; ErrArchiveFormat when nil
	}{
		{name: "one folder", tree: kit, paths: []string{"kit"}},
		{name: "one folder, ./ names", tree: kit, paths: []string{"./kit"}},
		{name: "one folder with an empty folder", tree: with(map[string]string{"kit/empty/": ""}), paths: []string{"kit"}},
		{name: "one folder beside .git", tree: with(map[string]string{".git/config": "[core]\n"}), paths: []string{".git", "kit"}},
		{name: "the folder's content", tree: kit, paths: []string{"-C", "kit", "."}},
		{name: "two folders", tree: with(map[string]string{"other/SKILL.md": soleSkill}), paths: []string{"kit", "other"},
			fail: "nor is the root one folder that holds it"},
		{name: "a file and a folder", tree: with(map[string]string{"README.md": "read me\n"}), paths: []string{"README.md", "kit"},
			fail: "nor is the root one folder that holds it"},
		{name: "a link as the folder", tree: with(map[string]string{"link": "-> kit"}), paths: []string{"link"},
			fail: `entry "link"`, kind: skill.ErrArchiveUnsafe},
		{name: "a folder without SKILL.md", tree: map[string]string{"kit/docs/SKILL.md": soleSkill}, paths: []string{"kit"},
			fail: `nor in "kit", its one folder`},
	}
	for _, format := range []string{"tar.gz", "tar", "zip"} {
		for _, tt := range tests {
			t.Run(format+"/"+tt.name, func(t *testing.T) {
				paths := tt.paths
				if format == "zip" && paths[0] == "-C" {
					t.Skip("zip has no -C; the content of a folder is the root case of every archive test")
				}
				dir := t.TempDir()
				testarchive.Tree(t, dir, tt.tree)
				data := testarchive.Made(t, format, dir, paths...)
				m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
				s := skill.Archive("kit", skill.ArchiveBytes(data))
				got, err := m.Materialize(t.Context(), s)
				if tt.fail != "" {
					kind := cmp.Or(tt.kind, skill.ErrArchiveFormat)
					if !errors.Is(err, kind) || !strings.Contains(err.Error(), tt.fail) {
						t.Fatalf("Materialize(%s of %v) = %q, %v; want %v saying %q", format, paths, got, err, kind, tt.fail)
					}
					return
				}
				if err != nil {
					t.Fatalf("Materialize(%s of %v) = %v", format, paths, err)
				}
				if filepath.Base(got) != "kit" {
					t.Errorf("Materialize(%s of %v) = %s, want a folder named kit", format, paths, got)
				}
				if diff := gocmp.Diff(want, cachetest.Tree(t, got)); diff != "" {
					t.Errorf("Materialize(%s of %v) tree (-want +got):\n%s", format, paths, diff)
				}
				again, err := m.Materialize(t.Context(), s)
				if err != nil || again != got {
					t.Errorf("second Materialize = %q, %v; want %q again", again, err, got)
				}
				// Naming the folder gives the same tree.
				named, err := m.Materialize(t.Context(), skill.Archive("kit", skill.ArchiveBytes(data), skill.WithSubpath("kit")))
				if tt.paths[0] != "-C" && (err != nil || named != got) {
					t.Errorf("Materialize with WithSubpath(\"kit\") = %q, %v; want %q", named, err, got)
				}
			})
		}
	}
}
