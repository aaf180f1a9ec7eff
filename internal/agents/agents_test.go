package agents

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Rule 1: one row per agent, sorted by ID, each named; the agents a
// driver of this module runs name their program.
func TestRuleIDs(t *testing.T) {
	rows := Table()
	if len(rows) != 45 {
		t.Errorf("Table() has %d rows, want the npm skills tool's 45", len(rows))
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
		if r.Name == "" || strings.TrimSpace(r.Name) != r.Name {
			t.Errorf("%s: Name = %q", r.ID, r.Name)
		}
		if got, ok := Lookup(r.ID); !ok || got.ID != r.ID {
			t.Errorf("Lookup(%q) = %q, %v", r.ID, got.ID, ok)
		}
	}
	if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("IDs are not sorted and unique: %v", ids)
	}
	if _, ok := Lookup("nobody"); ok {
		t.Error(`Lookup("nobody") found a row`)
	}
	for id, program := range map[string]string{"claude-code": "claude", "codex": "codex"} {
		if r, _ := Lookup(id); r.Program != program {
			t.Errorf("%s: Program = %q, want %q", id, r.Program, program)
		}
	}
}

// Rule 2: every folder is a clean slash path ending in skills, relative
// but for System folders, which are absolute.
func TestRuleFolders(t *testing.T) {
	for _, r := range Table() {
		for _, f := range slices.Concat(r.Folders, []Folder{r.UserInstall}, r.Formerly) {
			rel := f.Rel
			if f.Base == System {
				if !path.IsAbs(rel) {
					t.Errorf("%s: system folder %q is not absolute", r.ID, rel)
				}
				rel = strings.TrimPrefix(rel, "/")
			}
			if !fs.ValidPath(rel) || rel == "." || strings.ContainsAny(rel, `\:`) || path.Base(rel) != "skills" {
				t.Errorf("%s: folder %+v is not a clean slash path ending in skills", r.ID, f)
			}
		}
		if !fs.ValidPath(r.Install) || path.Base(r.Install) != "skills" {
			t.Errorf("%s: Install = %q", r.ID, r.Install)
		}
	}
}

// Rule 3: a variable moves its base; without it the base is under the
// home folder, and without a home folder the folder is unknown.
func TestRuleBases(t *testing.T) {
	vars := map[string]string{"XDG_CONFIG_HOME": "/x", "CLAUDE_CONFIG_DIR": " /cc ", "CODEX_HOME": "/cx"}
	moved := Env{Home: "/h", Getenv: func(k string) string { return vars[k] }}
	plain := Env{Home: "/h"}
	none := Env{}
	tests := []struct {
		f                  Folder
		moved, plain, none string
		override           string
	}{
		{Folder{Project, ".claude/skills"}, ".claude/skills", ".claude/skills", ".claude/skills", ""},
		{Folder{Home, ".agents/skills"}, "/h/.agents/skills", "/h/.agents/skills", "", ""},
		{Folder{ConfigHome, "goose/skills"}, "/x/goose/skills", "/h/.config/goose/skills", "", "XDG_CONFIG_HOME"},
		{Folder{ClaudeConfig, "skills"}, "/cc/skills", "/h/.claude/skills", "", "CLAUDE_CONFIG_DIR"},
		{Folder{CodexHome, "skills"}, "/cx/skills", "/h/.codex/skills", "", "CODEX_HOME"},
		{Folder{System, "/etc/codex/skills"}, "/etc/codex/skills", "/etc/codex/skills", "/etc/codex/skills", ""},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			e    Env
			want string
		}{{moved, tt.moved}, {plain, tt.plain}, {none, tt.none}} {
			if got := c.e.Path(tt.f); got != filepath.FromSlash(c.want) {
				t.Errorf("Env{Home: %q}.Path(%+v) = %q, want %q", c.e.Home, tt.f, got, c.want)
			}
		}
		if got := tt.f.Base.Override(); got != tt.override {
			t.Errorf("%v.Override() = %q, want %q", tt.f.Base, got, tt.override)
		}
		if got, want := tt.f.User(), tt.f.Base != Project && tt.f.Base != System; got != want {
			t.Errorf("%+v.User() = %v", tt.f, got)
		}
	}
}

