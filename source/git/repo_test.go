package git_test

import (
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// hermetic keeps the machine's git configuration, credential helpers and
// prompts out of a test.
func hermetic(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_COUNT", "")
	t.Setenv("GIT_ASKPASS", "")
	t.Setenv("SSH_ASKPASS", "")
}

// gitIn runs git in dir and returns its output.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t testing.TB, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, version string) string {
	return "---\nname: " + name + "\ndescription: a test skill called " + name + "\n---\n# " + name + " " + version + "\n"
}

// testRepo is a repository made with git init, with its commits.
type testRepo struct {
	dir      string // the work tree
	bare     string // a bare clone, which the servers serve
	v1, main string // the commit tagged v1 (annotated) and main's tip
	feature  string // the tip of feature/x
}

// newRepo makes a repository: v1 has skills/review (with an executable
// script) and a root SKILL.md; main changes review's SKILL.md; feature/x
// adds skills/extra.
func newRepo(t testing.TB) *testRepo {
	t.Helper()
	root := t.TempDir()
	r := &testRepo{dir: filepath.Join(root, "work"), bare: filepath.Join(root, "srv", "skills.git")}
	gitIn(t, root, "init", "--quiet", "--initial-branch=main", r.dir)
	writeFile(t, filepath.Join(r.dir, "SKILL.md"), skillMD("root", "v1"), 0o644)
	writeFile(t, filepath.Join(r.dir, "skills/review/SKILL.md"), skillMD("review", "v1"), 0o644)
	writeFile(t, filepath.Join(r.dir, "skills/review/scripts/check.sh"), "#!/bin/sh\necho ok\n", 0o755)
	writeFile(t, filepath.Join(r.dir, "skills/review/notes.md"), "notes\n", 0o644)
	writeFile(t, filepath.Join(r.dir, "docs/other.md"), "other\n", 0o644)
	gitIn(t, r.dir, "add", "-A")
	gitIn(t, r.dir, "commit", "--quiet", "-m", "v1")
	gitIn(t, r.dir, "tag", "-a", "-m", "version 1", "v1")
	r.v1 = gitIn(t, r.dir, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(r.dir, "skills/review/SKILL.md"), skillMD("review", "v2"), 0o644)
	gitIn(t, r.dir, "commit", "--quiet", "-am", "v2")
	r.main = gitIn(t, r.dir, "rev-parse", "HEAD")
	gitIn(t, r.dir, "checkout", "--quiet", "-b", "feature/x")
	writeFile(t, filepath.Join(r.dir, "skills/extra/SKILL.md"), skillMD("extra", "x"), 0o644)
	gitIn(t, r.dir, "add", "-A")
	gitIn(t, r.dir, "commit", "--quiet", "-m", "extra")
	r.feature = gitIn(t, r.dir, "rev-parse", "HEAD")
	gitIn(t, r.dir, "checkout", "--quiet", "main")
	gitIn(t, root, "clone", "--quiet", "--bare", r.dir, r.bare)
	return r
}

// fileURL is the repository's git+file URL, without the fragment.
func (r *testRepo) fileURL() string {
	return "git+file://" + filepath.ToSlash(r.bare)
}

// httpServer serves the bare repository's parent folder over smart HTTP
// with git http-backend; when token is set, every request needs it.
func httpServer(t testing.TB, r *testRepo, token string, seen func(*http.Request)) *httptest.Server {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	backend := &cgi.Handler{
		Path:   gitPath,
		Args:   []string{"http-backend"},
		Stderr: io.Discard,
		Env:    []string{"GIT_PROJECT_ROOT=" + filepath.Dir(r.bare), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if seen != nil {
			seen(req)
		}
		if token != "" && req.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t testing.TB, opts ...git.Option) *git.Client {
	t.Helper()
	c, err := git.New(append([]git.Option{git.WithTempDir(t.TempDir())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func materializer(t testing.TB, opts ...skill.DefaultMaterializerOption) (*skill.Cache, string) {
	t.Helper()
	root := cachetest.Root(t)
	return skill.NewCache(append([]skill.DefaultMaterializerOption{skill.WithSkillCacheRoot(root)}, opts...)...), root
}

// emptyTemp fails when a client's temporary folder still holds anything.
func emptyTemp(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("temporary folder still holds %s, want it removed", e.Name())
	}
}
