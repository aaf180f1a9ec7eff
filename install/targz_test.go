package install

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestPinnedTarGzWritesWhatSkillsNeed checks rule 3's extraction of a
// pinned source's tar.gz (a GitHub tarball, a URL#sha256=): listed
// through the tar it decompresses to, only what discovery reads is
// written in the cache's staging area (the skills' folders, the plugin
// manifests, a file a skill's link points to; the root holds the
// snapshot's one folder), the
// skills are found as from the whole archive, and the temporary tar is
// gone once the archive is extracted.
func TestPinnedTarGzWritesWhatSkillsNeed(t *testing.T) {
	f := newFixture(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	archive := filepath.Join(t.TempDir(), "kit.tar.gz")
	if err := os.WriteFile(archive, tarGzTree(t, "o-kit-0123456", linkTree{
		"README.md":                            "# kit\n",
		"docs/guide.md":                        "a guide\n",
		"docs/shared.md":                       "shared\n",
		"skills/alpha/SKILL.md":                skillMD("alpha"),
		"skills/alpha/notes.md":                linkPrefix + "../../docs/shared.md",
		"skills/alpha/scripts/run.sh":          "#!/bin/sh\n",
		"plugins/p/.claude-plugin/plugin.json": `{"name":"p"}`,
		"plugins/p/skills/beta/SKILL.md":       skillMD("beta"),
		"plugins/p/src/main.go":                "package main\n",
		"tools/build.sh":                       "#!/bin/sh\n",
	}), 0o644); err != nil {
		t.Fatal(err)
	}
	in := f.remoteInstaller(t, cachetest.Root(t))
	cands, cleanup, err := in.fromArchive(t.Context(), archive, "https://example.com/kit.tar.gz", "", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	var found []string
	for _, c := range cands {
		found = append(found, c.subpath)
	}
	slices.Sort(found)
	if want := []string{"o-kit-0123456/plugins/p/skills/beta", "o-kit-0123456/skills/alpha"}; !slices.Equal(found, want) {
		t.Errorf("found the skills %q, want %q", found, want)
	}
	if len(cands) == 0 || cands[0].extracted == nil || cands[0].extracted.repo == nil {
		t.Fatal("the archive was not extracted into the cache's staging area")
	}
	want := []string{
		"o-kit-0123456/docs/shared.md",
		"o-kit-0123456/plugins/p/.claude-plugin/plugin.json",
		"o-kit-0123456/plugins/p/skills/beta/SKILL.md",
		"o-kit-0123456/skills/alpha/SKILL.md",
		"o-kit-0123456/skills/alpha/notes.md",
		"o-kit-0123456/skills/alpha/scripts/run.sh",
	}
	if got := treeFileList(t, cands[0].extracted.repo.Dir()); !slices.Equal(got, want) {
		t.Errorf("the staging area holds %q, want %q", got, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the extraction left %d files in the temporary folder", len(left))
	}
}
