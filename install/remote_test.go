package install

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// fakeGitHub is a stand-in GitHub API, with its archive host, that
// counts what it is asked and can refuse everything (offline).
type fakeGitHub struct {
	api, archive *httptest.Server
	token        string

	mu       sync.Mutex
	refs     map[string]string            // "owner/repo@ref" (HEAD: default branch): commit
	trees    map[string]map[string]string // commit: files
	requests []string
	offline  bool
	// halfArchive makes the archive host send half of each archive, then
	// nothing until the test ends.
	halfArchive bool
}

const (
	commitA = "0123456789abcdef0123456789abcdef01234567"
	commitB = "89abcdef0123456789abcdef0123456789abcdef"
)

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{token: "ghp_secrettoken123", refs: map[string]string{}, trees: map[string]map[string]string{}}
	stop := make(chan struct{})
	g.archive = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.record(r) {
			http.Error(w, "offline", http.StatusServiceUnavailable)
			return
		}
		commit := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		g.mu.Lock()
		files, half := g.trees[commit], g.halfArchive
		g.mu.Unlock()
		snapshot := map[string]string{}
		for name, body := range files {
			snapshot["o-skills-"+commit[:7]+"/"+name] = body
		}
		body := testarchive.TarGzFiles(t, snapshot)
		if half {
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			stall(stop, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(func() { close(stop); g.archive.Close() })
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref...}", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		commit, ok := g.refs[r.PathValue("owner")+"/"+r.PathValue("repo")+"@"+r.PathValue("ref")]
		g.mu.Unlock()
		if !ok {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		fmt.Fprint(w, commit)
	})
	mux.HandleFunc("GET /repos/{owner}/{repo}/tags", g.serveTags)
	mux.HandleFunc("GET /repos/{owner}/{repo}/tarball/{commit}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, g.archive.URL+"/o-skills/"+r.PathValue("commit"), http.StatusFound)
	})
	g.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.record(r) {
			http.Error(w, "offline", http.StatusServiceUnavailable)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+g.token {
			http.Error(w, `{"message":"Requires authentication"}`, http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(g.api.Close)
	t.Setenv("GITHUB_API_URL", g.api.URL)
	t.Setenv("GITHUB_TOKEN", g.token)
	t.Setenv("GH_TOKEN", "")
	return g
}

// record counts a request and reports whether the stand-in answers.
func (g *fakeGitHub) record(r *http.Request) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.URL.Path)
	return !g.offline
}

// take returns the requests since the last call.
func (g *fakeGitHub) take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.requests
	g.requests = nil
	return out
}

func (g *fakeGitHub) publish(ref, commit string, files map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refs["o/skills@"+ref] = commit
	g.refs["o/skills@"+commit] = commit
	g.trees[commit] = files
}

func (g *fakeGitHub) setOffline(v bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.offline = v
}

// remoteInstaller is the fixture's installer with a cache root of its
// own for published sources.
func (f *fixture) remoteInstaller(t *testing.T, cacheRoot string) *Installer {
	c := skill.NewCache(skill.WithSkillCacheRoot(cacheRoot))
	return New(f.env, WithCache(c), WithLockDir(filepath.Join(f.env.Home, ".locks")))
}

