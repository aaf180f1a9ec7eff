package launch

import (
	"errors"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestCheckListed(t *testing.T) {
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{
		{RuntimeName: "a", Path: "/s/a"}, {RuntimeName: "b", Path: "/s/b"}, {RuntimeName: "c", Path: "/s/c"},
	}}
	if err := CheckListed([]string{"c", "b", "a", "x"}, rs, nil, nil); err != nil {
		t.Fatalf("all listed: %v", err)
	}
	var nm *driver.NotMountedError
	err := CheckListed([]string{"b"}, rs, nil, nil)
	if !errors.As(err, &nm) || !slices.Equal(nm.Missing, []string{"a", "c"}) || !slices.Equal(nm.Reported, []string{"b"}) {
		t.Fatalf("got %v, want a and c missing with b reported", err)
	}
	// By the listed name, and an optional skill may be left out; optional
	// is asked only of a skill not listed.
	var asked []string
	name := func(e driver.ResolvedSkill) string { return "n-" + e.RuntimeName }
	optional := func(e driver.ResolvedSkill) bool { asked = append(asked, e.RuntimeName); return e.RuntimeName == "c" }
	err = CheckListed([]string{"n-b", "a"}, rs, name, optional)
	if !errors.As(err, &nm) || !slices.Equal(nm.Missing, []string{"a"}) {
		t.Fatalf("got %v, want a missing", err)
	}
	if !slices.Equal(asked, []string{"a", "c"}) {
		t.Fatalf("optional asked of %v, want [a c]", asked)
	}
	if !errors.Is(err, driver.ErrSkillsNotMounted) {
		t.Fatalf("%v is not driver.ErrSkillsNotMounted", err)
	}
}
