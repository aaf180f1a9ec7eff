package trust

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestPolicyAuditRemembered checks rule 6 of "Trust": the findings of a
// tree are remembered by its content digest, so a second materialization
// of the same content is not audited again. A finding planted in the
// memory refuses the skill: the memory, not a new audit, decided.
func TestPolicyAuditRemembered(t *testing.T) {
	next := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))
	m := NewMaterializer(next, nil)
	s := skill.Inline("tone", "---\nname: tone\ndescription: Answer warmly.\n---\nBe warm.\n")
	_, digest, err := m.MaterializeContent(t.Context(), s)
	if err != nil {
		t.Fatalf("MaterializeContent() = %v", err)
	}
	if r, ok := m.checker.reports.get(digest); !ok || len(r.Findings) != 0 {
		t.Fatalf("findings of %s = %v, %v; want none, remembered", digest, r.Findings, ok)
	}
	m.checker.reports.put(digest, audit.Report{Findings: []audit.Finding{{Rule: "planted", Severity: audit.Critical, File: "SKILL.md", Message: "planted"}}})
	_, _, err = m.MaterializeContent(t.Context(), s)
	var pe *RefusedError
	if !errors.As(err, &pe) || pe.Refusals[0].Findings[0].Rule != "planted" {
		t.Fatalf("second MaterializeContent() = %v, want the remembered finding to refuse it", err)
	}
}

// TestMemoBounded checks that the verdicts a policy remembers stay
// within maxVerdicts.
func TestMemoBounded(t *testing.T) {
	var m memo[audit.Report]
	for i := range maxVerdicts + 10 {
		m.put(fmt.Sprint(i), audit.Report{})
		if len(m.m) > maxVerdicts {
			t.Fatalf("after %d puts %d verdicts are remembered, want at most %d", i+1, len(m.m), maxVerdicts)
		}
	}
}

// TestReportMemoBounded checks that the reports a checker remembers hold
// at most maxRememberedFindings findings in all, and that a report over
// that alone is still remembered.
func TestReportMemoBounded(t *testing.T) {
	m := NewChecker(nil).reports
	rep := audit.Report{Findings: make([]audit.Finding, 400)}
	for i := range 2000 {
		m.put(fmt.Sprint(i), rep)
		held := 0
		for _, r := range m.m {
			held += len(r.Findings)
		}
		if held > maxRememberedFindings || held != m.held {
			t.Fatalf("after %d reports of 400 findings the memo holds %d (counts %d), want at most %d", i+1, held, m.held, maxRememberedFindings)
		}
	}
	m.put("huge", audit.Report{Findings: make([]audit.Finding, maxRememberedFindings+1)})
	if _, ok := m.get("huge"); !ok {
		t.Error("a report of more findings than the memo holds is not remembered alone")
	}
}

// getEach finds what get finds, key by key, under one lock.
func TestMemoGetEach(t *testing.T) {
	m := new(memo[int])
	m.put("a", 1)
	m.put("c", 3)
	values, found := m.getEach([]string{"a", "b", "c", ""})
	if want := []int{1, 0, 3, 0}; !slices.Equal(values, want) || !slices.Equal(found, []bool{true, false, true, false}) {
		t.Errorf("getEach() = %v, %v; want %v, [true false true false]", values, found, want)
	}
}
