package sourceloc_test

import (
	"errors"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
)

// TestGitLocation checks rule 11 for git's URLs: the spellings of one
// repository give one location, and one that cannot be made canonical is
// refused.
func TestGitLocation(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://git.example.org/team/skills.git", "git.example.org/team/skills"},
		{"https://tok@GIT.EXAMPLE.ORG:443/team/skills/", "git.example.org/team/skills"},
		{"ssh://git@git.example.org:22/team/skills.git", "git.example.org/team/skills"},
		{"ssh://git@git.example.org:022/team/skills.git", "git.example.org/team/skills"},
		{"git://git.example.org:9418/team/skills", "git.example.org/team/skills"},
		{"http://127.0.0.1:080/team/skills", "127.0.0.1/team/skills"},
		{"http://127.0.0.1:08080/team/skills", "127.0.0.1:8080/team/skills"},
		{"file:///srv/repos/acme/tools", "/srv/repos/acme/tools"},
		{"file:///srv/repos//acme/tools", "/srv/repos/acme/tools"},
		{"file://localhost/srv/repos/acme/tools", "/srv/repos/acme/tools"},
		{"file://LOCALHOST/srv/repos/acme/tools.git", "/srv/repos/acme/tools"},
		{"https://bitbucket.org/Acme/Tools.GIT", "bitbucket.org/acme/tools"},
		{"https://github.com/Acme/Tools.git", "acme/tools"},
		{"https://bücher.example/team/skills", "xn--bcher-kva.example/team/skills"},
		{"https://git.example.org/team/%2e%2e/evil", ""},
		{"https://git.example.org/team/%2E/skills", ""},
		{"https://git.example.org/team%2Fskills", ""},
		{"https://git.example.org/team%5cskills", ""},
		{"file:///srv/repos/acme/..", ""},
		{"file://other/srv/repos", ""},
		{"https://git.example.org:0/team/skills", ""},
		{"https://git.example.org:+443/team/skills", ""},
		{"https:git.example.org/team/skills", ""},
		{"https://git.example.org/team/skills?x=1", ""},
		{"ftp://git.example.org/team/skills", ""},
		{"https://git.example.org", ""},
		{"git@git.example.org:team/skills.git", ""},
	}
	for _, tt := range tests {
		_, got, err := sourceloc.GitLocation(tt.in)
		switch {
		case tt.want == "" && !errors.Is(err, sourceloc.ErrInvalid):
			t.Errorf("GitLocation(%q) = %q, %v; want ErrInvalid", tt.in, got, err)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("GitLocation(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestGitLocationOnGitHub checks rule 11 for github.com: every spelling
// of a repository on github.com is kind github at OWNER/REPO, as
// github:OWNER/REPO is, and one that names no OWNER/REPO is refused.
func TestGitLocationOnGitHub(t *testing.T) {
	for _, tt := range []struct{ in, kind, loc string }{
		{"https://github.com/acme/tools", "github", "acme/tools"},
		{"https://GitHub.com/Acme/Tools.GIT", "github", "acme/tools"},
		{"https://github.com:443/acme/tools.git/", "github", "acme/tools"},
		{"ssh://git@github.com/acme/tools.git", "github", "acme/tools"},
		{"ssh://git@github.com:22/acme/tools", "github", "acme/tools"},
		{"git://github.com/acme/tools", "github", "acme/tools"},
		{"https://www.github.com/acme/tools", "github", "acme/tools"},
		{"https://WWW.GitHub.com/Acme/Tools.GIT", "github", "acme/tools"},
		{"https://github.com:8443/acme/tools", "git", "github.com:8443/acme/tools"},
		{"https://ghe.acme.corp/acme/tools", "git", "ghe.acme.corp/acme/tools"},
		{"https://github.com/acme/tools/skills", "", ""},
		{"https://github.com/acme", "", ""},
		{"https://github.com/a.b/tools", "", ""},
		{"https://githuB.Com/A./00", "", ""},
	} {
		kind, loc, err := sourceloc.GitLocation(tt.in)
		switch {
		case tt.kind == "" && !errors.Is(err, sourceloc.ErrInvalid):
			t.Errorf("GitLocation(%q) = %s, %q, %v; want ErrInvalid", tt.in, kind, loc, err)
		case tt.kind != "" && (err != nil || kind != tt.kind || loc != tt.loc):
			t.Errorf("GitLocation(%q) = %s, %q, %v; want %s, %q", tt.in, kind, loc, err, tt.kind, tt.loc)
		}
		if tt.kind == "" {
			continue
		}
		if k, l, err := sourceloc.Canonical(kind, loc, false); err != nil || k != kind || l != loc {
			t.Errorf("Canonical(%s, %q, false) = %s, %q, %v; want it unchanged", kind, loc, k, l, err)
		}
	}
}

// TestGitHubLocation checks rule 12 from a GitHub repository's parts.
func TestGitHubLocation(t *testing.T) {
	for _, tt := range []struct{ host, owner, repo, kind, loc string }{
		{"", "Acme", "Tools", "github", "acme/tools"},
		{"", "acme", "tools.git", "github", "acme/tools"},
		{"GitHub.com:443", "acme", "tools", "github", "acme/tools"},
		{"ghe.acme.corp:0443", "Acme", "Tools", "git", "ghe.acme.corp/acme/tools"},
		{"ghe.acme.corp:0", "acme", "tools", "", ""},
		{"", "foo.bar", "tools", "", ""},
		{"", "acme", "", "", ""},
	} {
		kind, loc, err := sourceloc.GitHubLocation(tt.host, tt.owner, tt.repo)
		switch {
		case tt.kind == "" && !errors.Is(err, sourceloc.ErrInvalid):
			t.Errorf("GitHubLocation(%q, %q, %q) = %s, %q, %v; want ErrInvalid", tt.host, tt.owner, tt.repo, kind, loc, err)
		case tt.kind != "" && (err != nil || kind != tt.kind || loc != tt.loc):
			t.Errorf("GitHubLocation(%q, %q, %q) = %s, %q, %v; want %s, %q", tt.host, tt.owner, tt.repo, kind, loc, err, tt.kind, tt.loc)
		}
	}
}

// HasDotSegment finds a "." or ".." between slashes or backslashes.
func TestHasDotSegment(t *testing.T) {
	for p, want := range map[string]bool{
		"/a/b": false, "/a/../b": true, "/a/./b": true, "..": true, `a\..\b`: true,
		"/a/..b/c": false, "/a/b../c": false, "/a/.../c": false, "": false,
	} {
		if got := sourceloc.HasDotSegment(p); got != want {
			t.Errorf("HasDotSegment(%q) = %v, want %v", p, got, want)
		}
	}
}
