package github_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in                     string
		owner, repo, path, ref string
	}{
		{in: "anthropics/skills", owner: "anthropics", repo: "skills"},
		{in: "anthropics/skills@main", owner: "anthropics", repo: "skills", ref: "main"},
		{in: "anthropics/skills/skills/pdf", owner: "anthropics", repo: "skills", path: "skills/pdf"},
		{in: "anthropics/skills/skills/pdf/", owner: "anthropics", repo: "skills", path: "skills/pdf"},
		{in: "anthropics/skills/skills/pdf@feature/x", owner: "anthropics", repo: "skills", path: "skills/pdf", ref: "feature/x"},
		{in: "o/r@" + commitA, owner: "o", repo: "r", ref: commitA},
		{in: "my-org/my_repo.go/a b/c", owner: "my-org", repo: "my_repo.go", path: "a b/c"},
		{in: "o/r/p@v1@x", owner: "o", repo: "r", path: "p", ref: "v1@x"},
		{in: "https://github.com/anthropics/skills", owner: "anthropics", repo: "skills"},
		{in: "https://github.com/anthropics/skills/", owner: "anthropics", repo: "skills"},
		{in: "https://github.com/anthropics/skills.git", owner: "anthropics", repo: "skills"},
		{in: "https://www.github.com/anthropics/skills", owner: "anthropics", repo: "skills"},
		{in: "https://github.com/anthropics/skills/tree/main", owner: "anthropics", repo: "skills", ref: "main"},
		{in: "https://github.com/anthropics/skills/tree/main/skills/pdf", owner: "anthropics", repo: "skills", ref: "main", path: "skills/pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := github.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			want := []string{tt.owner, tt.repo, tt.path, tt.ref}
			if diff := cmp.Diff(want, []string{got.Owner, got.Repo, got.Path, got.Ref}); diff != "" {
				t.Errorf("Parse(%q) owner, repo, path, ref (-want +got):\n%s", tt.in, diff)
			}
			back, err := github.Parse(got.String())
			if err != nil || back.Owner != got.Owner || back.Repo != got.Repo || back.Path != got.Path || back.Ref != got.Ref {
				t.Errorf("Parse(%q) = %+v, %v, want %+v", got.String(), back, err, got)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "want OWNER/REPO"},
		{"skills", "want OWNER/REPO"},
		{"/repo", "owner is empty"},
		{"owner/", "repository is empty"},
		{"-o/r", "owner"},
		{"o/.r", "repository"},
		{"o/r:x", "repository"},
		{"o/" + strings.Repeat("r", 101), "more than 100 bytes"},
		{"o/r/../x", "path"},
		{"o/r/a//b", "path"},
		{"o/r/./a", "path"},
		{`o/r/a\b`, "path"},
		{"o/r/a:b", "path"},
		{"o/r/a\x00b", "path"},
		{"o/r@", "ref"},
		{"o/r@-x", "ref"},
		{"o/r@a..b", "ref"},
		{"o/r@a b", "ref"},
		{"o/r@a:b", "ref"},
		{"o/r@a~1", "ref"},
		{"o/r@x.lock", "ref"},
		{"o/r@a/", "ref"},
		{"o/r@/a", "ref"},
		{"o/r@a@{1}", "ref"},
		{"o/r@a//b", "ref"},
		{"o/r@a\nb", "ref"},
		{"http://github.com/o/r", "only https://github.com"},
		{"https://gitlab.com/o/r", "only https://github.com"},
		{"https://user:pw@github.com/o/r", "user"},
		{"https://github.com/o/r?x=1", "query"},
		{"https://github.com/o/r#x", "fragment"},
		{"https://github.com/o", "want https://github.com/OWNER/REPO"},
		{"https://github.com/o/r/blob/main/SKILL.md", "/tree/REF/PATH"},
		{"https://github.com/o/r/tree", "/tree/REF/PATH"},
		{"https://github.com/o/r/tree/a..b/x", "ref"},
		{"https://github.com/o/r/tree/main/a%2F..%2Fb", "path"},
		{"https://github.com/%zz", "not a web address"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := github.Parse(tt.in)
			if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %+v, %v, want %v saying %q", tt.in, got, err, source.ErrInvalid, tt.want)
			}
		})
	}
}

