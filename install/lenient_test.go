package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// frontMatter is a SKILL.md with these front matter lines.
func frontMatter(lines ...string) string {
	return "---\n" + strings.Join(lines, "\n") + "\n---\n# body\n"
}

// TestLenient checks rule 4's class of problems only the specification
// holds to: skipped by default, naming them (Change.Spec), installed with
// AddRequest.Lenient, with a warning, and recorded; every other problem is
// skipped either way.
func TestLenient(t *testing.T) {
	long := strings.Repeat("x", skillmd.MaxDescriptionLength+1)
	tests := []struct {
		name  string
		skill string
		spec  string // what breaks only the specification, or ""
		hard  bool   // a problem Lenient never lets through
	}{
		{name: "a description of 1,025 characters", skill: frontMatter("name: s", "description: "+long), spec: "Description exceeds 1024 character limit (1025 chars)"},
		{name: "a description of 1,024 characters is no problem", skill: frontMatter("name: s", "description: "+long[1:])},
		{name: "a compatibility of 501 characters", skill: frontMatter("name: s", "description: d", "compatibility: "+strings.Repeat("c", 501)), spec: "Compatibility exceeds 500 character limit (501 chars)"},
		{name: "a compatibility that is a list", skill: frontMatter("name: s", "description: d", "compatibility: [a, b]"), spec: "Field 'compatibility' must be a string"},
		{name: "both", skill: frontMatter("name: s", "description: "+long, "compatibility: [a]"), spec: "Description exceeds 1024 character limit (1025 chars); Field 'compatibility' must be a string"},
		{name: "no description", skill: frontMatter("name: s"), hard: true},
		{name: "a blank description", skill: frontMatter("name: s", "description: '  '"), hard: true},
		{name: "a description that is a list", skill: frontMatter("name: s", "description: [a]"), hard: true},
		{name: "no description and a long compatibility", skill: frontMatter("name: s", "compatibility: "+strings.Repeat("c", 501)), hard: true},
		{name: "an uppercase name", skill: frontMatter("name: S", "description: "+long), hard: true},
		{name: "a name with two hyphens", skill: frontMatter("name: a--b", "description: d"), hard: true},
		{name: "a name that cannot be a folder name", skill: frontMatter("name: '..'", "description: "+long), hard: true},
		{name: "YAML that does not parse", skill: "---\nname: [\n---\n", hard: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			repo := filepath.Join(f.sources, "repo")
			writeFiles(t, repo, map[string]string{"skills/s/SKILL.md": tt.skill, "skills/ok/SKILL.md": skillMD("ok")})
			in := lenientInstaller(f)
			changes, err := in.Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex")})
			if err != nil {
				t.Fatal(err)
			}
			skipped := changeOf(changes, ActionSkipped)
			switch {
			case tt.spec == "" && !tt.hard:
				if skipped != nil {
					t.Fatalf("Add skipped %+v, want it installed", skipped)
				}
				return
			case skipped == nil:
				t.Fatalf("Add = %v, want the skill skipped", actions(changes))
			case tt.hard && skipped.Spec != "":
				t.Errorf("skipped Spec = %q, want none: the problem is not only the specification's (%s)", skipped.Spec, skipped.Reason)
			case !tt.hard && (skipped.Spec != tt.spec || !strings.Contains(skipped.Reason, tt.spec)):
				t.Errorf("skipped Spec, Reason = %q, %q, want %q", skipped.Spec, skipped.Reason, tt.spec)
			}

			changes, err = in.Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex"), Lenient: true})
			if err != nil {
				t.Fatal(err)
			}
			lock, lerr := readLock(filepath.Join(f.env.Project, ".agents", lockName))
			if lerr != nil {
				t.Fatal(lerr)
			}
			if tt.hard {
				if changeOf(changes, ActionSkipped) == nil {
					t.Errorf("Add(Lenient) = %v, want the skill still skipped", actions(changes))
				}
				return
			}
			inst := changeOf(changes, ActionInstalled)
			if inst == nil || inst.Skill != "s" || inst.Agent != "" || inst.Spec != tt.spec {
				t.Errorf("Add(Lenient) = %+v, want s installed, its canonical change naming %q", changes, tt.spec)
			}
			if e := lock.Skills["s"]; e == nil || !e.Lenient {
				t.Errorf("lock entry of s = %+v, want it recorded as lenient", e)
			}
			if e := lock.Skills["ok"]; e == nil || e.Lenient {
				t.Errorf("lock entry of ok = %+v, want it not lenient", e)
			}
			if err := skillmd.Validate(filepath.Join(f.env.Project, ".agents", "skills", "s")); err == nil {
				t.Errorf("Validate(installed s) = nil, want it still strict")
			}
		})
	}
}

