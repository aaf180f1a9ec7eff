package git_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

func TestParseWeb(t *testing.T) {
	tests := []struct {
		rule           string
		in             string
		url, ref, path string
	}{
		{"17", "https://git.example.com/team/skills.git", "https://git.example.com/team/skills.git", "", ""},
		{"17", "https://git.example.com/team/skills.git/", "https://git.example.com/team/skills.git/", "", ""},
		{"17", "https://git.example.com/team/skills.git#ref=feature/x&path=skills/review", "https://git.example.com/team/skills.git", "feature/x", "skills/review"},
		{"17", "https://ghes.example.com/o/r.git", "https://ghes.example.com/o/r.git", "", ""},
		{"17", "https://TOKEN@git.example.com/team/skills.git", "https://TOKEN@git.example.com/team/skills.git", "", ""},
		{"18", "https://gitlab.com/group/sub/repo/-/tree/main/skills/review", "https://gitlab.com/group/sub/repo.git", "main", "skills/review"},
		{"18", "https://gitlab.com/group/sub/repo/-/tree/v1.2.0", "https://gitlab.com/group/sub/repo.git", "v1.2.0", ""},
		{"18", "https://gitlab.com/group/repo/-/tree/main/skills?ref_type=heads", "https://gitlab.com/group/repo.git", "main", "skills"},
		{"18", "https://gitlab.example.org/a/b/c/d/-/tree/v1/x/", "https://gitlab.example.org/a/b/c/d.git", "v1", "x"},
		{"18", "https://gitlab.example.org:8443/a/b/-/tree/v1", "https://gitlab.example.org:8443/a/b.git", "v1", ""},
		{"19", "https://codeberg.org/owner/repo/src/branch/main/skills/review", "https://codeberg.org/owner/repo.git", "main", "skills/review"},
		{"19", "https://git.example.com/owner/repo/src/tag/v1", "https://git.example.com/owner/repo.git", "v1", ""},
		{"19", "https://gitea.com/owner/repo/src/commit/" + strings.Repeat("ab", 20) + "/x", "https://gitea.com/owner/repo.git", strings.Repeat("ab", 20), "x"},
		{"20", "https://bitbucket.org/owner/repo/src/main/skills/review", "https://bitbucket.org/owner/repo.git", "main", "skills/review"},
		{"20", "https://bitbucket.org/owner/repo/src/v1", "https://bitbucket.org/owner/repo.git", "v1", ""},
		{"21", "https://gitlab.com/group/sub/repo", "https://gitlab.com/group/sub/repo.git", "", ""},
		{"21", "https://gitlab.com/group/repo/", "https://gitlab.com/group/repo.git", "", ""},
		{"21", "https://codeberg.org/owner/repo", "https://codeberg.org/owner/repo.git", "", ""},
		{"21", "https://GitLab.com/Group/Repo", "https://GitLab.com/Group/Repo.git", "", ""},
		{"21", "https://bitbucket.org/owner/repo", "https://bitbucket.org/owner/repo.git", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := git.ParseWeb(tt.in)
			if err != nil {
				t.Fatalf("ParseWeb(%q) = %v, want rule %s to read it", tt.in, err, tt.rule)
			}
			if s.URL != tt.url || s.Ref != tt.ref || s.Path != tt.path {
				t.Errorf("ParseWeb(%q) = %+v, want URL %q, ref %q, path %q", tt.in, s, tt.url, tt.ref, tt.path)
			}
			if strings.Contains(s.String(), "TOKEN") == strings.Contains(tt.in, "TOKEN") {
				// The user stays in the URL git is given; package install
				// redacts what it records and shows.
			} else {
				t.Errorf("ParseWeb(%q).String() = %q lost or gained the user", tt.in, s.String())
			}
		})
	}
}

