package install

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestTrustGitHubCommitRuleAppliesToGitSpellings checks # Trust, rule 1,
// with package source's rule 11: a repository on github.com named as a
// git source, by git's address in any spelling, is kind github at
// OWNER/REPO, so a commits rule for github:acme/* (or git:github.com/
// acme/*, the same pattern) applies to every spelling, as it does to
// github:acme/tools.
func TestTrustGitHubCommitRuleAppliesToGitSpellings(t *testing.T) {
	signers := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(signers, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	byGitHub := parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"github:acme/*\"]\n    commits: {allowed_signers: "+signers+"}\n")
	byGit := parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"git:GitHub.com/acme/*.git\"]\n    commits: {allowed_signers: "+signers+"}\n")
	in := New(newFixture(t).env)
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, src := range []string{
		"github:acme/tools@" + commit,                              // the plain spelling: the rule applies
		"git+https://github.com/acme/tools#ref=" + commit,          // git's address
		"git+ssh://git@github.com/acme/tools.git#ref=" + commit,    // git over ssh
		"https://GitHub.com/acme/tools.git",                        // a web address in another case
		"https://github.com:443/acme/tools.git",                    // the default port written out
		"https://github.com/acme/tools.git/",                       // a trailing slash after .git
		"https://github.com/acme/tools",                            // GitHub's web address
		"https://github.com/acme/tools.git",                        // git's address on GitHub
		"https://github.com/acme/tools/tree/" + commit + "/skills", // a folder's web address
		"git+https://GitHub.com/Acme/Tools.GIT#ref=" + commit,      // .GIT in another case
		"git+https://www.github.com/acme/tools#ref=" + commit,      // github.com's other name
	} {
		s, err := in.Origin(src)
		if err != nil {
			t.Errorf("Origin(%s) = %v", src, err)
			continue
		}
		if s.Kind != "github" || s.Location != "acme/tools" {
			t.Errorf("Origin(%s) = %s:%s, want github:acme/tools", src, s.Kind, s.Location)
		}
		for _, p := range []*policy.Policy{byGitHub, byGit} {
			if len(p.CommitRules(s)) == 0 {
				t.Errorf("Origin(%s) = %s:%s, to which the commits rule for github:acme/* does not apply", src, s.Kind, s.Location)
			}
		}
	}
}

// TestTrustGitHubCommitRuleAppliesToGitInstall is the same end to end: the
// user's git rewrites https://github.com/ to a local server (as a mirror
// or a test would; github.com itself answers the same), and Add of
// git+https://github.com/acme/tools refuses an unsigned commit under a
// commits rule for github:acme/*.
func TestTrustGitHubCommitRuleAppliesToGitInstall(t *testing.T) {
	gitsigtest.Require(t, "git", "ssh-keygen")
	good := gitsigtest.NewSigner(t, "release@example.org")
	base := t.TempDir()
	repo := filepath.Join(base, "acme", "tools")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, "unsigned")
	served := t.TempDir()
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", repo, filepath.Join(served, "acme", "tools.git")).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	srv := gitHTTPServer(t, served)
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(cfg, []byte("[url \""+srv.URL+"/\"]\n\tinsteadOf = https://github.com/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	p := parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"github:acme/*\"]\n    commits: {allowed_signers: "+good.AllowedSigners+"}\n")
	f := newFixture(t)
	src := "git+https://github.com/acme/tools.git#ref=main&path=skills/alpha"
	_, err := trustInstaller(t, f, "", trust.NewChecker(p), Trust{}).Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "signers[1]") {
		t.Errorf("Add(%s) of an unsigned commit under a commits rule for github:acme/* = %v; want trust.ErrRefused naming signers[1]", src, err)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "alpha")); err == nil {
		t.Errorf("the unsigned commit of github.com/acme/tools was installed")
	}
}

// TestTrustGitHubURLWithGitSuffixJudgedAsRead: for
// https://github.com/acme/tools.git (the clone button's address) Add
// reads the repository through GitHub's API (parseSource checks the
// github.com prefix first), and Origin classifies it as
// parseSource does: the policy judges the source that is read, kind
// github.
func TestTrustGitHubURLWithGitSuffixJudgedAsRead(t *testing.T) {
	in := New(newFixture(t).env)
	for _, src := range []string{"https://github.com/acme/tools.git", "https://github.com/acme/tools.git/"} {
		rs, err := in.parseSource(src, true)
		if err != nil {
			t.Fatalf("parseSource(%s) = %v", src, err)
		}
		s, err := in.Origin(src)
		if err != nil {
			t.Fatalf("Origin(%s) = %v", src, err)
		}
		if _, viaAPI := rs.(*github.Remote); !viaAPI || s.Kind != "github" || s.Location != "acme/tools" {
			t.Errorf("Add reads %s through GitHub's API, but the policy sees it as %s:%s", src, s.Kind, s.Location)
		}
	}
}

// TestTrustCommitPatternThatMatchesNothing checks policy rule 3: a
// commits rule's pattern either applies to the sources it was written
// for or is refused naming its line, never read to apply to nothing. A
// glob ending in .git loses it, as locations do; a github pattern naming
// a folder in the repository is refused (a github location is
// OWNER/REPO only).
func TestTrustCommitPatternThatMatchesNothing(t *testing.T) {
	signers := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(signers, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	in := New(newFixture(t).env)
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct {
		pattern, source string
		refused         bool
	}{
		{"git:git.acme.corp/team/*.git", "git+https://git.acme.corp/team/tools.git#ref=" + commit, false},
		{"git:/srv/repos/*.git", "git+file:///srv/repos/tools.git#ref=" + commit, false},
		{"git:/srv/repos/*.git/", "git+file:///srv/repos/tools#ref=" + commit, false},
		{"github:acme/tools/skills/*", "github:acme/tools/skills/x@" + commit, true},
		{"github:acme/*/skills", "github:acme/tools/skills@" + commit, true},
		{"git:github.com/acme/tools/skills/*", "github:acme/tools/skills/x@" + commit, true},
		{"github:acme/tools/**", "github:acme/tools/skills/x@" + commit, false},
	} {
		p, err := policyParse(t, "version: 1\nsigners:\n  - sources: [\""+tt.pattern+"\"]\n    commits: {allowed_signers: "+signers+"}\n")
		if tt.refused {
			if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), ":3:") || !strings.Contains(err.Error(), "OWNER/REPO") {
				t.Errorf("the commits rule for %s, which no github location matches, = %v; want ErrInvalid naming line 3 and saying to write OWNER/REPO", tt.pattern, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("the commits rule for %s = %v", tt.pattern, err)
			continue
		}
		s, err := in.Origin(tt.source)
		if err != nil {
			t.Fatalf("Origin(%s) = %v", tt.source, err)
		}
		if len(p.CommitRules(s)) == 0 {
			t.Errorf("the commits rule for %s was read without an error, but does not apply to %s (%s:%s): it applies to nothing", tt.pattern, tt.source, s.Kind, s.Location)
		}
	}
}

