package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The SARIF 2.1.0 log, as far as the audit writes it: each type holds
// the properties of its object that the audit sets, named as the
// specification names them, and leaves out every property it does not
// set (omitempty), so that a reader sees no default written out (-1
// indexes, empty arrays). The specification's required properties are
// written always: version and runs; a run's tool and its driver's name;
// a rule's id; a result's message; an invocation's executionSuccessful; a
// notification's message. Results are written always, also when empty:
// an empty array says the tool ran and found nothing.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules,omitempty"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name,omitempty"`
	ShortDescription     *sarifText         `json:"shortDescription,omitempty"`
	FullDescription      *sarifText         `json:"fullDescription,omitempty"`
	Help                 *sarifText         `json:"help,omitempty"`
	DefaultConfiguration *sarifRuleConfig   `json:"defaultConfiguration,omitempty"`
	Properties           *sarifRuleProperty `json:"properties,omitempty"`
}

// sarifText is a message or a multiformat message string: its text, and
// for a rule's help the same text as Markdown, which viewers prefer.
type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level,omitempty"`
}

// sarifRuleProperty is a rule's property bag: GitHub code scanning reads
// security-severity (a score as a string) and the tags.
type sarifRuleProperty struct {
	SecuritySeverity string   `json:"security-severity,omitempty"`
	Severity         string   `json:"severity,omitempty"`
	Tags             []string `json:"tags,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"` // always a rule's: 0 is the first
	Level               string            `json:"level,omitempty"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level,omitempty"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

// sarifSchema is the SARIF 2.1.0 schema's address, which the log names.
const sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Option configures [WriteSARIF].
type Option func(*sarifConfig)

// sarifConfig is what the options set.
type sarifConfig struct {
	toolVersion string
}

// WithToolVersion names the version of the program that writes the log,
// as the log's tool.driver.version. Default: none, and the log has no
// version of its tool.
func WithToolVersion(v string) Option {
	return func(c *sarifConfig) { c.toolVersion = v }
}

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
// finding about a whole file); a report with an Error is a notification
// of the run's one invocation, which then did not succeed.
func writeSARIF(w io.Writer, reports []Report, opts ...Option) error {
	var cfg sarifConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	driver := sarifDriver{Name: "agentskills", Version: cfg.toolVersion, InformationURI: "https://github.com/agentadaptor/agentadaptor"}
	index := map[string]int{}
	for i, r := range Rules() {
		level, score := sarifLevel(r.Severity)
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.ID,
			Name:                 ruleName(r.ID),
			ShortDescription:     &sarifText{Text: r.Summary},
			FullDescription:      &sarifText{Text: r.Summary},
			Help:                 &sarifText{Text: r.Help, Markdown: r.Help},
			DefaultConfiguration: &sarifRuleConfig{Level: level},
			Properties:           &sarifRuleProperty{SecuritySeverity: score, Severity: r.Severity.String(), Tags: []string{"security", "agent-skill"}},
		})
		index[r.ID] = i
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, rep := range reports {
		if rep.Error != "" {
			msg := "not audited: " + rep.Error
			if rep.Skill != "" {
				msg = rep.Skill + ": " + msg
			}
			n := sarifNotification{Level: "error", Message: sarifText{Text: msg}}
			if rep.Root != "" {
				n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: sarifURI(rep.Root, "")}}}}
			}
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
		}
		for _, f := range rep.Findings {
			i, ok := index[f.Rule]
			if !ok {
				return fmt.Errorf("%s: finding of unknown rule %q", rep.Skill, f.Rule)
			}
			msg := f.Message
			if f.Excerpt != "" {
				msg += ": " + f.Excerpt
			}
			uri := sarifURI(rep.Root, f.File)
			// A fingerprint that does not move with the line keeps an
			// alert one alert across runs, also for uploads through the
			// API, which computes none.
			sum := sha256.Sum256([]byte(f.Rule + "\x00" + uri + "\x00" + f.Excerpt + "\x00" + f.Message))
			run.Results = append(run.Results, sarifResultOf(f.Rule, i, f.Severity, rep.Skill, msg, uri, max(f.Line, 1), sum))
		}
		// The findings past the caps are one result per rule, on the
		// skill's SKILL.md, that counts them.
		for _, rule := range slices.Sorted(maps.Keys(rep.Omitted)) {
			msg := fmt.Sprintf("%s more findings of this rule, not listed: the audit lists at most %d of a rule and %d of a skill",
				thousands(rep.Omitted[rule]), maxPerRule, maxFindings)
			uri := sarifURI(rep.Root, "SKILL.md")
			sum := sha256.Sum256([]byte(rule + "\x00" + uri + "\x00omitted"))
			run.Results = append(run.Results, sarifResultOf(rule, index[rule], severities[rule], rep.Skill, msg, uri, 1, sum))
		}
	}
	run.Invocations = []sarifInvocation{inv}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("write SARIF: %w", err)
	}
	return nil
}

// sarifResultOf is the result of rule (the driver's rule index) at
// severity in skill, saying msg, at line of uri, with the fingerprint
// sum.
func sarifResultOf(rule string, index int, severity Severity, skill, msg, uri string, line int, sum [sha256.Size]byte) sarifResult {
	level, _ := sarifLevel(severity)
	if skill != "" {
		msg = skill + ": " + msg
	}
	return sarifResult{
		RuleID:              rule,
		RuleIndex:           index,
		Level:               level,
		Message:             sarifText{Text: msg},
		Locations:           []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri}, Region: &sarifRegion{StartLine: line}}}},
		PartialFingerprints: map[string]string{"agentskillsFinding/v1": hex.EncodeToString(sum[:16])},
	}
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
