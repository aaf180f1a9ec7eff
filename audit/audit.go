// Package audit checks a skill's whole tree, locally and deterministically,
// for the patterns published malicious skills use: hidden or deceptive
// Unicode, terminal escapes, download-and-execute, "prerequisite" installs
// from a URL, credential reads, exfiltration, instruction overrides,
// executables and binaries, links, and files larger than instructions need.
//
// (The package doc is the design: every rule, numbered, with its id,
// severity and why. To be written by the package's implementation.)
package audit

import (
	"errors"
	"io"
	"io/fs"
)

// Severity ranks a finding.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

// String returns the severity's name: "info", "low", "medium", "high",
// "critical".
func (s Severity) String() string { panic("unimplemented") }

// ParseSeverity reads a severity's name (as String writes it, any case).
func ParseSeverity(name string) (Severity, error) { panic("unimplemented") }

// Rule is one check.
type Rule struct {
	// ID names the rule in findings, SARIF, --allow-risk and policies:
	// lower-case words joined by hyphens, e.g. "download-exec".
	ID string
	// Severity is the severity of its findings.
	Severity Severity
	// Summary says in one line what the rule finds.
	Summary string
	// Help says why it matters and what to do.
	Help string
}

// Rules returns every rule, sorted by ID.
func Rules() []Rule { panic("unimplemented") }

// Finding is one match of a rule in a file.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is the path of the file in the skill's tree, slash-separated.
	File string `json:"file"`
	// Line is the 1-based line of the match; 0 for a finding about a
	// whole file (a binary, a link, a size).
	Line int `json:"line,omitempty"`
	// Excerpt is the matched text with its context, control and
	// invisible characters escaped (\x1b, \u202e, ...).
	Excerpt string `json:"excerpt,omitempty"`
	// Message says what was found.
	Message string `json:"message"`
}

// ErrTooLarge: the tree is beyond the audit's own limits.
var ErrTooLarge = errors.New("audit: tree too large")

// Tree audits a skill's tree (SKILL.md at its root) and returns its
// findings, sorted by file, line and rule. The same tree always gives the
// same findings.
func Tree(fsys fs.FS) ([]Finding, error) { panic("unimplemented") }

// Max returns the highest severity among findings, and false when there
// are none.
func Max(findings []Finding) (Severity, bool) { panic("unimplemented") }

// Report is the audit of one skill, for output.
type Report struct {
	// Skill is the skill's name.
	Skill string `json:"skill"`
	// Source is where it came from, as the user named it.
	Source string `json:"source,omitempty"`
	// Root is the folder the Findings' files are relative to, as shown
	// to the user (and as SARIF's artifact locations are written).
	Root     string    `json:"root,omitempty"`
	Findings []Finding `json:"findings"`
}

// WriteSARIF writes reports as one SARIF 2.1.0 log that GitHub code
// scanning accepts.
func WriteSARIF(w io.Writer, reports []Report) error { panic("unimplemented") }
