package trust

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/source"
)

// AuditTree audits fsys, the tree of the skill named skill from o (rule
// 4), and returns the findings that refuse it, and the rules of
// [AllowRisks] that let at least one of its findings through, sorted:
// what a program that records them (package install's lock file)
// records for the skill's content.
func (c *Checker) AuditTree(fsys fs.FS, skill string, o source.Origin) (refusing audit.Report, allowed []string, err error) {
	return c.AuditContent(fsys, "", skill, o)
}

// AuditContent is [Checker.AuditTree] of a tree whose content digest
// the caller computed from the tree itself (skill.ContentDigest, or the
// skill cache's own digest of a tree it holds), never taken from a
// record such as a lock file: the report kept for digest and the audit
// rules' version is used without reading fsys, and a new one is kept
// (# Kept reports). The policy's threshold, its accepted findings and
// [AllowRisks] apply to it on each call, as to a new one. An empty
// digest is AuditTree.
func (c *Checker) AuditContent(fsys fs.FS, digest, skill string, o source.Origin) (refusing audit.Report, allowed []string, err error) {
	rep, err := c.report(fsys, digest)
	if err != nil {
		return audit.Report{}, nil, err
	}
	refusing, allowed = split(c.blocking(rep, skill, o), c.allowRisks)
	return refusing, allowed, nil
}

// LiftRecorded lets through the findings of rep, the refusing findings
// of the skill named skill from o, whose rule is one of rules: the rules
// a record of the caller's (package install's lock file, the project's
// word) allows for the skill's content. A rule of which the user's own
// policy file refuses a finding (policy rule 16) lifts nothing: only that
// file's audit.accept, or [AllowRisks] (the user naming the rule now),
// does. It returns the findings left and the rules that let at least one
// through, sorted.
func (c *Checker) LiftRecorded(rules []string, rep audit.Report, skill string, o source.Origin) (left audit.Report, lifted []string) {
	rules = slices.DeleteFunc(slices.Clone(rules), func(rule string) bool {
		for _, f := range rep.Findings {
			if f.Rule == rule {
				if _, refused := c.policy.UserRefusal(f, skill, o); refused {
					return true
				}
			}
		}
		return false
	})
	return split(rep, rules)
}

// AuditRefusal is the refusal of the skill named skill from src by rep,
// its refusing findings: its Reason lists them and says what to do,
// naming [AllowRisks] as [WithSettingNames] has c name it.
func (c *Checker) AuditRefusal(skill, src string, rep audit.Report) Refusal {
	return Refusal{Skill: skill, Source: src, Reason: auditReason(rep, c.names), Findings: rep.Findings, Omitted: rep.Omitted}
}

// auditReason says why findings refuse a skill, and what to do, naming
// the settings by names.
func auditReason(rep audit.Report, names settingNames) string {
	var parts []string
	for _, f := range rep.Findings {
		at := f.File
		if f.Line > 0 {
			at = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		parts = append(parts, fmt.Sprintf("%s (%s) at %s: %s", f.Rule, f.Severity, at, f.Message))
	}
	if more := rep.Omitted.String(); more != "" {
		parts = append(parts, more)
	}
	return fmt.Sprintf("the audit found %s; read the skill, and if you trust it, allow these rules by name (%s: %s) or accept the findings in the policy",
		strings.Join(parts, "; "), names.of(SettingAllowRisks), strings.Join(ruleIDs(rep.Findings, rep.Omitted), ", "))
}

// ruleIDs are the rules of findings, in order, then those of omitted,
// sorted, each once: the rules that let them all through.
func ruleIDs(findings []audit.Finding, omitted audit.Omitted) []string {
	var rules []string
	for _, f := range findings {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	for _, rule := range slices.Sorted(maps.Keys(omitted)) {
		if !slices.Contains(rules, rule) {
			rules = append(rules, rule)
		}
	}
	return rules
}

// Remember has c remember rep as the audit of the tree whose content
// digest (skill.ContentDigest) is digest, as its own audits are
// remembered (rule 6): a program that audited the tree as it wrote it
// (an audit.Scanner fed by its extraction) hands c the report, and c
// does not read the tree again. rep must be audit.Tree's report of that
// tree, as a Scanner's is. An empty digest is not remembered. Where c
// keeps reports on disk, rep is kept there too (# Kept reports).
func (c *Checker) Remember(digest string, rep audit.Report) {
	c.keep(digest, rep)
}
