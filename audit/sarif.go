package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// sarifLevel maps a severity to SARIF's level and GitHub's
// security-severity score (critical over 9.0, high 7.0-8.9, medium
// 4.0-6.9, low below 4.0).
func sarifLevel(s Severity) (level, score string) {
	switch s {
	case Critical:
		return "error", "9.5"
	case High:
		return "error", "8.0"
	case Medium:
		return "warning", "5.5"
	case Low:
		return "note", "3.0"
	}
	return "note", "1.0"
}

// writeSARIF is WriteSARIF: one run whose driver lists every rule, and a
// result per finding located by a relative URI and a start line (1 for a
// finding about a whole file).
func writeSARIF(w io.Writer, reports []Report) error {
	run := sarif.NewRunWithInformationURI("agentskills", "https://github.com/agentadaptor/agentadaptor")
	all := Rules()
	index := map[string]int{}
	for i, r := range all {
		level, score := sarifLevel(r.Severity)
		run.Tool.Driver.AddRule(sarif.NewRule(r.ID).
			WithName(ruleName(r.ID)).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.Summary)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(r.Summary)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(r.Help).WithMarkdown(r.Help)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(level)).
			WithProperties(sarif.NewPropertyBag().
				Add("security-severity", score).
				Add("severity", r.Severity.String()).
				WithTags([]string{"security", "agent-skill"})))
		index[r.ID] = i
	}
	run.Results = []*sarif.Result{}
	for _, rep := range reports {
		for _, f := range rep.Findings {
			i, ok := index[f.Rule]
			if !ok {
				return fmt.Errorf("%s: finding of unknown rule %q", rep.Skill, f.Rule)
			}
			level, _ := sarifLevel(f.Severity)
			msg := f.Message
			if f.Excerpt != "" {
				msg += ": " + f.Excerpt
			}
			if rep.Skill != "" {
				msg = rep.Skill + ": " + msg
			}
			uri := sarifURI(rep.Root, f.File)
			// A fingerprint that does not move with the line keeps an
			// alert one alert across runs, also for uploads through the
			// API, which computes none.
			sum := sha256.Sum256([]byte(f.Rule + "\x00" + uri + "\x00" + f.Excerpt + "\x00" + f.Message))
			run.AddResult(sarif.NewRuleResult(f.Rule).
				WithRuleIndex(i).
				WithPartialFingerprints(map[string]string{"agentskillsFinding/v1": hex.EncodeToString(sum[:16])}).
				WithLevel(level).
				WithMessage(sarif.NewTextMessage(msg)).
				AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri)).
					WithRegion(sarif.NewRegion().WithStartLine(max(f.Line, 1))))))
		}
		// The findings past the caps are one result per rule, on the
		// skill's SKILL.md, that counts them.
		for _, rule := range slices.Sorted(maps.Keys(rep.Omitted)) {
			level, _ := sarifLevel(severities[rule])
			msg := fmt.Sprintf("%s more findings of this rule, not listed: the audit lists at most %d of a rule and %d of a skill",
				thousands(rep.Omitted[rule]), maxPerRule, maxFindings)
			if rep.Skill != "" {
				msg = rep.Skill + ": " + msg
			}
			uri := sarifURI(rep.Root, "SKILL.md")
			sum := sha256.Sum256([]byte(rule + "\x00" + uri + "\x00omitted"))
			run.AddResult(sarif.NewRuleResult(rule).
				WithRuleIndex(index[rule]).
				WithPartialFingerprints(map[string]string{"agentskillsFinding/v1": hex.EncodeToString(sum[:16])}).
				WithLevel(level).
				WithMessage(sarif.NewTextMessage(msg)).
				AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri)).
					WithRegion(sarif.NewRegion().WithStartLine(1)))))
		}
	}
	log := sarif.NewReport()
	log.AddRun(run)
	if err := log.PrettyWrite(w); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	return nil
}

// sarifURI is a finding's file as a relative URI reference: the report's
// root and the file, slash-separated, each segment percent-encoded as a
// URI needs.
func sarifURI(root, file string) string {
	p := path.Join(filepath.ToSlash(root), file)
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = pathEscape(s)
	}
	return strings.Join(segs, "/")
}

// pathEscape percent-encodes what a URI path segment may not hold.
func pathEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// ruleName is a rule's id in the PascalCase SARIF viewers show.
func ruleName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
