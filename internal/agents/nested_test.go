package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// mkSkill writes a skill folder name holding a SKILL.md under parent.
func mkSkill(t *testing.T, parent, name string) {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := fmt.Sprintf("---\nname: %s\ndescription: Nested %s.\n---\nBody.\n", name, name)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// realTemp is a fresh folder by its real path.
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// gitInit makes dir the top of a git repository.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func claudeRow(t *testing.T) Row {
	t.Helper()
	r, ok := Lookup("claude-code")
	if !ok {
		t.Fatal("no claude-code row")
	}
	return r
}

// skillsIn is the nested skills folder of dir.
func skillsIn(dir ...string) string {
	return filepath.Join(append(dir, ".claude", "skills")...)
}

// TestFindNested checks rule 9: a skills folder below the workspace's top
// that holds a skill is found, at any depth and in hidden folders; the
// workspace's own, an empty one and one without a SKILL.md are not.
func TestFindNested(t *testing.T) {
	ws := realTemp(t)
	mkSkill(t, skillsIn(ws), "top")
	mkSkill(t, skillsIn(ws, "pkg"), "x")
	mkSkill(t, skillsIn(ws, "examples", "a", "b", "c"), "y")
	mkSkill(t, skillsIn(ws, ".hidden"), "z")
	mkSkill(t, skillsIn(ws, "pkg", ".claude", "skills", "x"), "inner") // a skill's own folder is walked too
	os.MkdirAll(skillsIn(ws, "empty"), 0o755)
	os.MkdirAll(filepath.Join(skillsIn(ws, "nomd"), "w"), 0o755)
	write(t, filepath.Join(ws, "pkg", "main.go"), "package pkg\n")
	got, err := claudeRow(t).FindNested(t.Context(), ws, Walk{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		skillsIn(ws, ".hidden"), skillsIn(ws, "examples", "a", "b", "c"), skillsIn(ws, "pkg"),
		skillsIn(ws, "pkg", ".claude", "skills", "x"),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("FindNested = %q, want %q", got, want)
	}
}

// TestFindNestedRows checks that only a row with Nested folders searches,
// and each such row for its own folders.
func TestFindNestedRows(t *testing.T) {
	ws := realTemp(t)
	for _, rel := range []string{".claude/skills", ".agents/skills", ".codex/skills", ".gemini/skills", ".qwen/skills", ".opencode/skills", ".github/skills", ".cursor/skills"} {
		mkSkill(t, filepath.Join(ws, "pkg", filepath.FromSlash(rel)), "x")
	}
	for _, r := range Table() {
		got, err := r.FindNested(t.Context(), ws, Walk{})
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		var want []string
		for _, rel := range r.Nested {
			want = append(want, filepath.Join(ws, "pkg", filepath.FromSlash(rel)))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: FindNested = %q, want %q", r.ID, got, want)
		}
	}
}

// TestFindNestedLimits checks the bounds of rule 9: a workspace at a
// bound is searched, one past it is refused with ErrNestedLimit.
func TestFindNestedLimits(t *testing.T) {
	r := claudeRow(t)
	t.Run("entries", func(t *testing.T) {
		ws := realTemp(t)
		for i := range 10 {
			write(t, filepath.Join(ws, fmt.Sprintf("f%d", i)), "x")
		}
		// 10 files and the folder d holding one file: 12 entries.
		write(t, filepath.Join(ws, "d", "f"), "x")
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 12}); err != nil {
			t.Errorf("FindNested with 12 entries, bound 12 = %v", err)
		}
		_, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 11})
		if !errors.Is(err, ErrNestedLimit) || !strings.Contains(err.Error(), "more than 11 entries") {
			t.Errorf("FindNested with 12 entries, bound 11 = %v, want ErrNestedLimit", err)
		}
	})
	t.Run("depth", func(t *testing.T) {
		ws := realTemp(t)
		deep := filepath.Join(ws, "1", "2", "3")
		os.MkdirAll(deep, 0o755)
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxDepth: 3}); err != nil {
			t.Errorf("FindNested 3 deep, bound 3 = %v", err)
		}
		_, err := r.FindNested(t.Context(), ws, Walk{MaxDepth: 2})
		if !errors.Is(err, ErrNestedLimit) || !strings.Contains(err.Error(), deep) {
			t.Errorf("FindNested 3 deep, bound 2 = %v, want ErrNestedLimit naming %s", err, deep)
		}
	})
	t.Run("one huge folder", func(t *testing.T) {
		ws := realTemp(t)
		for i := range 2000 {
			write(t, filepath.Join(ws, "big", fmt.Sprint(i)), "")
		}
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 1000}); !errors.Is(err, ErrNestedLimit) {
			t.Errorf("FindNested of 2001 entries, bound 1000 = %v, want ErrNestedLimit", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ws := realTemp(t)
		os.MkdirAll(filepath.Join(ws, "a"), 0o755)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := r.FindNested(ctx, ws, Walk{}); err == nil {
			t.Error("FindNested with a cancelled context = nil error")
		}
	})
}

