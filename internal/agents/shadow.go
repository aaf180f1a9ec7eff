package agents

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/treecmp"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// Dirs returns the folders r reads skills from for a run in workspace,
// each once, in the row's order: its project folders in workspace (and,
// for a row with Ancestors, in each folder above it up to the top of its
// git repository, else of the file system), each level's in turn, where
// the first of them stands in the row; the others where path puts them
// (an [Env.Path], or the caller's own folder for one it manages), left
// out where path returns "".
func (r Row) Dirs(workspace string, path func(Folder) string) []string {
	var dirs []string
	add := func(d string) {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	walked := false
	for _, f := range r.Folders {
		if f.Base != Project {
			add(path(f))
			continue
		}
		if walked {
			continue
		}
		walked = true
		for d := filepath.Clean(workspace); ; d = filepath.Dir(d) {
			for _, pf := range r.Folders {
				if pf.Base == Project {
					add(filepath.Join(d, filepath.FromSlash(pf.Rel)))
				}
			}
			if !r.Ancestors || filepath.Dir(d) == d || IsRepoTop(d) {
				break
			}
		}
	}
	return dirs
}

// IsRepoTop reports whether dir is the top of a git repository (or
// worktree): it holds .git.
func IsRepoTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// ListedName is the name r lists the skill in dir by.
func (r Row) ListedName(dir string) string {
	if r.ListedBy == FrontMatterName {
		if s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient)); err == nil && s.Name != "" {
			return s.Name
		}
	}
	return filepath.Base(dir)
}

// Skill is one of a run's skills as the shadow check sees it.
type Skill struct {
	// Dir is the folder the agent is given; its content is compared, and
	// its listed name ([Row.ListedName]) is the skill's.
	Dir string
	// Path is the resolved folder, named as Ours in a
	// *driver.ShadowError.
	Path string
}

// Mounted returns the skills of rs as a shadow check compares them: each
// in the folder the agent is given, dir/<runtime name>, or, when dir is
// "", its resolved folder.
func Mounted(rs driver.ResolvedSkills, dir string) []Skill {
	ours := make([]Skill, len(rs.Entries))
	for i, e := range rs.Entries {
		if dir != "" {
			ours[i] = Skill{Dir: filepath.Join(dir, e.RuntimeName), Path: e.Path}
		} else {
			ours[i] = Skill{Dir: filepath.Clean(e.Path), Path: e.Path}
		}
	}
	return ours
}

// CheckShadows fails with a *driver.ShadowError when one of dirs holds a
// skill that r would list under the name of one of ours, with other
// content (see "The shadow check" in the package doc). Other errors are
// prefixed with r's Program.
func (r Row) CheckShadows(ctx context.Context, ours []Skill, dirs []string) error {
	listed := func() (map[string]Skill, []string) {
		byName := make(map[string]Skill, len(ours))
		var names []string
		for _, s := range ours {
			n := r.ListedName(s.Dir)
			byName[n] = s
			names = append(names, n)
		}
		return byName, names
	}
	if r.Depth == 1 && r.ListedBy == FolderName {
		byName, names := listed()
		return r.checkByName(ctx, names, byName, dirs)
	}
	// The folders are listed first: ours are read for their names (their
	// SKILL.md parsed) only when the folders hold a skill at all.
	var all []found
	for _, d := range dirs {
		found, err := r.scan(ctx, d)
		if err != nil {
			return err
		}
		all = append(all, found...)
	}
	if len(all) == 0 {
		return nil
	}
	byName, _ := listed()
	for _, f := range all {
		if s, ok := byName[f.name]; ok {
			if err := r.compare(ctx, f.name, s, f.dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkByName looks for each of names as a folder in each of dirs. A
// folder of dirs that does not exist holds none of them: it costs one
// stat, not one per name.
func (r Row) checkByName(ctx context.Context, names []string, byName map[string]Skill, dirs []string) error {
	var live []string
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			live = append(live, d)
		}
	}
	for _, n := range names {
		for _, d := range live {
			theirs := filepath.Join(d, n)
			fi, err := r.stat(theirs)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: check for a skill shadowing %q: %w", r.Program, n, err)
			}
			if !fi.IsDir() {
				continue
			}
			if err := r.compare(ctx, n, byName[n], theirs); err != nil {
				return err
			}
		}
	}
	return nil
}

// compare fails when theirs, listed as name, is not ours.
func (r Row) compare(ctx context.Context, name string, ours Skill, theirs string) error {
	same, err := treecmp.Equal(ctx, ours.Dir, theirs)
	if err != nil {
		return fmt.Errorf("%s: compare skill %q with %s: %w", r.Program, name, theirs, err)
	}
	if !same {
		return &driver.ShadowError{Name: name, Ours: ours.Path, Theirs: theirs}
	}
	return nil
}

func (r Row) stat(p string) (fs.FileInfo, error) {
	if r.FollowsLinks {
		return os.Stat(p)
	}
	return os.Lstat(p)
}

// found is a skill r would list from some folder: its listed name and
// its folder.
type found struct {
	name string
	dir  string
}

// scan finds the skills under root as r does: folders holding a regular
// SKILL.md, up to r.Depth levels down, skipping hidden folders and
// following linked ones if r does (each real folder once, so a loop
// ends). A missing or unreadable root holds none; only ctx's end is an
// error.
func (r Row) scan(ctx context.Context, root string) ([]found, error) {
	var out []found
	seen := make(map[string]bool)
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || seen[real] {
			return nil
		}
		seen[real] = true
		if fi, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil && fi.Mode().IsRegular() {
			out = append(out, found{name: r.ListedName(dir), dir: dir})
		}
		if depth == r.Depth {
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil // unreadable: the agent cannot list it either
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if fi, err := r.stat(p); err == nil && fi.IsDir() {
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	err := walk(root, 0)
	return out, err
}
