package codex

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

// otherSkillsDirs lists the folders besides the Codex home whose skills
// Codex loads: .agents/skills and .codex/skills of the workspace and of
// each folder above it,
// up to the top of its git repository when it is in one, then the user's
// ~/.agents/skills and /etc/codex/skills.
func otherSkillsDirs(workspace, home string) []string {
	var dirs []string
	for d := filepath.Clean(workspace); ; d = filepath.Dir(d) {
		dirs = append(dirs, filepath.Join(d, ".agents", "skills"), filepath.Join(d, ".codex", "skills"))
		if filepath.Dir(d) == d || isRepoTop(d) {
			break
		}
	}
	if home != "" {
		if d := filepath.Join(home, ".agents", "skills"); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, "/etc/codex/skills")
}

// isRepoTop reports whether dir is the top of a git repository (or
// worktree): it holds .git.
func isRepoTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// checkShadows fails when one of those folders holds a skill named like
// one of rs with other content.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, workspace, home string) error {
	dirs := otherSkillsDirs(workspace, home)
	for _, e := range rs.Entries {
		for _, d := range dirs {
			theirs := filepath.Join(d, e.RuntimeName)
			fi, err := os.Stat(theirs)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("codex: check for a skill competing with %q: %w", e.RuntimeName, err)
			}
			if !fi.IsDir() {
				continue
			}
			same, err := treecmp.Equal(ctx, e.Path, theirs)
			if err != nil {
				return fmt.Errorf("codex: compare skill %q with %s: %w", e.RuntimeName, theirs, err)
			}
			if !same {
				return &driver.ShadowError{Name: e.RuntimeName, Ours: e.Path, Theirs: theirs}
			}
		}
	}
	return nil
}