// TestFindNestedLinks checks rule 3's links: a link out of the workspace
// is looked at (its own skills folder found) but not walked, so it takes
// the search nowhere else, and a link to the workspace is a loop, which
// ends.
func TestFindNestedLinks(t *testing.T) {
	r := claudeRow(t)
	ws, out := realTemp(t), realTemp(t)
	mkSkill(t, skillsIn(out, "own"), "a")
	mkSkill(t, skillsIn(out, "own", "deeper"), "b")
	for i := range 50 {
		write(t, filepath.Join(out, "own", "many", fmt.Sprint(i)), "")
	}
	if err := os.Symlink(filepath.Join(out, "own"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(ws, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "missing"), filepath.Join(ws, "dangling")); err != nil {
		t.Fatal(err)
	}
	// Three links in the workspace: the 50 files behind one are not read.
	got, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{skillsIn(ws, "link")}; !slices.Equal(got, want) {
		t.Errorf("FindNested = %q, want %q (the link's own, not the one deeper behind it)", got, want)
	}
	// A link to the workspace itself shows its own skills folder, which
	// the shadow check covers: not a nested one.
	mkSkill(t, skillsIn(ws), "top")
	if got, err := r.FindNested(t.Context(), ws, Walk{}); err != nil || !slices.Equal(got, []string{skillsIn(ws, "link")}) {
		t.Errorf("FindNested with a link to the workspace = %q, %v; want only %q", got, err, skillsIn(ws, "link"))
	}
	// A workspace given by a link is searched by its real path.
	wsLink := filepath.Join(realTemp(t), "ws")
	if err := os.Symlink(ws, wsLink); err != nil {
		t.Fatal(err)
	}
	if got2, err := r.FindNested(t.Context(), wsLink, Walk{}); err != nil || !slices.Equal(got2, got) {
		t.Errorf("FindNested(link to the workspace) = %q, %v; want %q", got2, err, got)
	}
}

// link makes a link at path to target (relative to path's folder or
// absolute).
func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Skip("no symbolic links:", err)
	}
}

