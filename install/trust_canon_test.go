package install

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/signature"
)

// TestTrustOCISignerRuleEverySpelling checks Trust rule 1 for another
// spelling of an OCI source's host: a policy's signers rule written for
// the registry applies to the source however its host is written (a port
// with leading zeros, a pattern in another case or with a port spelled
// so), and the unsigned artifact is refused by Add, and by a Sync of a
// committed lock file on a fresh project; a spelling that cannot be
// made canonical is refused, not matched as written.
func TestTrustOCISignerRuleEverySpelling(t *testing.T) {
	o := newOCIFixture(t)
	key := newTestKey(t)
	ref := o.push(t, "acme/x", "1", "x", "")
	host, port, err := net.SplitHostPort(o.host)
	if err != nil {
		t.Fatal(err)
	}
	digest := ref[strings.LastIndex(ref, "@"):]
	spell := func(hostport string) string { return "oci://" + hostport + "/acme/x" + digest }
	rule := func(pattern string) string {
		return "version: 1\nsigners:\n  - sources: [\"oci:" + pattern + "\"]\n    keys: [\"" + key.file + "\"]\n"
	}
	tests := []struct{ name, pattern, source string }{
		{"port with a leading zero", o.host + "/acme/*", spell(host + ":0" + port)},
		{"port with leading zeros", o.host + "/acme/*", spell(host + ":000" + port)},
		{"pattern's port with a leading zero", host + ":0" + port + "/acme/*", ref},
		{"pattern in upper case", o.host + "/ACME/*", ref},
		{"as written", o.host + "/acme/*", ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parsePolicy(t, t.TempDir(), rule(tt.pattern))
			f := newFixture(t)
			_, err := trustInstaller(t, f, "", Trust{Policy: p}).Add(t.Context(), Request{Sources: []string{tt.source}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, ErrRefused) || !errors.Is(err, signature.ErrUnsigned) || !strings.Contains(err.Error(), "signers[1]") {
				t.Fatalf("Add(%s) under signers oci:%s = %v; want ErrRefused, unsigned, naming signers[1]", tt.source, tt.pattern, err)
			}
			assertNothingInstalled(t, f)
		})
	}

	t.Run("sync of a committed lock file", func(t *testing.T) {
		// The lock file of a project that added the source spelled with a
		// leading zero, without trust, committed and cloned.
		src := spell(host + ":0" + port)
		f := newFixture(t)
		if _, err := trustInstaller(t, f, "", Trust{}).Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatalf("Add(%s) without a policy = %v", src, err)
		}
		lock, err := os.ReadFile(filepath.Join(f.env.Project, ".agents", LockName))
		if err != nil {
			t.Fatal(err)
		}
		clone := newFixture(t)
		writeFiles(t, clone.env.Project, map[string]string{".agents/" + LockName: string(lock)})
		p := parsePolicy(t, t.TempDir(), rule(o.host+"/acme/*"))
		_, err = trustInstaller(t, clone, "", Trust{Policy: p}).Sync(t.Context(), SyncRequest{})
		if !errors.Is(err, ErrRefused) || !errors.Is(err, signature.ErrUnsigned) {
			t.Fatalf("Sync of a lock file recording %s under signers oci:%s/acme/* = %v; want ErrRefused, unsigned", src, o.host, err)
		}
		if _, err := os.Stat(filepath.Join(clone.env.Project, ".agents", "skills", "x")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused Sync installed x (%v)", err)
		}
	})

	t.Run("a host that cannot be made canonical", func(t *testing.T) {
		p := parsePolicy(t, t.TempDir(), rule(o.host+"/acme/*"))
		for _, h := range []string{"0x7f.1:" + port, "127.1:" + port} {
			f := newFixture(t)
			src := spell(h)
			_, err := trustInstaller(t, f, "", Trust{Policy: p}).Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "canonical") {
				t.Errorf("Add(%s) = %v; want ErrRefused: its location cannot be made canonical", src, err)
			}
			assertNothingInstalled(t, f)
		}
	})
}

