package git_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in             string
		url, ref, path string
	}{
		{in: "git+https://git.example.com/team/skills.git", url: "https://git.example.com/team/skills.git"},
		{in: "git+https://git.example.com/team/skills.git#ref=v1", url: "https://git.example.com/team/skills.git", ref: "v1"},
		{in: "git+https://git.example.com/team/skills.git#path=skills/review", url: "https://git.example.com/team/skills.git", path: "skills/review"},
		{in: "git+https://git.example.com/team/skills.git#ref=feature/x&path=skills/review/", url: "https://git.example.com/team/skills.git", ref: "feature/x", path: "skills/review"},
		{in: "git+https://git.example.com/skills.git#path=a&ref=v1", url: "https://git.example.com/skills.git", ref: "v1", path: "a"},
		{in: "git+https://git.example.com:8443/skills#ref=a%26b%2Bc", url: "https://git.example.com:8443/skills", ref: "a&b+c"},
		{in: "git+https://git.example.com/skills#path=with%20space", url: "https://git.example.com/skills", path: "with space"},
		{in: "git+ssh://git@git.example.com/team/skills.git#ref=v1", url: "ssh://git@git.example.com/team/skills.git", ref: "v1"},
		{in: "git+ssh://git@git.example.com:2222/~me/skills.git", url: "ssh://git@git.example.com:2222/~me/skills.git"},
		{in: "git+file:///srv/git/skills.git#ref=" + strings.Repeat("a", 40), url: "file:///srv/git/skills.git", ref: strings.Repeat("a", 40)},
		{in: "git+file://localhost/srv/git/skills.git", url: "file://localhost/srv/git/skills.git"},
		{in: "git+http://127.0.0.1:8080/skills.git", url: "http://127.0.0.1:8080/skills.git"},
		{in: "git+http://localhost/skills.git", url: "http://localhost/skills.git"},
		{in: "git+http://[::1]:80/skills.git", url: "http://[::1]:80/skills.git"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := git.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			if diff := cmp.Diff(git.Source{URL: tt.url, Ref: tt.ref, Path: tt.path}, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
			back, err := git.Parse(got.String())
			if err != nil || back != got {
				t.Errorf("Parse(%q) = %+v, %v, want %+v", got.String(), back, err, got)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://git.example.com/skills.git", "want git+https://"},
		{"git@git.example.com:team/skills.git", "want git+https://"},
		{"git+ftp://git.example.com/skills.git", "scheme"},
		{"git+ext::sh -c touch% /tmp/x", "scheme"},
		{"git+git://git.example.com/skills.git", "scheme"},
		{"git+http://git.example.com/skills.git", "plain http"},
		{"git+http://10.0.0.1/skills.git", "plain http"},
		{"git+https://user:hunter2@git.example.com/skills.git", "password"},
		{"git+https:///skills.git", "no host"},
		{"git+https://git.example.com", "names no repository"},
		{"git+https://git.example.com/", "names no repository"},
		{"git+ssh://-oProxyCommand=touch/skills.git", "leading '-'"},
		{"git+https://git.example.com/skills.git?x=1", "query"},
		{"git+https://git.example.com/skills.git#", "empty # part"},
		{"git+https://git.example.com/skills.git#v1", `unknown key "v1"`},
		{"git+https://git.example.com/skills.git#branch=v1", `unknown key "branch"`},
		{"git+https://git.example.com/skills.git#ref=a&ref=b", "given 2 times"},
		{"git+https://git.example.com/skills.git#ref=", "ref"},
		{"git+https://git.example.com/skills.git#ref=-upload-pack=x", "starts with"},
		{"git+https://git.example.com/skills.git#ref=a..b", "ref"},
		{"git+https://git.example.com/skills.git#ref=a:b", "ref"},
		{"git+https://git.example.com/skills.git#ref=%2Bmain", "ref"},
		{"git+https://git.example.com/skills.git#ref=a%00", "ref"},
		{"git+https://git.example.com/skills.git#path=../x", "path"},
		{"git+https://git.example.com/skills.git#path=/abs", "path"},
		{"git+https://git.example.com/skills.git#path=a%5Cb", "path"},
		{"git+https://git.example.com/skills.git#path=a:b", "path"},
		{"git+https://git.example.com/skills.git#ref=a;b", "percent-encoded"},
		{"git+file://host/srv/skills.git", "no host"},
		{"git+file://relative/path", "no host"},
		{"git+file:relative", "absolute"},
		{"git+https://git.example.com/skills.git@v1", "#ref=v1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := git.Parse(tt.in)
			if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %+v, %v, want %v saying %q", tt.in, got, err, source.ErrInvalid, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Parse(%q) = %q, which holds the password", tt.in, err)
			}
		})
	}
}

