package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/internal/treecmp"
)

// The bounds of the search for nested skills folders (rule 5 of the
// package doc's "Nested skills folders").
const (
	// MaxNestedEntries is the most folder entries (files, folders,
	// links) the search reads in a workspace.
	MaxNestedEntries = 500_000
	// MaxNestedDepth is how many levels below the workspace the search
	// goes.
	MaxNestedDepth = 64
)

// ErrNestedLimit is wrapped by the error of a search for nested skills
// folders that crosses one of its bounds: the workspace cannot be
// checked, so the run is refused.
var ErrNestedLimit = errors.New("workspace too large to check for nested skill folders")

// Walk bounds a search for nested skills folders and says how git is
// asked which folders it ignores. The zero value is the default.
type Walk struct {
	// MaxEntries is the most folder entries read. Default
	// [MaxNestedEntries].
	MaxEntries int
	// MaxDepth is the most levels below the workspace a folder may be.
	// Default [MaxNestedDepth].
	MaxDepth int
	// Env is the environment git runs in (the agent's: its PATH finds
	// git, its HOME the user's excludes file). Default: this process's.
	Env []string
	// Ours are the run's skills: a nested skill listed under the name of
	// one of them, with the same content, adds nothing the run did not
	// choose, and a folder holding only such skills is not reported, as
	// the shadow check passes the same content. Default: none.
	Ours []Skill
}

// CheckNested fails with a *driver.NestedSkillsError when workspace
// holds, in a folder below its top, one of r's Nested folders with a
// skill the agent would list ([Row.FindNested], with the default bounds
// and env as the agent's environment). A row without Nested folders
// checks nothing. Other errors, a crossed bound among them, are
// prefixed with r's Program.
func (r Row) CheckNested(ctx context.Context, workspace string, env []string, ours []Skill) error {
	if len(r.Nested) == 0 {
		return nil
	}
	found, err := r.FindNested(ctx, workspace, Walk{Env: env, Ours: ours})
	if err != nil {
		return fmt.Errorf("%s: %w", r.Program, err)
	}
	if len(found) > 0 {
		real := workspace
		if p, err := filepath.EvalSymlinks(workspace); err == nil {
			real = p
		}
		return &driver.NestedSkillsError{Agent: r.Name, Workspace: real, Folders: found}
	}
	return nil
}

// FindNested returns, sorted, the skills folders below the top of
// workspace that r's agent would load beside a run's skills: each of
// r's Nested folders in each folder below the workspace that holds a
// skill the agent lists (the package doc's "Nested skills folders"). The
// workspace's real path is walked, and a link to a folder in it at the
// link's path; the folders returned are under the real path.
func (r Row) FindNested(ctx context.Context, workspace string, w Walk) ([]string, error) {
	if len(r.Nested) == 0 {
		return nil, nil
	}
	if w.MaxEntries <= 0 {
		w.MaxEntries = MaxNestedEntries
	}
	if w.MaxDepth <= 0 {
		w.MaxDepth = MaxNestedDepth
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil, fmt.Errorf("check workspace for nested skill folders: %w", err)
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, fmt.Errorf("check workspace for nested skill folders: %w", err)
	}
	n := nestedWalk{row: r, root: root, walk: w}
	if r.NestedGitignore {
		n.git = newGitIgnores(root, w.Env)
	}
	return n.run(ctx)
}

// nestedWalk is one search of a workspace, level by level.
type nestedWalk struct {
	row     Row
	root    string
	walk    Walk
	git     *gitIgnores // nil: nothing is ignored
	entries int
	found   []string
	byName  map[string]Skill // the run's skills by listed name, once needed
}

// level is a folder to read, by the path the agent would see it at.
type level struct {
	dir string
	// real is dir's real path.
	real string
	// ownRepo: dir is in a git repository of its own below the
	// workspace's, where git answers no question about ignored paths
	// (so, as for the agent, none is ignored).
	ownRepo bool
	// viaLink: a folder above dir on its path is a link, so git answers
	// nothing about dir ("beyond a symbolic link") and, as for the
	// agent, it is not ignored.
	viaLink bool
	// isLink: dir is a link to a folder.
	isLink bool
	// walk: dir is walked; a link out of the workspace, or to a folder
	// already on its path (a loop), is only looked at.
	walk bool
	// noLook: dir is a link git ignores; its own Nested folders are not
	// looked at, but it is walked, as git answers nothing below it.
	noLook bool
	// from is the real path of the folder this part of dir's path
	// starts at: the workspace, or the target of the last link on it;
	// up holds the parts before it.
	from string
	up   *part
}

