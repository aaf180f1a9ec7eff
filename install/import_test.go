package install

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/peertest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// importNames returns the names of items, and for left-out ones the
// reason after a colon.
func importNames(items []Imported) []string {
	var out []string
	for _, it := range items {
		s := it.Skill + " " + it.Source
		if it.Reason != "" {
			s = it.Skill + ": " + it.Reason
		}
		out = append(out, s)
	}
	return out
}

// importFixture is newFixture with the source folders inside the
// project, where import takes a local folder from (rule 2 of importing).
func importFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.sources = filepath.Join(f.env.Project, "vendor")
	os.MkdirAll(f.sources, 0o755)
	return f
}

func findImported(items []Imported, name string) Imported {
	for _, it := range items {
		if it.Skill == name {
			return it
		}
	}
	return Imported{}
}

// npmSources writes a folder of two skills (one with a script) and a git
// repository of one skill, and returns both.
func npmSources(t *testing.T, f *fixture) (folder, repo, commit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	folder = filepath.Join(f.sources, "kit")
	writeFiles(t, folder, map[string]string{
		"skills/alpha/SKILL.md": skillMD("alpha"),
		"skills/beta/SKILL.md":  skillMD("beta"),
		"skills/beta/notes.md":  "notes\n",
	})
	os.WriteFile(filepath.Join(folder, "skills", "beta", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	repo = filepath.Join(f.sources, "repo")
	commit = gitRepo(t, repo, map[string]string{"skills/gamma/SKILL.md": skillMD("gamma")})
	return folder, repo, commit
}

// TestImportNPMProjectLock reads a skills-lock.json that the real npm
// skills tool wrote for a local folder and a git repository (rules 2 and
// 3 of importing): the skills are added from the same sources, the git
// one pinned, the tool's folders adopted, and its files left alone.
func TestImportNPMProjectLock(t *testing.T) {
	tool := peertest.Skills(t)
	f := importFixture(t)
	_, repo, commit := npmSources(t, f)
	tool.Run(t, f.env.Project, f.env.Home, nil, "add", "./vendor/kit", "-y", "--agent", "claude-code")
	tool.Run(t, f.env.Project, f.env.Home, nil, "add", "file://"+filepath.ToSlash(repo), "-y", "--agent", "codex")
	npmLock := readFile(t, filepath.Join(f.env.Project, "skills-lock.json"))
	for _, want := range []string{`"source": "./vendor/kit"`, `"sourceType": "local"`, `"sourceType": "git"`, `"skillPath": "skills/gamma/SKILL.md"`} {
		if !strings.Contains(npmLock, want) {
			t.Fatalf("the npm tool's skills-lock.json lacks %s:\n%s", want, npmLock)
		}
	}
	in := f.remoteInstaller(t, cachetest.Root(t))
	ctx := t.Context()

	// Rule 4: a dry run resolves the pins and changes nothing.
	plan, err := in.Import(ctx, ImportRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	gitSrc := "git+file://" + filepath.ToSlash(repo) + "#path=skills/gamma"
	want := []string{"alpha " + filepath.Join(f.env.Project, "vendor", "kit"), "beta " + filepath.Join(f.env.Project, "vendor", "kit"), "gamma " + gitSrc}
	if diff := cmp.Diff(want, importNames(plan.Imported)); diff != "" || len(plan.Left) != 0 {
		t.Errorf("Import(dry run) plan (-want +got):\n%s\nleft: %v", diff, importNames(plan.Left))
	}
	if g := findImported(plan.Imported, "gamma"); g.Pin != commit {
		t.Errorf("dry run pin of gamma = %q, want %s", g.Pin, commit)
	}
	if a := findImported(plan.Imported, "alpha"); !slices.Equal(a.Agents, []string{"claude-code"}) {
		t.Errorf("dry run agents of alpha = %v, want claude-code, whose folder holds it", a.Agents)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", lockName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote the lock file: %v", err)
	}

	report, err := in.Import(ctx, ImportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"alpha vendor/kit", "beta vendor/kit", "gamma " + gitSrc} // as the lock file records them
	if diff := cmp.Diff(want, importNames(report.Imported)); diff != "" || len(report.Left) != 0 {
		t.Fatalf("Import (-want +got):\n%s\nleft: %v", diff, importNames(report.Left))
	}
	lock, err := readLock(filepath.Join(f.env.Project, ".agents", lockName))
	if err != nil {
		t.Fatal(err)
	}
	if e := lock.Skills["gamma"]; e == nil || e.Source != gitSrc || e.Pin != commit {
		t.Errorf("lock entry of gamma = %+v, want %s pinned to %s", e, gitSrc, commit)
	}
	if e := lock.Skills["beta"]; e == nil || e.Source != "vendor/kit" || e.Subpath != "skills/beta" || e.Agents["claude-code"].Kind != KindLink {
		t.Errorf("lock entry of beta = %+v, want the folder relative to the project, linked for claude-code", e)
	}
	// The npm tool put gamma in .agents/skills itself: that copy is adopted.
	if !slices.Contains(actions(report.Changes), "gamma/:canonical:adopted") {
		t.Errorf("Import changes = %v, want gamma's canonical copy adopted", actions(report.Changes))
	}
	if got := readFile(t, filepath.Join(f.env.Project, "skills-lock.json")); got != npmLock {
		t.Errorf("Import changed skills-lock.json")
	}
	if bad, err := in.Verify(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Verify after Import = %+v, %v", bad, err)
	}
	if _, err := in.Sync(ctx, SyncRequest{Frozen: true}); err != nil {
		t.Errorf("frozen Sync after Import = %v", err)
	}
	// Again: everything is in place.
	again, err := in.Import(ctx, ImportRequest{})
	if err != nil || len(again.Imported) != 3 || Changed(again.Changes) {
		t.Errorf("Import again = %v, %v, changes %v; want the three, unchanged", importNames(again.Imported), err, actions(again.Changes))
	}
}

// TestImportKeepsEdits checks that a skill whose installed content differs
// from its source is left out, unchanged, with Add's reason, while the
// other skill of the same source is carried over (rule 3 of importing).
func TestImportKeepsEdits(t *testing.T) {
	tool := peertest.Skills(t)
	f := importFixture(t)
	npmSources(t, f)
	tool.Run(t, f.env.Project, f.env.Home, nil, "add", "./vendor/kit", "-y", "--agent", "claude-code")
	edited := filepath.Join(f.env.Project, ".claude", "skills", "alpha", "SKILL.md")
	os.WriteFile(edited, []byte(skillMD("alpha")+"my own line\n"), 0o644)
	in := f.remoteInstaller(t, cachetest.Root(t))
	report, err := in.Import(t.Context(), ImportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	left := findImported(report.Left, "alpha")
	if !strings.Contains(left.Reason, ErrConflict.Error()) || !strings.Contains(left.Reason, filepath.Join(".claude", "skills", "alpha")) {
		t.Errorf("alpha left out with %q, want a conflict naming its folder", left.Reason)
	}
	if findImported(report.Imported, "beta").Skill != "beta" {
		t.Errorf("Import = %v, want beta carried over", importNames(report.Imported))
	}
	if got := readFile(t, edited); got != skillMD("alpha")+"my own line\n" {
		t.Errorf("the edited skill was changed: %q", got)
	}
	if lock, _ := readLock(filepath.Join(f.env.Project, ".agents", lockName)); lock.Skills["alpha"] != nil {
		t.Errorf("the lock file records the edited skill: %+v", lock.Skills["alpha"])
	}
}

// TestImportNPMLeftOut checks that a copy the real npm tool made without
// the files it leaves out (metadata.json, __pycache__) is moved to a
// backup and the skill added in its place (rule 5 of importing).
func TestImportNPMLeftOut(t *testing.T) {
	tool := peertest.Skills(t)
	f := importFixture(t)
	npmSources(t, f)
	writeFiles(t, filepath.Join(f.sources, "kit", "skills", "alpha"), map[string]string{
		"metadata.json":          `{"version": "1.0.0"}`,
		"__pycache__/x.cpython":  "bytes",
		"scripts/tool.py":        "print(1)\n",
		"scripts/metadata.json":  "{}",
		"references/guide.md":    "guide\n",
		"references/.env.sample": "A=1\n",
	})
	tool.Run(t, f.env.Project, f.env.Home, nil, "add", "./vendor/kit", "-y", "--agent", "claude-code")
	npmCopy := filepath.Join(f.env.Project, ".claude", "skills", "alpha")
	if _, err := os.Stat(filepath.Join(npmCopy, "metadata.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the npm tool copied metadata.json (%v): rule 5's facts are out of date", err)
	}
	in := f.remoteInstaller(t, cachetest.Root(t))
	report, err := in.Import(t.Context(), ImportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	alpha := findImported(report.Imported, "alpha")
	if len(alpha.Backups) != 1 || len(report.Left) != 0 {
		t.Fatalf("Import = %+v, left %v; want alpha imported over the npm copy, backed up", report.Imported, importNames(report.Left))
	}
	if got := readFile(t, filepath.Join(alpha.Backups[0], "references", "guide.md")); got != "guide\n" {
		t.Errorf("backup of the npm copy holds %q", got)
	}
	if got := readFile(t, filepath.Join(npmCopy, "metadata.json")); got != `{"version": "1.0.0"}` {
		t.Errorf("alpha after Import lacks the source's metadata.json: %q", got)
	}
	if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
		t.Errorf("Verify after Import = %+v, %v", bad, err)
	}
}

// TestImportNPMGlobalLock reads the global lock the real npm tool wrote,
// under ~/.agents and under $XDG_STATE_HOME (rule 1 of importing).
func TestImportNPMGlobalLock(t *testing.T) {
	tool := peertest.Skills(t)
	for _, xdg := range []bool{false, true} {
		t.Run(map[bool]string{false: "home", true: "xdg"}[xdg], func(t *testing.T) {
			f := newFixture(t)
			folder, _, _ := npmSources(t, f)
			var env []string
			state := filepath.Join(f.env.Home, "state")
			if xdg {
				env = []string{"XDG_STATE_HOME=" + state}
				f.env.Getenv = func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] }
			}
			tool.Run(t, f.env.Project, f.env.Home, env, "add", folder, "-g", "-y", "--agent", "claude-code")
			lockAt := filepath.Join(f.env.Home, ".agents", ".skill-lock.json")
			if xdg {
				lockAt = filepath.Join(state, "skills", ".skill-lock.json")
			}
			if data := readFile(t, lockAt); !strings.Contains(data, `"version": 3`) {
				t.Fatalf("the npm tool's global lock:\n%s", data)
			}
			in := New(f.env, WithScope(User), WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(filepath.Join(f.env.Home, ".locks")))
			report, err := in.Import(t.Context(), ImportRequest{From: ImportNPM})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"alpha " + folder, "beta " + folder}
			if diff := cmp.Diff(want, importNames(report.Imported)); diff != "" || len(report.Left) != 0 {
				t.Fatalf("Import -g (-want +got):\n%s\nleft: %v", diff, importNames(report.Left))
			}
			if lock, _ := readLock(filepath.Join(f.env.Home, ".agents", lockName)); lock.Skills["beta"] == nil || lock.Skills["beta"].Agents["claude-code"].Kind != KindLink {
				t.Errorf("user lock entry of beta = %+v", lock.Skills["beta"])
			}
		})
	}
}

