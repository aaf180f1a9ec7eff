package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentadaptor/agentadaptor/internal/redact"
)

// Layer is one file of the effective policy, with where it comes from:
// for `agentskills policy show` (rule 22).
type Layer struct {
	// File locates the file's rules: its path, or SOURCE@PIN for a file
	// fetched because another extends it.
	File string
	// Project reports whether it is the project's file or one the
	// project's extends (false: the user's, or one the user's extends).
	Project bool
	// Chain names the files from the one loaded to this one, this one
	// last: [~/.agents/agentskills.policy.yaml, SOURCE@PIN, ...].
	Chain []string
	// Extends is the source the file extends, "" for none.
	Extends string
	// Fetched is the file as it was fetched, for a file another extends;
	// its Data is nil here.
	Fetched *Extended
}

// Layers returns the files of the policy, each with its chain: the
// user's chain first, the file extended last first within a chain.
func (p *Policy) Layers() []Layer {
	var out []Layer
	for _, f := range p.files {
		l := Layer{File: f.path, Project: f.project, Chain: slices.Clone(f.ext.chain), Extends: redact.URL(f.ext.source)}
		if len(l.Chain) == 0 {
			l.Chain = []string{f.path}
		}
		if f.ext.fetched.Source != "" {
			e := f.ext.fetched
			e.Data = nil
			l.Fetched = &e
		}
		out = append(out, l)
	}
	return out
}

// Entry is one rule of one file of the policy, with where it comes from
// (rule 22): what `agentskills policy show` prints.
type Entry struct {
	// Rule names the rule and its file and line.
	Rule
	// Value is what the rule says, on one line: a text of the file that
	// holds a control character (a newline, an escape) is written quoted,
	// with Go's escapes, so that it cannot pass for other lines or
	// rewrite the terminal; a URL's credentials are left out.
	Value string
	// Chain is the chain of the rule's file ([Layer].Chain).
	Chain []string
}

// Entries returns every rule of every file of the policy, in the order
// of [Policy.Layers], each file's in the order of the format (rule 1).
// Every rule of every file applies (rules 11 to 14, 21).
func (p *Policy) Entries() []Entry {
	var out []Entry
	for _, f := range p.files {
		chain := f.ext.chain
		if len(chain) == 0 {
			chain = []string{f.path}
		}
		add := func(name string, line int, value string) {
			out = append(out, Entry{Rule: Rule{Name: name, File: f.path, Line: line}, Value: oneLine(value), Chain: chain})
		}
		if f.ext.source != "" {
			add("extends", f.ext.line, redact.URL(f.ext.source))
		}
		if f.hasAllow && len(f.allow) == 0 {
			add("sources.allow", f.allowLine, "[] (no source is allowed)")
		}
		for _, pat := range f.allow {
			add("sources.allow", pat.line, pat.text)
		}
		if f.pinnedLine > 0 {
			add("sources.pinned", f.pinnedLine, fmt.Sprint(f.pinned))
		}
		for _, r := range f.signers {
			add(r.Name, r.Line, r.describe())
		}
		if f.failOnLine > 0 {
			add("audit.fail_on", f.failOnLine, f.failOn.String())
		}
		for _, e := range f.accept {
			add(e.Name, e.Line, e.describe())
		}
		for _, r := range f.required {
			add(r.Name, r.Line, r.describe())
		}
	}
	return out
}

// oneLine returns s, or s quoted with Go's escapes when it holds a
// character that is not graphic (a newline, a terminal escape): a value
// shown on one line cannot pass for another line.
func oneLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// describe says what a required entry requires, on one line.
func (r Requirement) describe() string {
	s := r.Source
	if len(r.Agents) > 0 {
		s += " for " + strings.Join(r.Agents, ", ")
	}
	if r.Reason != "" {
		s += ": " + strings.Join(strings.Fields(r.Reason), " ")
	}
	return s
}

// describe says what a signers rule requires, on one line.
func (r *signerRule) describe() string {
	what := "signed by"
	if r.commits {
		what = "commits signed by"
	}
	return fmt.Sprintf("%s %s %s", strings.Join(r.patternTexts(), ", "), what, strings.Join(r.signers(false), " or "))
}

// signers names who may sign for r, each a key, an identity and its
// issuer (with the root, when markRoot and r names no trusted root of
// its own), or a commit signers file.
func (r *signerRule) signers(markRoot bool) []string {
	var who []string
	for _, k := range r.keys {
		who = append(who, "key "+k.name)
	}
	if r.identity != "" || r.identityRE != "" {
		id := "identity " + r.identity
		if r.identityRE != "" {
			id = "identity matching " + r.identityRE
		}
		if r.issuer != "" {
			id += " issued by " + r.issuer
		} else {
			id += " issued by one matching " + r.issuerRE
		}
		if markRoot && r.trustedRoot == nil {
			id += " (Sigstore public-good root)"
		}
		who = append(who, id)
	}
	if r.commits {
		for _, k := range []string{r.allowedSigners, r.gpgKeyring} {
			if k != "" {
				who = append(who, "a key of "+k)
			}
		}
	}
	return who
}

// describe says what an audit.accept entry accepts, on one line.
func (e acceptEntry) describe() string {
	s := e.rule
	if e.skill != "" {
		s += " in skill " + e.skill
	}
	if e.source != nil {
		s += " from " + e.source.text
	}
	return s + ": " + strings.Join(strings.Fields(e.reason), " ")
}