func policyParse(t *testing.T, text string) (*policy.Policy, error) {
	file := filepath.Join(t.TempDir(), policy.FileName)
	return policy.Parse([]byte(text), file)
}

// TestTrustURLPatternHostGlobQuery checks package source's rule 13: a
// url location has a path before its query and the query's slashes
// escaped, so https://evil.example?.acme.corp/x.tgz has the host
// element evil.example, which url:https://*.acme.corp/* does not match,
// whether a download's redirect hop (policyRedirects), a web index's
// artifact (checkArtifact) or policy check names it.
func TestTrustURLPatternHostGlobQuery(t *testing.T) {
	p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\"url:https://*.acme.corp/*\"]\n")
	for _, loc := range []string{
		"https://evil.example?.acme.corp/x.tgz",
		"https://evil.example:443?.acme.corp/x.tgz",
	} {
		if err := p.Check(source.Origin{Kind: "url", Location: loc, Pinned: true, Display: loc}); err == nil {
			t.Errorf("sources.allow [url:https://*.acme.corp/*] allows the hop or artifact %s, content from evil.example", loc)
		}
		if s, err := source.ParseOrigin("url:" + loc); err == nil && p.Check(s) == nil {
			t.Errorf("policy check url:%s says allowed (%s)", loc, s.Location)
		}
	}
}

// TestTrustPolicySourceClassifiesAsRead checks # Trust, rule 1: for every
// spelling of a web or git address, Origin gives the kind of the
// source parseSource reads: a repository read through GitHub's API or by
// git from github.com is kind github, one read by git elsewhere kind git,
// an archive kind url.
func TestTrustPolicySourceClassifiesAsRead(t *testing.T) {
	in := New(newFixture(t).env)
	for _, tt := range []struct{ src, kind, loc string }{
		{"https://github.com/acme/tools.git", "github", "acme/tools"},
		{"https://github.com/acme/tools", "github", "acme/tools"},
		{"https://GitHub.com/acme/tools.git", "github", "acme/tools"},
		{"https://github.com:443/acme/tools.git", "github", "acme/tools"},
		{"git+https://github.com/acme/tools.git", "github", "acme/tools"},
		{"https://gitlab.com/Acme/Tools.git", "git", "gitlab.com/acme/tools"},
		{"https://git.acme.corp/team/tools.git", "git", "git.acme.corp/team/tools"},
		{"https://github.com/acme/tools/archive/v1.tar.gz", "url", "https://github.com/acme/tools/archive/v1.tar.gz"},
	} {
		rs, err := in.parseSource(tt.src, true)
		if err != nil {
			t.Errorf("parseSource(%s) = %v", tt.src, err)
			continue
		}
		s, err := in.Origin(tt.src)
		if err != nil || string(s.Kind) != tt.kind || s.Location != tt.loc {
			t.Errorf("Origin(%s) = %s:%s, %v; want %s:%s", tt.src, s.Kind, s.Location, err, tt.kind, tt.loc)
		}
		switch rs.(type) {
		case *github.Remote:
			if s.Kind != "github" {
				t.Errorf("%s is read through GitHub's API, but the policy sees it as %s:%s", tt.src, s.Kind, s.Location)
			}
		case nil:
			if s.Kind != "url" {
				t.Errorf("%s is downloaded as an archive, but the policy sees it as %s:%s", tt.src, s.Kind, s.Location)
			}
		}
	}
}