// TestImportGitHubEntries reads GitHub entries shaped exactly as the npm
// tool (project lock) and gh (global lock) write them, served by the
// GitHub API stand-in: refs are resolved to pins (rule 2 of importing).
func TestImportGitHubEntries(t *testing.T) {
	g := newFakeGitHub(t)
	files := map[string]string{"skills/alpha/SKILL.md": skillMD("alpha"), "skills/beta/SKILL.md": skillMD("beta")}
	g.publish("HEAD", commitA, files)
	g.publish("main", commitA, files)
	g.publish("v1", commitB, files)
	f := newFixture(t)
	writeFiles(t, f.env.Project, map[string]string{"skills-lock.json": `{
  "version": 1,
  "skills": {
    "alpha": {
      "source": "o/skills",
      "ref": "main",
      "sourceType": "github",
      "skillPath": "skills/alpha/SKILL.md",
      "computedHash": "dc57fcaedadf7522abc8355cd7e47db0001bc0ee670ca9955edda744176ed9d9"
    },
    "beta": {
      "source": "o/skills",
      "sourceType": "github",
      "skillPath": "skills/beta/SKILL.md",
      "computedHash": "a512ce38357654b450de8b85f1a3f50e9b05514a7d2f8113c06936ac6b362626"
    },
    "gone": {
      "source": "o/gone",
      "ref": "main",
      "sourceType": "github",
      "skillPath": "skills/gone/SKILL.md",
      "computedHash": "a512ce38357654b450de8b85f1a3f50e9b05514a7d2f8113c06936ac6b362626"
    }
  }
}
`})
	in := f.remoteInstaller(t, cachetest.Root(t))
	report, err := in.Import(t.Context(), ImportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha github:o/skills/skills/alpha@main", "beta github:o/skills/skills/beta"}
	if diff := cmp.Diff(want, importNames(report.Imported)); diff != "" {
		t.Fatalf("Import (-want +got):\n%s\nleft: %v", diff, importNames(report.Left))
	}
	// A repository the host does not have (404) is left out, saying so.
	if gone := findImported(report.Left, "gone"); len(report.Left) != 1 || !strings.Contains(gone.Reason, "not found") || strings.Contains(gone.Reason, g.token) {
		t.Errorf("Import left %v, want gone left out as not found, without the token", importNames(report.Left))
	}
	for _, it := range report.Imported {
		if it.Pin != commitA {
			t.Errorf("pin of %s = %q, want %s", it.Skill, it.Pin, commitA)
		}
	}

	// gh's entry in the global lock, pinned with --pin v1.
	writeFiles(t, f.env.Home, map[string]string{".agents/.skill-lock.json": `{
  "version": 3,
  "skills": {
    "beta": {
      "source": "o/skills",
      "sourceType": "github",
      "sourceUrl": "https://github.com/o/skills.git",
      "skillPath": "skills/beta/SKILL.md",
      "skillFolderHash": "0d2ec2b8a3b0bd8c1e1bf3b4cd20b7c5c2d39d4e",
      "installedAt": "2026-06-01T10:00:00Z",
      "updatedAt": "2026-06-01T10:00:00Z",
      "pinnedRef": "v1"
    }
  },
  "dismissed": {}
}`})
	user := New(f.env, WithScope(User), WithCache(skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))), WithLockDir(filepath.Join(f.env.Home, ".locks")))
	report, err = user.Import(t.Context(), ImportRequest{From: ImportGH, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if b := findImported(report.Imported, "beta"); b.Source != "github:o/skills/skills/beta@v1" || b.Pin != commitB {
		t.Errorf("gh's global entry = %+v, want github:o/skills/skills/beta@v1 at %s", b, commitB)
	}
}

// ghSkillMD is a SKILL.md as gh skill install writes it: the front matter
// encoded again with sorted keys, and its metadata added.
func ghSkillMD(name, meta string) string {
	return "---\ndescription: the " + name + " skill\nmetadata:\n" + meta + "name: " + name + "\n---\n# " + name + "\n"
}

// TestImportGHMetadata reads the metadata gh writes into SKILL.md (rules
// 2, 3 and 5 of importing): each skill is mapped to its source; a copy
// that differs from the source only by gh's changes is moved to a backup
// and the skill added in its place; any other difference leaves it out,
// unchanged.
func TestImportGHMetadata(t *testing.T) {
	g := newFakeGitHub(t)
	g.publish("main", commitA, map[string]string{
		"skills/alpha/SKILL.md":      skillMD("alpha"),
		"skills/alpha/scripts/go.sh": "#!/bin/sh\n",
		"skills/beta/SKILL.md":       skillMD("beta"),
	})
	g.publish("v2", commitB, map[string]string{"tools/skills/delta/SKILL.md": skillMD("delta")})
	f := importFixture(t)
	local := f.writeSkill(t, "gamma", "gamma", "")
	ghAlpha := ghSkillMD("alpha", "    github-path: skills/alpha\n    github-ref: refs/heads/main\n    github-repo: https://github.com/o/skills\n    github-tree-sha: 7a8633b2cf8d7f4a0ee055cfc53e9821a26be2dd\n")
	ghBeta := ghSkillMD("beta", "    github-path: skills/beta\n    github-ref: refs/heads/main\n    github-repo: https://github.com/o/skills\n    github-tree-sha: 7a8633b2cf8d7f4a0ee055cfc53e9821a26be2dd\n") + "my own line\n"
	writeFiles(t, f.env.Project, map[string]string{
		".claude/skills/alpha/SKILL.md":      ghAlpha,
		".claude/skills/alpha/scripts/go.sh": "#!/bin/sh\n",
		".claude/skills/beta/SKILL.md":       ghBeta,
		".agents/skills/delta/SKILL.md":      ghSkillMD("delta", "    github-path: tools/skills/delta\n    github-pinned: v2\n    github-ref: refs/tags/v2\n    github-repo: https://github.com/o/skills\n    github-tree-sha: 852508c90bde5e11124f12fd97ec579a1bd5a65d\n"),
		".github/skills/gamma/SKILL.md":      ghSkillMD("gamma", "    local-path: "+filepath.ToSlash(local)+"\n"),
		".github/skills/enterprise/SKILL.md": ghSkillMD("enterprise", "    github-path: skills/enterprise\n    github-ref: refs/heads/main\n    github-repo: https://127.0.0.1:1/team/skills\n"),
		".claude/skills/plain/SKILL.md":      skillMD("plain"),
	})
	in := f.remoteInstaller(t, cachetest.Root(t))
	plan, err := in.Import(t.Context(), ImportRequest{From: ImportGH, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	wantSources := map[string]string{
		"alpha":      "github:o/skills/skills/alpha@main",
		"beta":       "github:o/skills/skills/beta@main",
		"delta":      "github:o/skills/tools/skills/delta@v2",
		"gamma":      local,
		"enterprise": "git+https://127.0.0.1:1/team/skills.git#ref=main&path=skills/enterprise",
	}
	all := slices.Concat(plan.Imported, plan.Left)
	if len(all) != len(wantSources) {
		t.Errorf("gh records = %v, want %d", importNames(all), len(wantSources))
	}
	for _, it := range all {
		if want, ok := wantSources[it.Skill]; !ok || it.Source != want {
			t.Errorf("gh skill %s mapped to %q, want %q", it.Skill, it.Source, want)
		}
	}
	if a := findImported(plan.Imported, "alpha"); a.Pin != commitA {
		t.Errorf("plan of alpha = %+v, want pinned to %s", a, commitA)
	}
	report, err := in.Import(t.Context(), ImportRequest{From: ImportGH})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"alpha github:o/skills/skills/alpha@main", "delta github:o/skills/tools/skills/delta@v2"}, importNames(report.Imported)); diff != "" {
		t.Errorf("Import (-want +got):\n%s", diff)
	}
	alpha := findImported(report.Imported, "alpha")
	if len(alpha.Backups) != 1 {
		t.Fatalf("backups of gh's alpha = %v, want one", alpha.Backups)
	}
	if got := readFile(t, filepath.Join(alpha.Backups[0], "SKILL.md")); got != ghAlpha {
		t.Errorf("backup of gh's alpha = %q, want gh's copy", got)
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "alpha", "SKILL.md")); got != skillMD("alpha") {
		t.Errorf("alpha after Import = %q, want the source's", got)
	}
	if fi, err := os.Lstat(filepath.Join(f.env.Project, ".claude", "skills", "alpha")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alpha for claude-code = %v, %v, want a link to the canonical copy", fi, err)
	}
	for name, why := range map[string]string{"beta": "(SKILL.md)", "gamma": "(scripts/run.sh)", "enterprise": "source unavailable"} {
		if it := findImported(report.Left, name); !strings.Contains(it.Reason, why) {
			t.Errorf("%s left out with %q, want %s", name, it.Reason, why)
		}
	}
	if got := readFile(t, filepath.Join(f.env.Project, ".claude", "skills", "beta", "SKILL.md")); got != ghBeta {
		t.Errorf("gh's edited copy of beta was changed: %q", got)
	}
	if bad, err := in.Verify(t.Context()); err != nil || len(bad) != 0 {
		t.Errorf("Verify after Import = %+v, %v", bad, err)
	}
}

