package install

import (
	"archive/zip"
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// zipTree returns tree as a zip whose entries sit in the folder top, its
// links as symbolic link entries.
func zipTree(t *testing.T, top string, tree linkTree) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		h := &zip.FileHeader{Name: top + "/" + name, Method: zip.Deflate}
		body := tree[name]
		h.SetMode(0o644)
		if target, ok := strings.CutPrefix(body, linkPrefix); ok {
			h.SetMode(os.ModeSymlink | 0o777)
			body = target
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArchiveLinkSkipsItsSkill checks rule 3's links in an archive (a
// tar.gz or a zip holding a repository snapshot, a GitHub tarball, a
// git archive of a repository): a
// link out of the archive, to a folder, to nothing or to another link
// is never written; the skill whose folder held it is skipped with the
// link and the reason, one outside every skill is left out, and the
// other skills install.
func TestArchiveLinkSkipsItsSkill(t *testing.T) {
	tree := linkTree{
		"README.md":              "a repository",
		"docs/out.md":            linkPrefix + "../../outside.md",
		"skills/good/SKILL.md":   skillMD("good"),
		"skills/other/SKILL.md":  skillMD("other"),
		"skills/other/shared.md": linkPrefix + "../good/SKILL.md",
		"skills/folder/SKILL.md": skillMD("folder"),
		"skills/folder/shared":   linkPrefix + "../good",
		"skills/chain/SKILL.md":  skillMD("chain"),
		"skills/chain/a.md":      linkPrefix + "../good/SKILL.md",
		"skills/chain/b.md":      linkPrefix + "a.md",
		"skills/gone/SKILL.md":   skillMD("gone"),
		"skills/gone/x.md":       linkPrefix + "missing.md",
		"skills/out/SKILL.md":    linkPrefix + "../../../../outside/SKILL.md",
	}
	wantSkipped := map[string]string{
		"skills/folder": `shared is a link to "../good", a folder; links to folders are not followed`,
		"skills/chain":  `b.md is a link to "a.md", another link`,
		"skills/gone":   `x.md is a link to "missing.md", which does not exist`,
		"skills/out":    `SKILL.md is a link to "../../../../outside/SKILL.md", which leads out of the source`,
	}
	kinds := append(slices.Clone(sourceKinds[1:]), struct {
		name string
		make func(t *testing.T, f *fixture, tree linkTree) (source, prefix string)
	}{"zip", func(t *testing.T, f *fixture, tree linkTree) (string, string) {
		p := filepath.Join(f.sources, "repo.zip")
		if err := os.WriteFile(p, zipTree(t, "repo-main", tree), 0o644); err != nil {
			t.Fatal(err)
		}
		return p, "repo-main/"
	}}, struct {
		name string
		make func(t *testing.T, f *fixture, tree linkTree) (source, prefix string)
	}{"git", func(t *testing.T, f *fixture, tree linkTree) (string, string) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git:", err)
		}
		repo := filepath.Join(f.sources, "repo")
		writeTree(t, repo, tree)
		gitRepo(t, repo, nil)
		return "git+file://" + filepath.ToSlash(repo) + "#ref=main", ""
	}})
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			f := newFixture(t)
			source, prefix := kind.make(t, f, tree)
			in := f.remoteInstaller(t, cachetest.Root(t))
			listed, err := in.Contents(t.Context(), FindRequest{Source: source})
			if err != nil {
				t.Fatalf("Contents(%s) = %v, want every skill listed", kind.name, err)
			}
			problems := map[string]string{}
			for _, s := range listed {
				problems[strings.TrimPrefix(s.Path, prefix)] = s.Problem
			}
			if len(problems) != 6 || problems["skills/good"] != "" || problems["skills/other"] != "" {
				t.Errorf("Contents(%s) = %+v, want six skills, good and other without a problem", kind.name, listed)
			}
			for p, want := range wantSkipped {
				if !strings.Contains(problems[p], want) {
					t.Errorf("Contents(%s): %s problem = %q, want %q", kind.name, p, problems[p], want)
				}
			}

			changes, err := in.Add(t.Context(), AddRequest{Sources: []string{source}, Agents: agentsOf(t, "claude-code")})
			if err != nil {
				t.Fatalf("Add(%s) = %v, want the skills without a bad link installed", kind.name, err)
			}
			skipped := map[string]string{}
			for _, c := range changes {
				if c.Action == ActionSkipped {
					skipped[strings.TrimPrefix(c.Path, prefix)] = c.Reason
				}
			}
			for p, want := range wantSkipped {
				if !strings.Contains(skipped[p], want) {
					t.Errorf("Add(%s): skipped %s reason %q, want %q", kind.name, p, skipped[p], want)
				}
			}
			var installed []string
			for _, a := range actions(changes) {
				if strings.HasSuffix(a, ":canonical:installed") {
					installed = append(installed, a)
				}
			}
			if diff := cmp.Diff([]string{"good/:canonical:installed", "other/:canonical:installed"}, installed); diff != "" || len(skipped) != len(wantSkipped) {
				t.Errorf("Add(%s) = %v, want good and other installed, the rest skipped (-want +got):\n%s", kind.name, actions(changes), diff)
			}
			if got := readFile(t, filepath.Join(f.canonicalOf("other"), "shared.md")); got != skillMD("good") {
				t.Errorf("Add(%s): other/shared.md = %q, want the file its link points to", kind.name, got)
			}
			if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
				t.Errorf("frozen Sync(%s) of the installed skills = %v", kind.name, err)
			}

			_, err = in.Add(t.Context(), AddRequest{Sources: []string{source}, Agents: agentsOf(t, "claude-code"), Strict: true})
			if err == nil || !strings.Contains(err.Error(), "a folder; links to folders are not followed") {
				t.Errorf("strict Add(%s) = %v, want it refused naming the link", kind.name, err)
			}
		})
	}
}
