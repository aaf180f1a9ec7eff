package claude

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/driver"
)

// otherSkillsDirs lists the folders whose skills Claude Code loads besides
// ours: the user's, then .claude/skills of the workspace and of each
// folder above it, up to the top of its git repository when it is in one.
func otherSkillsDirs(workspace, user string) []string {
	var dirs []string
	if user != "" {
		dirs = append(dirs, filepath.Clean(user))
	}
	for d := filepath.Clean(workspace); ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".claude", "skills")
		if !slices.Contains(dirs, p) {
			dirs = append(dirs, p)
		}
		if filepath.Dir(d) == d || isRepoTop(d) {
			break
		}
	}
	return dirs
}

// Limits of the comparison with another skill folder: past them the
// folders count as different, which refuses the run rather than hashing a
// huge tree (a skill folder linked to /usr, say).
const (
	shadowMaxEntries = 10000
	shadowMaxBytes   = 256 << 20
)

// checkShadows fails when one of those folders holds a skill named like
// one of rs with other content. mountDir is the run's mount.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, mountDir, workspace, user string) error {
	dirs := otherSkillsDirs(workspace, user)
	for _, e := range rs.Entries {
		for _, d := range dirs {
			theirs := filepath.Join(d, e.RuntimeName)
			fi, err := os.Stat(theirs)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("claude: check for a skill shadowing %q: %w", e.RuntimeName, err)
			}
			if !fi.IsDir() {
				continue
			}
			ours := filepath.Join(mountDir, filepath.FromSlash(skillsDir), e.RuntimeName)
			same, err := sameTree(ctx, ours, theirs)
			if err != nil {
				return fmt.Errorf("claude: compare skill %q with %s: %w", e.RuntimeName, theirs, err)
			}
			if !same {
				return &driver.ShadowError{Name: e.RuntimeName, Ours: e.Path, Theirs: theirs}
			}
		}
	}
	return nil
}

// entry is one file of a skill folder as the comparison sees it.
type entry struct {
	mode fs.FileMode // type bits and the executable bit
	size int64
	link string // a symbolic link's target
}

// sameTree reports whether two skill folders hold the same files, links
// and executable bits: the listings first (cheap), then the bytes. Folders
// past the limits count as different. It stops when ctx is done.
func sameTree(ctx context.Context, a, b string) (bool, error) {
	la, ok, err := listTree(ctx, a)
	if err != nil || !ok {
		return false, err
	}
	lb, ok, err := listTree(ctx, b)
	if err != nil || !ok {
		return false, err
	}
	if !maps.Equal(la, lb) {
		return false, nil
	}
	for name, e := range la {
		if !e.mode.IsRegular() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		same, err := sameFile(filepath.Join(a, name), filepath.Join(b, name))
		if err != nil || !same {
			return false, err
		}
	}
	return true, nil
}

// listTree lists a folder's entries by slash path; ok is false past the
// limits.
func listTree(ctx context.Context, dir string) (map[string]entry, bool, error) {
	// The folder itself may be a link (the mount's are); what is inside is
	// compared as it is.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, false, err
	}
	out := make(map[string]entry)
	var total int64
	errLimit := errors.New("limit")
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if len(out) >= shadowMaxEntries {
			return errLimit
		}
		rel, _ := filepath.Rel(dir, p)
		var e entry
		switch t := d.Type(); {
		case t.IsDir():
			e.mode = fs.ModeDir
		case t&fs.ModeSymlink != 0:
			e.mode = fs.ModeSymlink
			if e.link, err = os.Readlink(p); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			e.mode, e.size = fi.Mode()&0o111, fi.Size()
			if total += e.size; total > shadowMaxBytes {
				return errLimit
			}
		default:
			e.mode = t // a FIFO or device: compared by type only, never opened
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if errors.Is(err, errLimit) {
		return nil, false, nil
	}
	return out, err == nil, err
}

// sameFile reports whether two regular files hold the same bytes.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 32<<10), make([]byte, 32<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			if (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF) {
				return true, nil
			}
			return false, errors.Join(ignoreEOF(ea), ignoreEOF(eb))
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil
	}
	return err
}

// isRepoTop reports whether dir is the top of a git repository (or
// worktree): it holds .git.
func isRepoTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}