// Rule 4: with Ancestors the project folders are read up to the top of
// the repository (or of the file system), level by level, where the row
// puts them; without it in the workspace only.
func TestRuleAncestors(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	ws := filepath.Join(repo, "a", "ws")
	os.MkdirAll(ws, 0o755)
	two := Row{ID: "x", Ancestors: true, Folders: []Folder{{Project, "p/skills"}, {Project, "q/skills"}, {Home, "u/skills"}, {System, "/s/skills"}}}
	userFirst := Row{ID: "y", Ancestors: true, Folders: []Folder{{Home, "u/skills"}, {Project, "p/skills"}}}
	flat := Row{ID: "z", Folders: []Folder{{Project, "p/skills"}, {Home, "u/skills"}}}
	e := Env{Home: "/h"}
	j := func(parts ...string) string { return filepath.Join(parts...) }
	tests := []struct {
		name string
		r    Row
		git  bool
		e    Env
		want []string
	}{
		{"in a repository", two, true, e, []string{
			j(ws, "p/skills"), j(ws, "q/skills"), j(repo, "a", "p/skills"), j(repo, "a", "q/skills"),
			j(repo, "p/skills"), j(repo, "q/skills"), j("/h", "u/skills"), filepath.FromSlash("/s/skills"),
		}},
		{"the user's first", userFirst, true, e, []string{j("/h", "u/skills"), j(ws, "p/skills"), j(repo, "a", "p/skills"), j(repo, "p/skills")}},
		{"no home folder", userFirst, true, Env{}, []string{j(ws, "p/skills"), j(repo, "a", "p/skills"), j(repo, "p/skills")}},
		{"without ancestors", flat, true, e, []string{j(ws, "p/skills"), j("/h", "u/skills")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(repo, ".git"))
			if tt.git {
				os.Mkdir(filepath.Join(repo, ".git"), 0o755)
			}
			if got := tt.r.Dirs(ws, tt.e.Path); !slices.Equal(got, tt.want) {
				t.Errorf("Dirs(%s) =\n%q\nwant\n%q", ws, got, tt.want)
			}
		})
	}
	// Outside a repository: up to the root of the file system.
	os.RemoveAll(filepath.Join(repo, ".git"))
	got := userFirst.Dirs(ws, Env{}.Path)
	if root := filepath.Join(filepath.VolumeName(ws)+string(filepath.Separator), "p", "skills"); got[len(got)-1] != root {
		t.Errorf("Dirs outside a repository ends at %q, want %q", got[len(got)-1], root)
	}
	// A folder read twice (the workspace is the home folder) is listed once.
	if got := flat.Dirs("/h/u/..", Env{Home: "/h/u/.."}.Path); len(got) != 2 {
		t.Errorf("Dirs = %q, want two folders", got)
	}
	if got := flat.Dirs("/h", Env{Home: "/h"}.Path); !slices.Equal(got, []string{j("/h", "p/skills"), j("/h", "u/skills")}) {
		t.Errorf("Dirs = %q", got)
	}
	same := Row{Folders: []Folder{{Project, ".agents/skills"}, {Home, ".agents/skills"}}}
	if got := same.Dirs("/h", Env{Home: "/h"}.Path); len(got) != 1 {
		t.Errorf("Dirs with the workspace at home = %q, want one folder", got)
	}
}

// Rule 7: the folders install puts skills into are among those the agent
// reads, and the user's are the user's.
func TestRuleInstallFoldersAreRead(t *testing.T) {
	for _, r := range Table() {
		if !slices.Contains(r.Folders, Folder{Project, r.Install}) {
			t.Errorf("%s: Install %q is not among its folders", r.ID, r.Install)
		}
		if !slices.Contains(r.Folders, r.UserInstall) {
			t.Errorf("%s: UserInstall %+v is not among its folders", r.ID, r.UserInstall)
		}
		for _, f := range append([]Folder{r.UserInstall}, r.Formerly...) {
			if !f.User() {
				t.Errorf("%s: user folder %+v is not the user's", r.ID, f)
			}
		}
		for _, f := range r.Detect {
			if f.Base == System || !fs.ValidPath(f.Rel) {
				t.Errorf("%s: detection folder %+v", r.ID, f)
			}
		}
	}
}

// Rules 5, 6 and 8: the columns of the rows the CLI tests pin, and the
// ones every row shares.
func TestRuleColumns(t *testing.T) {
	tests := []struct {
		id        string
		depth     int
		listedBy  Naming
		ancestors bool
	}{
		{"claude-code", 1, FolderName, true},
		{"codex", 6, FrontMatterName, true},
	}
	var checked []string
	for _, r := range Table() {
		if r.Facts == Checked {
			checked = append(checked, r.ID)
		}
		if !r.FollowsLinks {
			t.Errorf("%s: FollowsLinks is false; install links skills into its folders", r.ID)
		}
		if r.Depth < 1 && r.Depth != AnyDepth {
			t.Errorf("%s: Depth = %d", r.ID, r.Depth)
		}
	}
	if !slices.Equal(checked, []string{"claude-code", "codex"}) {
		t.Errorf("Checked rows = %v, want the two the real-CLI tests pin", checked)
	}
	for _, tt := range tests {
		r, _ := Lookup(tt.id)
		if r.Depth != tt.depth || r.ListedBy != tt.listedBy || r.Ancestors != tt.ancestors {
			t.Errorf("%s: Depth, ListedBy, Ancestors = %d, %v, %v; want %d, %v, %v", tt.id, r.Depth, r.ListedBy, r.Ancestors, tt.depth, tt.listedBy, tt.ancestors)
		}
	}
	for f, want := range map[Facts]string{NPMTable: "npm skills table", Documented: "documentation", Recorded: "recorded runs", Checked: "checked against the CLI"} {
		if f.String() != want {
			t.Errorf("%d.String() = %q, want %q", f, f.String(), want)
		}
	}
}

