package sourceloc_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/internal/testkit/linktest"
)

// Rule 15: a path is its real path, the longest leading part that exists
// resolved and the rest kept.
func TestRealPath(t *testing.T) {
	base := linktest.Repos(t)
	for in, want := range map[string]string{
		filepath.Join(base, "link", "acme", "tools"):            filepath.Join(base, "repos", "acme", "tools"),
		filepath.Join(base, "link", "acme", "missing", "x"):     filepath.Join(base, "repos", "acme", "missing", "x"),
		filepath.Join(base, "repos", "acme", "tools"):           filepath.Join(base, "repos", "acme", "tools"),
		base + "/link//acme/./tools/":                           filepath.Join(base, "repos", "acme", "tools"),
		filepath.Join("relative", "link"):                       filepath.Join("relative", "link"),
		filepath.Join(base, "missing", "link", "acme", "tools"): filepath.Join(base, "missing", "link", "acme", "tools"),
	} {
		if got := sourceloc.RealPath(in); got != want {
			t.Errorf("RealPath(%s) = %s, want %s", in, got, want)
		}
	}
}

// Rule 15: a pattern's leading run of elements without a wildcard is
// resolved, as far as it exists; the rest is kept as written.
func TestRealPathPattern(t *testing.T) {
	base := linktest.Repos(t)
	repos := filepath.Join(base, "repos")
	for _, tt := range []struct{ in, head, rest string }{
		{filepath.Join(base, "link", "acme", "*"), filepath.Join(repos, "acme"), "*"},
		{filepath.Join(base, "link", "**"), repos, "**"},
		{filepath.Join(base, "link", "ac?e", "tools"), repos, "ac?e/tools"},
		{filepath.Join(base, "link", "[a]cme", "tools"), repos, "[a]cme/tools"},
		{filepath.Join(base, "link", "acme", "tools"), filepath.Join(repos, "acme", "tools"), ""},
		{filepath.Join(base, "link", "missing", "*"), repos, "missing/*"},
	} {
		if h, r := sourceloc.RealPathPattern(tt.in); h != tt.head || r != tt.rest {
			t.Errorf("RealPathPattern(%s) = %s, %q; want %s, %q", tt.in, h, r, tt.head, tt.rest)
		}
	}
}

// Rule 15: a file URL's repository is at its real path, through any
// link, /proc/self/root included; a "." or ".." element is refused before
// anything is resolved; other URLs are GitLocation's.
func TestRealGitLocation(t *testing.T) {
	base := filepath.ToSlash(linktest.Repos(t))
	want := base + "/repos/acme/tools"
	urls := []string{
		"file://" + base + "/link/acme/tools",
		"file://" + base + "/link/acme/tools.git",
		"file://localhost" + base + "/link//acme/tools/",
		"file://" + base + "/repos/acme/tools",
	}
	if _, err := os.Stat("/proc/self/root"); err == nil {
		urls = append(urls, "file:///proc/self/root"+want)
	}
	for _, u := range urls {
		if kind, loc, err := sourceloc.RealGitLocation(u); err != nil || kind != "git" || loc != want {
			t.Errorf("RealGitLocation(%s) = %s, %s, %v; want git, %s", u, kind, loc, err, want)
		}
	}
	for _, u := range []string{"file://" + base + "/link/../repos/acme/tools", "file://" + base + "/link/acme/%2e%2e/acme/tools", "file://evil.example" + want} {
		if kind, loc, err := sourceloc.RealGitLocation(u); !errors.Is(err, sourceloc.ErrInvalid) {
			t.Errorf("RealGitLocation(%s) = %s, %s, %v; want ErrInvalid", u, kind, loc, err)
		}
	}
	if kind, loc, err := sourceloc.RealGitLocation("https://Git.Acme.Corp:443/team/x.git"); err != nil || kind != "git" || loc != "git.acme.corp/team/x" {
		t.Errorf("RealGitLocation(https://Git.Acme.Corp:443/team/x.git) = %s, %s, %v", kind, loc, err)
	}
}
