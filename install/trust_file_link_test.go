package install

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/trust"
)

// linkRepo makes, under a new folder, repos/acme/tools (a repository
// whose last commit is unsigned, holding skills/alpha) and a link
// "through" to repos; it returns the real path of repos and of the link,
// in slash form.
func linkRepo(t *testing.T) (repos, link string) {
	t.Helper()
	gitsigtest.Require(t, "git", "ssh-keygen")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "repos", "acme", "tools")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, "unsigned")
	if err := os.Symlink(filepath.Join(base, "repos"), filepath.Join(base, "through")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	return filepath.ToSlash(filepath.Join(base, "repos")), filepath.ToSlash(filepath.Join(base, "through"))
}

// TestTrustCommitRuleFileURLThroughLink checks Trust rule 1 for a file
// URL: its repository is at its real path, so a commits rule written for
// git:REPOS/acme/* applies to the repository named through
// /proc/self/root or through any link to REPOS, and its unsigned commit
// is refused.
func TestTrustCommitRuleFileURLThroughLink(t *testing.T) {
	repos, link := linkRepo(t)
	good := gitsigtest.NewSigner(t, "release@example.org")
	p := parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"git:"+repos+"/acme/*\"]\n    commits: {allowed_signers: "+good.AllowedSigners+"}\n")
	sources := []string{
		"git+file://" + link + "/acme/tools#ref=main&path=skills/alpha",
		"git+file://localhost" + link + "/acme//tools/#ref=main&path=skills/alpha",
	}
	if _, err := os.Stat("/proc/self/root"); err == nil {
		sources = append(sources, "git+file:///proc/self/root"+repos+"/acme/tools#ref=main&path=skills/alpha")
	}
	for _, src := range sources {
		f := newFixture(t)
		in := trustInstaller(t, f, "", trust.NewChecker(p), Trust{})
		if s, err := in.Origin(src); err != nil || s.Location != repos+"/acme/tools" {
			t.Errorf("Origin(%s) = %+v, %v; want location %s/acme/tools", src, s, err, repos)
		}
		_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
		if !errors.Is(err, trust.ErrRefused) {
			t.Errorf("Add(%s) of an unsigned commit under a commits rule for git:%s/acme/* = %v; want trust.ErrRefused", src, repos, err)
		}
	}
}

// TestTrustCommitRulePatternThroughLink is the reverse: a pattern written
// through a link (as macOS's /tmp and /var are) is resolved when the
// policy is read, so its commits rule applies to the repository named by
// its real path, or through the link, and a link inside the pattern's
// folder that leads out of it is not under the pattern.
func TestTrustCommitRulePatternThroughLink(t *testing.T) {
	repos, link := linkRepo(t)
	good := gitsigtest.NewSigner(t, "release@example.org")
	for _, pat := range []string{link + "/acme/*", link + "/acme/tools", link + "/*/tools.git", link + "/**"} {
		p := parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"git:"+pat+"\"]\n    commits: {allowed_signers: "+good.AllowedSigners+"}\n")
		for _, src := range []string{repos + "/acme/tools", link + "/acme/tools"} {
			f := newFixture(t)
			_, err := trustInstaller(t, f, "", trust.NewChecker(p), Trust{}).Add(t.Context(), AddRequest{Sources: []string{"git+file://" + src + "#ref=main&path=skills/alpha"}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, trust.ErrRefused) {
				t.Errorf("Add(git+file://%s) of an unsigned commit under a commits rule for git:%s = %v; want trust.ErrRefused", src, pat, err)
			}
		}
	}
	// sources.allow: a link under the allowed folder to a repository
	// elsewhere is that repository, not allowed.
	base := filepath.Dir(repos)
	if err := os.MkdirAll(filepath.Join(base, "allowed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "repos", "acme", "tools"), filepath.Join(base, "allowed", "tools")); err != nil {
		t.Fatal(err)
	}
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"git:"+base+"/allowed/*\", \"local:"+base+"/allowed/**\"]\n")
	in := New(newFixture(t).env)
	for _, src := range []string{"git+file://" + base + "/allowed/tools#ref=main", base + "/allowed/tools/skills/alpha"} {
		s, err := in.Origin(src)
		if err != nil {
			t.Fatalf("Origin(%s) = %v", src, err)
		}
		if err := p.Check(s); err == nil {
			t.Errorf("sources.allow [%s/allowed/*] allows %s, a link to %s (%s)", base, src, repos, s.Location)
		}
	}
}
