package install

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// TestPolicySource maps every source form Add takes to the policy's
// Source: its kind, normalized location, whether it is pinned, and how it
// is shown (without credentials).
func TestPolicySource(t *testing.T) {
	wd := t.TempDir()
	writeFiles(t, wd, map[string]string{"skills/review/SKILL.md": skillMD("review"), "kit.tgz": "archive"})
	t.Chdir(wd)
	local := func(rel string) string { return filepath.ToSlash(filepath.Join(wd, rel)) }
	commit := strings.Repeat("a1", 20)
	sum := strings.Repeat("0f", 32)
	in := New(Env{Home: t.TempDir(), Project: wd})
	tests := []struct {
		name, source string
		want         source.Origin
	}{
		{"folder", "./skills/review", source.Origin{Kind: "local", Location: local("skills/review")}},
		{"folder without ./", "skills", source.Origin{Kind: "local", Location: local("skills")}},
		{"OWNER/REPO that exists as a folder", "skills/review", source.Origin{Kind: "local", Location: local("skills/review")}},
		{"SKILL.md file", "skills/review/SKILL.md", source.Origin{Kind: "local", Location: local("skills/review/SKILL.md")}},
		{"archive file", "kit.tgz", source.Origin{Kind: "local", Location: local("kit.tgz")}},
		{"archive file above", "../kit.tgz", source.Origin{Kind: "local", Location: local("../kit.tgz")}},
		{"absolute folder", filepath.Join(wd, "a", "..", "b"), source.Origin{Kind: "local", Location: local("b")}},
		{"URL", "https://example.org/kit.tgz", source.Origin{Kind: "url", Location: "https://example.org/kit.tgz"}},
		{"URL pinned, with credentials", "https://user:secret@example.org/kit.tgz#sha256=" + sum,
			source.Origin{Kind: "url", Location: "https://example.org/kit.tgz", Pinned: true, Display: "https://example.org/kit.tgz#sha256=" + sum}},
		{"GitHub OWNER/REPO", "acme/tools", source.Origin{Kind: "github", Location: "acme/tools"}},
		{"GitHub at a commit, with a path", "Acme/Tools/skills/x@" + commit, source.Origin{Kind: "github", Location: "acme/tools", Pinned: true}},
		{"GitHub at a tag", "github:acme/tools@v1", source.Origin{Kind: "github", Location: "acme/tools"}},
		{"GitHub web address", "https://github.com/acme/tools/tree/main/skills", source.Origin{Kind: "github", Location: "acme/tools"}},
		{"GitHub archive URL", "https://github.com/acme/tools/archive/v1.tar.gz", source.Origin{Kind: "url", Location: "https://github.com/acme/tools/archive/v1.tar.gz"}},
		{"git https", "git+https://git.example.org/team/skills.git#ref=v1&path=skills", source.Origin{Kind: "git", Location: "git.example.org/team/skills"}},
		{"git ssh at a commit", "git+ssh://git@git.example.org/team/skills.git#ref=" + commit, source.Origin{Kind: "git", Location: "git.example.org/team/skills", Pinned: true}},
		{"git file", "git+file:///srv/repos/skills", source.Origin{Kind: "git", Location: "/srv/repos/skills"}},
		{"OCI at a tag", "oci://ghcr.io/acme/review:1.2", source.Origin{Kind: "oci", Location: "ghcr.io/acme/review"}},
		{"OCI at a digest", "oci://localhost:5000/acme/review@sha256:" + sum, source.Origin{Kind: "oci", Location: "localhost:5000/acme/review", Pinned: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want.Display == "" {
				want.Display = tt.source
			}
			got, err := in.Origin(tt.source)
			if err != nil {
				t.Fatalf("Origin(%q) = %v", tt.source, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Origin(%q) (-want +got):\n%s", tt.source, diff)
			}
		})
	}
	// A recorded source is pinned by the pin the lock file records.
	got, err := in.policySource("acme/tools", commit, false)
	if err != nil || !got.Pinned || got.Kind != "github" {
		t.Errorf("policySource(acme/tools, %s) = %+v, %v; want a pinned github source", commit, got, err)
	}
}

// parsePolicy writes a policy file under dir and parses it.
func parsePolicy(t *testing.T, dir, text string) *policy.Policy {
	t.Helper()
	file := filepath.Join(dir, policy.FileName)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse([]byte(text), file)
	if err != nil {
		t.Fatalf("policy.Parse:\n%s\n= %v", text, err)
	}
	return p
}

// assertNothingInstalled fails t when anything of the project's .agents
// folder exists: nothing refused lands anywhere.
func assertNothingInstalled(t *testing.T, f *fixture) {
	t.Helper()
	for _, p := range []string{filepath.Join(f.env.Project, ".agents"), filepath.Join(f.env.Project, ".claude")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused Add left %s (%v)", p, err)
		}
	}
}

