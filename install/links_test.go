package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// A tree of a source for these tests: path: content, where content
// "-> TARGET" makes the path a symbolic link to TARGET.
type linkTree map[string]string

const linkPrefix = "-> "

// writeTree writes tree under dir, skipping the test where links cannot
// be made.
func writeTree(t *testing.T, dir string, tree linkTree) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(tree[name], linkPrefix); ok {
			if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			continue
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(tree[name]), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// tarGzTree returns tree as a tar.gz whose entries sit in the folder top,
// as in a repository snapshot, its links as symbolic link entries.
func tarGzTree(t *testing.T, top string, tree linkTree) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + d + "/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		hdr := &tar.Header{Name: top + "/" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(tree[name]))}
		if target, ok := strings.CutPrefix(tree[name], linkPrefix); ok {
			hdr = &tar.Header{Name: top + "/" + name, Typeflag: tar.TypeSymlink, Mode: 0o777, Linkname: target}
		} else if strings.HasSuffix(name, ".sh") {
			hdr.Mode = 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			tw.Write([]byte(tree[name]))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveGitHub serves tree as the repository o/links at commitA through a
// stand-in GitHub API, and returns the source that names it.
func serveGitHub(t *testing.T, tree linkTree) string {
	body := tarGzTree(t, "o-links-0123456", tree)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/o/links/commits/{ref...}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, commitA)
	})
	mux.HandleFunc("GET /repos/o/links/tarball/{commit}", func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Setenv("GITHUB_API_URL", srv.URL)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "")
	return "o/links"
}

// sourceKinds are the shapes a source with links can take: a folder, an
// archive file holding a repository snapshot, and a GitHub repository.
// Each writes tree and returns the source and the prefix of its skills'
// folders in it.
var sourceKinds = []struct {
	name string
	make func(t *testing.T, f *fixture, tree linkTree) (source, prefix string)
}{
	{"folder", func(t *testing.T, f *fixture, tree linkTree) (string, string) {
		dir := filepath.Join(f.sources, "repo")
		writeTree(t, dir, tree)
		return dir, ""
	}},
	{"archive", func(t *testing.T, f *fixture, tree linkTree) (string, string) {
		p := filepath.Join(f.sources, "repo.tgz")
		if err := os.WriteFile(p, tarGzTree(t, "repo-main", tree), 0o644); err != nil {
			t.Fatal(err)
		}
		return p, "repo-main/"
	}},
	{"github", func(t *testing.T, f *fixture, tree linkTree) (string, string) {
		return serveGitHub(t, tree), ""
	}},
}

// TestLinkedSkillFiles checks rule 3's links: a SKILL.md, or another file
// of a skill, that links to a file elsewhere in the source is read as
// that file, and installed as a regular file; one link that leaves a
// folder source skips only its skill, with the reason, and the rest
// install.
func TestLinkedSkillFiles(t *testing.T) {
	tree := linkTree{
		"shared/beta.md":        skillMD("beta"),
		"shared/notes.md":       "shared notes",
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/alpha/run.sh":   "#!/bin/sh\n",
		"skills/beta/SKILL.md":  linkPrefix + "../../shared/beta.md",
		"skills/beta/notes.md":  linkPrefix + "../../shared/notes.md",
		"skills/beta/run.sh":    linkPrefix + "../alpha/run.sh",
	}
	for _, kind := range sourceKinds {
		t.Run(kind.name, func(t *testing.T) {
			f := newFixture(t)
			tree := maps.Clone(tree)
			want := []string{"alpha/:canonical:installed", "alpha/claude-code:link:installed", "beta/:canonical:installed", "beta/claude-code:link:installed"}
			if kind.name == "folder" {
				// A chain of links inside a folder source is read too (in
				// an archive, a link to a link skips its skill:
				// TestArchiveLinkSkipsItsSkill): a mirror of beta, not
				// skipped.
				tree["skills/chain/SKILL.md"] = linkPrefix + "../beta/SKILL.md"
			}
			source, _ := kind.make(t, f, tree)
			in := f.remoteInstaller(t, cachetest.Root(t))
			changes, err := in.Add(t.Context(), AddRequest{Sources: []string{source}, Agents: agentsOf(t, "claude-code")})
			if err != nil {
				t.Fatalf("Add(%s) = %v", kind.name, err)
			}
			if diff := cmp.Diff(want, actions(changes)); diff != "" {
				t.Errorf("Add(%s) changes (-want +got):\n%s", kind.name, diff)
			}
			for name, content := range map[string]string{"SKILL.md": skillMD("beta"), "notes.md": "shared notes", "run.sh": "#!/bin/sh\n"} {
				p := filepath.Join(f.canonicalOf("beta"), name)
				fi, err := os.Lstat(p)
				if err != nil || !fi.Mode().IsRegular() || readFile(t, p) != content {
					t.Errorf("installed beta/%s = %v, %v, want a regular file holding %q", name, fi, err, content)
				}
			}
			if fi, err := os.Stat(filepath.Join(f.canonicalOf("beta"), "run.sh")); err != nil || fi.Mode()&0o100 == 0 {
				t.Errorf("beta/run.sh = %v, %v, want the executable bit of its target", fi, err)
			}
			if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
				t.Errorf("Verify = %+v, %v", bad, err)
			}
			if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
				t.Errorf("frozen Sync of skills read through links = %v", err)
			}
		})
	}
}