// TestTrustCommitRuleEverySpelling checks Trust rule 1 for git: a
// commits rule written for a repository's plain spelling applies to
// every other spelling of it (a doubled slash, file://localhost, a port
// with a leading zero, the default port written out), and an unsigned
// commit is refused.
func TestTrustCommitRuleEverySpelling(t *testing.T) {
	gitsigtest.Require(t, "git", "ssh-keygen", "gpg")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	good := gitsigtest.NewSigner(t, "release@example.org")
	base := t.TempDir()
	repos := filepath.ToSlash(filepath.Join(base, "repos"))
	repo := filepath.Join(base, "repos", "acme", "tools")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, "unsigned")
	served := t.TempDir()
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", repo, filepath.Join(served, "acme", "tools.git")).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	srv := gitHTTPServer(t, served)
	hostport := strings.TrimPrefix(srv.URL, "http://")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePolicy(t, t.TempDir(), "version: 1\nsigners:\n  - sources: [\"git:"+repos+"/acme/*\", \"git:"+hostport+"/acme/*\"]\n    commits: {allowed_signers: "+good.AllowedSigners+"}\n")
	const frag = "#ref=main&path=skills/alpha"
	for _, src := range []string{
		"git+file://" + repos + "/acme/tools" + frag,
		"git+file://" + repos + "//acme/tools" + frag,
		"git+file://" + repos + "/acme//tools/" + frag,
		"git+file://localhost" + repos + "/acme/tools" + frag,
		"git+file://" + repos + "/acme/tools/.git" + frag,
		"git+http://" + hostport + "/acme/tools.git" + frag,
		"git+http://" + host + ":0" + port + "/acme/tools.git" + frag,
	} {
		f := newFixture(t)
		_, err := trustInstaller(t, f, "", Trust{Policy: p}).Add(t.Context(), Request{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "signers[1]") {
			t.Errorf("Add(%s) of an unsigned commit under a commits rule for its repository = %v; want ErrRefused naming signers[1]", src, err)
			continue
		}
		assertNothingInstalled(t, f)
	}
}

// TestGitHubAPIHost checks Trust rule 1 for a GitHub source read through
// another API than github.com's ($GITHUB_API_URL, as Enterprise runners
// set it): it is that host's repository, which github:OWNER/* (meaning
// github.com) does not allow and github:HOST/OWNER/* does; the lock file
// records the host, and a sync where GITHUB_API_URL names another is
// refused before any request.
func TestGitHubAPIHost(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("HEAD", commitA, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	host := strings.TrimPrefix(g.api.URL, "http://")
	for _, tt := range []struct {
		pattern string
		allowed bool
	}{{"github:o/*", false}, {"github:" + host + "/o/*", true}} {
		f := newFixture(t)
		p := parsePolicy(t, t.TempDir(), "version: 1\nsources:\n  allow: [\""+tt.pattern+"\"]\n")
		_, err := trustInstaller(t, f, "", Trust{Policy: p}).Add(t.Context(), Request{Sources: []string{"github:o/skills"}, Agents: agentsOf(t, "claude-code")})
		if !tt.allowed {
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "sources.allow") {
				t.Errorf("Add(github:o/skills) from %s under allow %s = %v; want ErrRefused by sources.allow", host, tt.pattern, err)
			}
			assertNothingInstalled(t, f)
			continue
		}
		if err != nil {
			t.Fatalf("Add(github:o/skills) from %s under allow %s = %v", host, tt.pattern, err)
		}
		lock, err := readLock(filepath.Join(f.env.Project, ".agents", LockName))
		if err != nil {
			t.Fatal(err)
		}
		if e := lock.Skills["alpha"]; e == nil || e.Host != host {
			t.Fatalf("the lock file records %+v for alpha; want the host %s", e, host)
		}
		os.RemoveAll(filepath.Join(f.env.Project, ".agents", "skills", "alpha"))
		g.take()
		t.Setenv("GITHUB_API_URL", "")
		_, err = trustInstaller(t, f, "", Trust{}).Sync(t.Context(), SyncRequest{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), "GITHUB_API_URL") {
			t.Errorf("Sync of a lock file recording %s with GITHUB_API_URL unset = %v; want ErrRefused naming the host and GITHUB_API_URL", host, err)
		}
		if got := g.take(); len(got) != 0 {
			t.Errorf("the refused Sync asked %q", got)
		}
		t.Setenv("GITHUB_API_URL", g.api.URL)
		if _, err := trustInstaller(t, f, "", Trust{}).Sync(t.Context(), SyncRequest{}); err != nil {
			t.Errorf("Sync with GITHUB_API_URL naming %s again = %v", host, err)
		}
	}
}
