package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/gitsigtest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/policy"
)

// The scenarios of skills that need other skills and of a team's
// policy, end to end: real git repositories read as git+file://, the
// command run in process as main runs it.

// gitRepo makes a git repository and returns its folder (links
// resolved, as a policy pattern matches it) and its git+file:// URL.
func gitRepo(t *testing.T) (dir, url string) {
	t.Helper()
	gitsigtest.Require(t, "git")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitsigtest.Git(t, dir, nil, "init", "-q", "-b", "main")
	return dir, "git+file://" + filepath.ToSlash(dir)
}

// commitTag writes files (slash paths relative to the repository) into
// repo, commits them and tags the commit tag.
func commitTag(t *testing.T, repo, tag string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitsigtest.Git(t, repo, nil, "add", "-A")
	gitsigtest.Commit(t, repo, nil, gitsigtest.Unsigned, tag)
	gitsigtest.Git(t, repo, nil, "tag", tag)
}

// teamRepos holds the repositories of the scenarios: lib, whose skill
// base is tagged v1.0.0, v1.1.0 and v2.0.0 (its SKILL.md ends with the
// tag), and apps, whose skills (tagged v1.0.0) require each other and
// base.
type teamRepos struct {
	libDir, lib, appsDir, apps string
}

// skillAt is the source of the skill in folder skills/name of the
// repository at url, at ref.
func skillAt(url, name, ref string) string {
	return url + "#ref=" + ref + "&path=skills/" + name
}

func newTeamRepos(t *testing.T) teamRepos {
	t.Helper()
	var r teamRepos
	r.libDir, r.lib = gitRepo(t)
	for _, tag := range []string{"v1.0.0", "v1.1.0", "v2.0.0"} {
		commitTag(t, r.libDir, tag, map[string]string{"skills/base/SKILL.md": requiring("base") + tag + "\n"})
	}
	r.appsDir, r.apps = gitRepo(t)
	app := func(name string) string { return skillAt(r.apps, name, "^1") }
	base := func(ref string) string { return skillAt(r.lib, "base", ref) }
	skills := map[string][]string{
		"a":       {app("b")},
		"b":       {app("c")},
		"c":       nil,
		"app":     {app("left"), app("right")},
		"left":    {base("^1")},
		"right":   {base("~1.0")},
		"split":   {app("left"), app("newer")},
		"newer":   {base("^2")},
		"x":       {app("y")},
		"y":       {app("x")},
		"refuser": {app("bad")},
		"bad":     {"github:evil/x@v1"},
	}
	files := map[string]string{}
	for name, reqs := range skills {
		files["skills/"+name+"/SKILL.md"] = requiring(name, reqs...)
	}
	commitTag(t, r.appsDir, "v1.0.0", files)
	return r
}

