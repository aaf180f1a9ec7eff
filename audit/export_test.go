package audit

import "testing"

// SetMaxSkillMD sets, until t ends, the size over which a SKILL.md is a
// large-file finding, and returns the size it replaced. Tests that call
// it do not run in parallel.
func SetMaxSkillMD(t testing.TB, n int) (was int) {
	was = maxSkillMD
	maxSkillMD = n
	t.Cleanup(func() { maxSkillMD = was })
	return was
}