func TestGitHubSourcePinned(t *testing.T) {
	g := newFakeGitHub(t)
	repo := map[string]string{
		".claude-plugin/marketplace.json":     `{"plugins":[{"name":"p","source":"./plugins/p"},{"name":"t","source":"./terraform/gen"}]}`,
		"skills/.curated/alpha/SKILL.md":      skillMD("alpha"),
		"plugins/p/skills/beta/SKILL.md":      skillMD("beta"),
		"plugins/p/skills/beta/run.sh":        "#!/bin/sh\n",
		"terraform/gen/skills/gamma/SKILL.md": skillMD("gamma"),
	}
	g.publish("HEAD", commitA, repo)
	f := newFixture(t)
	cache := cachetest.Root(t)
	in := f.remoteInstaller(t, cache)
	ctx := t.Context()
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)

	changes, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if !slices.Contains(actions(changes), name+"/:canonical:installed") {
			t.Errorf("Add(o/skills) = %v, want %s installed", actions(changes), name)
		}
	}
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if e := lock.Skills["beta"]; e == nil || e.Source != "o/skills" || e.Pin != commitA || e.Subpath != "plugins/p/skills/beta" {
		t.Errorf("lock entry of beta = %+v, want the source as typed, the commit and its folder", e)
	}
	if data := readFile(t, lockPath); strings.Contains(data, g.token) {
		t.Errorf("the lock file holds the token:\n%s", data)
	}
	g.take()

	// The branch moves on; sync and a frozen sync keep to the pin, and with
	// the content in the cache need no network at all.
	moved := map[string]string{}
	for k, v := range repo {
		moved[k] = v
	}
	moved["skills/.curated/alpha/SKILL.md"] = skillMD("alpha") + "changed upstream\n"
	g.publish("HEAD", commitB, moved)
	g.setOffline(true)
	os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("offline frozen Sync of a pinned GitHub source = %v", err)
	}
	if _, err := in.Sync(ctx, SyncRequest{}); err != nil {
		t.Errorf("offline Sync of a pinned GitHub source = %v", err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("offline Verify = %+v, %v", bad, err)
	}
	if got := g.take(); len(got) != 0 {
		t.Errorf("offline syncs asked GitHub %q, want nothing", got)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "alpha", "SKILL.md")); got != skillMD("alpha") {
		t.Errorf("sync installed alpha from the moving branch: %q", got)
	}

	// Without the cache, sync downloads the pinned commit and never asks
	// what the branch names now.
	g.setOffline(false)
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "alpha"))
	cold := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := cold.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Fatalf("Sync with an empty cache = %v", err)
	}
	for _, p := range g.take() {
		if strings.Contains(p, "/commits/") || strings.Contains(p, commitB) {
			t.Errorf("Sync asked %s; want only the pinned commit's tarball", p)
		}
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".agents", "skills", "alpha", "SKILL.md")); got != skillMD("alpha") {
		t.Errorf("sync with an empty cache installed alpha = %q, want the pinned content", got)
	}

	// Add again moves the pin and says from where to where.
	changes, err = in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	var alpha, beta Change
	for _, c := range changes {
		if c.Agent == "" && c.Skill == "alpha" {
			alpha = c
		}
		if c.Agent == "" && c.Skill == "beta" {
			beta = c
		}
	}
	if alpha.Action != ActionUpdated || alpha.PreviousPin != commitA || alpha.Pin != commitB {
		t.Errorf("Add after the branch moved: alpha = %+v, want updated from %s to %s", alpha, commitA, commitB)
	}
	if beta.Action != ActionUnchanged || beta.PreviousPin != commitA || beta.Pin != commitB || !Changed([]Change{beta}) {
		t.Errorf("Add after the branch moved: beta = %+v, want unchanged content and its pin moved", beta)
	}
	if lock, _ := readLock(lockPath); lock.Skills["beta"].Pin != commitB {
		t.Errorf("lock pin of beta = %s, want %s", lock.Skills["beta"].Pin, commitB)
	}
}

func TestGitHubSourceForms(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("main", commitA, map[string]string{
		"skills/alpha/SKILL.md":          skillMD("alpha"),
		"plugins/p/skills/beta/SKILL.md": skillMD("beta"),
	})
	g.publish("HEAD", commitA, g.trees[commitA])
	f := newFixture(t)
	in := f.remoteInstaller(t, cachetest.Root(t))
	for source, want := range map[string]string{
		"o/skills/plugins/p@main":                                 "beta",
		"https://github.com/o/skills/tree/main/skills":            "alpha",
		"https://github.com/o/skills":                             "beta,alpha",
		"o/skills@" + commitA:                                     "beta,alpha",
		"o/skills/plugins@" + commitA:                             "beta",
		"https://github.com/o/skills/tree/" + commitA + "/skills": "alpha",
	} {
		got, err := in.Contents(t.Context(), FindRequest{Source: source})
		if err != nil {
			t.Errorf("Contents(%s) = %v", source, err)
			continue
		}
		var names []string
		for _, s := range got {
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != want {
			t.Errorf("Contents(%s) = %v, want %s", source, names, want)
		}
	}
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{"o/nothing"}, Agents: agentsOf(t, "codex")})
	if !errors.Is(err, ErrInvalidSource) || strings.Contains(err.Error(), g.token) {
		t.Errorf("Add(o/nothing) = %v, want ErrInvalidSource without the token", err)
	}
	g.token = "another"
	_, err = in.Add(t.Context(), AddRequest{Sources: []string{"o/skills/plugins/p@main"}, Agents: agentsOf(t, "codex")})
	if err == nil || strings.Contains(err.Error(), "ghp_secrettoken123") {
		t.Errorf("Add with a refused token = %v, want an error without the token", err)
	}
	// A local folder of the same name wins over a GitHub source.
	t.Chdir(f.sources)
	f.writeSkill(t, "o/skills", "local", "")
	if got, err := in.Contents(t.Context(), FindRequest{Source: "o/skills"}); err != nil || len(got) != 1 || got[0].Name != "local" {
		t.Errorf("Contents(o/skills) with such a folder here = %v, %v, want the folder", got, err)
	}
}