// TestFindNestedLinkLoops checks that rule 3's walk through links to
// folders in the workspace ends on a loop: a link to a folder on its
// own path is looked at, not walked, whatever links lead there.
func TestFindNestedLinkLoops(t *testing.T) {
	r := claudeRow(t)
	find := func(t *testing.T, ws string) []string {
		t.Helper()
		got, err := r.FindNested(t.Context(), ws, Walk{MaxDepth: 8, MaxEntries: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	t.Run("link to an ancestor", func(t *testing.T) {
		ws := realTemp(t)
		mkSkill(t, skillsIn(ws, "a"), "x")
		link(t, "..", filepath.Join(ws, "a", "b", "up"))
		link(t, ws, filepath.Join(ws, "a", "b", "top"))
		link(t, ".", filepath.Join(ws, "a", "b", "self"))
		// a/b/up is a: its own skills folder is a's, seen at another
		// path, so found there too; nothing is walked below it.
		want := []string{skillsIn(ws, "a"), skillsIn(ws, "a", "b", "up")}
		if got := find(t, ws); !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, want %q", got, want)
		}
	})
	t.Run("two links to each other", func(t *testing.T) {
		ws := realTemp(t)
		mkSkill(t, skillsIn(ws, "b", "deep"), "x")
		link(t, "../b", filepath.Join(ws, "a", "to-b"))
		link(t, "../a", filepath.Join(ws, "b", "to-a"))
		// b/to-a/to-b is b, on its own path: not walked again.
		want := []string{skillsIn(ws, "a", "to-b", "deep"), skillsIn(ws, "b", "deep")}
		if got := find(t, ws); !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, want %q", got, want)
		}
	})
	t.Run("loop through a folder above the target", func(t *testing.T) {
		// a/l is c/d; c/d/m leads to c, on c/d/m's own path, so not
		// walked there, but not on a/l/m's: walked once as a/l/m,
		// whose d/m is then c again, on its path.
		ws := realTemp(t)
		mkSkill(t, skillsIn(ws, "c", "e"), "x")
		link(t, "../c/d", filepath.Join(ws, "a", "l"))
		link(t, "..", filepath.Join(ws, "c", "d", "m"))
		want := []string{skillsIn(ws, "a", "l", "m", "e"), skillsIn(ws, "c", "e")}
		if got := find(t, ws); !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, want %q", got, want)
		}
	})
	t.Run("link to itself", func(t *testing.T) {
		ws := realTemp(t)
		link(t, "self", filepath.Join(ws, "self"))
		link(t, "b", filepath.Join(ws, "a"))
		link(t, "a", filepath.Join(ws, "b"))
		if got := find(t, ws); len(got) != 0 {
			t.Errorf("FindNested = %q, want nothing", got)
		}
	})
}

// TestFindNestedLinkLimits checks that rule 5's bounds count what is
// walked through links: every entry read at a link's path, and the depth
// of that path, not of the target's.
func TestFindNestedLinkLimits(t *testing.T) {
	r := claudeRow(t)
	t.Run("entries", func(t *testing.T) {
		ws := realTemp(t)
		for i := range 50 {
			write(t, filepath.Join(ws, "t", fmt.Sprint(i)), "")
		}
		link(t, "t", filepath.Join(ws, "l"))
		// t and l, then 50 entries in each.
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 102}); err != nil {
			t.Errorf("FindNested with 102 entries, bound 102 = %v", err)
		}
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 101}); !errors.Is(err, ErrNestedLimit) {
			t.Errorf("FindNested with 102 entries, bound 101 = %v, want ErrNestedLimit", err)
		}
	})
	t.Run("depth", func(t *testing.T) {
		ws := realTemp(t)
		os.MkdirAll(filepath.Join(ws, "t", "u", "v"), 0o755)
		link(t, filepath.Join(ws, "t"), filepath.Join(ws, "x", "y", "z", "l"))
		deep := filepath.Join(ws, "x", "y", "z", "l", "u", "v")
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxDepth: 6}); err != nil {
			t.Errorf("FindNested 6 deep through a link, bound 6 = %v", err)
		}
		_, err := r.FindNested(t.Context(), ws, Walk{MaxDepth: 5})
		if !errors.Is(err, ErrNestedLimit) || !strings.Contains(err.Error(), deep) {
			t.Errorf("FindNested 6 deep through a link, bound 5 = %v, want ErrNestedLimit naming %s", err, deep)
		}
	})
	t.Run("a fan of links", func(t *testing.T) {
		// Each of 20 folders holds two links to the next: 2^20 paths,
		// no loop; the entries bound ends the search.
		ws := realTemp(t)
		for i := range 20 {
			os.MkdirAll(filepath.Join(ws, fmt.Sprint(i)), 0o755)
			for _, name := range []string{"l1", "l2"} {
				link(t, filepath.Join("..", fmt.Sprint(i+1)), filepath.Join(ws, fmt.Sprint(i), name))
			}
		}
		os.MkdirAll(filepath.Join(ws, "20"), 0o755)
		if _, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 5000}); !errors.Is(err, ErrNestedLimit) {
			t.Errorf("FindNested of a fan of links = %v, want ErrNestedLimit", err)
		}
	})
}

