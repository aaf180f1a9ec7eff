package claude

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/treecmp"
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
			same, err := treecmp.Equal(ctx, ours, theirs)
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

// isRepoTop reports whether dir is the top of a git repository (or
// worktree): it holds .git.
func isRepoTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}
