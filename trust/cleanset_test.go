package trust_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/trust"
)

// cleanRecords returns the records of clean sets kept under root
// (# Kept reports, rule 8).
func cleanRecords(t *testing.T, root string) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(root, ".memo", "*.folder"))
	var out []string
	for _, name := range names {
		if b, err := os.ReadFile(name); err == nil && bytes.HasPrefix(b, []byte("agentadaptor clean set v1\n")) {
			out = append(out, name)
		}
	}
	return out
}

// keptReports returns the kept reports under root.
func keptReports(t *testing.T, root string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, ".audit", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// removeReports removes every kept report under root.
func removeReports(t *testing.T, root string) {
	t.Helper()
	for _, name := range keptReports(t, root) {
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
	}
}

// newMaterializer returns a materializer over a new skill cache at root,
// as a new process makes: it remembers nothing.
func newMaterializer(root string, c *trust.Checker) *trust.Materializer {
	return trust.NewMaterializer(skill.NewCache(skill.WithSkillCacheRoot(root)), c)
}

// A set whose every tree was audited clean is kept so (# Kept reports,
// rule 8): a new process recalls no report of it, and reads none of its
// trees; a tree changed since is another set, whose trees are recalled
// or audited, and a malicious one is refused, by the materializer that
// remembers the set and by a new one.
func TestCleanSetRecalled(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir := setOf(t)
	m := newMaterializer(root, nil)
	dirs, digests := warm(t, m, skills)
	if records := cleanRecords(t, root); len(records) != 1 {
		t.Fatalf("records of clean sets %q, want one", records)
	}
	removeReports(t, root)
	gotDirs, gotDigests, err := newMaterializer(root, nil).MaterializeSet(t.Context(), skills)
	if err != nil || !slices.Equal(gotDirs, dirs) || !slices.Equal(gotDigests, digests) {
		t.Fatalf("MaterializeSet() in a new process = %q, %q, %v; want %q, %q", gotDirs, gotDigests, err, dirs, digests)
	}
	if reports := keptReports(t, root); len(reports) != 0 {
		t.Errorf("a new process kept reports %q of a set kept clean, want none recalled or made", reports)
	}

	writeSkillMD(t, dir, maliciousMD)
	for name, m := range map[string]*trust.Materializer{"the same": m, "a new": newMaterializer(root, nil)} {
		_, _, err := m.MaterializeSet(t.Context(), skills)
		if r := refusedBy(t, err, "review"); len(r.Findings) == 0 || r.Findings[0].Rule != maliciousRule {
			t.Errorf("%s materializer: refusal = %+v, want a finding of %s", name, r, maliciousRule)
		}
	}
	// A set that gains a malicious skill is another set too.
	writeSkillMD(t, dir, skillMD("review"))
	_, _, err = m.MaterializeSet(t.Context(), append(slices.Clone(skills), skill.Inline("helper", maliciousMD)))
	refusedBy(t, err, "helper")
}

// A set kept clean is still checked against each checker's policy on
// every call (rules 1 to 3): another policy that does not allow its
// folder's source refuses it, in the process that kept it and in a new
// one. A stricter audit threshold refuses nothing in it: its trees have
// no finding.
func TestCleanSetPolicyPerCall(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir := setOf(t)
	warm(t, newMaterializer(root, nil), skills)
	removeReports(t, root)

	elsewhere := trust.NewChecker(mustPolicy(t, "version: 1\nsources:\n  allow: [local:"+filepath.ToSlash(filepath.Dir(dir))+"/other]\n"))
	_, _, err := newMaterializer(root, elsewhere).MaterializeSet(t.Context(), skills)
	if r := refusedBy(t, err, "review"); r.Rule.Name != "sources.allow" {
		t.Errorf("refusal = %+v, want one by sources.allow", r)
	}
	strict := trust.NewChecker(mustPolicy(t, "version: 1\naudit:\n  fail_on: low\n"))
	if _, _, err := newMaterializer(root, strict).MaterializeSet(t.Context(), skills); err != nil {
		t.Errorf("MaterializeSet() with fail_on: low = %v, want the clean set allowed", err)
	}
}

// A set is kept clean only when no tree of it has a finding: a set let
// through by AllowRisks, or by the policy's accepted findings, is not,
// and a checker without them refuses it, in a new process and again on
// a second call; a refused set is never kept clean.
func TestCleanSetNeverForFindings(t *testing.T) {
	root := cachetest.Root(t)
	skills, _ := setOf(t)
	skills = append(skills, skill.Inline("helper", maliciousMD))
	accepting := mustPolicy(t, "version: 1\naudit:\n  accept:\n    - rule: "+maliciousRule+"\n      skill: helper\n      reason: our own installer\n")
	for name, c := range map[string]*trust.Checker{
		"allowed risk":     trust.NewChecker(nil, trust.AllowRisks(maliciousRule)),
		"accepted finding": trust.NewChecker(accepting),
	} {
		t.Run(name, func(t *testing.T) {
			allowing := newMaterializer(root, c)
			warm(t, allowing, skills)
			if records := cleanRecords(t, root); len(records) != 0 {
				t.Errorf("records of clean sets %q after a set with a finding was let through, want none", records)
			}
			strict := newMaterializer(root, nil)
			for range 2 {
				_, _, err := strict.MaterializeSet(t.Context(), skills)
				refusedBy(t, err, "helper")
			}
			if records := cleanRecords(t, root); len(records) != 0 {
				t.Errorf("records of clean sets %q after a refusal, want none", records)
			}
			if _, _, err := allowing.MaterializeSet(t.Context(), skills); err != nil {
				t.Errorf("MaterializeSet() with the finding let through = %v", err)
			}
		})
	}
}

// A materializer that recalled a set's reports one by one writes the
// index of those it found empty (# Kept reports, rule 7), so a later
// process that meets another set of the same trees stats each report
// rather than reading it.
func TestMaterializerKeepsIndex(t *testing.T) {
	root := cachetest.Root(t)
	if bootid.ID() == "" || !cache.StampableFS(root) {
		t.Skip("no index is kept here: no boot id, or a file system whose stamps cannot stand for reading")
	}
	skills, _ := setOf(t)
	warm(t, newMaterializer(root, nil), skills)
	for _, name := range cleanRecords(t, root) {
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
	}
	cachetest.Settle() // the kept reports out of the racy window
	if _, _, err := newMaterializer(root, nil).MaterializeSet(t.Context(), skills); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(root, ".memo", "*.folder"))
	var indexed bool
	for _, name := range names {
		if b, err := os.ReadFile(name); err == nil && bytes.HasPrefix(b, []byte("agentadaptor audit report index v1\n")) {
			indexed = bytes.Count(b, []byte("\n")) == 2+len(skills)+1
		}
	}
	if !indexed {
		t.Errorf("records %q: no index of the set's %d empty reports", names, len(skills))
	}
}
