package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// archiveRequests counts the requests of got to the stand-in's archive
// host (the API redirects a tarball there).
func archiveRequests(got []string) int {
	n := 0
	for _, p := range got {
		if strings.Contains(p, "/tarball/") {
			n++
		}
	}
	return n
}

// sourceMemos returns the files of the source memos under the cache root.
func sourceMemos(t *testing.T, cacheRoot string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(cacheRoot, pinsDir, "*.source"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkAllUnchanged fails unless every change but a skip is unchanged.
func checkAllUnchanged(t *testing.T, what string, changes []Change) {
	t.Helper()
	if len(changes) == 0 {
		t.Errorf("%s reported nothing", what)
	}
	for _, ch := range changes {
		if ch.Action != ActionUnchanged {
			t.Errorf("%s: %s %s %s, want unchanged", what, ch.Skill, ch.Agent, ch.Action)
		}
	}
}

// TestReAddUnchangedPinDownloadsNothing checks rule 13: a second Add of
// a GitHub source whose reference still resolves to the recorded pin
// looks the reference up and downloads nothing, and reports every skill
// unchanged.
func TestReAddUnchangedPinDownloadsNothing(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  skillMD("beta"),
		"skills/beta/run.sh":    "#!/bin/sh\n",
	})
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	req := Request{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}
	if _, err := in.Add(ctx, req); err != nil {
		t.Fatal(err)
	}
	before := lockBytes(t, f)
	g.take()
	changes, err := in.Add(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.take(); !slices.Equal(got, []string{"/repos/o/skills/commits/HEAD"}) {
		t.Errorf("second Add asked %q, want only the ref lookup", got)
	}
	checkAllUnchanged(t, "second Add", changes)
	if after := lockBytes(t, f); string(after) != string(before) {
		t.Errorf("second Add changed the lock file:\n%s\nwant\n%s", after, before)
	}
}

// TestReAddDownloadsWhenTheCacheCannotTell checks that a memo that is
// missing, unreadable, tampered with, or whose trees the cache no longer
// holds costs a download, and the same install, never another one.
func TestReAddDownloadsWhenTheCacheCannotTell(t *testing.T) {
	hostile := func(t *testing.T, memo string, edit func(m *sourceMemo)) {
		var m sourceMemo
		b, err := os.ReadFile(memo)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(memo, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, cacheRoot, memo string)
	}{
		{"trees removed", func(t *testing.T, cacheRoot, memo string) {
			entries, err := os.ReadDir(cacheRoot)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") { // a tree's folder, named by its digest
					if err := os.RemoveAll(filepath.Join(cacheRoot, e.Name())); err != nil {
						t.Fatal(err)
					}
				}
			}
		}},
		{"memo removed", func(t *testing.T, cacheRoot, memo string) {
			if err := os.Remove(memo); err != nil {
				t.Fatal(err)
			}
		}},
		{"memo malformed", func(t *testing.T, cacheRoot, memo string) {
			if err := os.WriteFile(memo, []byte(`{"source":`), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"memo oversized", func(t *testing.T, cacheRoot, memo string) {
			if err := os.WriteFile(memo, make([]byte, maxSourceMemo+1), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"memo is a folder", func(t *testing.T, cacheRoot, memo string) {
			if err := os.Remove(memo); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(memo, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"wrong digest", func(t *testing.T, cacheRoot, memo string) {
			hostile(t, memo, func(m *sourceMemo) { m.Skills[0].Digest = "sha256:" + strings.Repeat("0", 64) })
		}},
		{"digests swapped", func(t *testing.T, cacheRoot, memo string) {
			hostile(t, memo, func(m *sourceMemo) { m.Skills[0].Digest, m.Skills[1].Digest = m.Skills[1].Digest, m.Skills[0].Digest })
		}},
		{"path traversal", func(t *testing.T, cacheRoot, memo string) {
			hostile(t, memo, func(m *sourceMemo) { m.Skills[0].Subpath = "../../outside" })
		}},
		{"name traversal", func(t *testing.T, cacheRoot, memo string) {
			hostile(t, memo, func(m *sourceMemo) { m.Skills[0].Name = "../alpha" })
		}},
		{"another pin", func(t *testing.T, cacheRoot, memo string) {
			hostile(t, memo, func(m *sourceMemo) { m.Pin = commitB })
		}},
		{"no skills", func(t *testing.T, cacheRoot, memo string) {
			hostile(t, memo, func(m *sourceMemo) { m.Skills = nil })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.publish("HEAD", commitA, map[string]string{
				"skills/alpha/SKILL.md": skillMD("alpha"),
				"skills/beta/SKILL.md":  skillMD("beta"),
			})
			f := newFixture(t)
			cacheRoot := cachetest.Root(t)
			in := f.remoteInstaller(t, cacheRoot)
			ctx := t.Context()
			req := Request{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}
			if _, err := in.Add(ctx, req); err != nil {
				t.Fatal(err)
			}
			before := lockBytes(t, f)
			memos := sourceMemos(t, cacheRoot)
			if len(memos) != 1 {
				t.Fatalf("memos after the first Add: %q, want one", memos)
			}
			tc.spoil(t, cacheRoot, memos[0])
			g.take()
			changes, err := in.Add(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.take(); archiveRequests(got) != 1 {
				t.Errorf("second Add asked %q, want the archive downloaded once", got)
			}
			checkAllUnchanged(t, "second Add", changes)
			if after := lockBytes(t, f); string(after) != string(before) {
				t.Errorf("second Add changed the lock file:\n%s\nwant\n%s", after, before)
			}
			for _, name := range []string{"alpha", "beta"} {
				if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", name, "SKILL.md")); got != skillMD(name) {
					t.Errorf("%s after the second Add: %q", name, got)
				}
			}
			if _, err := os.Lstat(filepath.Join(f.env.Project, "outside")); err == nil {
				t.Error("a tampered memo made a folder outside")
			}
		})
	}
}

// TestReAddSelection checks that a selection (Request.Skills) at the
// same pin is taken from the memo when the memo covers the whole source,
// and downloaded when it does not.
func TestReAddSelection(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  skillMD("beta"),
	})
	agents := agentsOf(t, "claude-code")
	ctx := t.Context()
	beta := filepath.Join(".agents", "skills", "beta", "SKILL.md")

	t.Run("memo covers it", func(t *testing.T) {
		f := newFixture(t)
		in := f.remoteInstaller(t, cachetest.Root(t))
		if _, err := in.Add(ctx, Request{Sources: []string{"o/skills"}, Agents: agents}); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Remove(ctx, []string{"beta"}, agents); err != nil {
			t.Fatal(err)
		}
		g.take()
		changes, err := in.Add(ctx, Request{Sources: []string{"o/skills"}, Skills: []string{"beta"}, Agents: agents})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.take(); archiveRequests(got) != 0 {
			t.Errorf("Add of beta asked %q, want no download", got)
		}
		if !slices.ContainsFunc(changes, func(ch Change) bool { return ch.Skill == "beta" && ch.Action == ActionInstalled }) {
			t.Errorf("Add of beta = %+v, want beta installed", changes)
		}
		if got := readFile(t, filepath.Join(f.env.Project, beta)); got != skillMD("beta") {
			t.Errorf("beta = %q", got)
		}
	})
	t.Run("memo does not cover it", func(t *testing.T) {
		f := newFixture(t)
		cacheRoot := cachetest.Root(t)
		in := f.remoteInstaller(t, cacheRoot)
		if _, err := in.Add(ctx, Request{Sources: []string{"o/skills"}, Skills: []string{"alpha"}, Agents: agents}); err != nil {
			t.Fatal(err)
		}
		if memos := sourceMemos(t, cacheRoot); len(memos) != 0 {
			t.Errorf("memos after an Add of part of a source: %q, want none", memos)
		}
		g.take()
		changes, err := in.Add(ctx, Request{Sources: []string{"o/skills"}, Skills: []string{"beta"}, Agents: agents})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.take(); archiveRequests(got) != 1 {
			t.Errorf("Add of beta asked %q, want the archive downloaded once", got)
		}
		if !slices.ContainsFunc(changes, func(ch Change) bool { return ch.Skill == "beta" && ch.Action == ActionInstalled }) {
			t.Errorf("Add of beta = %+v, want beta installed", changes)
		}
		if got := readFile(t, filepath.Join(f.env.Project, beta)); got != skillMD("beta") {
			t.Errorf("beta = %q", got)
		}
	})
}

// TestReAddGitNoFetch checks rule 13 for a git source over file://: a
// second Add at the same pin runs git's lookup alone: no fetch of the
// folder's files and no git archive (git is wrapped to log its
// commands).
func TestReAddGitNoFetch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the git wrapper is a shell script")
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git:", err)
	}
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta")})
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	script := "#!/bin/sh\necho \"$@\" >> '" + log + "'\nexec '" + realGit + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	req := Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}
	if _, err := in.Add(ctx, req); err != nil {
		t.Fatal(err)
	}
	// runs counts the git commands logged that run cmd (fetch, archive).
	runs := func(cmd string) int {
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(string(b), "\n") {
			if slices.Contains(strings.Fields(line), cmd) {
				n++
			}
		}
		return n
	}
	fetches, archives, blobs := runs("fetch"), runs("archive"), runs("--stdin")
	if fetches == 0 || archives == 0 {
		t.Fatalf("the git wrapper saw %d fetches and %d archives on the first Add: it is not the git used", fetches, archives)
	}
	changes, err := in.Add(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// The lookup is git's shallow fetch of the commit and its trees; no
	// file of the folder is fetched or read.
	if n := runs("fetch") - fetches; n != 1 {
		t.Errorf("second Add ran %d git fetches, want the one lookup", n)
	}
	if n := runs("--stdin") - blobs; n != 0 {
		t.Errorf("second Add fetched the folder's files (%d fetches of blobs)", n)
	}
	if n := runs("archive") - archives; n != 0 {
		t.Errorf("second Add ran git archive %d times, want none", n)
	}
	checkAllUnchanged(t, "second Add", changes)
}