func TestPinString(t *testing.T) {
	p := github.Pin{Source: github.Source{Owner: "o", Repo: "r", Path: "skills/pdf", Ref: "main"}, Commit: commitA}
	if got, want := p.String(), "o/r/skills/pdf@"+commitA; got != want {
		t.Errorf("Pin.String() = %q, want %q", got, want)
	}
	if got, want := p.Source.String(), "o/r/skills/pdf@main"; got != want {
		t.Errorf("Source.String() = %q, want %q", got, want)
	}
}

func TestResolve(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	c := f.client(t)
	tests := []struct {
		in         string
		ref, path  string
		commit     string
		requestRef string
	}{
		{in: "o/r", commit: commitA, requestRef: "HEAD"},
		{in: "o/r@main", ref: "main", commit: commitA, requestRef: "main"},
		{in: "o/r/skills/pdf@v1", ref: "v1", path: "skills/pdf", commit: commitB, requestRef: "v1"},
		{in: "o/r@feature/x", ref: "feature/x", commit: commitC, requestRef: "feature/x"},
		{in: "o/r@" + commitB, ref: commitB, commit: commitB, requestRef: commitB},
		{in: "o/r@" + strings.ToUpper(commitB), ref: strings.ToUpper(commitB), commit: commitB, requestRef: strings.ToUpper(commitB)},
		{in: "https://github.com/o/r/tree/main/skills/pdf", ref: "main", path: "skills/pdf", commit: commitA, requestRef: "main"},
		// The web address's ref holds "/": the shortest ref is tried first.
		{in: "https://github.com/o/r/tree/feature/x/skills/pdf", ref: "feature/x", path: "skills/pdf", commit: commitC, requestRef: "feature/x"},
		{in: "https://github.com/o/r/tree/feature/x", ref: "feature/x", commit: commitC, requestRef: "feature/x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			src, err := github.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			before := len(f.seen())
			pin, err := c.Resolve(t.Context(), src)
			if err != nil {
				t.Fatalf("Resolve(%q) = %v", tt.in, err)
			}
			if pin.Commit != tt.commit || pin.Source.Ref != tt.ref || pin.Source.Path != tt.path {
				t.Errorf("Resolve(%q) = %+v, want commit %s, ref %q, path %q", tt.in, pin, tt.commit, tt.ref, tt.path)
			}
			reqs := f.seen()[before:]
			last := reqs[len(reqs)-1]
			if want := "/repos/o/r/commits/" + tt.requestRef; last.Path != want || last.Accept != "application/vnd.github.sha" {
				t.Errorf("Resolve(%q) asked %s with Accept %q, want %s with application/vnd.github.sha", tt.in, last.Path, last.Accept, want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	reset := time.Now().Add(17 * time.Minute).Unix()
	tests := []struct {
		name    string
		setup   func(*fakeGitHub)
		in      string
		token   string
		want    error
		says    []string
		notSays []string
	}{
		{
			name: "unknown repository", in: "o/nope", want: source.ErrNotFound,
			says: []string{"repository o/nope", "if it is private, set GITHUB_TOKEN or GH_TOKEN"},
		},
		{
			name: "unknown ref", in: "o/r@nope", want: source.ErrNotFound,
			says: []string{"ref nope of o/r", "check the branch, tag or commit id"},
		},
		{
			name: "unknown ref in a web address", in: "https://github.com/o/r/tree/nope/skills/pdf", want: source.ErrNotFound,
			says: []string{"ref nope/skills/pdf of o/r"},
		},
		{
			name: "unknown ref answered 404", in: "o/r@nope", want: source.ErrNotFound,
			setup: func(f *fakeGitHub) {
				f.hook = func(w http.ResponseWriter, r *http.Request) bool {
					if strings.Contains(r.URL.Path, "/commits/") {
						apiError(w, http.StatusNotFound, "Not Found")
						return true
					}
					return false
				}
			},
			says: []string{"ref nope of o/r", "no such ref"},
		},
		{
			name: "empty repository", in: "o/r", want: source.ErrNotFound,
			setup: func(f *fakeGitHub) {
				f.hook = func(w http.ResponseWriter, r *http.Request) bool {
					apiError(w, http.StatusConflict, "Git Repository is empty.")
					return true
				}
			},
			says: []string{"has no commits", "Git Repository is empty."},
		},
		{
			name: "rate limited", in: "o/r@main", want: source.ErrRateLimited,
			setup: func(f *fakeGitHub) { f.limited, f.reset = true, reset },
			says:  []string{"rate limit", time.Unix(reset, 0).Format(time.RFC3339), "set GITHUB_TOKEN or GH_TOKEN"},
		},
		{
			name: "rate limited with a token", in: "o/r@main", want: source.ErrRateLimited, token: "tok-ratelimit-1234",
			setup:   func(f *fakeGitHub) { f.limited, f.reset = true, reset },
			says:    []string{"rate limit", time.Unix(reset, 0).Format(time.RFC3339), "another token than the one in WithToken"},
			notSays: []string{"set GITHUB_TOKEN"},
		},
		{
			name: "secondary rate limit", in: "o/r@main", want: source.ErrRateLimited,
			setup: func(f *fakeGitHub) {
				f.hook = func(w http.ResponseWriter, r *http.Request) bool {
					w.Header().Set("Retry-After", "60")
					apiError(w, http.StatusTooManyRequests, "You have exceeded a secondary rate limit")
					return true
				}
			},
			says: []string{"rate limit", "resets at"},
		},
		{
			name: "token required", in: "o/r@main", want: source.ErrAuthRequired,
			setup: func(f *fakeGitHub) { f.token = "the-right-token" },
			says:  []string{"o/r", "set GITHUB_TOKEN or GH_TOKEN"},
		},
		{
			name: "token refused", in: "o/r@main", want: source.ErrAuthRequired, token: "a-wrong-token-5678",
			setup: func(f *fakeGitHub) { f.token = "the-right-token" },
			says:  []string{"the token in WithToken was refused", "Requires authentication"},
		},
		{
			name: "access denied", in: "o/r@main", want: source.ErrAuthRequired,
			setup: func(f *fakeGitHub) {
				f.hook = func(w http.ResponseWriter, r *http.Request) bool {
					apiError(w, http.StatusForbidden, "Resource protected by organization SAML enforcement")
					return true
				}
			},
			says: []string{"access denied", "SAML"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.addRepo(t, "o", "r", sampleRepo()...)
			if tt.setup != nil {
				tt.setup(f)
			}
			c := f.client(t, github.WithToken(tt.token))
			src, err := github.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			pin, err := c.Resolve(t.Context(), src)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Resolve(%q) = %+v, %v, want %v", tt.in, pin, err, tt.want)
			}
			t.Logf("error: %v", err)
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Resolve(%q) = %q, want it to say %q", tt.in, err, s)
				}
			}
			for _, s := range append(tt.notSays, "the-right-token") {
				if strings.Contains(err.Error(), s) {
					t.Errorf("Resolve(%q) = %q, want it not to say %q", tt.in, err, s)
				}
			}
			if tt.token != "" && strings.Contains(err.Error(), tt.token) {
				t.Errorf("Resolve(%q) = %q, which holds the token", tt.in, err)
			}
		})
	}
}

func TestRateLimitError(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r")
	reset := time.Now().Add(time.Hour).Unix()
	f.limited, f.reset = true, reset
	_, err := f.client(t).Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"})
	var rl *github.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("Resolve = %v, want a *RateLimitError", err)
	}
	if rl.Repo != "o/r" || rl.Reset.Unix() != reset || rl.TokenFrom != "" {
		t.Errorf("RateLimitError = %+v, want repo o/r, reset %d, no token", rl, reset)
	}
}

