package install

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
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

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
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
	p, err := in.LoadPolicy(t.Context(), f.env.Project, PolicyOptions{})
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
	if want := []string{"audit.fail_on", "audit.fail_on", "sources.allow", "sources.pinned"}; !slices.Equal(loosened, want) {
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
	p2, err := in.LoadPolicy(t.Context(), f.env.Project, PolicyOptions{Frozen: true})
	if err != nil {
		t.Fatalf("LoadPolicy offline = %v", err)
	}
	if p2.FailOn() != audit.Medium || len(p2.Layers()) != 3 {
		t.Errorf("offline policy: FailOn %v, layers %+v", p2.FailOn(), p2.Layers())
	}
	// A fresh cache without the network: unavailable, not ignored.
	in3 := f.remoteInstaller(t, cachetest.Root(t))
	if _, err := in3.LoadPolicy(t.Context(), f.env.Project, PolicyOptions{}); err == nil {
		t.Error("LoadPolicy with no cache and no repository succeeded")
	}
	_ = trust.ErrRefused
}
