package trust_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// setOf returns a set of an inline skill and a folder used in place, the
// skills a set's record vouches for (rule 12 of package skill), and the
// folder.
func setOf(t *testing.T) ([]skill.Skill, string) {
	dir := skillDir(t, "review")
	return []skill.Skill{skill.Inline("tone", skillMD("tone")), skill.Dir(dir)}, dir
}

// warm materializes skills as a set with m until the record of the set
// vouches for them: once, and again once the trees left the racy window.
func warm(t *testing.T, m *trust.Materializer, skills []skill.Skill) (dirs, digests []string) {
	t.Helper()
	if _, _, err := m.MaterializeSet(t.Context(), skills); err != nil {
		t.Fatal(err)
	}
	cachetest.Settle()
	dirs, digests, err := m.MaterializeSet(t.Context(), skills)
	if err != nil {
		t.Fatal(err)
	}
	return dirs, digests
}

// refusedBy returns the refusal of err, a *RefusedError, and fails the
// test when it is not one refusing the skill key.
func refusedBy(t *testing.T, err error, key string) trust.Refusal {
	t.Helper()
	var re *trust.RefusedError
	if !errors.As(err, &re) || len(re.Refusals) != 1 || re.Refusals[0].Key != key {
		t.Fatalf("MaterializeSet() = %v, want a *RefusedError of %q", err, key)
	}
	return re.Refusals[0]
}

// writeSkillMD replaces the SKILL.md of the folder dir.
func writeSkillMD(t *testing.T, dir, md string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// MaterializeSet returns what MaterializeContent of each skill returns,
// cold and warm, and checks every skill on every call: a folder changed
// after the record of its set was made, or swapped for another folder,
// is audited again and refused.
func TestMaterializeSetChecksEveryCall(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir := setOf(t)
	m := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), nil)
	dirs, digests := warm(t, m, skills)
	for i, s := range skills {
		dir, digest, err := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), nil).MaterializeContent(t.Context(), s)
		if err != nil || dir != dirs[i] || digest != digests[i] {
			t.Errorf("MaterializeContent(%s) = %q, %q, %v; want %q, %q as in the set", s.Key, dir, digest, err, dirs[i], digests[i])
		}
	}

	t.Run("changed after the record", func(t *testing.T) {
		writeSkillMD(t, dir, maliciousMD)
		_, _, err := m.MaterializeSet(t.Context(), skills)
		if r := refusedBy(t, err, "review"); len(r.Findings) == 0 || r.Findings[0].Rule != maliciousRule || r.Path != dir {
			t.Errorf("refusal = %+v, want a finding of %s in %s", r, maliciousRule, dir)
		}
		writeSkillMD(t, dir, skillMD("review"))
		warm(t, m, skills)
	})
	t.Run("folder swapped", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "review")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		writeSkillMD(t, other, maliciousMD)
		if err := os.Rename(dir, dir+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(other, dir); err != nil {
			t.Fatal(err)
		}
		_, _, err := m.MaterializeSet(t.Context(), skills)
		refusedBy(t, err, "review")
	})
}

// The policy is applied on every call, to a warm set too: the same set,
// warm in the cache with its reports kept, is refused by another
// checker's policy (its source), and by a checker that does not let
// through the findings another one let through (the kept report).
func TestMaterializeSetPolicyPerCall(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir := setOf(t)
	skills = append(skills, skill.Inline("helper", maliciousMD))
	allowing := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), trust.NewChecker(nil, trust.AllowRisks(maliciousRule)))
	warm(t, allowing, skills)

	elsewhere := mustPolicy(t, "version: 1\nsources:\n  allow: [local:"+filepath.ToSlash(filepath.Dir(dir))+"/other]\n")
	m := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), trust.NewChecker(elsewhere, trust.AllowRisks(maliciousRule)))
	_, _, err := m.MaterializeSet(t.Context(), skills)
	if r := refusedBy(t, err, "review"); r.Rule.Name != "sources.allow" || !errors.Is(err, policy.ErrDenied) {
		t.Errorf("refusal = %+v, want one by sources.allow", r)
	}

	strict := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), nil)
	_, _, err = strict.MaterializeSet(t.Context(), skills)
	if r := refusedBy(t, err, "helper"); len(r.Findings) == 0 || r.Findings[0].Rule != maliciousRule {
		t.Errorf("refusal = %+v, want the kept finding of %s", r, maliciousRule)
	}
	// The allowing checker still runs the set: the refusals were the
	// other checkers' own.
	if _, _, err := allowing.MaterializeSet(t.Context(), skills); err != nil {
		t.Errorf("MaterializeSet() with the findings allowed = %v", err)
	}
}

// A set that holds a skill the policy refuses is refused before any of
// its skills is written.
func TestMaterializeSetRefusesBeforeWriting(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir := setOf(t)
	p := mustPolicy(t, "version: 1\nsources:\n  allow: [local:"+filepath.ToSlash(filepath.Dir(dir))+"/other]\n")
	c := skill.NewCache(skill.WithSkillCacheRoot(root))
	_, _, err := trust.NewMaterializer(c, trust.NewChecker(p)).MaterializeSet(t.Context(), skills)
	refusedBy(t, err, "review")
	if entries, err := c.Entries(t.Context()); err != nil || len(entries) != 0 {
		t.Errorf("Entries() = %v, %v; want nothing written", entries, err)
	}
}

// A record of the set that is damaged, or another set's, vouches for
// nothing: the set's skills are checked one by one, and a changed folder
// is refused.
func TestMaterializeSetHostileRecord(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir := setOf(t)
	m := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), nil)
	warm(t, m, skills)
	warm(t, m, skills[1:]) // another set's record
	records, _ := filepath.Glob(filepath.Join(root, ".memo", "*.set"))
	if len(records) != 2 {
		t.Fatalf("records %q, want two", records)
	}
	for name, damage := range map[string]func(b []byte, other []byte) []byte{
		"cut short": func(b, _ []byte) []byte { return b[:len(b)/2] },
		"flipped":   func(b, _ []byte) []byte { b = slices.Clone(b); b[len(b)/3] ^= 1; return b },
		"another":   func(_, other []byte) []byte { return other },
	} {
		t.Run(name, func(t *testing.T) {
			b0, err0 := os.ReadFile(records[0])
			b1, err1 := os.ReadFile(records[1])
			if err0 != nil || err1 != nil {
				t.Fatal(err0, err1)
			}
			os.WriteFile(records[0], damage(b0, b1), 0o600)
			os.WriteFile(records[1], damage(b1, b0), 0o600)
			writeSkillMD(t, dir, maliciousMD)
			// A new materializer, which holds no record in memory.
			fresh := trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), nil)
			_, _, err := fresh.MaterializeSet(t.Context(), skills)
			refusedBy(t, err, "review")
			writeSkillMD(t, dir, skillMD("review"))
			warm(t, m, skills[1:])
			warm(t, m, skills)
		})
	}
}