// TestLinkOutOfSourceSkipsItsSkill checks rule 3: in a folder source, a
// skill holding a link that leaves the source, leads to nothing or to a
// folder is skipped with the link named, never read (its target's
// description is not shown), and the others install; strict, it fails
// the request. An archive (a repository snapshot, a GitHub tarball) with
// a link out of it is refused whole, by package extract's rules.
func TestLinkOutOfSourceSkipsItsSkill(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(f.sources, "outside")
	writeTree(t, outside, linkTree{"SKILL.md": "---\nname: secret\ndescription: SECRET TEXT\n---\n"})
	repo := filepath.Join(f.sources, "repo")
	writeTree(t, repo, linkTree{
		"shared/x.md":            "x",
		"skills/good/SKILL.md":   skillMD("good"),
		"skills/abs/SKILL.md":    linkPrefix + filepath.ToSlash(filepath.Join(outside, "SKILL.md")),
		"skills/rel/SKILL.md":    linkPrefix + "../../../outside/SKILL.md",
		"skills/notes/SKILL.md":  skillMD("notes"),
		"skills/notes/notes.md":  linkPrefix + "../../../outside/SKILL.md",
		"skills/gone/SKILL.md":   linkPrefix + "../../shared/nothing.md",
		"skills/folder/SKILL.md": skillMD("folder"),
		"skills/folder/shared":   linkPrefix + "../../shared",
		// Deeper than discovery searches, and in a folder it skips: the
		// check still finds them.
		"skills/deep/SKILL.md":            skillMD("deep"),
		"skills/deep/a/b/c/d/e/f/g.md":    linkPrefix + "../../../../../../../../../outside/SKILL.md",
		"skills/mods/SKILL.md":            skillMD("mods"),
		"skills/mods/node_modules/x/y.md": linkPrefix + "../../../../../outside/SKILL.md",
	})
	in := f.installer(t)
	ctx := t.Context()
	wantSkipped := map[string]string{
		"skills/abs":    `SKILL.md is a link to "` + filepath.ToSlash(filepath.Join(outside, "SKILL.md")) + `", which leads out of the source`,
		"skills/rel":    `SKILL.md is a link to "../../../outside/SKILL.md", which leads out of the source`,
		"skills/notes":  `notes.md is a link to "../../../outside/SKILL.md", which leads out of the source`,
		"skills/gone":   "which does not exist",
		"skills/folder": "a folder; links to folders are not followed",
		"skills/deep":   `a/b/c/d/e/f/g.md is a link to "../../../../../../../../../outside/SKILL.md", which leads out of the source`,
		"skills/mods":   `node_modules/x/y.md is a link to "../../../../../outside/SKILL.md", which leads out of the source`,
	}

	listed, err := in.Contents(ctx, FindRequest{Source: repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range listed {
		if strings.Contains(s.Description, "SECRET") || strings.Contains(s.Problem, "SECRET") {
			t.Errorf("Contents shows what a link out of the source points to: %+v", s)
		}
		if want, ok := wantSkipped[s.Path]; ok && !strings.Contains(s.Problem, want) {
			t.Errorf("Contents: %s problem = %q, want %q", s.Path, s.Problem, want)
		}
	}
	if len(listed) != 8 {
		t.Errorf("Contents = %+v, want every skill, the linked ones with their problem", listed)
	}

	_, err = in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code"), Strict: true})
	if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "leads out of the source") {
		t.Errorf("strict Add = %v, want ErrInvalidSource naming the link", err)
	}
	changes, err := in.Add(ctx, AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatalf("Add of a folder with a link out of it = %v, want the others installed", err)
	}
	skipped := map[string]string{}
	for _, c := range changes {
		if c.Action == ActionSkipped {
			skipped[c.Path] = c.Reason
		}
	}
	for p, want := range wantSkipped {
		if !strings.Contains(skipped[p], want) {
			t.Errorf("skipped %s: reason %q, want %q", p, skipped[p], want)
		}
	}
	if len(skipped) != len(wantSkipped) || !slices.Contains(actions(changes), "good/:canonical:installed") {
		t.Errorf("Add = %v, want good installed and the others skipped", actions(changes))
	}

	// In an archive a link out of it skips only its skill too
	// (TestArchiveLinkSkipsItsSkill has the other kinds of link).
	for _, kind := range sourceKinds[1:] {
		t.Run(kind.name, func(t *testing.T) {
			f := newFixture(t)
			source, prefix := kind.make(t, f, linkTree{"skills/good/SKILL.md": skillMD("good"), "skills/rel/SKILL.md": linkPrefix + "../../../../outside/SKILL.md"})
			changes, err := f.remoteInstaller(t, cachetest.Root(t)).Add(ctx, AddRequest{Sources: []string{source}, Agents: agentsOf(t, "claude-code")})
			for _, c := range changes {
				if c.Action == ActionSkipped && (c.Path != prefix+"skills/rel" || !strings.Contains(c.Reason, "SKILL.md is a link to \"../../../../outside/SKILL.md\", which leads out of the source")) {
					t.Errorf("Add of a %s with a link out of it skipped %s: %q, want skills/rel naming the link", kind.name, c.Path, c.Reason)
				}
			}
			if want := []string{"rel/::skipped", "good/:canonical:installed", "good/claude-code:link:installed"}; err != nil || !cmp.Equal(want, actions(changes)) {
				t.Errorf("Add of a %s with a link out of it = %v, %v, want %v", kind.name, actions(changes), err, want)
			}
		})
	}
}

// TestMirrorIsOneSkill checks rule 12's mirrors: skills of one name whose
// files one of them holds, byte for byte (a folder for another agent that
// links its SKILL.md to the skill's, or an identical copy), are one
// skill, installed from the folder that holds them all, else from the
// preferred place; skills of one name with other content stay a clash.
func TestMirrorIsOneSkill(t *testing.T) {
	tree := linkTree{
		// A mirror for another agent, linking the skill's SKILL.md.
		"skills/alpha/SKILL.md":         skillMD("alpha"),
		"skills/alpha/scripts/run.sh":   "#!/bin/sh\n",
		".gemini/skills/alpha/SKILL.md": linkPrefix + "../../../skills/alpha/SKILL.md",
		".cursor/skills/alpha/SKILL.md": linkPrefix + "../../../skills/alpha/SKILL.md",
		// The same content in two places.
		".claude/skills/beta/SKILL.md": skillMD("beta"),
		"skills/beta/SKILL.md":         skillMD("beta"),
		// Other content under one name.
		"skills/gamma/SKILL.md":         skillMD("gamma"),
		".cursor/skills/gamma/SKILL.md": skillMD("gamma") + "Another gamma.\n",
		// A linked SKILL.md, but each folder holds a file the other lacks.
		"skills/delta/SKILL.md":         skillMD("delta"),
		"skills/delta/a.md":             "a",
		".gemini/skills/delta/SKILL.md": linkPrefix + "../../../skills/delta/SKILL.md",
		".gemini/skills/delta/b.md":     "b",
	}
	for _, kind := range sourceKinds {
		t.Run(kind.name, func(t *testing.T) {
			f := newFixture(t)
			source, prefix := kind.make(t, f, tree)
			in := f.remoteInstaller(t, cachetest.Root(t))
			listed, err := in.Contents(t.Context(), FindRequest{Source: source})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range listed {
				got = append(got, fmt.Sprintf("%s %s %t", s.Name, strings.TrimPrefix(s.Path, prefix), s.Problem != ""))
			}
			want := []string{
				"gamma .cursor/skills/gamma true",
				"delta .gemini/skills/delta true",
				"alpha skills/alpha false",
				"beta skills/beta false",
				"delta skills/delta true",
				"gamma skills/gamma true",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Contents (name, path, skipped) (-want +got):\n%s", diff)
			}
			changes, err := in.Add(t.Context(), AddRequest{Sources: []string{source}, Agents: agentsOf(t, "claude-code")})
			if err != nil {
				t.Fatal(err)
			}
			skipped := map[string]string{}
			for _, c := range changes {
				if c.Action == ActionSkipped {
					skipped[strings.TrimPrefix(c.Path, prefix)] = c.Reason
				}
			}
			for _, p := range []string{"skills/gamma", ".cursor/skills/gamma", "skills/delta", ".gemini/skills/delta"} {
				if !strings.Contains(skipped[p], "another skill is named") {
					t.Errorf("skipped %s: %q, want a name clash", p, skipped[p])
				}
			}
			if len(skipped) != 4 {
				t.Errorf("skipped = %v, want only the clashes", skipped)
			}
			lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
			if err != nil {
				t.Fatal(err)
			}
			for name, sub := range map[string]string{"alpha": "skills/alpha", "beta": "skills/beta"} {
				if e := lock.Skills[name]; e == nil || e.Subpath != prefix+sub {
					t.Errorf("lock entry of %s = %+v, want it from %s", name, e, prefix+sub)
				}
			}
			if got := readFile(t, filepath.Join(f.canonicalOf("alpha"), "scripts", "run.sh")); got != "#!/bin/sh\n" {
				t.Errorf("alpha was installed without its scripts: %q", got)
			}
			// A mirror selected by its folder is installed from there.
			g := newFixture(t)
			source, prefix = kind.make(t, g, tree)
			_, err = g.remoteInstaller(t, cachetest.Root(t)).Add(t.Context(), AddRequest{Sources: []string{source}, Agents: agentsOf(t, "claude-code"), Skills: []string{prefix + ".gemini/skills/alpha"}})
			if lock, _ := readLock(filepath.Join(g.env.Project, ".agents", lockName)); err != nil || lock.Skills["alpha"] == nil || lock.Skills["alpha"].Subpath != prefix+".gemini/skills/alpha" {
				t.Errorf("Add of the mirror by its folder = %v, lock %+v", err, lock)
			}
		})
	}
}
