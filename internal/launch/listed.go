package launch

import (
	"github.com/agentadaptor/agentadaptor/driver"
)

// CheckListed reports the run's skills rs that the agent does not list in
// reported (the skills its first event names): a *driver.NotMountedError
// with Missing, the runtime names of those skills, and Reported; nil when
// it lists them all. name gives the name the agent lists a skill under
// (nil: its runtime name); optional, asked only of a skill not listed,
// says the agent may leave it out (nil: none may be left out).
func CheckListed(reported []string, rs driver.ResolvedSkills, name func(driver.ResolvedSkill) string, optional func(driver.ResolvedSkill) bool) error {
	var missing []string
	listedNames := make(map[string]struct{}, len(reported))
	for _, r := range reported {
		listedNames[r] = struct{}{}
	}
	for _, e := range rs.Entries {
		listed := e.RuntimeName
		if name != nil {
			listed = name(e)
		}
		if _, ok := listedNames[listed]; !ok && (optional == nil || !optional(e)) {
			missing = append(missing, e.RuntimeName)
		}
	}
	if len(missing) > 0 {
		return &driver.NotMountedError{Missing: missing, Reported: reported}
	}
	return nil
}
