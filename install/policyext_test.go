package install

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/trust"
)

// gitTag tags HEAD of the repository in dir.
func gitTag(t *testing.T, dir, tag string) {
	t.Helper()
	cmd := exec.Command("git", "tag", "-f", tag)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git tag: %v\n%s", err, out)
	}
}

const companyPolicy = `version: 1
sources:
  allow: [github:acme/*, "git:**"]
  pinned: true
audit:
  fail_on: medium
`

// TestPolicyExtendsChain: project -> team -> company, each a git
// repository at a tag; the company's tightening applies, the project's
// attempt to loosen is reported and has no effect, the pins are in the
// project's lock file, and the policy loads from the cache with the
// repositories gone.
func TestPolicyExtendsChain(t *testing.T) {
	needGit(t)
	f := newFixture(t)
	base := t.TempDir()
	company := filepath.Join(base, "company")
	companyCommit := gitRepo(t, company, map[string]string{"policies/agentskills.policy.yaml": companyPolicy})
	gitTag(t, company, "v1")
	companySrc := "git+file://" + filepath.ToSlash(company) + "#ref=v1&path=policies/agentskills.policy.yaml"
	team := filepath.Join(base, "team")
	teamCommit := gitRepo(t, team, map[string]string{"agentskills.policy.yaml": "version: 1\nextends: \"" + companySrc + "\"\nsources:\n  allow: [github:acme/tools]\n"})
	gitTag(t, team, "v3")
	teamSrc := "git+file://" + filepath.ToSlash(team) + "#ref=v3&path=agentskills.policy.yaml"
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: " + teamSrc + "\nsources:\n  pinned: false\n  allow: [github:acme/*]\naudit:\n  fail_on: critical\n"})

	cache := cachetest.Root(t)
	in := f.remoteInstaller(t, cache)
	p, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
	if err != nil {
		t.Fatal(err)
	}
	// The company's fail_on medium and pinned: true hold; the team's
	// allow narrows the company's.
	if p.FailOn() != audit.Medium {
		t.Errorf("FailOn = %v, want medium (the company's)", p.FailOn())
	}
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "acme/tools", Display: "acme/tools"}); !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), "sources.pinned") {
		t.Errorf("Check of an unpinned acme/tools = %v, want denied by the company's sources.pinned", err)
	}
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "acme/other", Pinned: true, Display: "acme/other"}); !errors.Is(err, policy.ErrDenied) || !strings.Contains(err.Error(), teamSrc) {
		t.Errorf("Check of acme/other = %v, want denied by the team's sources.allow", err)
	}
	if err := p.Check(source.Origin{Kind: source.GitHub, Location: "acme/tools", Pinned: true, Display: "acme/tools"}); err != nil {
		t.Errorf("Check of pinned acme/tools = %v", err)
	}
	var loosened []string
	for _, l := range p.Loosenings() {
		loosened = append(loosened, l.Name)
	}
	slices.Sort(loosened)
	if want := []string{"audit.fail_on", "sources.allow", "sources.pinned"}; !slices.Equal(loosened, want) {
		t.Errorf("Loosenings = %v, want %v", p.Loosenings(), want)
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil || lock.Policy == nil || len(lock.Policy.Extends) != 2 {
		t.Fatalf("lock policy = %+v, %v", lock.Policy, err)
	}
	for _, e := range lock.Policy.Extends {
		want := map[string]string{companySrc: companyCommit, teamSrc: teamCommit}[e.Source]
		if e.Pin != want || !strings.HasPrefix(e.Digest, "sha256:") {
			t.Errorf("lock records %+v, want pin %s", e, want)
		}
	}
	// Offline: the repositories are gone; the pins and the cache serve.
	os.Rename(company, company+".gone")
	os.Rename(team, team+".gone")
	p2, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, Frozen: true})
	if err != nil {
		t.Fatalf("LoadPolicy offline = %v", err)
	}
	if p2.FailOn() != audit.Medium || len(p2.Layers()) != 3 {
		t.Errorf("offline policy: FailOn %v, layers %+v", p2.FailOn(), p2.Layers())
	}
	// A fresh cache without the network: unavailable, not ignored.
	in3 := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in3.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err == nil {
		t.Error("LoadPolicy with no cache and no repository succeeded")
	}
	// The project extends the company directly now: the team's pin goes.
	os.Rename(company+".gone", company)
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + companySrc + "\"\n"})
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Fatal(err)
	}
	if l, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName)); l.Policy == nil || len(l.Policy.Extends) != 1 || l.Policy.Extends[0].Source != companySrc {
		t.Errorf("lock policy after the team's file was dropped = %+v", l.Policy)
	}
	// No extends at all: no pin left.
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\n"})
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Fatal(err)
	}
	if l, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName)); l.Policy != nil {
		t.Errorf("lock policy with nothing extended = %+v", l.Policy)
	}
}

// TestPolicyExtendsOCISigned: the user's policy extends an OCI artifact;
// the user's own signers rule for its source requires a signature, so
// the unsigned artifact is refused and the signed one read, pinned in
// the user's lock file.
func TestPolicyExtendsOCISigned(t *testing.T) {
	o := newOCIFixture(t)
	f := newFixture(t)
	key := newTestKey(t)
	dir := filepath.Join(t.TempDir(), "policy")
	writeFiles(t, dir, map[string]string{"SKILL.md": skillMD("policy"), "agentskills.policy.yaml": "version: 1\naudit:\n  fail_on: low\n"})
	ref := "oci://" + o.Host + "/acme/policy:1"
	d, err := oci.Push(t.Context(), dir, ref, o.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, f.env.Home, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: " + ref + "\nsigners:\n  - sources: [oci:" + o.Host + "/acme/*]\n    keys: [" + key.File + "]\n"})
	in := f.remoteInstaller(t, cachetest.Root(t))
	_, err = in.LoadPolicy(t.Context(), PolicyRequest{})
	if !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "agentskills.policy.yaml:2") {
		t.Fatalf("LoadPolicy of an unsigned policy artifact = %v, want refused, naming the extends line", err)
	}
	if l, _ := readLock(filepath.Join(f.env.Home, ".agents", lockName)); l.Policy != nil {
		t.Errorf("a refused policy was pinned: %+v", l.Policy)
	}
	o.Sign(t, "oci://"+o.Host+"/acme/policy@"+d, key.Private)
	p, err := in.LoadPolicy(t.Context(), PolicyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if p.FailOn() != audit.Low {
		t.Errorf("FailOn = %v, want low, the extended file's", p.FailOn())
	}
	l, err := readLock(filepath.Join(f.env.Home, ".agents", lockName))
	if err != nil || l.Policy == nil || len(l.Policy.Extends) != 1 || l.Policy.Extends[0].Pin != d {
		t.Fatalf("user's lock policy = %+v, %v, want pinned to %s", l.Policy, err, d)
	}
	// The user's extended file is the user's word (package policy, rule 16).
	if _, ok := p.UserRefusal(audit.Finding{Rule: "download-exec", Severity: audit.Low}, "x", source.Origin{Kind: source.Local, Location: "/x"}); !ok {
		t.Error("a finding the user's extended file refuses is not the user's refusal")
	}
}

// TestPolicyExtendsIntegrity: content at the recorded pin that is not
// what the lock file records is refused; so is a URL whose content is
// not its #sha256=; a cache entry altered is fetched again.
func TestPolicyExtendsIntegrity(t *testing.T) {
	needGit(t)
	f := newFixture(t)
	repo := filepath.Join(t.TempDir(), "team")
	gitRepo(t, repo, map[string]string{"agentskills.policy.yaml": companyPolicy})
	gitTag(t, repo, "v1")
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=v1&path=agentskills.policy.yaml"
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + src + "\"\n"})
	cache := cachetest.Root(t)
	in := f.remoteInstaller(t, cache)
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(f.env.Project, ".agents", lockName)
	l, _ := readLock(lockFile)
	digest := l.Policy.Extends[0].Digest
	// The cache's copy altered: read again from the pin.
	kept := filepath.Join(cache, "policies", strings.TrimPrefix(digest, "sha256:")+".yaml")
	if err := os.WriteFile(kept, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil || p.FailOn() != audit.Medium {
		t.Fatalf("LoadPolicy with the cache altered = %v, %v; want the pinned file again", p, err)
	}
	// The lock file records another digest for the pin: refused.
	l.Policy.Extends[0].Digest = "sha256:" + strings.Repeat("0", 64)
	if err := l.write(lockFile); err != nil {
		t.Fatal(err)
	}
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); !errors.Is(err, source.ErrIntegrity) {
		t.Errorf("LoadPolicy of content unlike the lock file's digest = %v, want ErrIntegrity", err)
	}
	// A frozen load of a file not pinned is refused.
	os.Remove(lockFile)
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project, Frozen: true}); !errors.Is(err, ErrDrift) {
		t.Errorf("frozen LoadPolicy of an extends not pinned = %v, want ErrDrift", err)
	}
	// A URL: its content must be its #sha256=.
	body := []byte(companyPolicy)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	sum := sha256.Sum256(body)
	url := srv.URL + "/agentskills.policy.yaml#sha256=" + hex.EncodeToString(sum[:])
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + url + "\"\n"})
	in = f.remoteInstaller(t, cachetest.Root(t))
	if p, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); err != nil || p.FailOn() != audit.Medium {
		t.Fatalf("LoadPolicy of a URL = %v, %v", p, err)
	}
	os.Remove(lockFile)
	body = []byte(companyPolicy + "# changed\n")
	in = f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); !errors.Is(err, source.ErrIntegrity) {
		t.Errorf("LoadPolicy of a URL whose content changed = %v, want ErrIntegrity", err)
	}
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + srv.URL + "/p.yaml\"\n"})
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); !errors.Is(err, ErrInvalidSource) {
		t.Errorf("LoadPolicy of a URL without #sha256= = %v, want ErrInvalidSource", err)
	}
}

// TestPolicyExtendsGitHub: a GitHub source names the folder that holds
// the policy file; its commit is pinned.
func TestPolicyExtendsGitHub(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("v3", commitA, map[string]string{"policies/agentskills.policy.yaml": companyPolicy, "README.md": "policies\n"})
	f := newFixture(t)
	writeFiles(t, f.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: github:o/skills/policies@v3\n"})
	in := f.remoteInstaller(t, cachetest.Root(t))
	p, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
	if err != nil {
		t.Fatal(err)
	}
	if p.FailOn() != audit.Medium {
		t.Errorf("FailOn = %v, want medium", p.FailOn())
	}
	l, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if l.Policy == nil || l.Policy.Extends[0].Pin != commitA {
		t.Errorf("lock policy = %+v, want pinned to %s", l.Policy, commitA)
	}
	// The path may name the file itself.
	f2 := newFixture(t)
	writeFiles(t, f2.env.Project, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: github:o/skills/policies/agentskills.policy.yaml@v3\n"})
	if p, err := f2.remoteInstaller(t, cachetest.Root(t)).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f2.env.Project}); err != nil || p.FailOn() != audit.Medium {
		t.Errorf("LoadPolicy of a GitHub path naming the file = %v, %v", p, err)
	}
	g.setOffline(true)
	if _, err := f.remoteInstaller(t, cachetest.Root(t)).LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); !errors.Is(err, ErrSourceUnavailable) {
		t.Errorf("LoadPolicy offline without the cache = %v, want ErrSourceUnavailable", err)
	}
}

// TestPolicyExtendsSignedCommit: the user's own commits rule for the
// repository a policy extends requires its pinned commit signed: an
// unsigned one is refused, a signed one read.
func TestPolicyExtendsSignedCommit(t *testing.T) {
	gitsigtest.Require(t, "git", "ssh-keygen")
	good := gitsigtest.NewSigner(t, "security@example.org")
	repo := filepath.Join(t.TempDir(), "policy")
	gitRepo(t, repo, map[string]string{"agentskills.policy.yaml": companyPolicy})
	gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, "unsigned")
	gitTag(t, repo, "v1")
	f := newFixture(t)
	src := "git+file://" + filepath.ToSlash(repo) + "#ref=v1&path=agentskills.policy.yaml"
	writeFiles(t, f.env.Home, map[string]string{".agents/agentskills.policy.yaml": "version: 1\nextends: \"" + src + "\"\nsigners:\n  - sources: [\"git:**\"]\n    commits: {allowed_signers: " + good.AllowedSigners + "}\n"})
	in := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project}); !errors.Is(err, trust.ErrRefused) || !strings.Contains(err.Error(), "signers[1]") {
		t.Fatalf("LoadPolicy of an unsigned commit = %v, want refused by signers[1]", err)
	}
	signed := gitsigtest.Commit(t, repo, good, gitsigtest.SSH, "signed")
	gitTag(t, repo, "v1")
	p, err := in.LoadPolicy(t.Context(), PolicyRequest{ProjectRoot: f.env.Project})
	if err != nil {
		t.Fatal(err)
	}
	if p.FailOn() != audit.Medium {
		t.Errorf("FailOn = %v, want medium", p.FailOn())
	}
	l, _ := readLock(filepath.Join(f.env.Home, ".agents", lockName))
	if l.Policy == nil || l.Policy.Extends[0].Pin != signed {
		t.Errorf("user's lock policy = %+v, want pinned to %s", l.Policy, signed)
	}
	if l, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName)); l.Policy != nil {
		t.Errorf("the user's extends was pinned in the project's lock file: %+v", l.Policy)
	}
}
