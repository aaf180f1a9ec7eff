package claude

import (
	"context"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillsDir is where Claude Code finds skills under a folder given with
// --add-dir.
const skillsDir = ".claude/skills"

// mountKey names the mount of a skill set: its fingerprint and the folders
// it links to, so a mount never points at another run's folders.
func mountKey(rs driver.ResolvedSkills) string {
	return agentdir.Key(folders(), rs)
}

// mount returns the folder to pass with --add-dir for rs: under root,
// holding .claude/skills/<runtime-name> for each skill, a link to its
// folder (a copy where links cannot be made). It is built once, atomically,
// and reused by every run with the same set. The run holds a lease on it
// until it calls release, so that a collection of the cache keeps it.
func mount(ctx context.Context, root string, rs driver.ResolvedSkills) (dir string, release func(), err error) {
	return agentdir.Use(ctx, root, folders(), mountKey(rs), func(l *agentdir.Lease) (string, error) {
		return agentdir.Mount(ctx, l, skillsDir, rs, skill.ContentDigest)
	})
}
