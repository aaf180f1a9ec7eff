package codex

import (
	"context"
	"fmt"
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

// listedNames maps the name Codex lists each of rs by (its front matter's
// name) to the skill.
func listedNames(rs driver.ResolvedSkills) map[string]driver.ResolvedSkill {
	out := make(map[string]driver.ResolvedSkill, len(rs.Entries))
	for _, e := range rs.Entries {
		out[listedName(e.Path)] = e
	}
	return out
}

// checkShadows fails when a skill Codex would list from one of roots has
// the listed name of one of ours and other content: Codex would list both
// under one name, and neither wins.
func checkShadows(ctx context.Context, ours map[string]driver.ResolvedSkill, roots []string) error {
	for _, root := range roots {
		skills, err := scanSkills(ctx, root)
		if err != nil {
			return err
		}
		for _, f := range skills {
			e, ok := ours[f.name]
			if !ok {
				continue
			}
			same, err := treecmp.Equal(ctx, e.Path, f.dir)
			if err != nil {
				return fmt.Errorf("codex: compare skill %q with %s: %w", f.name, f.dir, err)
			}
			if !same {
				return &driver.ShadowError{Name: f.name, Ours: e.Path, Theirs: f.dir}
			}
		}
	}
	return nil
}