func TestPinString(t *testing.T) {
	p := git.Pin{Source: git.Source{URL: "https://h/r.git", Ref: "main", Path: "skills/a b"}, Commit: strings.Repeat("c", 40)}
	if got, want := p.String(), "git+https://h/r.git#ref="+strings.Repeat("c", 40)+"&path=skills/a%20b"; got != want {
		t.Errorf("Pin.String() = %q, want %q", got, want)
	}
}

// transports serves one repository over file:// and smart HTTP.
func transports(t *testing.T, r *testRepo) map[string]string {
	srv := httpServer(t, r, "", nil)
	return map[string]string{
		"file": r.fileURL(),
		"http": "git+" + srv.URL + "/skills.git",
	}
}

func TestResolve(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	for name, base := range transports(t, r) {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp))
			tests := []struct {
				frag, want string
			}{
				{"", r.main},
				{"#ref=main", r.main},
				{"#ref=v1", r.v1},
				{"#ref=refs/tags/v1", r.v1},
				{"#ref=feature/x&path=skills/extra", r.feature},
				{"#ref=" + r.v1 + "&path=skills/review", r.v1},
				{"#ref=" + r.feature, r.feature},
				{"#path=skills/review", r.main},
			}
			for _, tt := range tests {
				src, err := git.Parse(base + tt.frag)
				if err != nil {
					t.Fatal(err)
				}
				pin, err := c.Resolve(t.Context(), src)
				if err != nil {
					t.Errorf("Resolve(%s) = %v", src, err)
					continue
				}
				if pin.Commit != tt.want || pin.Source != src {
					t.Errorf("Resolve(%s) = %+v, want commit %s and the source unchanged", src, pin, tt.want)
				}
			}
			emptyTemp(t, tmp)
		})
	}
}

func TestSkillMaterializes(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	exe := "x"
	if runtime.GOOS == "windows" {
		exe = "-"
	}
	review := func(version string) map[string]string {
		return map[string]string{
			"SKILL.md":         "- " + skillMD("review", version),
			"notes.md":         "- notes\n",
			"scripts/check.sh": exe + " #!/bin/sh\necho ok\n",
		}
	}
	for name, base := range transports(t, r) {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp))
			m, _ := materializer(t)
			tests := []struct {
				frag string
				want map[string]string
			}{
				{"#ref=v1&path=skills/review", review("v1")},
				{"#ref=main&path=skills/review", review("v2")},
				{"#path=skills/review", review("v2")},
				{"#ref=feature/x&path=skills/extra", map[string]string{"SKILL.md": "- " + skillMD("extra", "x")}},
			}
			for _, tt := range tests {
				src, err := git.Parse(base + tt.frag)
				if err != nil {
					t.Fatal(err)
				}
				pin, err := c.Resolve(t.Context(), src)
				if err != nil {
					t.Fatal(err)
				}
				s := c.Skill("review", pin)
				as, ok := s.Source.(git.SkillSource)
				if !ok || as.Fingerprint != pin.Commit || as.Subpath != src.Path || as.Format != skill.FormatTar {
					t.Fatalf("Skill(%v) = %+v, want an archive source with fingerprint %s and subpath %q", pin, s, pin.Commit, src.Path)
				}
				dir, err := m.Materialize(t.Context(), s)
				if err != nil {
					t.Fatalf("Materialize(%v) = %v", pin, err)
				}
				if diff := cmp.Diff(tt.want, cachetest.Tree(t, dir)); diff != "" {
					t.Errorf("Materialize(%v) tree (-want +got):\n%s", pin, diff)
				}
			}
			emptyTemp(t, tmp)
		})
	}
}

