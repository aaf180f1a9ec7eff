package requirement_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocitest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/requirement"
	"github.com/agentadaptor/agentadaptor/trust"
)

// skillMD is a SKILL.md for name that requires requires, with body.
func skillMD(name, requires, body string) string {
	md := "---\nname: " + name + "\ndescription: Does " + name + ".\n"
	if requires != "" {
		md += "metadata:\n  requires: \"" + requires + "\"\n"
	}
	return md + "---\n" + body + "\n"
}

// hermetic keeps the machine's git configuration, credential helpers and
// prompts out of a test.
func hermetic(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_ASKPASS", "")
	t.Setenv("SSH_ASKPASS", "")
}

// gitIn runs git in dir and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo makes a git repository whose changelog folder holds a skill at
// each tag, requiring requires, and returns its git+file:// URL and the
// commit of each tag.
func repo(t *testing.T, requires string, tags ...string) (string, map[string]string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills")
	if err := os.MkdirAll(filepath.Join(dir, "changelog"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	commits := map[string]string{}
	for _, tag := range tags {
		if err := os.WriteFile(filepath.Join(dir, "changelog", "SKILL.md"), []byte(skillMD("changelog", requires, "Changelog "+tag+".")), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "-q", "-m", tag)
		gitIn(t, dir, "tag", tag)
		commits[tag] = gitIn(t, dir, "rev-parse", "HEAD")
	}
	return "git+file://" + filepath.ToSlash(dir), commits
}

// Rules 1 to 3 with real git: a range picks the highest tag it admits,
// the key is the folder's name, the source carries the pin and origin.
func TestResolveGit(t *testing.T) {
	hermetic(t)
	url, commits := repo(t, "", "v1.0.0", "v1.2.0", "v2.0.0")
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.ResolveRequirement(t.Context(), skill.Requirement{Text: url + "#ref=^1&path=changelog"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Key != "changelog" {
		t.Errorf("Key = %q, want changelog", s.Key)
	}
	pinned, ok := s.Source.(source.PinnedSource)
	if !ok || pinned.Pin() != commits["v1.2.0"] {
		t.Fatalf("Source = %#v; want pinned to v1.2.0's commit %s", s.Source, commits["v1.2.0"])
	}
	if o := source.OriginOf(s.Source); o.Kind != source.Git {
		t.Errorf("origin %v; want kind git", o)
	}
	dir, err := cache.Materialize(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "SKILL.md")); err != nil || !strings.Contains(string(b), "Changelog v1.2.0.") {
		t.Fatalf("materialized SKILL.md = %q, %v; want v1.2.0's", b, err)
	}
}

// Rule 1: what a requirement cannot name.
func TestResolveRefused(t *testing.T) {
	hermetic(t)
	r, err := requirement.New(requirement.WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"../sibling", "./x", "https://example.com/kit.tgz", "/abs/path", "oci://"} {
		_, err := r.ResolveRequirement(t.Context(), skill.Requirement{Text: text, By: skill.Skill{Key: "pub"}})
		if !errors.Is(err, source.ErrInvalid) {
			t.Errorf("ResolveRequirement(%q) = %v; want source.ErrInvalid", text, err)
		}
	}
}

// published is a registry holding semver at v1.0.0, v1.3.0 and v2.0.0,
// and a repository whose changelog requires semver@^1 from it.
func published(t *testing.T) (reg *ocitest.Registry, changelog string) {
	t.Helper()
	hermetic(t)
	reg = ocitest.New(t)
	for _, tag := range []string{"v1.0.0", "v1.3.0", "v2.0.0"} {
		reg.Push(t, "acme/semver", tag, "semver", skillMD("semver", "", "Semver "+tag+"."))
	}
	url, _ := repo(t, "oci://"+reg.Host+"/acme/semver:^1", "v1.0.0")
	return reg, url + "#ref=^1&path=changelog"
}

// A run whose named skill requires a git skill that requires an OCI one:
// the driver sees all three, each pinned as its range says, and the
// fingerprint changes when a new version the range admits is published.
func TestRunWithPublishedRequirements(t *testing.T) {
	reg, changelog := published(t)
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", changelog, "Cut a release.")), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache), requirement.WithOCIOptions(reg.Options()...))
	if err != nil {
		t.Fatal(err)
	}
	rec := &drivertest.Driver{RequireSkillMD: true}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(cache), adaptor.WithRequirementResolver(r),
		adaptor.WithSkills(skill.WithRequires(skill.Dir(release))))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	req := rec.Last()
	var got []string
	for _, e := range req.Skills.Entries {
		got = append(got, e.Key)
	}
	if want := []string{"changelog", "release", "semver"}; !slices.Equal(got, want) {
		t.Fatalf("the driver saw %q, want %q", got, want)
	}
	semver := req.Skills.Entries[2]
	if b, err := os.ReadFile(filepath.Join(semver.Path, "SKILL.md")); err != nil || !strings.Contains(string(b), "Semver v1.3.0.") {
		t.Fatalf("semver's SKILL.md = %q, %v; want v1.3.0's, the highest ^1 admits", b, err)
	}
	if semver.Reason != "required by release -> changelog" {
		t.Errorf("semver's Reason = %q", semver.Reason)
	}
	before := req.Skills.Fingerprint
	reg.Push(t, "acme/semver", "v1.4.0", "semver", skillMD("semver", "", "Semver v1.4.0."))
	if _, err := agent.Run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	if after := rec.Last().Skills.Fingerprint; after == before {
		t.Fatal("the fingerprint did not change when the range admitted a new version")
	}
}

// Package trust checks required published skills as named ones: a
// policy that allows the folder and the git repository but not the
// registry refuses semver, naming the chain.
func TestPublishedRequirementRefused(t *testing.T) {
	reg, changelog := published(t)
	release := filepath.Join(t.TempDir(), "release")
	if err := os.MkdirAll(release, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(release, "SKILL.md"), []byte(skillMD("release", changelog, "Cut a release.")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse([]byte("version: 1\nsources:\n  allow: [\"local:/**\", \"git:/**\"]\n"), "test.policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache), requirement.WithOCIOptions(reg.Options()...))
	if err != nil {
		t.Fatal(err)
	}
	rec := &drivertest.Driver{}
	agent := adaptor.New(rec, adaptor.WithSkillMaterializer(trust.NewMaterializer(cache, trust.NewChecker(p))),
		adaptor.WithRequirementResolver(r), adaptor.WithRequires(), adaptor.WithSkills(skill.Dir(release)))
	_, err = agent.Run(t.Context(), "x")
	var re *skill.RequirementError
	if !errors.Is(err, trust.ErrRefused) || !errors.As(err, &re) || re.ChainText() != "release -> changelog -> semver" {
		t.Fatalf("Run = %v; want a trust refusal of release -> changelog -> semver", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "requirement chain release -> changelog -> semver: ") || !strings.Contains(msg, "sources.allow") {
		t.Errorf("message %q; want the chain first, then the rule that refused", msg)
	}
	if rec.Calls() != 0 {
		t.Error("the driver was called")
	}
}

// Rule 7: requirements of one skill whose ranges pick different
// versions are merged at the highest version all admit (^1 and ~1.0:
// v1.0.0, though ^1 alone picks v1.2.0); ranges with no version in
// common (^1 and ^2) fail, naming both chains; requirements of one key
// in two repositories are a conflict naming both chains.
func TestRanges(t *testing.T) {
	hermetic(t)
	url, _ := repo(t, "", "v1.0.0", "v1.2.0", "v2.0.0")
	fork, _ := repo(t, "", "v1.0.0")
	root := t.TempDir()
	for name, req := range map[string]string{
		"release": url + "#ref=^1&path=changelog",
		"notes":   url + "#ref=~1.0&path=changelog",
		"same":    url + "#ref=^1.2&path=changelog",
		"major":   url + "#ref=^2&path=changelog",
		"forked":  fork + "#ref=^1&path=changelog",
	} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(name, req, "Body.")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
	r, err := requirement.New(requirement.WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	rec := &drivertest.Driver{}
	run := func(names ...string) error {
		var refs []skill.Ref
		for _, n := range names {
			refs = append(refs, skill.Dir(filepath.Join(root, n)))
		}
		agent := adaptor.New(rec, adaptor.WithSkillMaterializer(cache), adaptor.WithRequirementResolver(r), adaptor.WithRequires(), adaptor.WithSkills(refs...))
		_, err := agent.Run(t.Context(), "x")
		return err
	}
	changelog := func() string {
		t.Helper()
		for _, e := range rec.Last().Skills.Entries {
			if e.Key == "changelog" {
				b, err := os.ReadFile(filepath.Join(e.Path, "SKILL.md"))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
		}
		t.Fatal("no changelog selected")
		return ""
	}
	if err := run("release", "same"); err != nil || !strings.Contains(changelog(), "Changelog v1.2.0.") {
		t.Fatalf("^1 and ^1.2: %v; want one skill at v1.2.0", err)
	}
	if err := run("release", "notes"); err != nil || !strings.Contains(changelog(), "Changelog v1.0.0.") {
		t.Fatalf("^1 and ~1.0: %v; want one skill at v1.0.0", err)
	}
	err = run("release", "major")
	if !errors.Is(err, skill.ErrRequirement) || !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), "major's") || !strings.Contains(err.Error(), "requirement chain release,") {
		t.Fatalf("^1 and ^2: %v; want ErrRequirement naming both chains", err)
	}
	err = run("release", "forked")
	var ce *skill.SkillKeyConflictError
	if !errors.As(err, &ce) || ce.Key != "changelog" || !slices.Equal(ce.Sources, []string{"forked -> changelog", "release -> changelog"}) {
		t.Fatalf("two repositories: %v; want a SkillKeyConflictError naming both chains", err)
	}
}