func TestResolveAnswers(t *testing.T) {
	tests := []struct {
		name string
		code int
		body string
		want string
	}{
		{"not a commit id", 200, "<html>hello</html>", "not a commit id"},
		{"short commit id", 200, "0123456", "not a commit id"},
		{"server error", 502, "", "502 Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.hook = func(w http.ResponseWriter, r *http.Request) bool {
				w.WriteHeader(tt.code)
				io.WriteString(w, tt.body)
				return true
			}
			_, err := f.client(t).Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Resolve = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestResolveRefusesInvalidSource(t *testing.T) {
	f := newFake(t)
	for _, src := range []github.Source{
		{Owner: "o"},
		{Owner: "o", Repo: "r", Path: "../x"},
		{Owner: "o", Repo: "r", Ref: "-upload-pack"},
	} {
		if _, err := f.client(t).Resolve(t.Context(), src); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Resolve(%+v) = %v, want %v", src, err, source.ErrInvalid)
		}
	}
	if n := len(f.seen()); n != 0 {
		t.Errorf("invalid sources made %d requests, want none", n)
	}
}

func TestSkillMaterializes(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	c := f.client(t)
	m, _ := materializer(t)
	tests := []struct {
		in, key string
		want    map[string]string
	}{
		{in: "o/r/skills/pdf@v1", key: "pdf", want: map[string]string{
			"SKILL.md":       "- " + skillMD("pdf"),
			"ref.md":         "- " + skillMD("pdf"),
			"scripts/run.sh": "x #!/bin/sh\necho pdf\n",
		}},
		{in: "o/r/skills/docx", key: "docx", want: map[string]string{"SKILL.md": "- " + skillMD("docx")}},
		{in: "https://github.com/o/r/tree/feature/x/skills/docx", key: "docx", want: map[string]string{"SKILL.md": "- " + skillMD("docx")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			src, err := github.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			pin, err := c.Resolve(t.Context(), src)
			if err != nil {
				t.Fatal(err)
			}
			s := c.Skill(tt.key, pin)
			as, ok := s.Source.(github.SkillSource)
			if !ok || as.Fingerprint != pin.Commit || as.Subpath != pin.Source.Path || as.Format != skill.FormatTar || s.Key != tt.key {
				t.Fatalf("Skill(%q, %v) = %+v, want an archive source with fingerprint %s, subpath %q", tt.key, pin, s, pin.Commit, pin.Source.Path)
			}
			dir, err := m.Materialize(t.Context(), s)
			if err != nil {
				t.Fatalf("Materialize(%v) = %v", pin, err)
			}
			got := cachetest.Tree(t, dir)
			if runtime.GOOS == "windows" {
				for k, v := range got {
					got[k] = "-" + v[1:]
				}
				for k, v := range tt.want {
					tt.want[k] = "-" + v[1:]
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Materialize(%v) tree (-want +got):\n%s", pin, diff)
			}
		})
	}
}

func TestRootSkill(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", entry{name: "SKILL.md", body: skillMD("r")}, entry{name: "notes.md", body: "notes"})
	c := f.client(t)
	m, _ := materializer(t)
	pin, err := c.Resolve(t.Context(), github.Source{Owner: "o", Repo: "r"})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := m.Materialize(t.Context(), c.Skill("r", pin))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"SKILL.md": "- " + skillMD("r"), "notes.md": "- notes"}, cachetest.Tree(t, dir)); diff != "" {
		t.Errorf("root skill tree (-want +got):\n%s", diff)
	}
}