// TestRootSkill materializes a skill at the repository's root: the
// archive holds the whole commit.
func TestRootSkill(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	c := newClient(t)
	m, _ := materializer(t)
	pin, err := c.Resolve(t.Context(), git.Source{URL: strings.TrimPrefix(r.fileURL(), "git+"), Ref: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := m.Materialize(t.Context(), c.Skill("root", pin))
	if err != nil {
		t.Fatal(err)
	}
	got := cachetest.Tree(t, dir)
	if got["SKILL.md"] != "- "+skillMD("root", "v1") || got["docs/other.md"] != "- other\n" || len(got) != 5 {
		t.Errorf("root skill tree = %v, want the whole v1 commit", got)
	}
}

func TestErrors(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	srv := httpServer(t, r, "", nil)
	missingDir := filepath.ToSlash(filepath.Join(t.TempDir(), "nope.git"))
	tests := []struct {
		name string
		in   string
		want error
		says string
	}{
		{"missing ref over file", r.fileURL() + "#ref=nope", source.ErrNotFound, "ref nope"},
		{"missing ref over http", "git+" + srv.URL + "/skills.git#ref=nope", source.ErrNotFound, "ref nope"},
		{"missing commit", r.fileURL() + "#ref=" + strings.Repeat("1", 40), source.ErrNotFound, "ref 1111"},
		{"missing folder", r.fileURL() + "#ref=v1&path=skills/extra", source.ErrNotFound, `no folder "skills/extra"`},
		{"a file, not a folder", r.fileURL() + "#ref=v1&path=SKILL.md", source.ErrNotFound, `no folder "SKILL.md"`},
		{"missing repository over file", "git+file://" + missingDir, source.ErrNotFound, "check the repository's URL"},
		{"missing repository over http", "git+" + srv.URL + "/nope.git", source.ErrNotFound, "check the repository's URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp))
			src, err := git.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			pin, err := c.Resolve(t.Context(), src)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Resolve(%s) = %+v, %v, want %v saying %q", src, pin, err, tt.want, tt.says)
			}
			t.Logf("error: %v", err)
			emptyTemp(t, tmp)
		})
	}
}

// TestAuth serves the repository behind a bearer token: without it git
// may not prompt and the error says so; WithHeader passes it; a wrong one
// is refused, and no error shows it.
func TestAuth(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	const token = "git-secret-token-31337"
	var mu sync.Mutex
	var auths []string
	srv := httpServer(t, r, token, func(req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auths = append(auths, req.Header.Get("Authorization"))
	})
	src := git.Source{URL: srv.URL + "/skills.git", Ref: "v1", Path: "skills/review"}

	for _, wrong := range []string{"", "Bearer not-the-token"} {
		var opts []git.Option
		if wrong != "" {
			opts = append(opts, git.WithHeader("Authorization", wrong))
		}
		_, err := newClient(t, opts...).Resolve(t.Context(), src)
		if !errors.Is(err, source.ErrAuthRequired) {
			t.Fatalf("Resolve with header %q = %v, want %v", wrong, err, source.ErrAuthRequired)
		}
		if strings.Contains(err.Error(), token) || (wrong != "" && strings.Contains(err.Error(), "not-the-token")) {
			t.Errorf("Resolve = %q, which holds a header value", err)
		}
		t.Logf("error: %v", err)
	}

	c := newClient(t, git.WithHeader("Authorization", "Bearer "+token))
	pin, err := c.Resolve(t.Context(), src)
	if err != nil {
		t.Fatalf("Resolve with the token = %v", err)
	}
	m, _ := materializer(t)
	if _, err := m.Materialize(t.Context(), c.Skill("review", pin)); err != nil {
		t.Fatalf("Materialize with the token = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(auths, "\n"), "Bearer "+token) {
		t.Errorf("the server never saw the token; it saw %q", auths)
	}
}

func TestWithHeaderRefuses(t *testing.T) {
	for _, h := range [][2]string{{"", "v"}, {"Bad Key", "v"}, {"X", "a\r\nInjected: 1"}, {"X", "a\nb"}} {
		if _, err := git.New(git.WithHeader(h[0], h[1])); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("New(WithHeader(%q, %q)) = %v, want %v", h[0], h[1], err, source.ErrInvalid)
		}
	}
}

func TestNewWithoutGit(t *testing.T) {
	_, err := git.New(git.WithGit(filepath.Join(t.TempDir(), "no-git-here")))
	if err == nil || !strings.Contains(err.Error(), "install git") {
		t.Errorf("New(WithGit(missing)) = %v, want an error saying to install git", err)
	}
}