// part is a part of a path through links: the real paths from, one
// folder down at a time, to to (the folder holding the next link).
type part struct {
	from, to string
	up       *part
}

// within reports whether p is a or below it, and b or above it.
func within(p, a, b string) bool {
	return under(p, a) && under(b, p)
}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// onPath reports whether real is one of the folders l's path passes
// through (l itself too), by their real paths: a link to it is a loop.
func (l level) onPath(real string) bool {
	if within(real, l.from, l.real) {
		return true
	}
	for p := l.up; p != nil; p = p.up {
		if within(real, p.from, p.to) {
			return true
		}
	}
	return false
}

func (n *nestedWalk) run(ctx context.Context) ([]string, error) {
	current := []level{{dir: n.root, real: n.root, walk: true, from: n.root}}
	for depth := 0; len(current) > 0; depth++ {
		var next []level
		for _, l := range current {
			if depth > 0 && !l.noLook {
				if err := n.look(ctx, l.dir); err != nil {
					return nil, err
				}
			}
			if !l.walk {
				continue
			}
			subs, err := n.read(ctx, l)
			if err != nil {
				return nil, err
			}
			next = append(next, subs...)
		}
		next, err := n.unignored(ctx, next)
		if err != nil {
			return nil, err
		}
		if len(next) > 0 && depth+1 > n.walk.MaxDepth {
			return nil, fmt.Errorf("%s: %w: %s is more than %d folders below it; move deep folders out of the workspace or git-ignore them, or run in a smaller workspace",
				n.root, ErrNestedLimit, next[0].dir, n.walk.MaxDepth)
		}
		current = next
	}
	slices.Sort(n.found)
	return n.found, nil
}

// read lists the folders in l, counting every entry against the bound:
// real folders, and links to folders, walked as folders at the link's
// path when their target is in the workspace and not on the link's own
// path. Git's own folder .git is not walked.
func (n *nestedWalk) read(ctx context.Context, l level) ([]level, error) {
	f, err := os.Open(l.dir)
	if err != nil {
		return nil, nil // unreadable: the agent cannot read a file there either
	}
	defer f.Close()
	ownRepo := l.ownRepo
	if l.dir != n.root && IsRepoTop(l.dir) {
		ownRepo = true
	}
	viaLink := l.viaLink || l.isLink
	var out []level
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := f.ReadDir(256)
		n.entries += len(batch)
		if n.entries > n.walk.MaxEntries {
			return nil, fmt.Errorf("%s: %w: more than %d entries; git-ignore large folders (dependencies, build output), remove links to large folders (a path through a link is never ignored), or run in a smaller workspace",
				n.root, ErrNestedLimit, n.walk.MaxEntries)
		}
		for _, e := range batch {
			name := e.Name()
			if name == ".git" {
				continue
			}
			p := filepath.Join(l.dir, name)
			switch t := e.Type(); {
			case t.IsDir():
				out = append(out, level{dir: p, real: filepath.Join(l.real, name), ownRepo: ownRepo, viaLink: viaLink,
					walk: true, from: l.from, up: l.up})
			case t&fs.ModeSymlink != 0:
				if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
					continue
				}
				sub := level{dir: p, ownRepo: ownRepo, viaLink: viaLink, isLink: true}
				if real, err := filepath.EvalSymlinks(p); err == nil && under(real, n.root) && !l.onPath(real) {
					sub.real, sub.walk, sub.from = real, true, real
					sub.up = &part{from: l.from, to: l.real, up: l.up}
				}
				out = append(out, sub)
			}
		}
		if errors.Is(err, io.EOF) || len(batch) == 0 {
			return out, nil
		}
		if err != nil {
			return out, nil // the agent cannot read the rest either
		}
	}
}

