package qwen

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// qwenCode returns Qwen Code's row of the agents table: the folders it
// reads skills from, and how.
func qwenCode() agents.Row {
	r, _ := agents.Lookup("qwen-code")
	return r
}

// otherSkillsDirs lists the folders whose skills Qwen Code loads besides
// ours, as its row of the agents table says, in env: .qwen/skills and
// .agents/skills of the workspace, $QWEN_HOME/skills (else
// ~/.qwen/skills) and ~/.agents/skills; then listed, the folders named in
// skills.directories of the system defaults and of the user's and the
// project's settings, resolved as Qwen Code resolves them ([resolveDir]).
func otherSkillsDirs(env []string, workspace string, listed []string) []string {
	e := agents.Env{Home: homeDir(env)}
	dirs := qwenCode().Dirs(workspace, func(f agents.Folder) string {
		if f.Base == agents.Home && f.Rel == ".qwen/skills" {
			return filepath.Join(qwenHome(env, workspace), "skills")
		}
		return e.Path(f)
	})
	for _, d := range listed {
		if d := resolveDir(env, workspace, d); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// checkShadows fails when one of dirs holds a skill listed under the name
// of one of rs with other content: Qwen Code would load that one instead
// of ours, and say nothing. mountDir is the run's skills folder.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, mountDir string, dirs []string) error {
	ours := agents.Mounted(rs, mountDir)
	return qwenCode().CheckShadows(ctx, ours, dirs)
}