func TestParseWebRefuses(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{"http://gitlab.com/group/repo", "plain http"},
		{"https://example.com/kit.zip", "a file on an unknown host"},
		{"https://example.com/owner/repo", "a repository's page on an unknown host"},
		{"https://example.com/", "no path"},
		{"https://gitlab.com/group", "one element on GitLab"},
		{"https://gitlab.com/group/repo/-/blob/main/SKILL.md", "a GitLab file page"},
		{"https://gitlab.com/group/repo/-/raw/main/kit.tgz", "a GitLab raw file"},
		{"https://gitlab.com/group/repo/-/archive/main/repo-main.tar.gz", "a GitLab archive"},
		{"https://gitlab.com/-/tree/main", "no repository before /-/"},
		{"https://gitlab.com/group/repo/-/tree", "no ref after tree"},
		{"https://gitlab.com/group/repo/-/tree/main?ref_type=other", "an unknown ref_type"},
		{"https://gitlab.com/group/repo?x=1", "a query"},
		{"https://gitlab.com/group/repo#ref=main", "a fragment without .git"},
		{"https://codeberg.org/owner/repo/issues", "another page of Codeberg"},
		{"https://codeberg.org/owner/repo/src/branch", "no ref after branch"},
		{"https://bitbucket.org/owner/repo/get/main.tar.gz", "a Bitbucket archive"},
		{"https://gitlab.com/group/../repo", "a '..' element"},
		{"https://gitlab.com/group/%2e%2e/repo/-/tree/main", "an encoded '..' element"},
		{"https://gitlab.com/group/repo/-/tree/main/../../etc", "a '..' in the folder"},
		{"https://gitlab.com/group/repo/-/tree/-upload-pack/x", "a ref starting with '-'"},
		{"https://gitlab.com/group/repo/-/tree/a..b", "a ref with '..'"},
		{"https://gitlab.com/gr%00oup/repo", "a control character"},
		{"https://gitlab.com/-group/repo", "an element starting with '-'"},
		{"https://gitlab.com/group/" + strings.Repeat("r", 300), "an overlong element"},
		{"https://user:secret@gitlab.com/group/repo/-/tree/main", "a password"},
		{"https://user:secret@git.example.com/r.git", "a password in git's address"},
		{"https://git.example.com/r.git#sha256=" + strings.Repeat("0", 64), "an archive digest"},
		{"https://git.example.com/r.git@v1", "a misplaced ref"},
		{"ftp://gitlab.com/group/repo", "another scheme"},
		{"https:gitlab.com/group/repo", "an opaque address"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			s, err := git.ParseWeb(tt.in)
			if !errors.Is(err, source.ErrInvalid) {
				t.Fatalf("ParseWeb(%q) = %+v, %v, want ErrInvalid (%s)", tt.in, s, err, tt.why)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("ParseWeb(%q) = %v, which shows the password", tt.in, err)
			}
		})
	}
}

func TestKnownHost(t *testing.T) {
	for host, want := range map[string]bool{"gitlab.com": true, "GitLab.com": true, "codeberg.org": true, "gitea.com": true, "bitbucket.org": true, "github.com": false, "gitlab.example.org": false} {
		if got := git.KnownHost(host); got != want {
			t.Errorf("KnownHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestParseWebFetch fetches a GitLab /-/tree/ address of a repository in
// a subgroup from a smart-HTTP stand-in: git's own url.insteadOf, in a
// temporary global configuration, sends https://gitlab.com/ to it, as a
// user's configuration may (rule 5). Nothing but git's rewrite differs
// from a fetch from gitlab.com: the address parsed, the URL git is given
// (repo.git under the subgroup) and the fetch are the real ones.
func TestParseWebFetch(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	// Serve the repository as group/sub/repo.git.
	nested := filepath.Join(filepath.Dir(r.bare), "group", "sub", "repo.git")
	if err := os.MkdirAll(filepath.Dir(nested), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(r.bare, nested); err != nil {
		t.Fatal(err)
	}
	r.bare = filepath.Join(filepath.Dir(r.bare), "unused.git")
	var mu sync.Mutex
	var paths []string
	srv := httpServer(t, r, "", func(req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, req.URL.Path)
	})
	global := filepath.Join(t.TempDir(), "gitconfig")
	writeFile(t, global, "[url \""+srv.URL+"/\"]\n\tinsteadOf = https://gitlab.com/\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)

	src, err := git.ParseWeb("https://gitlab.com/group/sub/repo/-/tree/v1/skills/review?ref_type=tags")
	if err != nil {
		t.Fatal(err)
	}
	pin, err := newClient(t).Resolve(t.Context(), src)
	if err != nil {
		t.Fatalf("Resolve(%s) = %v", src, err)
	}
	if pin.Commit != r.v1 {
		t.Errorf("Resolve(%s) = %s, want v1's commit %s", src, pin.Commit, r.v1)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || !strings.HasPrefix(paths[0], "/group/sub/repo.git/") {
		t.Errorf("the stand-in was asked for %q, want /group/sub/repo.git/...", paths)
	}
}
