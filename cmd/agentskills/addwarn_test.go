package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestAddGroupsWarnings checks that add prints a warning that many skills
// share once, counting them, where each skill's own warning and each
// skip keep a line of their own; --verbose prints every skill's line.
func TestAddGroupsWarnings(t *testing.T) {
	const many = 120
	tree := map[string]string{
		"odd/SKILL.md":  "---\nname: odd\ndescription: Odd.\ncolour: red\n---\nbody\n",
		"bad1/SKILL.md": "no front matter\n",
		"bad2/SKILL.md": "---\nname: bad2\n---\nno description\n",
	}
	for i := range many {
		name := fmt.Sprintf("s%03d", i)
		tree[name+"/SKILL.md"] = "---\nname: " + name + "\ndescription: Skill " + name + ".\ntags: review\n---\nbody\n"
	}
	src := t.TempDir()
	writeTree(t, src, tree)
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", verbose), func(t *testing.T) {
			isolatedHome(t)
			args := []string{"add", src, "-a", "claude-code"}
			if verbose {
				args = append(args, "--verbose")
			}
			code, _, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("run(%q) = %d; stderr:\n%s", args, code, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			count := func(s string) int {
				n := 0
				for _, l := range lines {
					if strings.Contains(l, s) {
						n++
					}
				}
				return n
			}
			for _, s := range []string{"skipped   bad1 (", "skipped   bad2 (", "warning   odd (.agents/skills/odd): agents load it, but 'agentskills validate' rejects it: Unexpected fields in frontmatter: colour."} {
				if count(s) != 1 {
					t.Errorf("run(%q) stderr has %d lines with %q, want 1:\n%s", args, count(s), s, stderr)
				}
			}
			perSkill, grouped := count("(.agents/skills/s"), count(fmt.Sprintf("warning   %d skills (s000, s001 and %d more): agents load them, but 'agentskills validate' rejects them: Unexpected fields in frontmatter: tags.", many, many-2))
			switch {
			case verbose && (perSkill != many || grouped != 0):
				t.Errorf("run(%q): %d lines of a skill, %d grouped; want %d and none:\n%s", args, perSkill, grouped, many, stderr)
			case !verbose && (perSkill != 0 || grouped != 1):
				t.Errorf("run(%q): %d lines of a skill, %d grouped; want none and one:\n%s", args, perSkill, grouped, stderr)
			}
			if !verbose && len(lines) > 6 {
				t.Errorf("run(%q) stderr has %d lines, want at most 6 (the agents chosen, two skips, two warnings):\n%s", args, len(lines), stderr)
			}
		})
	}
}