// requiredBy is the lock file's required_by of skill name, and whether
// it is marked a dependency.
func requiredBy(t *testing.T, project, name string) (by []string, dependency bool) {
	t.Helper()
	e := lockSkill(t, project, name)
	if e == nil {
		t.Fatalf("the lock file has no %s", name)
	}
	for _, v := range asSlice(e["required_by"]) {
		by = append(by, v.(string))
	}
	d, _ := e["dependency"].(bool)
	return by, d
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// installed reports whether the project holds a canonical copy of name.
func installed(project, name string) bool {
	_, err := os.Stat(filepath.Join(project, ".agents", "skills", name, "SKILL.md"))
	return err == nil
}

// TestRequirementScenarios checks requirements between skills published
// in git repositories (install rules 17 and 18): a chain of three, a
// diamond whose ranges meet, ranges that do not (a conflict), a cycle, a
// requirement the policy refuses, and removal with and without
// dependants.
func TestRequirementScenarios(t *testing.T) {
	r := newTeamRepos(t)

	t.Run("chain of three", func(t *testing.T) {
		project := isolatedHome(t)
		code, out, errs := runHere(t, "add", skillAt(r.apps, "a", "v1.0.0"), "-a", "codex")
		if code != exitOK || !strings.Contains(out, "installed b (canonical copy, required by a)") || !strings.Contains(out, "installed c (canonical copy, required by b)") {
			t.Fatalf("add a = %d\n%s%s; want b and c installed, each naming what required it", code, out, errs)
		}
		if strings.Contains(errs, "warning: removed") {
			t.Errorf("add a warned of a removal: %q", errs)
		}
		if by, dep := requiredBy(t, project, "b"); !slices.Equal(by, []string{"a"}) || !dep {
			t.Errorf("lock's b: required_by %v, dependency %v; want [a], true", by, dep)
		}
		if by, dep := requiredBy(t, project, "c"); !slices.Equal(by, []string{"b"}) || !dep {
			t.Errorf("lock's c: required_by %v, dependency %v; want [b], true", by, dep)
		}
		if by, dep := requiredBy(t, project, "a"); len(by) != 0 || dep {
			t.Errorf("lock's a: required_by %v, dependency %v; want none, false", by, dep)
		}
		reqs := asSlice(lockSkill(t, project, "a")["requires"])
		if len(reqs) != 1 || reqs[0].(map[string]any)["source"] != skillAt(r.apps, "b", "^1") || reqs[0].(map[string]any)["skill"] != "b" {
			t.Errorf("lock's a requires %v; want %s answered by b", reqs, skillAt(r.apps, "b", "^1"))
		}
		code, out, errs = runHere(t, "list", "-a", "codex")
		if code != exitOK || !strings.Contains(out, "REQUIRED BY") || !strings.Contains(out, "a (dependency)") || !strings.Contains(out, "b (dependency)") {
			t.Errorf("list = %d\n%s%s; want b required by a and c by b, both dependencies", code, out, errs)
		}
		if code, out, errs := runHere(t, "verify"); code != exitOK {
			t.Errorf("verify = %d\n%s%s; want 0", code, out, errs)
		}
	})

	t.Run("diamond", func(t *testing.T) {
		project := isolatedHome(t)
		code, out, errs := runHere(t, "add", skillAt(r.apps, "app", "v1.0.0"), "-a", "codex")
		if code != exitOK {
			t.Fatalf("add app = %d\n%s%s", code, out, errs)
		}
		// ^1 picks v1.1.0, ~1.0 picks v1.0.0, which ^1 admits too.
		if got := readTestFile(t, filepath.Join(project, ".agents", "skills", "base", "SKILL.md")); !strings.HasSuffix(got, "v1.0.0\n") {
			t.Errorf("base installed is %q; want v1.0.0's, the version both ranges admit", got)
		}
		if by, dep := requiredBy(t, project, "base"); !slices.Equal(by, []string{"left", "right"}) || !dep {
			t.Errorf("lock's base: required_by %v, dependency %v; want [left right], true", by, dep)
		}
		if strings.Count(out, "installed base (canonical copy") != 1 || !strings.Contains(out, "installed base (canonical copy, required by left, right)") {
			t.Errorf("add = %s; want base installed once, required by left and right", out)
		}
	})

	t.Run("conflict", func(t *testing.T) {
		project := isolatedHome(t)
		code, out, errs := runHere(t, "add", skillAt(r.apps, "split", "v1.0.0"), "-a", "codex")
		for _, want := range []string{
			"split -> left -> base (" + skillAt(r.lib, "base", "^1") + ", which picks v1.1.0)",
			"split -> newer -> base (" + skillAt(r.lib, "base", "^2") + ", which picks v2.0.0)",
		} {
			if code != exitFailed || !strings.Contains(errs, want) {
				t.Errorf("add split = %d\n%s%s; want exit 1 naming %q", code, out, errs, want)
			}
		}
		if _, err := os.Stat(filepath.Join(project, ".agents")); !os.IsNotExist(err) {
			t.Errorf("a refused add left .agents (%v)", err)
		}
	})

	t.Run("cycle", func(t *testing.T) {
		project := isolatedHome(t)
		code, out, errs := runHere(t, "add", skillAt(r.apps, "x", "v1.0.0"), "-a", "codex")
		if code != exitFailed || !strings.Contains(errs, "the requirements make a cycle, x -> y -> x") {
			t.Errorf("add x = %d\n%s%s; want exit 1 naming the cycle x -> y -> x", code, out, errs)
		}
		if installed(project, "x") || installed(project, "y") {
			t.Errorf("a refused add installed x or y")
		}
	})

	t.Run("refused requirement", func(t *testing.T) {
		project := isolatedHome(t)
		os.MkdirAll(filepath.Join(project, ".agents"), 0o755)
		pol := "version: 1\nsources:\n  allow:\n    - git:" + filepath.ToSlash(r.appsDir) + "\n"
		if err := os.WriteFile(filepath.Join(project, ".agents", policy.FileName), []byte(pol), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runHere(t, "add", skillAt(r.apps, "refuser", "v1.0.0"), "-a", "codex")
		if code != exitFailed || !strings.Contains(errs, "refuser -> bad -> github:evil/x@v1") || !strings.Contains(errs, "sources.allow") {
			t.Errorf("add refuser = %d\n%s%s; want exit 1 naming the chain refuser -> bad -> github:evil/x@v1 and sources.allow", code, out, errs)
		}
		if installed(project, "refuser") || installed(project, "bad") {
			t.Errorf("a refused add installed refuser or bad")
		}
	})

	t.Run("remove", func(t *testing.T) {
		project := isolatedHome(t)
		add := func() {
			t.Helper()
			if code, out, errs := runHere(t, "add", skillAt(r.apps, "a", "v1.0.0"), "-a", "codex"); code != exitOK {
				t.Fatalf("add a = %d\n%s%s", code, out, errs)
			}
		}
		add()
		// Removing the one the others were installed for takes all three.
		code, out, errs := runHere(t, "remove", "a")
		if code != exitOK || !strings.Contains(out, "removed   b (canonical copy): .agents/skills/b (no longer required)") || !strings.Contains(out, "removed   c (canonical copy): .agents/skills/c (no longer required)") {
			t.Fatalf("remove a = %d\n%s%s; want b and c removed as no longer required", code, out, errs)
		}
		for _, n := range []string{"a", "b", "c"} {
			if installed(project, n) {
				t.Errorf("remove a left %s installed", n)
			}
		}
		if skills, _ := lockJSON(t, project)["skills"].(map[string]any); len(skills) != 0 {
			t.Errorf("the lock file after remove a holds %v; want no skill", skills)
		}

		// A skill others require is refused, naming them; --force removes
		// it and verify then reports the requirement unanswered.
		add()
		before := readTestFile(t, filepath.Join(project, ".agents", "agentskills.lock"))
		code, _, errs = runHere(t, "remove", "c")
		if code != exitFailed || !strings.Contains(errs, `skill "c": is required by installed skills: b;`) || !strings.Contains(errs, "--force") {
			t.Errorf("remove c = %d, %q; want exit 1 naming b and --force", code, errs)
		}
		if after := readTestFile(t, filepath.Join(project, ".agents", "agentskills.lock")); after != before || !installed(project, "c") {
			t.Errorf("a refused remove changed the project")
		}
		code, _, errs = runHere(t, "remove", "c", "--force")
		if code != exitOK || !strings.Contains(errs, "warning: removed c, which b requires;") || installed(project, "c") {
			t.Errorf("remove c --force = %d, %q; want c removed with a warning naming b", code, errs)
		}
		code, _, errs = runHere(t, "verify")
		if code != exitFailed || !strings.Contains(errs, "b requires "+skillAt(r.apps, "c", "^1")+", which is not installed") {
			t.Errorf("verify = %d, %q; want exit 1 naming b's requirement", code, errs)
		}
	})
}

// TestTeamPolicyScenario checks a team's policy end to end (policy rules
// 18 to 22, install's # Required skills): the project extends the
// team's file, which extends the company's, each published in a git
// repository; the team's narrower sources.allow takes effect, the
// project's wider one has none (policy show warns of it); the team's
// required skill fails verify until sync installs it, and remove refuses
// it; once pinned and cached, with the repositories gone, sync --frozen
// and verify still work.
func TestTeamPolicyScenario(t *testing.T) {
	r := newTeamRepos(t)
	polDir, polURL := gitRepo(t)
	companySrc := polURL + "#ref=v1&path=company/" + policy.FileName
	teamSrc := polURL + "#ref=v1&path=team/" + policy.FileName
	apps, lib := "git:"+filepath.ToSlash(r.appsDir), "git:"+filepath.ToSlash(r.libDir)
	required := skillAt(r.apps, "c", "^1")
	commitTag(t, polDir, "v1", map[string]string{
		"company/" + policy.FileName: "version: 1\nsources:\n  allow:\n    - " + apps + "\n    - " + lib + "\n",
		"team/" + policy.FileName:    "version: 1\nextends: \"" + companySrc + "\"\nsources:\n  allow:\n    - " + apps + "\n",
	})
	pin := gitsigtest.Git(t, polDir, nil, "rev-parse", "v1")
	team := teamSrc + "@" + pin

	project := isolatedHome(t)
	projFile := filepath.Join(project, ".agents", policy.FileName)
	os.MkdirAll(filepath.Dir(projFile), 0o755)
	if err := os.WriteFile(projFile, []byte("version: 1\nextends: \""+teamSrc+"\"\nsources:\n  allow:\n    - "+apps+"\n    - "+lib+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The required skill is the user's word: a project's chain may not
	// require a repository of this machine (package policy, rule 26),
	// and the test's repositories are.
	userFile := filepath.Join(os.Getenv("HOME"), ".agents", policy.FileName)
	os.MkdirAll(filepath.Dir(userFile), 0o755)
	if err := os.WriteFile(userFile, []byte("version: 1\nrequired:\n  - source: \""+required+"\"\n    agents: [codex]\n    reason: every project of the team keeps c\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// policy show: the chain, pinned, and the project's loosening.
	code, out, errs := runHere(t, "policy", "show")
	for _, want := range []string{
		"chain: " + projFile + " extends " + team + " extends " + polURL,
		"pinned at " + pin,
		"warning: sources.allow (" + projFile + ":6): pattern " + lib + " allows sources the extended file's sources.allow does not",
	} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("policy show = %d\n%s%s; want %q", code, out, errs, want)
		}
	}

	// The team's tightening holds: lib is not in its sources.allow.
	code, out, errs = runHere(t, "add", skillAt(r.lib, "base", "v1.0.0"), "-a", "codex")
	if code != exitFailed || !strings.Contains(errs, "sources.allow ("+team+":") || installed(project, "base") {
		t.Errorf("add base = %d\n%s%s; want exit 1 naming the team's sources.allow", code, out, errs)
	}

	// The team's required skill.
	code, _, errs = runHere(t, "verify")
	if code != exitFailed || !strings.Contains(errs, required) || !strings.Contains(errs, "'agentskills sync'") {
		t.Errorf("verify = %d, %q; want exit 1 naming %s and 'agentskills sync'", code, errs, required)
	}
	code, out, errs = runHere(t, "sync")
	if code != exitOK || !installed(project, "c") {
		t.Fatalf("sync = %d\n%s%s; want c installed", code, out, errs)
	}
	if code, out, errs := runHere(t, "verify"); code != exitOK {
		t.Errorf("verify after sync = %d\n%s%s; want 0", code, out, errs)
	}
	code, out, _ = runHere(t, "list", "-a", "codex")
	if code != exitOK || !strings.Contains(out, "(required)") {
		t.Errorf("list = %d\n%s; want c marked (required)", code, out)
	}
	code, _, errs = runHere(t, "remove", "c", "--force")
	if code != exitFailed || !strings.Contains(errs, "required by the policy") || !strings.Contains(errs, "every project of the team keeps c") || !installed(project, "c") {
		t.Errorf("remove c --force = %d, %q; want exit 1 naming the policy's reason, c kept", code, errs)
	}

	// Offline: the policies come from the cache by the lock file's pins.
	for _, d := range []string{polDir, r.appsDir, r.libDir} {
		if err := os.Rename(d, d+".gone"); err != nil {
			t.Fatal(err)
		}
	}
	// The canonical copy lost, sync --frozen puts it back from the cache.
	if err := os.RemoveAll(filepath.Join(project, ".agents", "skills", "c")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sync", "--frozen"}, {"verify"}, {"policy", "show"}} {
		if code, out, errs := runHere(t, args...); code != exitOK {
			t.Errorf("%s offline = %d\n%s%s; want 0", strings.Join(args, " "), code, out, errs)
		}
	}
	if !installed(project, "c") {
		t.Errorf("sync --frozen offline did not put c back")
	}
}

// TestPathRequirementAfterNoRequires checks a requirement by path that
// add --no-requires left unanswered: verify does not tell to add the
// path from the working folder, which is not what it is relative to,
// and adding the skill again installs it without warning of a removal.
func TestPathRequirementAfterNoRequires(t *testing.T) {
	project := isolatedHome(t)
	src := t.TempDir()
	writeSkill(t, src, "release", requiring("release", "../changelog"))
	writeSkill(t, src, "changelog", requiring("changelog"))
	if code, out, errs := runHere(t, "add", filepath.Join(src, "release"), "-a", "codex", "--no-requires"); code != exitOK {
		t.Fatalf("add --no-requires = %d\n%s%s", code, out, errs)
	}
	code, _, errs := runHere(t, "verify")
	if code != exitFailed || !strings.Contains(errs, "release requires ../changelog (a path relative to release's source folder), which is not installed; run 'agentskills add' with release's source") || strings.Contains(errs, "'agentskills add ../changelog'") {
		t.Errorf("verify = %d, %q; want exit 1 saying the path is relative to release's source", code, errs)
	}
	code, out, errs := runHere(t, "add", filepath.Join(src, "release"), "-a", "codex")
	if code != exitOK || !strings.Contains(out, "installed changelog (canonical copy, required by release)") || strings.Contains(errs, "warning") || !installed(project, "changelog") {
		t.Errorf("add again = %d\n%s%s; want changelog installed, no warning", code, out, errs)
	}
	if code, out, errs := runHere(t, "verify"); code != exitOK {
		t.Errorf("verify = %d\n%s%s; want 0", code, out, errs)
	}
}

// TestOCIRequirements checks requirements of a skill published as
// ToolHive publishes it (install rule 17): its SKILL.md names a range of
// an OCI repository, which add resolves to the highest tag it admits,
// and its dev.toolhive.skills.requires annotation names a tag; both are
// installed from the registry, recorded as dependencies of it.
func TestOCIRequirements(t *testing.T) {
	project := isolatedHome(t)
	_, host := ociRegistry(t)
	for _, tag := range []string{"2.0.0", "2.1.0", "3.0.0"} {
		pushSkill(t, "oci://"+host+"/acme/semver:"+tag, "semver", tag+"\n")
	}
	pushSkill(t, "oci://"+host+"/acme/lint:1.0.0", "lint", "lint\n")
	semverReq := "oci://" + host + "/acme/semver:^2"
	md := requiring("deploy", semverReq)
	ocireg.PushToolHive(t, host, "acme/deploy", "1.0.0", ocireg.ToolHiveSkill{
		Name: "deploy", Description: "The deploy skill.", Requires: []string{host + "/acme/lint:1.0.0"},
		Files: map[string]string{"SKILL.md": md},
	})
	code, out, errs := runHere(t, "add", "oci://"+host+"/acme/deploy:1.0.0", "-a", "codex")
	if code != exitOK || !strings.Contains(out, "installed semver (canonical copy, required by deploy)") || !strings.Contains(out, "installed lint (canonical copy, required by deploy)") {
		t.Fatalf("add deploy = %d\n%s%s; want semver and lint installed, required by deploy", code, out, errs)
	}
	if got := readTestFile(t, filepath.Join(project, ".agents", "skills", "semver", "SKILL.md")); !strings.HasSuffix(got, "2.1.0\n") {
		t.Errorf("semver installed is %q; want 2.1.0's, the highest ^2 admits", got)
	}
	var sources []string
	for _, r := range asSlice(lockSkill(t, project, "deploy")["requires"]) {
		sources = append(sources, r.(map[string]any)["source"].(string)+" "+r.(map[string]any)["skill"].(string))
	}
	if want := []string{semverReq + " semver", "oci://" + host + "/acme/lint:1.0.0 lint"}; !slices.Equal(sources, want) {
		t.Errorf("lock's deploy requires %q; want %q (the SKILL.md's, then the annotation's)", sources, want)
	}
	for _, n := range []string{"semver", "lint"} {
		if by, dep := requiredBy(t, project, n); !slices.Equal(by, []string{"deploy"}) || !dep {
			t.Errorf("lock's %s: required_by %v, dependency %v; want [deploy], true", n, by, dep)
		}
	}
}