// TestFindNestedGitignore checks rule 9's ignored folders: in a git
// repository, a folder git ignores is neither searched nor counted for
// a row that skips them; outside a repository, without git, or for a
// row that does not skip them, nothing is ignored.
func TestFindNestedGitignore(t *testing.T) {
	r := claudeRow(t)
	setup := func(t *testing.T, repo bool) string {
		ws := realTemp(t)
		if repo {
			gitInit(t, ws)
		}
		write(t, filepath.Join(ws, ".gitignore"), "node_modules/\nbuild/\n!build/keep/\n")
		mkSkill(t, skillsIn(ws, "pkg"), "x")
		mkSkill(t, skillsIn(ws, "node_modules", "dep"), "y")
		mkSkill(t, skillsIn(ws, "build", "keep"), "z")
		for i := range 100 {
			write(t, filepath.Join(ws, "node_modules", "dep", fmt.Sprint(i)), "")
		}
		return ws
	}
	t.Run("in a repository", func(t *testing.T) {
		ws := setup(t, true)
		got, err := r.FindNested(t.Context(), ws, Walk{MaxEntries: 50})
		if want := []string{skillsIn(ws, "pkg")}; err != nil || !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, %v; want %q (build/keep is under an ignored folder, as git says)", got, err, want)
		}
	})
	all := func(ws string) []string {
		return []string{skillsIn(ws, "build", "keep"), skillsIn(ws, "node_modules", "dep"), skillsIn(ws, "pkg")}
	}
	t.Run("no repository", func(t *testing.T) {
		ws := setup(t, false)
		got, err := r.FindNested(t.Context(), ws, Walk{})
		if want := all(ws); err != nil || !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("no git", func(t *testing.T) {
		ws := setup(t, true)
		got, err := r.FindNested(t.Context(), ws, Walk{Env: []string{"PATH=" + t.TempDir()}})
		if want := all(ws); err != nil || !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("row that reads ignored folders", func(t *testing.T) {
		ws := setup(t, true)
		r := r
		r.NestedGitignore = false
		got, err := r.FindNested(t.Context(), ws, Walk{})
		if want := all(ws); err != nil || !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("repository of its own", func(t *testing.T) {
		// Git answers nothing for a path in another repository below
		// the workspace's; the agent then loads it, and so it is found.
		// A folder the workspace's repository ignores is still skipped
		// beside it.
		ws := setup(t, true)
		gitInit(t, filepath.Join(ws, "vendor", "lib"))
		write(t, filepath.Join(ws, "vendor", "lib", ".gitignore"), "*\n")
		mkSkill(t, skillsIn(ws, "vendor", "lib", "sub"), "w")
		got, err := r.FindNested(t.Context(), ws, Walk{})
		if want := []string{skillsIn(ws, "pkg"), skillsIn(ws, "vendor", "lib", "sub")}; err != nil || !slices.Equal(got, want) {
			t.Errorf("FindNested = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("repository configuration runs nothing", func(t *testing.T) {
		ws := setup(t, true)
		marker := filepath.Join(t.TempDir(), "ran")
		if out, err := exec.Command("git", "-C", ws, "config", "core.fsmonitor", "touch "+marker+"; false").CombinedOutput(); err != nil {
			t.Fatalf("git config: %v: %s", err, out)
		}
		if _, err := r.FindNested(t.Context(), ws, Walk{}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(marker); err == nil {
			t.Error("the repository's core.fsmonitor ran")
		}
	})
}

// TestFindNestedHostileNames checks that folder names git or a shell would
// read as something else are found as they are, and do not stop git from
// answering for the folders beside them.
func TestFindNestedHostileNames(t *testing.T) {
	r := claudeRow(t)
	ws := realTemp(t)
	gitInit(t, ws)
	write(t, filepath.Join(ws, ".gitignore"), "ignored/\n")
	mkSkill(t, skillsIn(ws, "ignored"), "i")
	names := []string{"-rf", ":(glob)x", ":(exclude)ignored", "*", "a\nb", "a b", "--stdin", "ü", `back\slash`}
	var want []string
	for _, n := range names {
		mkSkill(t, skillsIn(ws, n), "h")
		want = append(want, skillsIn(ws, n))
	}
	slices.Sort(want)
	got, err := r.FindNested(t.Context(), ws, Walk{})
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("FindNested = %q, %v; want %q", got, err, want)
	}
}

// TestFindNestedSkipsGitFolder checks that git's own folder is not walked.
func TestFindNestedSkipsGitFolder(t *testing.T) {
	ws := realTemp(t)
	mkSkill(t, skillsIn(ws, ".git", "x"), "g")
	for i := range 20 {
		write(t, filepath.Join(ws, ".git", "objects", fmt.Sprint(i)), "")
	}
	if got, err := claudeRow(t).FindNested(t.Context(), ws, Walk{MaxEntries: 1}); err != nil || len(got) != 0 {
		t.Errorf("FindNested = %q, %v; want nothing", got, err)
	}
}

// TestCheckNested checks the refusal: a *driver.NestedSkillsError naming
// the agent, the workspace and every folder.
func TestCheckNested(t *testing.T) {
	r := claudeRow(t)
	ws := realTemp(t)
	if err := r.CheckNested(t.Context(), ws, nil, nil); err != nil {
		t.Errorf("CheckNested of an empty workspace = %v", err)
	}
	mkSkill(t, skillsIn(ws, "b"), "x")
	mkSkill(t, skillsIn(ws, "a"), "y")
	err := r.CheckNested(t.Context(), ws, nil, nil)
	var ne *driver.NestedSkillsError
	if !errors.As(err, &ne) || !errors.Is(err, driver.ErrNestedSkills) || ne.Agent != "Claude Code" || ne.Workspace != ws ||
		!slices.Equal(ne.Folders, []string{skillsIn(ws, "a"), skillsIn(ws, "b")}) {
		t.Errorf("CheckNested = %#v, want a *driver.NestedSkillsError naming both folders", err)
	}
	for i := range 10 {
		write(t, filepath.Join(ws, "f", fmt.Sprint(i)), "")
	}
	codex, _ := Lookup("codex")
	if err := codex.CheckNested(t.Context(), ws, nil, nil); err != nil {
		t.Errorf("CheckNested of a row without nested folders = %v", err)
	}
}

// TestFindNestedOurs checks rule 7 of the nested folders: a nested skill
// that is one of the run's, by name and content, is not reported; a
// folder with another skill beside it, or another version of the run's,
// is.
func TestFindNestedOurs(t *testing.T) {
	r := claudeRow(t)
	ws := realTemp(t)
	runSkills := t.TempDir()
	mkSkill(t, runSkills, "review")
	ours := []Skill{{Dir: filepath.Join(runSkills, "review"), Path: filepath.Join(runSkills, "review")}}
	mkSkill(t, skillsIn(ws, "same"), "review")
	mkSkill(t, skillsIn(ws, "beside"), "review")
	mkSkill(t, skillsIn(ws, "beside"), "other")
	mkSkill(t, skillsIn(ws, "edited"), "review")
	write(t, filepath.Join(skillsIn(ws, "edited"), "review", "notes.md"), "More.\n")
	got, err := r.FindNested(t.Context(), ws, Walk{Ours: ours})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{skillsIn(ws, "beside"), skillsIn(ws, "edited")}
	if !slices.Equal(got, want) {
		t.Errorf("FindNested with the run's skill review = %q, want %q", got, want)
	}
	got, err = r.FindNested(t.Context(), ws, Walk{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{skillsIn(ws, "beside"), skillsIn(ws, "edited"), skillsIn(ws, "same")}; !slices.Equal(got, want) {
		t.Errorf("FindNested without the run's skills = %q, want %q", got, want)
	}
}

// BenchmarkFindNested measures the search Claude Code's row runs before
// every run, in a git repository of 100 folders of 100 files each with an
// ignored folder of as many beside them.
func BenchmarkFindNested(b *testing.B) {
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("node_modules/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, top := range []string{"src", "node_modules"} {
		for i := range 100 {
			dir := filepath.Join(ws, top, fmt.Sprint(i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for j := range 100 {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(j)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	r, _ := Lookup("claude-code")
	b.ResetTimer()
	for b.Loop() {
		if got, err := r.FindNested(b.Context(), ws, Walk{}); err != nil || len(got) != 0 {
			b.Fatalf("FindNested = %q, %v", got, err)
		}
	}
}
