package claude

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// claudeCode returns Claude Code's row of the agents table: the folders
// it reads skills from, and how.
func claudeCode() agents.Row {
	r, _ := agents.Lookup("claude-code")
	return r
}

// otherSkillsDirs lists the folders whose skills Claude Code loads besides
// ours, as its row of the agents table says: user is the user's skills
// folder ([userSkillsDir]; "" for none), then .claude/skills of the
// workspace and of each folder above it, up to the top of its git
// repository when it is in one.
func otherSkillsDirs(workspace, user string) []string {
	return claudeCode().Dirs(workspace, func(agents.Folder) string { return user })
}

// checkShadows fails when one of those folders holds a skill named like
// one of rs with other content. mountDir is the run's mount.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, mountDir, workspace, user string) error {
	ours := agents.Mounted(rs, filepath.Join(mountDir, filepath.FromSlash(skillsDir)))
	return claudeCode().CheckShadows(ctx, ours, otherSkillsDirs(workspace, user))
}

// userSkillsDir is the user's skills folder in env, as Claude Code's row
// of the agents table says: $CLAUDE_CONFIG_DIR/skills, else
// ~/.claude/skills ("" when there is no home folder).
func userSkillsDir(env []string) string {
	home := process.Getenv(env, "HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	e := agents.Env{Home: home, Getenv: func(k string) string { return process.Getenv(env, k) }}
	return e.Path(claudeCode().UserInstall)
}