// TestSameAfterGH checks the comparison of rule 5 of importing against
// SKILL.md files as gh writes them.
func TestSameAfterGH(t *testing.T) {
	src := "---\nname: x\ndescription: \"the x: skill\"\nmetadata:\n  author: me\n---\n\n# x\nbody"
	for _, tc := range []struct {
		name, copied string
		want         bool
	}{
		{"gh's form", "---\ndescription: 'the x: skill'\nmetadata:\n    author: me\n    github-path: x\n    github-ref: refs/heads/main\n    github-repo: https://github.com/o/r\n    github-tree-sha: abc\nname: x\n---\n# x\nbody\n", true},
		{"pinned", "---\ndescription: 'the x: skill'\nmetadata:\n    author: me\n    github-pinned: v1\n    github-repo: https://github.com/o/r\nname: x\n---\n# x\nbody\n", true},
		{"edited body", "---\ndescription: 'the x: skill'\nmetadata:\n    author: me\nname: x\n---\n# x\nbody!\n", false},
		{"edited description", "---\ndescription: the x skill\nmetadata:\n    author: me\nname: x\n---\n# x\nbody\n", false},
		{"other metadata", "---\ndescription: 'the x: skill'\nmetadata:\n    author: you\nname: x\n---\n# x\nbody\n", false},
		{"key added", "---\ndescription: 'the x: skill'\nlicense: MIT\nmetadata:\n    author: me\nname: x\n---\n# x\nbody\n", false},
		{"no front matter", "# x\nbody\n", false},
		{"not yaml", "---\n: [\n---\n# x\nbody\n", false},
	} {
		if got := sameAfterGH([]byte(tc.copied), []byte(src)); got != tc.want {
			t.Errorf("%s: sameAfterGH(%q) = %v, want %v", tc.name, tc.copied, got, tc.want)
		}
	}
	// A source without metadata: gh adds a map of its keys alone.
	if !sameAfterGH([]byte("---\ndescription: d\nmetadata:\n    local-path: /s/x\nname: x\n---\nb\n"), []byte("---\nname: x\ndescription: d\n---\nb")) {
		t.Errorf("sameAfterGH of a source without metadata = false")
	}
}