// look records each of the row's Nested folders in dir that holds a
// skill the agent would list, unless it is, through a link, the same
// folder of the workspace or of a folder above it: the shadow check
// covers those.
func (n *nestedWalk) look(ctx context.Context, dir string) error {
	for _, rel := range n.row.Nested {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && n.above(real, rel) {
			continue
		}
		skills, err := n.row.scan(ctx, p)
		if err != nil {
			return err
		}
		for _, f := range skills {
			same, err := n.ours(ctx, f)
			if err != nil {
				return err
			}
			if !same {
				n.found = append(n.found, p)
				break
			}
		}
	}
	return nil
}

// ours reports whether f is one of the run's skills: listed under the
// name of one of them, with the same content (rule 7 of the package
// doc's nested folders).
func (n *nestedWalk) ours(ctx context.Context, f found) (bool, error) {
	if len(n.walk.Ours) == 0 {
		return false, nil
	}
	if n.byName == nil {
		n.byName = make(map[string]Skill, len(n.walk.Ours))
		for _, s := range n.walk.Ours {
			n.byName[n.row.ListedName(s.Dir)] = s
		}
	}
	s, ok := n.byName[f.name]
	if !ok {
		return false, nil
	}
	same, err := treecmp.Equal(ctx, s.Dir, f.dir)
	if err != nil {
		return false, fmt.Errorf("%s: compare skill %q with %s: %w", n.row.Program, f.name, f.dir, err)
	}
	return same, nil
}

// above reports whether real is the folder rel of the workspace or of a
// folder above it.
func (n *nestedWalk) above(real, rel string) bool {
	for d := n.root; ; d = filepath.Dir(d) {
		if filepath.Join(d, filepath.FromSlash(rel)) == real {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// unignored drops from ls the folders git ignores, when the row's agent
// skips those; a link git ignores is kept to be walked, not looked at.
// Git is asked only about paths it answers for: not in a repository of
// their own below the workspace's, and through no link.
func (n *nestedWalk) unignored(ctx context.Context, ls []level) ([]level, error) {
	if n.git == nil || len(ls) == 0 {
		return ls, nil
	}
	var ask []string
	for _, l := range ls {
		if !l.ownRepo && !l.viaLink {
			ask = append(ask, l.dir)
		}
	}
	ignored, err := n.git.ignored(ctx, ask)
	if err != nil {
		return nil, err
	}
	kept := ls[:0]
	for _, l := range ls {
		if ignored[l.dir] {
			if !l.isLink || !l.walk {
				continue
			}
			l.noLook = true
		}
		kept = append(kept, l)
	}
	return kept, nil
}

// gitIgnores asks git which paths it ignores, as Claude Code does (`git
// check-ignore`, run in the workspace).
type gitIgnores struct {
	dir string
	env []string
	off bool // git is missing, the workspace is in no repository, or git failed
}

func newGitIgnores(dir string, env []string) *gitIgnores {
	if env == nil {
		env = os.Environ()
	}
	return &gitIgnores{dir: dir, env: env}
}

// ignored returns the paths of paths (absolute) that git ignores. When
// git cannot answer (it is missing, the workspace is in no repository,
// or it fails), none is ignored from then on: the search then finds
// more, never less. Only ctx's end is an error.
func (g *gitIgnores) ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	if g.off || len(paths) == 0 {
		return nil, nil
	}
	git, err := process.LookPath("git", g.env)
	if err != nil {
		g.off = true
		return nil, nil
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	// Absolute paths are never read as pathspec magic (":(glob)..."),
	// and a repository's configuration cannot make check-ignore run a
	// file system monitor.
	cmd := exec.CommandContext(ctx, git, "-c", "core.fsmonitor=false", "check-ignore", "--stdin", "-z")
	cmd.Dir, cmd.Env, cmd.Stdin = g.dir, g.env, &in
	out, err := cmd.Output()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1: // none ignored
		return nil, nil
	default:
		g.off = true
		return nil, nil
	}
	ignored := make(map[string]bool)
	for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		ignored[p] = true
	}
	return ignored, nil
}
