package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// groupAt is how many skills must share a warning for warnRejected to
// print it once for them all.
const groupAt = 3

// warnRejected prints a warning on stderr for each skill that add put in
// place (installed, updated, repaired or adopted) and that validate
// rejects: add reads skills as agents load them (unknown keys, a missing
// name, "key: text: more" are accepted), validate by the Agent Skills
// rules. The installed canonical copy is checked, as agents read it.
// A problem that groupAt or more skills share (an unknown key that a
// repository's every skill holds) is one line that counts and names a
// few of them, so that it buries no skip, unless verbose asks for every
// skill's line.
func warnRejected(s *streams, changes []install.Change, verbose bool) {
	type rejected struct {
		skill, path string
		problems    []string
	}
	var all []rejected
	var seen []string
	shared := map[string][]string{} // a problem's message: the skills with it
	var order []string              // the messages, as first found
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
			r := rejected{skill: c.Skill, path: shortPath(c.Path)}
			for _, p := range e.Problems {
				r.problems = append(r.problems, p.Message)
				if shared[p.Message] == nil {
					order = append(order, p.Message)
				}
				shared[p.Message] = append(shared[p.Message], c.Skill)
			}
			all = append(all, r)
		}
	}
	grouped := func(msg string) bool { return !verbose && len(shared[msg]) >= groupAt }
	for _, r := range all {
		own := slices.DeleteFunc(slices.Clone(r.problems), grouped)
		if len(own) > 0 {
			fmt.Fprintf(s.err, "warning   %s (%s): agents load it, but 'agentskills validate' rejects it: %s\n", r.skill, r.path, strings.Join(own, "; "))
		}
	}
	for _, msg := range order {
		if !grouped(msg) {
			continue
		}
		names := shared[msg]
		fmt.Fprintf(s.err, "warning   %d skills (%s and %d more): agents load them, but 'agentskills validate' rejects them: %s (--verbose lists each)\n",
			len(names), strings.Join(names[:groupAt-1], ", "), len(names)-(groupAt-1), msg)
	}
}
