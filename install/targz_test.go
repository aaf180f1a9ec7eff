package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestPinnedTarGzWritesWhatSkillsNeed checks rule 3's extraction of a
// pinned source's tar.gz (a GitHub tarball, a URL#sha256=): listed
// through the tar it decompresses to, only what discovery reads is
// written in the cache's staging area (the skills' folders, the plugin
// manifests, a file a skill's link points to, and the end of a chain of
// links; the root holds the snapshot's one folder), the skills are found
// as from the whole archive, with the same problems, and the temporary
// tar is gone once the archive is extracted.
func TestPinnedTarGzWritesWhatSkillsNeed(t *testing.T) {
	f := newFixture(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	archive := filepath.Join(t.TempDir(), "kit.tar.gz")
	if err := os.WriteFile(archive, tarGzTree(t, "o-kit-0123456", linkTree{
		"AGENTS.md":                            "# rules\n",
		"CLAUDE.md":                            linkPrefix + "AGENTS.md",
		"README.md":                            "# kit\n",
		"docs/guide.md":                        "a guide\n",
		"docs/shared.md":                       "shared\n",
		"skills/alpha/SKILL.md":                skillMD("alpha"),
		"skills/alpha/notes.md":                linkPrefix + "../../docs/shared.md",
		"skills/alpha/scripts/run.sh":          "#!/bin/sh\n",
		"skills/gamma/SKILL.md":                skillMD("gamma"),
		"skills/gamma/AGENTS.md":               linkPrefix + "../../CLAUDE.md",
		"plugins/p/.claude-plugin/plugin.json": `{"name":"p"}`,
		"plugins/p/skills/beta/SKILL.md":       skillMD("beta"),
		"plugins/p/src/main.go":                "package main\n",
		"tools/build.sh":                       "#!/bin/sh\n",
	}), 0o644); err != nil {
		t.Fatal(err)
	}
	in := f.remoteInstaller(t, cachetest.Root(t))
	whole, cleanupWhole, err := in.fromArchive(t.Context(), archive, "https://example.com/kit.tar.gz", "", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	cleanupWhole()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the whole extraction left %d files in the temporary folder", len(left))
	}
	cands, cleanup, err := in.fromArchive(t.Context(), archive, "https://example.com/kit.tar.gz", "", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	found := foundSkills(cands)
	if want := []string{
		"o-kit-0123456/plugins/p/skills/beta: ",
		"o-kit-0123456/skills/alpha: ",
		`o-kit-0123456/skills/gamma: AGENTS.md is a link to "../../CLAUDE.md", another link`,
	}; !slices.Equal(found, want) {
		t.Errorf("found the skills %q, want %q", found, want)
	}
	if want := foundSkills(whole); !slices.Equal(found, want) {
		t.Errorf("found the skills %q, extracted whole %q", found, want)
	}
	if len(cands) == 0 || cands[0].extracted == nil || cands[0].extracted.repo == nil {
		t.Fatal("the archive was not extracted into the cache's staging area")
	}
	want := []string{
		"o-kit-0123456/AGENTS.md",
		"o-kit-0123456/CLAUDE.md",
		"o-kit-0123456/docs/shared.md",
		"o-kit-0123456/plugins/p/.claude-plugin/plugin.json",
		"o-kit-0123456/plugins/p/skills/beta/SKILL.md",
		"o-kit-0123456/skills/alpha/SKILL.md",
		"o-kit-0123456/skills/alpha/notes.md",
		"o-kit-0123456/skills/alpha/scripts/run.sh",
		"o-kit-0123456/skills/gamma/SKILL.md",
	}
	if got := treeFileList(t, cands[0].extracted.repo.Dir()); !slices.Equal(got, want) {
		t.Errorf("the staging area holds %q, want %q", got, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the extraction left %d files in the temporary folder", len(left))
	}
}

// foundSkills returns the subpaths of cands, each with the first clause
// of its problem, sorted.
func foundSkills(cands []candidate) []string {
	var out []string
	for _, c := range cands {
		problem, _, _ := strings.Cut(c.problem, ";")
		out = append(out, c.subpath+": "+problem)
	}
	slices.Sort(out)
	return out
}