// TestImportHostileRecords feeds records no tool writes: each is refused
// or left out with why, and nothing is written (rules 1 and 2 of
// importing).
func TestImportHostileRecords(t *testing.T) {
	for _, tc := range []struct {
		name, lock string
		wantErr    error
		wantLeft   string // a part of the reason of the skill "x"
	}{
		{"not json", `{"version": 1, "skills": {`, ErrInvalidLock, ""},
		{"no version", `{"skills": {}}`, ErrInvalidLock, ""},
		{"no skills", `{"version": 1}`, ErrInvalidLock, ""},
		{"oversized", `{"version": 1, "skills": {}, "pad": "` + strings.Repeat("a", maxImportLock) + `"}`, ErrInvalidLock, ""},
		{"empty", `{"version": 1, "skills": {}}`, ErrNothingRecorded, ""},
		{"traversal in name", `{"version": 1, "skills": {"../x": {"source": "o/r", "sourceType": "github"}}}`, nil, "cannot be a folder name"},
		{"traversal in skillPath", `{"version": 1, "skills": {"x": {"source": "o/r", "sourceType": "github", "skillPath": "../../etc/x/SKILL.md"}}}`, nil, "not a folder inside its source"},
		{"absolute skillPath", `{"version": 1, "skills": {"x": {"source": "o/r", "sourceType": "github", "skillPath": "/etc/x/SKILL.md"}}}`, nil, "not a folder inside its source"},
		{"unknown type", `{"version": 1, "skills": {"x": {"source": "m", "sourceType": "mintlify"}}}`, nil, "is not one this tool reads"},
		{"not owner/repo", `{"version": 1, "skills": {"x": {"source": "o/r/../s", "sourceType": "github"}}}`, nil, "is not OWNER/REPO"},
		{"git helper", `{"version": 1, "skills": {"x": {"source": "ext::sh -c touch% /tmp/pwned", "sourceType": "git"}}}`, nil, "is not https, ssh or file"},
		{"git option ref", `{"version": 1, "skills": {"x": {"source": "https://example.org/r.git", "sourceType": "git", "ref": "--upload-pack=evil"}}}`, nil, "invalid source"},
		{"web index scheme", `{"version": 1, "skills": {"x": {"source": "h", "sourceType": "well-known", "sourceUrl": "file:///etc/passwd"}}}`, nil, "not an http(s) URL"},
		{"npm package traversal", `{"version": 1, "skills": {"x": {"source": "../../etc", "sourceType": "node_modules"}}}`, nil, "cannot be found in the project's node_modules"},
		{"missing local folder", `{"version": 1, "skills": {"x": {"source": "./nowhere", "sourceType": "local"}}}`, nil, "nowhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			writeFiles(t, f.env.Project, map[string]string{"skills-lock.json": tc.lock})
			in := f.installer(t)
			report, err := in.Import(t.Context(), ImportRequest{From: ImportNPM})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("Import = %v, want %v", err, tc.wantErr)
				}
				if tc.wantErr == ErrInvalidLock && !strings.Contains(err.Error(), "skills-lock.json") {
					t.Errorf("Import = %v, want the file named", err)
				}
			} else {
				if err != nil {
					t.Fatalf("Import = %v", err)
				}
				if x := findImported(report.Left, "x"); !strings.Contains(x.Reason, tc.wantLeft) && !strings.Contains(findImported(report.Left, "../x").Reason, tc.wantLeft) {
					t.Errorf("Import left %v, want x left out: %s", importNames(report.Left), tc.wantLeft)
				}
				if len(report.Imported) != 0 {
					t.Errorf("Import imported %v", importNames(report.Imported))
				}
			}
			entries, _ := os.ReadDir(f.env.Project)
			if len(entries) != 1 {
				t.Errorf("the project holds %v after Import, want skills-lock.json alone", entries)
			}
		})
	}
}

