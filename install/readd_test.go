package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
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
	req := AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}
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
		if !unseal(b, &m) {
			t.Fatalf("the memo is not sealed: %s", b)
		}
		edit(&m)
		if b, err = seal(m); err != nil {
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
			req := AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}
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

// TestReAddSelection checks that a selection (AddRequest.Skills) at the
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
		if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agents}); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"beta"}, Agents: agents}); err != nil {
			t.Fatal(err)
		}
		g.take()
		changes, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Skills: []string{"beta"}, Agents: agents})
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
		if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Skills: []string{"alpha"}, Agents: agents}); err != nil {
			t.Fatal(err)
		}
		if memos := sourceMemos(t, cacheRoot); len(memos) != 0 {
			t.Errorf("memos after an Add of part of a source: %q, want none", memos)
		}
		g.take()
		changes, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Skills: []string{"beta"}, Agents: agents})
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
// second Add at the same pin runs git's lookup alone (git ls-remote): no
// fetch and no git archive (git is wrapped to log its commands).
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
	req := AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}
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
	// The lookup is git ls-remote of the ref; nothing is fetched, and
	// no file of the folder is read.
	if n := runs("fetch") - fetches; n != 0 {
		t.Errorf("second Add ran %d git fetches, want none", n)
	}
	if n := runs("ls-remote"); n != 1 {
		t.Errorf("git ls-remote ran %d times, want once, the second Add's lookup", n)
	}
	if n := runs("--stdin") - blobs; n != 0 {
		t.Errorf("second Add fetched the folder's files (%d fetches of blobs)", n)
	}
	if n := runs("archive") - archives; n != 0 {
		t.Errorf("second Add ran git archive %d times, want none", n)
	}
	checkAllUnchanged(t, "second Add", changes)
}

// TestReAddGitOverHTTPAsksOnlyTheRefs checks rule 13 for a git source
// over smart HTTP (git http-backend): a second Add at the same pin asks
// the server for its refs alone (the advertisement, GET info/refs, and
// in git's protocol version 2 the ls-refs command), and for no pack,
// which the first Add did ask for.
func TestReAddGitOverHTTPAsksOnlyTheRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	work := filepath.Join(t.TempDir(), "work")
	gitRepo(t, work, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta")})
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", work, filepath.Join(root, "skills.git")).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	var mu sync.Mutex
	var asked []string
	backend := gitHTTPServer(t, root)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		what := gitRequest(t, req)
		mu.Lock()
		asked = append(asked, what)
		mu.Unlock()
		backend.Config.Handler.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		got := asked
		asked = nil
		return got
	}
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	req := AddRequest{Sources: []string{"git+" + srv.URL + "/skills.git#ref=main"}, Agents: agentsOf(t, "claude-code")}
	if _, err := in.Add(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if got := take(); !slices.ContainsFunc(got, func(s string) bool { return s == "fetch" || s == "pack" }) {
		t.Fatalf("the first Add asked %q, no pack: the server is not the one used", got)
	}
	changes, err := in.Add(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := take()
	if len(got) == 0 {
		t.Error("the second Add asked the server nothing, want its refs")
	}
	for _, s := range got {
		if s != "info/refs" && s != "ls-refs" {
			t.Errorf("the second Add asked the server %q, want its refs alone", got)
			break
		}
	}
	checkAllUnchanged(t, "second Add", changes)
}

// gitRequest names what a smart-HTTP request of git asks: "info/refs"
// for the advertisement, the command of a protocol version 2 request
// ("ls-refs", "fetch"), or "pack" for a version 0 request of a pack. It
// puts the body back for the server.
func gitRequest(t *testing.T, req *http.Request) string {
	if req.Method == http.MethodGet {
		if strings.HasSuffix(req.URL.Path, "/info/refs") {
			return "info/refs"
		}
		return "GET " + req.URL.Path
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Error(err)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	text := body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			text, err = io.ReadAll(zr)
		}
		if err != nil {
			t.Error(err)
		}
	}
	if _, after, ok := bytes.Cut(text, []byte("command=")); ok {
		for _, cmd := range []string{"ls-refs", "fetch", "object-info"} {
			if bytes.HasPrefix(after, []byte(cmd)) {
				return cmd
			}
		}
		return "command " + string(after[:min(len(after), 20)])
	}
	return "pack"
}

// TestMaterializePinnedFirstError checks that the skills of a pinned
// source, put into the skill cache a few at a time, each point at their
// tree in the cache with its digest, and that with several failing the
// error is the first one's in order, as one at a time gives.
func TestMaterializePinnedFirstError(t *testing.T) {
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	base := t.TempDir()
	var cands []*candidate
	for i := range 12 {
		name := "skill-" + string(rune('a'+i))
		dir := filepath.Join(base, name)
		writeFiles(t, dir, map[string]string{"SKILL.md": skillMD(name)})
		cands = append(cands, &candidate{name: name, dir: dir, source: "o/skills", pin: commitA})
	}
	digests, err := in.materializePinned(t.Context(), cands)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		if digests[c] == "" || !strings.HasPrefix(c.dir, in.cache.Root()) {
			t.Errorf("%s: digest %q at %s, want its tree in the cache", c.name, digests[c], c.dir)
		}
	}
	for i := range cands {
		cands[i].dir = filepath.Join(base, cands[i].name)
	}
	cands[4].dir = filepath.Join(base, "missing-4")
	cands[9].dir = filepath.Join(base, "missing-9")
	for range 5 {
		_, err := in.materializePinned(t.Context(), cands)
		if err == nil || !strings.Contains(err.Error(), "skill skill-e ") {
			t.Fatalf("materializePinned = %v, want the error of skill-e, the first that fails", err)
		}
	}
}

// TestMaterializePinnedAfterAFailedMove: a skill whose folder cannot be
// published from its extraction (here a file was added to it after
// extraction) is materialized from that folder, which the failed move
// put back.
func TestMaterializePinnedAfterAFailedMove(t *testing.T) {
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := skillMD("skill-a")
	if err := tw.WriteHeader(&tar.Header{Name: "skill-a/SKILL.md", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(tw, body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	repo, err := skillcache.StageRepository(in.cache)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	files, _, err := repo.Extract(t.Context(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo.Dir(), "skill-a")
	writeFiles(t, dir, map[string]string{"added.md": "added after extraction\n"})
	c := &candidate{name: "skill-a", dir: dir, subpath: "skill-a", source: "o/skills", pin: commitA, extracted: &extraction{files: files, repo: repo}}
	if !movable([]*candidate{c})[c] {
		t.Fatal("the skill is not movable: the test does not reach the move")
	}
	digests, err := in.materializePinned(t.Context(), []*candidate{c})
	if err != nil {
		t.Fatalf("materializePinned = %v, want the skill materialized from its folder", err)
	}
	if digests[c] == "" || !strings.HasPrefix(c.dir, in.cache.Root()) {
		t.Errorf("digest %q at %s, want its tree in the cache", digests[c], c.dir)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "added.md")); err != nil {
		t.Errorf("the tree in the cache is not the folder's: %v", err)
	}
}
