package github_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/github"
)

// request is what the stand-in saw of one request.
type request struct {
	Server string // "api" or "archive"
	Path   string
	Query  string
	Accept string
	Auth   string
}

// fakeGitHub is a stand-in GitHub API on one loopback port, with the
// archive host (codeload) on another, recording every request.
type fakeGitHub struct {
	api     *httptest.Server
	archive *httptest.Server

	mu       sync.Mutex
	requests []request

	repos    map[string]bool                               // "owner/repo" that exist
	refs     map[string]string                             // "owner/repo@ref" → commit ("@HEAD" for the default branch)
	tarballs map[string][]byte                             // commit → tar.gz
	token    string                                        // when set, every API request needs it
	limited  bool                                          // answer 403 with rate-limit headers
	reset    int64                                         // X-RateLimit-Reset when limited
	hook     func(http.ResponseWriter, *http.Request) bool // answers instead when it returns true
}

const (
	commitA = "0123456789abcdef0123456789abcdef01234567"
	commitB = "89abcdef0123456789abcdef0123456789abcdef"
	commitC = "fedcba9876543210fedcba9876543210fedcba98"
)

func newFake(t testing.TB) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{
		repos:    map[string]bool{},
		refs:     map[string]string{},
		tarballs: map[string][]byte{},
	}
	f.archive = httptest.NewServer(http.HandlerFunc(f.serveArchive))
	t.Cleanup(f.archive.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/{owner}/{repo}", f.serveRepo)
	mux.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref...}", f.serveCommit)
	mux.HandleFunc("GET /repos/{owner}/{repo}/tarball/{commit}", f.serveTarball)
	f.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.record("api", r)
		if f.hook != nil && f.hook(w, r) {
			return
		}
		if f.limited {
			w.Header().Set("X-RateLimit-Limit", "60")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(f.reset))
			apiError(w, http.StatusForbidden, "API rate limit exceeded for 127.0.0.1.")
			return
		}
		if f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token {
			apiError(w, http.StatusUnauthorized, "Requires authentication")
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.api.Close)
	return f
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"message":%q,"documentation_url":"https://docs.github.com/rest"}`, msg)
}

func (f *fakeGitHub) record(server string, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, request{
		Server: server, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
		Accept: r.Header.Get("Accept"), Auth: r.Header.Get("Authorization"),
	})
}

func (f *fakeGitHub) seen() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

func (f *fakeGitHub) serveRepo(w http.ResponseWriter, r *http.Request) {
	if !f.repos[r.PathValue("owner")+"/"+r.PathValue("repo")] {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	fmt.Fprint(w, `{"default_branch":"main"}`)
}

func (f *fakeGitHub) serveCommit(w http.ResponseWriter, r *http.Request) {
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	if !f.repos[repo] {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Header.Get("Accept") != "application/vnd.github.sha" {
		apiError(w, http.StatusBadRequest, "want the sha media type")
		return
	}
	ref := r.PathValue("ref")
	commit, ok := f.refs[repo+"@"+ref]
	if !ok {
		for _, c := range f.refs {
			if strings.EqualFold(c, ref) {
				commit, ok = c, true
			}
		}
	}
	if !ok {
		apiError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
		return
	}
	fmt.Fprint(w, commit)
}

func (f *fakeGitHub) serveTarball(w http.ResponseWriter, r *http.Request) {
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	commit := r.PathValue("commit")
	if _, ok := f.tarballs[commit]; !ok || !f.repos[repo] {
		apiError(w, http.StatusNotFound, "Not Found")
		return
	}
	top := fmt.Sprintf("%s-%s-%s", r.PathValue("owner"), r.PathValue("repo"), commit[:7])
	http.Redirect(w, r, f.archive.URL+"/"+top+"/"+commit+"?token=SIGNEDDOWNLOAD", http.StatusFound)
}

func (f *fakeGitHub) serveArchive(w http.ResponseWriter, r *http.Request) {
	f.record("archive", r)
	commit := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	data, ok := f.tarballs[commit]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/x-gzip")
	w.Write(data)
}

// entry is one member of a test tarball.
type entry struct {
	name string
	body string
	mode int64
	typ  byte
	link string
}

// repoTarball builds a tarball as GitHub writes it: a pax global header
// naming the commit, then everything in one top folder.
func repoTarball(t testing.TB, top, commit string, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if commit != "" {
		must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": commit}}))
	}
	if top != "" {
		must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o775}))
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Typeflag: e.typ, Linkname: e.link}
		if top != "" {
			h.Name = top + "/" + e.name
		}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o664
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		must(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(e.body))
			must(t, err)
		}
	}
	must(t, tw.Close())
	must(t, zw.Close())
	return buf.Bytes()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: a test skill called " + name + "\n---\n# " + name + "\n"
}

// sampleRepo is a repository with two skills under skills/ and one at
// the root.
func sampleRepo() []entry {
	return []entry{
		{name: "README.md", body: "a repo\n"},
		{name: "SKILL.md", body: skillMD("root")},
		{name: "skills/", typ: tar.TypeDir, mode: 0o775},
		{name: "skills/pdf/", typ: tar.TypeDir, mode: 0o775},
		{name: "skills/pdf/SKILL.md", body: skillMD("pdf")},
		{name: "skills/pdf/scripts/", typ: tar.TypeDir, mode: 0o775},
		{name: "skills/pdf/scripts/run.sh", body: "#!/bin/sh\necho pdf\n", mode: 0o775},
		{name: "skills/pdf/ref.md", typ: tar.TypeSymlink, link: "SKILL.md"},
		{name: "skills/docx/", typ: tar.TypeDir, mode: 0o775},
		{name: "skills/docx/SKILL.md", body: skillMD("docx")},
		{name: "big/", typ: tar.TypeDir, mode: 0o775},
		{name: "big/other.bin", body: strings.Repeat("x", 5000)},
	}
}

// addRepo registers owner/repo with main → commitA, v1 → commitB,
// feature/x → commitC, HEAD → commitA, each with a tarball.
func (f *fakeGitHub) addRepo(t testing.TB, owner, repo string, entries ...entry) {
	t.Helper()
	name := owner + "/" + repo
	f.repos[name] = true
	for ref, c := range map[string]string{"HEAD": commitA, "main": commitA, "v1": commitB, "feature/x": commitC} {
		f.refs[name+"@"+ref] = c
		f.tarballs[c] = repoTarball(t, fmt.Sprintf("%s-%s-%s", owner, repo, c[:7]), c, entries...)
	}
}

func (f *fakeGitHub) client(t testing.TB, opts ...github.Option) *github.Client {
	t.Helper()
	c, err := github.New(append([]github.Option{github.WithAPIURL(f.api.URL), github.WithToken("")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// materializer is a default materializer with a cache root of its own.
func materializer(t testing.TB, opts ...skill.DefaultMaterializerOption) (*skill.Cache, string) {
	t.Helper()
	root := cachetest.Root(t)
	return skill.NewCache(append([]skill.DefaultMaterializerOption{skill.WithSkillCacheRoot(root)}, opts...)...), root
}