func TestOCISourcePinned(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	var requests sync.Map
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	var offline bool
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		off := offline
		mu.Unlock()
		requests.Store(r.URL.Path, true)
		if off {
			http.Error(w, "offline", http.StatusServiceUnavailable)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	f := newFixture(t)
	dir := f.writeSkill(t, "review", "review", "")
	pushCache := cachetest.Root(t)
	ctx := t.Context()
	d1, err := oci.Push(ctx, dir, "oci://"+host+"/skills/review:1", oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(pushCache))))
	if err != nil {
		t.Fatal(err)
	}
	cache := cachetest.Root(t)
	in := f.remoteInstaller(t, cache)
	ref := "oci://" + host + "/skills/review:1"
	if _, err := in.Add(ctx, AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil || lock.Skills["review"] == nil || lock.Skills["review"].Pin != d1 || lock.Skills["review"].Source != ref {
		t.Fatalf("lock = %+v, %v, want review from %s pinned to %s", lock.Skills["review"], err, ref, d1)
	}
	// The tag moves; offline, sync and verify keep to the pin.
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("review")+"version 2\n"), 0o644)
	d2, err := oci.Push(ctx, dir, ref, oci.WithCache(skill.NewCache(skill.WithSkillCacheRoot(pushCache))))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	offline = true
	mu.Unlock()
	os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("offline frozen Sync of a pinned OCI source = %v", err)
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("offline Verify = %+v, %v", bad, err)
	}
	// Even without the installed skills in the skill cache, OCI's own
	// cache of the pinned layer serves a sync.
	os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "review"))
	cachetest.Writable(cache)
	entries, _ := os.ReadDir(cache)
	removed := 0
	for _, e := range entries {
		if len(e.Name()) == 64 {
			os.RemoveAll(filepath.Join(cache, e.Name()))
			removed++
		}
	}
	if removed == 0 {
		t.Fatalf("the skill cache %s held no tree", cache)
	}
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("offline frozen Sync from OCI's cache = %v", err)
	}
	mu.Lock()
	offline = false
	mu.Unlock()
	changes, err := in.Add(ctx, AddRequest{Sources: []string{ref}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	if c := changes[0]; c.Action != ActionUpdated || c.PreviousPin != d1 || c.Pin != d2 {
		t.Errorf("Add after the tag moved = %+v, want updated from %s to %s", c, d1, d2)
	}
	// A registry that holds no such repository.
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"oci://" + host + "/skills/none:1"}, Agents: agentsOf(t, "codex")}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("Add of a missing OCI repository = %v, want ErrInvalidSource", err)
	}
}

func TestPinnedURLSyncsOffline(t *testing.T) {
	f := newFixture(t)
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("remote")})
	var offline bool
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if offline {
			http.Error(w, "offline", http.StatusServiceUnavailable)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	in := f.remoteInstaller(t, cachetest.Root(t))
	sum := sha256.Sum256(body)
	src := srv.URL + "/remote.tgz#sha256=" + hex.EncodeToString(sum[:])
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	offline = true
	mu.Unlock()
	os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
	if _, err := in.Sync(t.Context(), SyncRequest{Frozen: true}); err != nil {
		t.Errorf("offline frozen Sync of a URL pinned with #sha256= = %v", err)
	}
}

// gitRepo makes a repository with files on branch main and returns its
// commit.
func gitRepo(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	writeFiles(t, dir, files)
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		run("init", "-q", "-b", "main")
	}
	run("add", "-A")
	run("commit", "-q", "-m", "skills")
	return run("rev-parse", "HEAD")
}

func TestGitSourcePinned(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "repo")
	c1 := gitRepo(t, repo, map[string]string{
		"skills/.system/alpha/SKILL.md":  skillMD("alpha"),
		"tools/x/skills/beta/SKILL.md":   skillMD("beta"),
		"tools/x/skills/beta/scripts/go": "#!/bin/sh\n",
	})
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil || lock.Skills["beta"] == nil || lock.Skills["beta"].Pin != c1 || lock.Skills["beta"].Source != src || lock.Skills["beta"].Subpath != "tools/x/skills/beta" {
		t.Fatalf("lock entry of beta = %+v, %v, want %s pinned to %s", lock.Skills["beta"], err, src, c1)
	}
	// The branch moves; sync keeps to the pin, from the cache, and with the
	// repository gone altogether.
	c2 := gitRepo(t, repo, map[string]string{"skills/.system/alpha/SKILL.md": skillMD("alpha") + "v2\n"})
	moved := filepath.Join(filepath.Dir(repo), "moved")
	os.Rename(repo, moved)
	os.RemoveAll(filepath.Join(f.env.Project, ".claude"))
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync of a pinned git source without its repository = %v", err)
	}
	os.Rename(moved, repo)
	changes, err := in.Add(ctx, AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Agent == "" && c.Skill == "alpha" && (c.Action != ActionUpdated || c.PreviousPin != c1 || c.Pin != c2) {
			t.Errorf("Add after the branch moved: alpha = %+v, want updated from %s to %s", c, c1, c2)
		}
	}
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"git+file://" + filepath.ToSlash(repo) + "#ref=nope"}, Agents: agentsOf(t, "codex")}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("Add of a missing ref = %v, want ErrInvalidSource", err)
	}
}

// TestGitSourceAddFetchesOnce checks that adding a git source fetches the
// repository once: the fetch that resolves the ref also gives the
// content.
func TestGitSourceAddFetchesOnce(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git:", err)
	}
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	// A git first on PATH that logs each command, then runs the real one.
	bin := t.TempDir()
	log := filepath.Join(bin, "argv.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >>" + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	in := f.remoteInstaller(t, cachetest.Root(t))
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=main"
	if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "fetch\n"); n != 1 {
		t.Errorf("Add of a git source ran git fetch %d times, want once; git ran:\n%s", n, data)
	}
}
