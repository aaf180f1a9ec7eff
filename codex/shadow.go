package codex

import (
	"context"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
)

// codexRow returns Codex's row of the agents table: the folders it reads
// skills from, and how.
func codexRow() agents.Row {
	r, _ := agents.Lookup("codex")
	return r
}

// otherSkillsDirs lists the folders besides the Codex home whose skills
// Codex loads, as its row of the agents table says: .agents/skills and
// .codex/skills of the workspace and of each folder above it, up to the
// top of its git repository when it is in one, then the user's
// ~/.agents/skills (home is the home folder; "" for none) and
// /etc/codex/skills. The Codex home is the managed one, whose skills
// the driver puts there itself.
func otherSkillsDirs(workspace, home string) []string {
	e := agents.Env{Home: home}
	return codexRow().Dirs(workspace, func(f agents.Folder) string {
		if f.Base == agents.CodexHome {
			return ""
		}
		return e.Path(f)
	})
}

// listedNames maps the name Codex lists each of rs by (its front matter's
// name) to the skill.
func listedNames(rs driver.ResolvedSkills) map[string]driver.ResolvedSkill {
	r := codexRow()
	out := make(map[string]driver.ResolvedSkill, len(rs.Entries))
	for _, e := range rs.Entries {
		out[r.ListedName(e.Path)] = e
	}
	return out
}

// checkShadowsOf fails when a skill Codex would list from one of roots
// has the listed name of one of rs and other content, as checkShadows
// does; the front matter of rs is read only when roots hold a skill.
func checkShadowsOf(ctx context.Context, rs driver.ResolvedSkills, roots []string) error {
	return codexRow().CheckShadows(ctx, agents.Mounted(rs, ""), roots)
}

// checkShadows fails when a skill Codex would list from one of roots has
// the listed name of one of ours and other content: Codex would list both
// under one name, and neither wins.
func checkShadows(ctx context.Context, ours map[string]driver.ResolvedSkill, roots []string) error {
	skills := make([]agents.Skill, 0, len(ours))
	for _, e := range ours {
		skills = append(skills, agents.Skill{Dir: e.Path, Path: e.Path})
	}
	return codexRow().CheckShadows(ctx, skills, roots)
}