// TestMovedRef pins main, moves main on, and makes the server refuse
// commits by id (protocol version 0, as older servers speak): the opener
// asks for the ref instead, sees it moved, and says to resolve again. With
// the default protocol the old commit is fetched by id.
func TestMovedRef(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	c := newClient(t)
	pin, err := c.Resolve(t.Context(), git.Source{URL: strings.TrimPrefix(r.fileURL(), "git+"), Ref: "main", Path: "skills/review"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.dir, "skills/review/SKILL.md"), skillMD("review", "v3"), 0o644)
	gitIn(t, r.dir, "commit", "--quiet", "-am", "v3")
	gitIn(t, r.dir, "push", "--quiet", r.bare, "main")

	m, _ := materializer(t)
	dir, err := m.Materialize(t.Context(), c.Skill("review", pin))
	if err != nil {
		t.Fatalf("Materialize(old pin) = %v", err)
	}
	if got := cachetest.Tree(t, dir)["SKILL.md"]; got != "- "+skillMD("review", "v2") {
		t.Errorf("old pin's SKILL.md = %q, want v2's", got)
	}

	// The caller's own configuration through the environment is kept:
	// here it makes git speak protocol version 0.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "protocol.version")
	t.Setenv("GIT_CONFIG_VALUE_0", "0")
	m, root := materializer(t)
	_, err = m.Materialize(t.Context(), c.Skill("review", pin))
	if !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), "resolve the source again") {
		t.Fatalf("Materialize(old pin, protocol 0) = %v, want %v saying to resolve again", err, source.ErrNotFound)
	}
	cachetest.Empty(t, root)
}

// TestRejectedContent commits what the archive rules refuse; the skill
// fails and nothing lands in the cache.
func TestRejectedContent(t *testing.T) {
	hermetic(t)
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links in a test repository need privileges on Windows")
	}
	r := newRepo(t)
	writeFile(t, filepath.Join(r.dir, "skills/bad/SKILL.md"), skillMD("bad", "1"), 0o644)
	if err := os.Symlink("../../../../../etc/passwd", filepath.Join(r.dir, "skills/bad/passwd")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.dir, "skills/big/SKILL.md"), skillMD("big", "1")+strings.Repeat("x", 5000), 0o644)
	gitIn(t, r.dir, "add", "-A")
	gitIn(t, r.dir, "commit", "--quiet", "-m", "bad")
	gitIn(t, r.dir, "push", "--quiet", r.bare, "main")

	tests := []struct {
		name string
		path string
		opts []skill.DefaultMaterializerOption
		want error
	}{
		{"a link out of the skill", "skills/bad", nil, skill.ErrArchiveUnsafe},
		{"over the file limit", "skills/big", []skill.DefaultMaterializerOption{skill.WithMaxFileSize(1000)}, skill.ErrArchiveLimit},
		{"over the archive limit", "skills/big", []skill.DefaultMaterializerOption{skill.WithMaxArchiveSize(2000)}, skill.ErrArchiveLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp))
			pin, err := c.Resolve(t.Context(), git.Source{URL: strings.TrimPrefix(r.fileURL(), "git+"), Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			m, root := materializer(t, tt.opts...)
			_, err = m.Materialize(t.Context(), c.Skill("x", pin))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Materialize(%v) = %v, want %v", pin, err, tt.want)
			}
			cachetest.Empty(t, root)
			emptyTemp(t, tmp)
		})
	}
}

// TestOpenerFailures checks the opener's own failures: a pin that was
// never resolved, a commit the repository lacks, a cancelled context.
func TestOpenerFailures(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	url := strings.TrimPrefix(r.fileURL(), "git+")
	tests := []struct {
		name string
		pin  git.Pin
		ctx  func() context.Context
		want error
	}{
		{"not a commit id", git.Pin{Source: git.Source{URL: url}, Commit: "main"}, nil, source.ErrInvalid},
		{"a short commit id", git.Pin{Source: git.Source{URL: url}, Commit: r.v1[:12]}, nil, source.ErrInvalid},
		{"a bad source", git.Pin{Source: git.Source{URL: "git+" + url}, Commit: r.v1}, nil, source.ErrInvalid},
		{"a missing commit", git.Pin{Source: git.Source{URL: url, Path: "skills/review"}, Commit: strings.Repeat("2", 40)}, nil, source.ErrNotFound},
		{"a missing folder", git.Pin{Source: git.Source{URL: url, Path: "skills/extra"}, Commit: r.v1}, nil, source.ErrNotFound},
		{"cancelled", git.Pin{Source: git.Source{URL: url, Path: "skills/review"}, Commit: r.v1}, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp))
			ctx := t.Context()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			m, root := materializer(t)
			_, err := m.Materialize(ctx, c.Skill("review", tt.pin))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Materialize(%v) = %v, want %v", tt.pin, err, tt.want)
			}
			t.Logf("error: %v", err)
			cachetest.Empty(t, root)
			emptyTemp(t, tmp)
		})
	}
}