// writeSkill writes a skill folder whose front matter names it name and
// whose body is body, and returns the folder.
func writeSkill(t *testing.T, dir, name, body string) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: d\n---\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The shadow check, by name (Depth 1, folder names) and by a scan as the
// agent does.
func TestCheckShadows(t *testing.T) {
	byName := Row{Program: "byname", Depth: 1, FollowsLinks: true, ListedBy: FolderName}
	scan := Row{Program: "scan", Depth: 2, FollowsLinks: true, ListedBy: FrontMatterName}
	tests := []struct {
		name   string
		r      Row
		place  func(t *testing.T, dir string) string // returns the shadowing folder, or ""
		shadow bool
	}{
		{"none", byName, func(*testing.T, string) string { return "" }, false},
		{"by name, other content", byName, func(t *testing.T, d string) string {
			return writeSkill(t, filepath.Join(d, "review"), "review", "theirs")
		}, true},
		{"by name, same content", byName, func(t *testing.T, d string) string {
			writeSkill(t, filepath.Join(d, "review"), "review", "ours")
			return ""
		}, false},
		{"by name, a file", byName, func(t *testing.T, d string) string {
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "review"), []byte("x"), 0o644)
			return ""
		}, false},
		{"by name, deeper", byName, func(t *testing.T, d string) string {
			writeSkill(t, filepath.Join(d, "x", "review"), "review", "theirs")
			return ""
		}, false},
		{"by name, another front matter name", byName, func(t *testing.T, d string) string {
			return writeSkill(t, filepath.Join(d, "review"), "other", "theirs")
		}, true},
		{"scan, by front matter", scan, func(t *testing.T, d string) string {
			return writeSkill(t, filepath.Join(d, "team", "old"), "review", "theirs")
		}, true},
		{"scan, same content", scan, func(t *testing.T, d string) string {
			writeSkill(t, filepath.Join(d, "x", "copy"), "review", "ours")
			return ""
		}, false},
		{"scan, below Depth", scan, func(t *testing.T, d string) string {
			writeSkill(t, filepath.Join(d, "a", "b", "c"), "review", "theirs")
			return ""
		}, false},
		{"scan, hidden", scan, func(t *testing.T, d string) string {
			writeSkill(t, filepath.Join(d, ".hidden", "review"), "review", "theirs")
			return ""
		}, false},
		{"scan, a loop of links", scan, func(t *testing.T, d string) string {
			os.MkdirAll(d, 0o755)
			os.Symlink(d, filepath.Join(d, "loop"))
			return ""
		}, false},
		{"scan, a linked folder", scan, func(t *testing.T, d string) string {
			other := writeSkill(t, filepath.Join(t.TempDir(), "elsewhere"), "review", "theirs")
			os.MkdirAll(d, 0o755)
			os.Symlink(other, filepath.Join(d, "linked"))
			return filepath.Join(d, "linked")
		}, true},
		{"scan, another name", scan, func(t *testing.T, d string) string {
			writeSkill(t, filepath.Join(d, "review"), "other", "theirs")
			return ""
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ours := writeSkill(t, filepath.Join(t.TempDir(), "review"), "review", "ours")
			dirs := []string{filepath.Join(t.TempDir(), "missing"), filepath.Join(t.TempDir(), "skills")}
			theirs := tt.place(t, dirs[1])
			err := tt.r.CheckShadows(t.Context(), []Skill{{Dir: ours, Path: "/resolved/review"}}, dirs)
			if !tt.shadow {
				if err != nil {
					t.Fatalf("CheckShadows = %v, want nil", err)
				}
				return
			}
			var se *driver.ShadowError
			if !errors.As(err, &se) || !errors.Is(err, driver.ErrSkillShadowed) {
				t.Fatalf("CheckShadows = %v, want a *driver.ShadowError", err)
			}
			if se.Name != "review" || se.Ours != "/resolved/review" || se.Theirs != theirs {
				t.Errorf("ShadowError = %+v, want review, /resolved/review, %s", se, theirs)
			}
		})
	}
	// A cancelled scan stops with the context's error.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	d := t.TempDir()
	writeSkill(t, filepath.Join(d, "x"), "x", "")
	if err := scan.CheckShadows(ctx, nil, []string{d}); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckShadows after cancel = %v, want context.Canceled", err)
	}
}

// Errors other than a shadow name the program.
func TestCheckShadowsErrorsNameTheProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows a path through a file is not found, which is no error")
	}
	r := Row{Program: "prog", Depth: 1, FollowsLinks: true}
	ours := writeSkill(t, filepath.Join(t.TempDir(), "review"), "review", "ours")
	file := filepath.Join(t.TempDir(), "skills")
	os.WriteFile(file, []byte("not a folder"), 0o644)
	err := r.CheckShadows(t.Context(), []Skill{{Dir: ours, Path: ours}}, []string{file})
	if err == nil || !strings.HasPrefix(err.Error(), `prog: check for a skill shadowing "review": `) {
		t.Errorf("CheckShadows in a file = %v, want an error naming prog", err)
	}
}
