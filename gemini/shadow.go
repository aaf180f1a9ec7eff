package gemini

import (
	"context"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// geminiRow returns Gemini CLI's row of the agents table: the folders it
// reads skills from, and how.
func geminiRow() agents.Row {
	r, _ := agents.Lookup("gemini-cli")
	return r
}

// otherSkillsDirs lists the folders whose skills Gemini CLI loads besides
// the run's, as its row of the agents table says: .agents/skills and
// .gemini/skills of the workspace, then the user's ~/.agents/skills and
// ~/.gemini/skills, where home is the user's Gemini CLI home ("" for
// none).
func otherSkillsDirs(workspace, home string) []string {
	e := agents.Env{Home: home}
	return geminiRow().Dirs(workspace, e.Path)
}

// checkShadows fails when a skill Gemini CLI would list from one of dirs
// has the listed name of one of rs and other content: Gemini CLI would
// load one of the two by its precedence (the workspace's over the run's,
// the run's over the user's), and say so only on stderr.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, dirs []string) error {
	return geminiRow().CheckShadows(ctx, agents.Mounted(rs, ""), dirs)
}