// TestImportRecordedTwice checks that a skill of one name recorded by both
// tools is taken from the npm lock and the other record listed (rule 1
// of importing), and that a request for an unknown installer is refused.
func TestImportRecordedTwice(t *testing.T) {
	f := importFixture(t)
	src := f.writeSkill(t, "kit/alpha", "alpha", "")
	writeFiles(t, f.env.Project, map[string]string{
		"skills-lock.json":              `{"version": 1, "skills": {"alpha": {"source": "./vendor/kit", "sourceType": "local", "computedHash": "x"}}}`,
		".claude/skills/alpha/SKILL.md": ghSkillMD("alpha", "    local-path: "+filepath.ToSlash(src)+"\n"),
	})
	in := f.installer(t)
	report, err := in.Import(t.Context(), ImportRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Imported) != 1 || report.Imported[0].Record != filepath.Join(f.env.Project, "skills-lock.json") {
		t.Errorf("Import imported %+v, want alpha from skills-lock.json", report.Imported)
	}
	if len(report.Left) != 1 || !strings.Contains(report.Left[0].Reason, "recorded again") {
		t.Errorf("Import left %+v, want gh's record of alpha", report.Left)
	}
	if _, err := in.Import(t.Context(), ImportRequest{From: "pip"}); err == nil {
		t.Errorf("Import(From: pip) succeeded")
	}
	if _, err := f.installer(t).Import(t.Context(), ImportRequest{From: ImportGH, DryRun: true}); err != nil {
		t.Errorf("Import(From: gh) = %v", err)
	}
}

