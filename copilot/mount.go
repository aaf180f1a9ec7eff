package copilot

import (
	"context"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillsPath is where Copilot CLI reads skills in a folder given with
// --add-dir.
const skillsPath = ".github/skills"

// mount returns the run's mount of rs under root, the folder to give
// with --add-dir, and the release of the run's lease on it (see
// "Mounting skills").
func mount(ctx context.Context, root string, rs driver.ResolvedSkills) (string, func(), error) {
	return agentdir.Use(ctx, root, folders(), agentdir.Key(folders(), rs), func(l *agentdir.Lease) (string, error) {
		return agentdir.Mount(ctx, l, skillsPath, rs, skill.ContentDigest)
	})
}

// copilotRow returns Copilot CLI's row of the agents table: the folders
// it reads skills from, and how.
func copilotRow() agents.Row {
	r, _ := agents.Lookup("github-copilot")
	return r
}

// otherSkillsDirs lists the folders whose skills Copilot CLI loads
// besides the run's, as its row of the agents table says, for a run in
// workspace by the user whose home is home.
func otherSkillsDirs(workspace, home string) []string {
	e := agents.Env{Home: home}
	return copilotRow().Dirs(workspace, e.Path)
}

// checkShadows fails with a *driver.ShadowError when one of dirs holds a
// skill listed under the name of one of rs with other content (rule 1 of
// "Checks").
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, dirs []string) error {
	ours := agents.Mounted(rs, "")
	return copilotRow().CheckShadows(ctx, ours, dirs)
}
