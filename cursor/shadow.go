package cursor

import (
	"context"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// checkShadows fails when a skill in a folder Cursor reads (its row of
// the agents table, for the workspace and the user's home) has the name
// of one of rs and other content: which of the two Cursor would load is
// not documented.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, workspace, home string) error {
	row, _ := agents.Lookup("cursor")
	ours := agents.Mounted(rs, "")
	return row.CheckShadows(ctx, ours, row.Dirs(workspace, agents.Env{Home: home}.Path))
}