// TestTrustPolicyRefusesBeforeReading checks Trust rule 1: a source the
// policy does not allow, or an unpinned one where the policy requires
// pins, is refused before anything is read or downloaded (the server
// sees no request), naming the rule and the file, and nothing is
// installed.
func TestTrustPolicyRefusesBeforeReading(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	tests := []struct {
		name, policy string
		source       func(f *fixture) string
		rule         string
	}{
		{name: "a folder not allowed", policy: "version: 1\nsources:\n  allow: [\"github:acme/*\"]\n",
			source: func(f *fixture) string { return f.writeSkill(t, "alpha", "alpha", "") }, rule: "sources.allow"},
		{name: "a URL not allowed", policy: "version: 1\nsources:\n  allow: [\"oci:ghcr.io/acme/*\"]\n",
			source: func(*fixture) string { return srv.URL + "/kit.tgz" }, rule: "sources.allow"},
		{name: "a URL not pinned", policy: "version: 1\nsources:\n  pinned: true\n",
			source: func(*fixture) string { return srv.URL + "/kit.tgz" }, rule: "sources.pinned"},
		{name: "an OCI tag not pinned", policy: "version: 1\nsources:\n  pinned: true\n",
			source: func(*fixture) string { return "oci://" + strings.TrimPrefix(srv.URL, "http://") + "/acme/review:1.0" }, rule: "sources.pinned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := parsePolicy(t, t.TempDir(), tt.policy)
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
			src := tt.source(f)
			hits.Store(0)
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			var denied *policy.DeniedError
			if !errors.Is(err, trust.ErrRefused) || !errors.As(err, &denied) || denied.Rule != tt.rule || !strings.Contains(err.Error(), p.Files()[0]) {
				t.Fatalf("Add(%s) = %v; want trust.ErrRefused by %s of %s", src, err, tt.rule, p.Files()[0])
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("Add(%s) sent %d requests before the policy refused it", src, n)
			}
			assertNothingInstalled(t, f)
		})
	}
}

// TestTrustSignedCommitRequired checks Trust rule 3: where the policy
// requires a signed commit for a git source, a commit that is unsigned,
// or signed by a key the allowed signers do not name, is refused and
// nothing is installed; one signed by a named key installs, and the lock
// file records who signed it.
func TestTrustSignedCommitRequired(t *testing.T) {
	gitsigtest.Require(t, "git", "ssh-keygen", "gpg")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	good := gitsigtest.NewSigner(t, "release@example.org")
	other := gitsigtest.NewSigner(t, "mallory@example.org")
	repo := filepath.Join(t.TempDir(), "repo")
	gitRepo(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha")})
	commits := map[string]string{
		"unsigned":       gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, "unsigned"),
		"another key":    gitsigtest.Commit(t, repo, other, gitsigtest.SSH, "by another key"),
		"an allowed key": gitsigtest.Commit(t, repo, good, gitsigtest.SSH, "signed"),
	}
	policyText := "version: 1\nsigners:\n  - sources: [\"git:**\"]\n    commits: {allowed_signers: " + good.AllowedSigners + "}\n"
	for _, name := range []string{"unsigned", "another key", "an allowed key"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			p := parsePolicy(t, t.TempDir(), policyText)
			in := New(f.env, WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(t.TempDir()), WithTrust(trust.NewChecker(p), Trust{}))
			src := "git+file://" + filepath.ToSlash(repo) + "#ref=" + commits[name] + "&path=skills/alpha"
			_, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code")})
			if name != "an allowed key" {
				if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "signers[1]") {
					t.Fatalf("Add(%s) of a commit signed by %s = %v; want trust.ErrRefused naming the policy's signers[1]", src, name, err)
				}
				var refused *trust.RefusedError
				if !errors.As(err, &refused) || refused.Refusals[0].Rule.Name != "signers[1]" || !errors.Is(err, policy.ErrDenied) || !errors.Is(err, source.ErrCommitSignature) {
					t.Fatalf("Add(%s) of a commit signed by %s = %#v; want the trust checker's *trust.RefusedError of signers[1], policy.ErrDenied, source.ErrCommitSignature", src, name, err)
				}
				assertNothingInstalled(t, f)
				return
			}
			if err != nil {
				t.Fatalf("Add(%s) of a signed commit = %v", src, err)
			}
			lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
			if err != nil {
				t.Fatal(err)
			}
			if e := lock.Skills["alpha"]; e == nil || !strings.Contains(e.CommitSigner, good.Principal) {
				t.Errorf("the lock file records %+v for alpha; want the commit signer %s", e, good.Principal)
			}
		})
	}
}
