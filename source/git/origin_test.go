package git_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/linktest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// Skill's source says where it comes from, as a trust policy sees it,
// without the URL's credentials, and is the archive of the pinned
// folder.
func TestSkillOrigin(t *testing.T) {
	c, err := git.New()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.Repeat("ab", 20)
	pin := git.Pin{Source: git.Source{URL: "https://me:s3cret@git.acme.corp/skills/kit.git", Path: "review"}, Commit: commit}
	s := c.Skill("review", pin)
	o, ok := s.Source.(source.OriginSource)
	if !ok {
		t.Fatalf("Skill source %T has no Origin method", s.Source)
	}
	got := o.Origin()
	if got.Kind != source.Git || got.Location != "git.acme.corp/skills/kit" || !got.Pinned || strings.Contains(got.Display, "s3cret") || !strings.Contains(got.Display, commit) {
		t.Errorf("Origin() = %+v, want git git.acme.corp/skills/kit, pinned, shown with the commit and without the password", got)
	}
	if p, ok := s.Source.(source.PinnedSource); !ok || p.Pin() != commit {
		t.Errorf("Skill source %T pin = %v, want %s", s.Source, p, commit)
	}
	a, ok := s.Source.(interface {
		SkillArchive() (skill.Opener, string, string, string)
	})
	if !ok {
		t.Fatalf("Skill source %T is not an archive", s.Source)
	}
	if _, format, sub, fp := a.SkillArchive(); format != string(skill.FormatTar) || sub != "review" || fp != commit {
		t.Errorf("Skill archive = %s %q %s, want tar \"review\" %s", format, sub, fp, commit)
	}
}

// A URL whose path has a ".." segment cannot be checked against a policy
// (host/allowed/** must not match host/allowed/../evil): its origin is
// "unknown", as install refuses the same source.
func TestSkillOriginDotSegment(t *testing.T) {
	c, err := git.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://git.acme.corp/allowed/../evil/kit.git", "https://git.acme.corp/allowed/%2e%2e/evil/kit.git", "git@git.acme.corp:allowed/../evil/kit.git"} {
		pin := git.Pin{Source: git.Source{URL: u}, Commit: strings.Repeat("ab", 20)}
		got := c.Skill("kit", pin).Source.(interface{ Origin() source.Origin }).Origin()
		if got.Kind != "unknown" || got.Location != "" {
			t.Errorf("Origin() of %s = %+v, want kind unknown", u, got)
		}
	}
}

// The origin's location is canonical (package source, rule 11): every
// spelling of one repository has one location, which the policy's rules
// match, and a port that is no port makes the origin "unknown".
func TestSkillOriginCanonical(t *testing.T) {
	c, err := git.New()
	if err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]string{
		"file:///srv/repos/acme/tools":              "/srv/repos/acme/tools",
		"file:///srv/repos//acme/tools/":            "/srv/repos/acme/tools",
		"file://localhost/srv/repos/acme/tools.git": "/srv/repos/acme/tools",
		"http://127.0.0.1:08080/acme/tools.git":     "127.0.0.1:8080/acme/tools",
		"https://GIT.acme.corp:443/acme/tools":      "git.acme.corp/acme/tools",
		"ssh://git@git.acme.corp:022/acme/tools":    "git.acme.corp/acme/tools",
		"https://github.com/Acme/Tools.git":         "github:acme/tools",
		"ssh://git@GitHub.com:22/acme/tools.GIT/":   "github:acme/tools",
		"https://git.acme.corp:0/acme/tools":        "",
		"https://github.com/acme/tools/skills":      "",
	} {
		pin := git.Pin{Source: git.Source{URL: u}, Commit: strings.Repeat("ab", 20)}
		got := c.Skill("kit", pin).Source.(interface{ Origin() source.Origin }).Origin()
		kind, loc := source.Git, want
		if l, ok := strings.CutPrefix(want, "github:"); ok {
			kind, loc = source.GitHub, l
		}
		switch {
		case want == "" && got.Kind != "unknown":
			t.Errorf("Origin() of %s = %+v, want kind unknown", u, got)
		case want != "" && (got.Kind != kind || got.Location != loc):
			t.Errorf("Origin() of %s = %+v, want %s at %s", u, got, kind, loc)
		}
	}
}

// A file URL's origin is its repository's real path (package source,
// rule 15): through a link, or /proc/self/root, it is the location a
// rule for the folder names.
func TestSkillOriginThroughLink(t *testing.T) {
	c, err := git.New()
	if err != nil {
		t.Fatal(err)
	}
	base := linktest.Repos(t)
	want := filepath.ToSlash(filepath.Join(base, "repos", "acme", "tools"))
	urls := []string{"file://" + filepath.ToSlash(base) + "/link/acme/tools"}
	if _, err := os.Stat("/proc/self/root"); err == nil {
		urls = append(urls, "file:///proc/self/root"+want)
	}
	for _, u := range urls {
		pin := git.Pin{Source: git.Source{URL: u}, Commit: strings.Repeat("ab", 20)}
		got := c.Skill("kit", pin).Source.(interface{ Origin() source.Origin }).Origin()
		if got.Kind != "git" || got.Location != want {
			t.Errorf("Origin() of %s = %+v, want git at %s", u, got, want)
		}
	}
}

// Source.Origin is the repository's canonical location, for a git+ URL
// and a host's web address alike, pinned by a full commit, shown without
// credentials; a URL that cannot be made canonical is an error.
func TestSourceOrigin(t *testing.T) {
	commit := strings.Repeat("a1", 20)
	for _, tt := range []struct {
		text string
		want source.Origin
	}{
		{"git+https://git.example.org/team/skills.git#ref=v1", source.Origin{Kind: source.Git, Location: "git.example.org/team/skills", Display: "git+https://git.example.org/team/skills.git#ref=v1"}},
		{"git+https://tok3n@Git.Example.org:443/team//skills.git#ref=" + commit, source.Origin{Kind: source.Git, Location: "git.example.org/team/skills", Pinned: true, Display: "git+https://Git.Example.org:443/team//skills.git#ref=" + commit}},
		{"git+https://github.com/Acme/Tools.git", source.Origin{Kind: source.GitHub, Location: "acme/tools", Display: "git+https://github.com/Acme/Tools.git"}},
		{"https://gitlab.com/group/sub/repo/-/tree/main/skills", source.Origin{Kind: source.Git, Location: "gitlab.com/group/sub/repo"}},
		{"https://codeberg.org/owner/repo/src/branch/main", source.Origin{Kind: source.Git, Location: "codeberg.org/owner/repo"}},
	} {
		parse := git.Parse
		if !strings.HasPrefix(tt.text, "git+") {
			parse = git.ParseWeb
		}
		src, err := parse(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := src.Origin()
		if tt.want.Display == "" {
			tt.want.Display = got.Display
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%s).Origin() = %+v, %v; want %+v", tt.text, got, err, tt.want)
		}
		if strings.Contains(got.Display, "tok3n") {
			t.Errorf("Parse(%s).Origin().Display = %s, with the token", tt.text, got.Display)
		}
	}
	for _, u := range []string{"https://git.acme.corp/allowed/../evil/kit.git", "https://git.acme.corp:99999/kit.git"} {
		if got, err := (git.Source{URL: u}).Origin(); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Source{URL: %s}.Origin() = %+v, %v; want ErrInvalid", u, got, err)
		}
	}
}
