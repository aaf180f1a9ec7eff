package install

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/redact"
)

// requiredBy is, for each skill that skills requires (rule 18), the
// names of the skills whose Requires it answers, sorted, each once; a
// skill for which gone reports true counts neither as requiring nor as
// required. It is linkRequirements without changing an entry, for the
// operations that only read the lock file and for plans not yet made.
func requiredBy(skills map[string]*lockEntry, gone map[string]bool) map[string][]string {
	by := map[string][]string{}
	for name, e := range skills {
		if gone[name] {
			continue
		}
		for _, r := range e.Requires {
			if r.Skill == "" || r.Skill == name || gone[r.Skill] || skills[r.Skill] == nil || slices.Contains(by[r.Skill], name) {
				continue
			}
			by[r.Skill] = append(by[r.Skill], name)
		}
	}
	for _, names := range by {
		slices.Sort(names)
	}
	return by
}

// needed is every skill of skills that a skill the user named (one not
// marked Dependency) needs, itself included, through the chain of
// installed requirements; a skill in gone is left out, and so is what
// only it needs. A skill in roots counts as one the user named.
func needed(skills map[string]*lockEntry, gone, roots map[string]bool) map[string]bool {
	seen := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		e := skills[name]
		if e == nil || gone[name] || seen[name] {
			return
		}
		seen[name] = true
		for _, r := range e.Requires {
			if r.Skill != "" {
				walk(r.Skill)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(skills)) {
		if !skills[name].Dependency || roots[name] {
			walk(name)
		}
	}
	return seen
}

// orphans is the dependencies that a removal of the skills in going
// leaves without a purpose: marked Dependency, needed (through the
// chain of requirements) by a skill the user named before the removal,
// and by none after it. A dependency nothing needed before (left so by
// hand, or by an older version) is not this removal's to take. A skill
// in stay, which the removal keeps (the policy requires it), counts after
// it as one the user named: what it needs is no orphan. Sorted.
func orphans(skills map[string]*lockEntry, going, stay map[string]bool) []string {
	before, after := needed(skills, nil, nil), needed(skills, going, stay)
	var out []string
	for name, e := range skills {
		if e.Dependency && !going[name] && before[name] && !after[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// leavesFirst orders names, skills of skills, so that each comes after
// the skills of names it requires (a cycle broken where found), else in
// the order given.
func leavesFirst(skills map[string]*lockEntry, names []string) []string {
	in := map[string]bool{}
	for _, n := range names {
		in[n] = true
	}
	seen := map[string]bool{}
	var out []string
	var visit func(name string)
	visit = func(name string) {
		if seen[name] || !in[name] {
			return
		}
		seen[name] = true
		for _, r := range skills[name].Requires {
			visit(r.Skill)
		}
		out = append(out, name)
	}
	for _, n := range names {
		visit(n)
	}
	return out
}

// requiredError is the error for a removal of the skill name, which the
// installed skills by still require.
func requiredError(name string, by []string) error {
	return fmt.Errorf("skill %q: %w: %s; remove those first, or force the removal", name, ErrRequired, strings.Join(by, ", "))
}

// unmet is what [Installer.Verify] reports of the requirements lock
// records that no installed skill answers: one Status with StateUnmet
// for each, by skill in order, then in the order the skill declares them.
func (in *Installer) unmet(lock *lockFile) []Status {
	var out []Status
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		for _, r := range lock.Skills[name].Requires {
			if r.Skill != "" && lock.Skills[r.Skill] != nil {
				continue
			}
			out = append(out, Status{Skill: name, Path: in.canonicalPath(name), State: StateUnmet, Requirement: redact.URL(r.Source)})
		}
	}
	return out
}