// TestImportInterrupted checks that an import whose context ends stops
// with ErrInterrupted, having added nothing.
func TestImportInterrupted(t *testing.T) {
	f := importFixture(t)
	f.writeSkill(t, "kit/alpha", "alpha", "")
	writeFiles(t, f.env.Project, map[string]string{
		"skills-lock.json": `{"version": 1, "skills": {"alpha": {"source": "./vendor/kit", "sourceType": "local", "computedHash": "x"}}}`,
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := f.installer(t).Import(ctx, ImportRequest{})
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("Import with an ended context = %v, want ErrInterrupted", err)
	}
	if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", "skills", "alpha")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted Import installed alpha (%v)", err)
	}
}

// TestImportLocalOutsideProject checks that a local source of a
// project's records must be inside the project once every link is
// followed (rule 2 of importing): a cloned repository's skills-lock.json
// or gh metadata must not copy the user's other folders into the project
// and its lock file. A folder outside is left out naming it, and one
// inside is imported.
func TestImportLocalOutsideProject(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source func(f *fixture) string // the local source, as the record writes it
		inside bool
	}{
		{"relative escape", func(f *fixture) string { return "../sources/x" }, false},
		{"absolute outside", func(f *fixture) string { return filepath.ToSlash(filepath.Join(f.sources, "x")) }, false},
		{"link inside to outside", func(f *fixture) string {
			os.MkdirAll(filepath.Join(f.env.Project, "vendor"), 0o755)
			if err := os.Symlink(filepath.Join(f.sources, "x"), filepath.Join(f.env.Project, "vendor", "x")); err != nil {
				t.Skip("no symbolic links:", err)
			}
			return "./vendor/x"
		}, false},
		{"parent link inside to outside", func(f *fixture) string {
			if err := os.Symlink(f.sources, filepath.Join(f.env.Project, "vendor")); err != nil {
				t.Skip("no symbolic links:", err)
			}
			return "vendor/x"
		}, false},
		{"inside", func(f *fixture) string {
			writeFiles(t, filepath.Join(f.env.Project, "vendor", "x"), map[string]string{"SKILL.md": skillMD("x")})
			return "./vendor/x"
		}, true},
		{"absolute inside", func(f *fixture) string {
			writeFiles(t, filepath.Join(f.env.Project, "vendor", "x"), map[string]string{"SKILL.md": skillMD("x")})
			return filepath.ToSlash(filepath.Join(f.env.Project, "vendor", "x"))
		}, true},
	} {
		for _, from := range []ImportFrom{ImportNPM, ImportGH} {
			t.Run(tc.name+"/"+string(from), func(t *testing.T) {
				f := newFixture(t)
				// The user's private skill, outside the project.
				writeFiles(t, filepath.Join(f.sources, "x"), map[string]string{"SKILL.md": skillMD("x")})
				src := tc.source(f)
				if from == ImportNPM {
					writeFiles(t, f.env.Project, map[string]string{"skills-lock.json": `{"version": 1, "skills": {"x": {"source": "` + src + `", "sourceType": "local"}}}`})
				} else {
					if !filepath.IsAbs(filepath.FromSlash(src)) {
						src = filepath.ToSlash(filepath.Join(f.env.Project, filepath.FromSlash(src)))
					}
					writeFiles(t, f.env.Project, map[string]string{".claude/skills/x/SKILL.md": ghSkillMD("x", "    local-path: "+src+"\n")})
				}
				in := f.installer(t)
				for _, dry := range []bool{true, false} {
					report, err := in.Import(t.Context(), ImportRequest{From: from, DryRun: dry})
					if err != nil {
						t.Fatal(err)
					}
					if tc.inside {
						if len(report.Imported) != 1 || len(report.Left) != 0 {
							t.Errorf("Import(dry run %v) = %v, left %v; want x imported", dry, importNames(report.Imported), importNames(report.Left))
						}
						continue
					}
					x := findImported(report.Left, "x")
					if len(report.Imported) != 0 || !strings.Contains(x.Reason, "outside the project") || !strings.Contains(x.Reason, src) {
						t.Errorf("Import(dry run %v) = %v, left %v; want x left out as outside the project, naming %s", dry, importNames(report.Imported), importNames(report.Left), src)
					}
				}
				if tc.inside {
					return
				}
				if _, err := os.Lstat(filepath.Join(f.env.Project, ".agents", "skills", "x")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Import installed the folder outside the project (%v)", err)
				}
				if _, err := os.Stat(filepath.Join(f.env.Project, ".agents", lockName)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("Import wrote a lock file (%v)", err)
				}
			})
		}
	}
}

// TestImportNodeModulesLinkOutside checks that an npm package of a
// project's skills-lock.json whose folder under node_modules is a link
// leading out of the project is left out as a local folder outside it is
// (rule 2 of importing).
func TestImportNodeModulesLinkOutside(t *testing.T) {
	f := newFixture(t)
	writeFiles(t, filepath.Join(f.sources, "x"), map[string]string{"SKILL.md": skillMD("x")})
	os.MkdirAll(filepath.Join(f.env.Project, "node_modules"), 0o755)
	if err := os.Symlink(f.sources, filepath.Join(f.env.Project, "node_modules", "pkg")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	writeFiles(t, f.env.Project, map[string]string{"skills-lock.json": `{"version": 1, "skills": {"x": {"source": "pkg", "sourceType": "node_modules", "skillPath": "x/SKILL.md"}}}`})
	report, err := f.installer(t).Import(t.Context(), ImportRequest{From: ImportNPM})
	if err != nil {
		t.Fatal(err)
	}
	if x := findImported(report.Left, "x"); len(report.Imported) != 0 || !strings.Contains(x.Reason, "outside the project") {
		t.Errorf("Import = %v, left %v; want x left out as outside the project", importNames(report.Imported), importNames(report.Left))
	}
}