// TestOpenerOutput checks the tar the opener gives: the top folder gone,
// only the pinned folder, modes reduced to the executable bit, no times or
// owners, and the same bytes every time.
func TestOpenerOutput(t *testing.T) {
	f := newFake(t)
	f.addRepo(t, "o", "r", sampleRepo()...)
	c := f.client(t)
	pin := github.Pin{Source: github.Source{Owner: "o", Repo: "r", Path: "skills/pdf"}, Commit: commitA}
	read := func() []byte {
		rc, err := c.Opener(pin)(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first := read()
	if !bytes.Equal(first, read()) {
		t.Error("two downloads of one pin gave different bytes, want the same")
	}
	var got []string
	tr := tar.NewReader(bytes.NewReader(first))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.IsZero() && h.ModTime.Unix() != 0 || h.Uid != 0 || h.Uname != "" {
			t.Errorf("entry %s has time %v, owner %d %q, want none", h.Name, h.ModTime, h.Uid, h.Uname)
		}
		got = append(got, fmt.Sprintf("%c %s %o %s", h.Typeflag, h.Name, h.Mode, h.Linkname))
	}
	want := []string{
		"5 skills/pdf/ 755 ",
		"0 skills/pdf/SKILL.md 644 ",
		"5 skills/pdf/scripts/ 755 ",
		"0 skills/pdf/scripts/run.sh 755 ",
		"2 skills/pdf/ref.md 777 SKILL.md",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("opener entries (-want +got):\n%s", diff)
	}
}
