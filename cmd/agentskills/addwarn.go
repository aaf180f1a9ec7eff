package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// warnRejected prints a warning on stderr for each skill that add put in
// place (installed, updated, repaired or adopted) and that validate
// rejects: add reads skills as agents load them (unknown keys, a missing
// name, "key: text: more" are accepted), validate by the Agent Skills
// rules. The installed canonical copy is checked, as agents read it.
func warnRejected(s *streams, changes []install.Change) {
	var seen []string
	for _, c := range changes {
		switch c.Action {
		case install.ActionInstalled, install.ActionUpdated, install.ActionRepaired, install.ActionAdopted:
		default:
			continue
		}
		if c.Kind != install.KindCanonical || slices.Contains(seen, c.Skill) {
			continue
		}
		seen = append(seen, c.Skill)
		var e *skillmd.Error
		if err := skillmd.Validate(c.Path); errors.As(err, &e) {
			var msgs []string
			for _, p := range e.Problems {
				msgs = append(msgs, p.Message)
			}
			fmt.Fprintf(s.err, "warning   %s (%s): agents load it, but 'agentskills validate' rejects it: %s\n", c.Skill, shortPath(c.Path), strings.Join(msgs, "; "))
		}
	}
}