// changeOf returns the first change with action a, or nil.
func changeOf(changes []Change, a Action) *Change {
	for i := range changes {
		if changes[i].Action == a {
			return &changes[i]
		}
	}
	return nil
}

// TestLenientErrors checks what a request that leaves a skill out for
// the specification says: ErrSpecification beside ErrInvalidSource, when
// nothing is left and with Strict, which Lenient lets through.
func TestLenientErrors(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.sources, "repo")
	writeFiles(t, repo, map[string]string{"skills/long/SKILL.md": badSkillMD("long"), "skills/ok/SKILL.md": skillMD("ok"), "skills/bad/SKILL.md": frontMatter("name: bad")})
	in := lenientInstaller(f)
	for name, req := range map[string]AddRequest{
		"nothing left": {Skills: []string{"long"}},
		"strict":       {Strict: true, Skills: []string{"long", "ok"}},
	} {
		req.Sources, req.Agents = []string{repo}, agentsOf(t, "codex")
		if _, err := in.Add(t.Context(), req); !errors.Is(err, ErrInvalidSource) || !errors.Is(err, ErrSpecification) {
			t.Errorf("Add(%s) = %v, want ErrInvalidSource and ErrSpecification", name, err)
		}
		req.Lenient = true
		if _, err := in.Add(t.Context(), req); err != nil {
			t.Errorf("Add(%s, Lenient) = %v", name, err)
		}
	}
	// A problem of another kind is no ErrSpecification.
	_, err := in.Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex"), Skills: []string{"skills/bad"}, Lenient: true})
	if !errors.Is(err, ErrInvalidSource) || errors.Is(err, ErrSpecification) {
		t.Errorf("Add(a skill without description, Lenient) = %v, want ErrInvalidSource only", err)
	}
	// A checker of one's own has no such class: Lenient lets nothing through.
	custom := New(f.env, WithCache(in.cache), WithLockDir(in.lockDir), withChecker(defaultChecker))
	_, err = custom.Add(t.Context(), AddRequest{Sources: []string{repo}, Agents: agentsOf(t, "codex"), Skills: []string{"long"}, Lenient: true})
	if !errors.Is(err, ErrInvalidSource) || errors.Is(err, ErrSpecification) {
		t.Errorf("Add(Lenient) with withChecker = %v, want the skill refused as not usable", err)
	}
}

// TestLenientSync checks that the lock file's "lenient" keeps a skill
// installable by Sync, frozen or not, from a folder and from an archive,
// and that a skill recorded without it is refused.
func TestLenientSync(t *testing.T) {
	for _, kind := range []string{"folder", "archive"} {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t)
			src := filepath.Join(f.sources, "repo")
			files := map[string]string{"skills/long/SKILL.md": badSkillMD("long")}
			writeFiles(t, src, files)
			if kind == "archive" {
				src = filepath.Join(f.sources, "repo.tgz")
				os.WriteFile(src, testarchive.TarGzFiles(t, map[string]string{"o-r-1/skills/long/SKILL.md": badSkillMD("long")}), 0o644)
			}
			in := lenientInstaller(f)
			if _, err := in.Add(t.Context(), AddRequest{Sources: []string{src}, Agents: agentsOf(t, "claude-code"), Lenient: true}); err != nil {
				t.Fatal(err)
			}
			canonical := filepath.Join(f.env.Project, ".agents", "skills", "long")
			for _, frozen := range []bool{false, true} {
				os.RemoveAll(canonical)
				changes, err := in.Sync(t.Context(), SyncRequest{Frozen: frozen})
				if err != nil || changeOf(changes, ActionRepaired) == nil {
					t.Errorf("Sync(Frozen: %v) of a lenient skill = %v, %v, want it repaired", frozen, actions(changes), err)
				}
			}
			lockPath := filepath.Join(f.env.Project, ".agents", lockName)
			lock, err := readLock(lockPath)
			if err != nil || !lock.Skills["long"].Lenient {
				t.Fatalf("lock after Sync = %+v, %v, want long still lenient", lock, err)
			}
			data := strings.Replace(readFile(t, lockPath), `"lenient": true`, `"lenient": false`, 1)
			os.WriteFile(lockPath, []byte(data), 0o644)
			os.RemoveAll(canonical)
			_, err = in.Sync(t.Context(), SyncRequest{})
			if !errors.Is(err, ErrInvalidSource) || !errors.Is(err, ErrSpecification) || !strings.Contains(err.Error(), "does not record it as installed leniently") {
				t.Errorf("Sync of a skill recorded without lenient = %v, want ErrInvalidSource and ErrSpecification", err)
			}
			if _, err := os.Lstat(canonical); err == nil {
				t.Errorf("a refused sync restored %s", canonical)
			}
		})
	}
}
