package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requiring is a SKILL.md of name requiring reqs.
func requiring(name string, reqs ...string) string {
	md := "---\nname: " + name + "\ndescription: The " + name + " skill.\n"
	if len(reqs) > 0 {
		md += "metadata:\n  requires: \"" + strings.Join(reqs, " ") + "\"\n"
	}
	return md + "---\n# " + name + "\n"
}

// TestAddRequires checks add's requirements at the command line: add
// installs what a skill requires and says which skill required it;
// --no-requires installs the skill named alone; a cycle fails with exit
// 1, naming it, and nothing changes.
func TestAddRequires(t *testing.T) {
	project := isolatedHome(t)
	src := t.TempDir()
	writeSkill(t, src, "release", requiring("release", "../changelog"))
	writeSkill(t, src, "changelog", requiring("changelog", "../semver"))
	writeSkill(t, src, "semver", requiring("semver"))
	writeSkill(t, src, "loop", requiring("loop", "."))

	code, out, errs := runHere(t, "add", filepath.Join(src, "release"), "-a", "codex", "--no-requires")
	if code != 0 || strings.Contains(out, "changelog") || !strings.Contains(out, "installed release (canonical copy)") {
		t.Fatalf("add --no-requires = %d\n%s%s; want release alone", code, out, errs)
	}
	code, out, errs = runHere(t, "add", filepath.Join(src, "release"), "-a", "codex")
	if code != 0 || !strings.Contains(out, "installed changelog (canonical copy, required by release)") || !strings.Contains(out, "installed semver (canonical copy, required by changelog)") {
		t.Fatalf("add = %d\n%s%s; want changelog and semver installed, each saying what required it", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Skills map[string]struct {
			Requires   []struct{ Source, Skill string }
			RequiredBy []string `json:"required_by"`
			Dependency bool
		}
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	if c := lock.Skills["changelog"]; !c.Dependency || len(c.RequiredBy) != 1 || c.RequiredBy[0] != "release" || len(c.Requires) != 1 || c.Requires[0].Skill != "semver" {
		t.Errorf("lock's changelog = %+v; want a dependency required by release, requiring semver", c)
	}
	code, out, errs = runHere(t, "add", filepath.Join(src, "loop"), "-a", "codex", "--json")
	if code != 1 || !strings.Contains(errs, "the requirements make a cycle, loop -> loop") || !strings.Contains(out, `"code": "failed"`) && !strings.Contains(out, `"code":"failed"`) {
		t.Errorf("add of a cycle = %d\n%s%s; want exit 1 naming the cycle", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "loop")); !os.IsNotExist(err) {
		t.Errorf("a refused add installed loop (%v)", err)
	}
}
