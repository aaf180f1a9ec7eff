package policy

import (
	"crypto"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/source"
)

// FileName is the policy file's name, under a scope's .agents folder.
const FileName = "agentskills.policy.yaml"

// MaxFileSize is the largest policy file read, and the largest key or
// trusted root one names (rules 1 and 8): 256 KiB, far beyond any real
// policy, small enough that a hostile file costs nothing.
const MaxFileSize = 256 << 10

// ErrDenied is wrapped by every refusal ([*DeniedError]).
var ErrDenied = errors.New("denied by the policy")

// ErrInvalid is wrapped by the error for a policy file that does not
// parse or says something impossible; it names the file and line.
var ErrInvalid = errors.New("invalid policy file")

// DeniedError is a refusal: the rule that refused and the file it is in.
type DeniedError struct {
	// source.Origin is the source refused, as the user named it.
	Source string
	// Rule names the rule in the user's words ("sources.allow",
	// "sources.pinned", "signers[2]", "audit.fail_on").
	Rule string
	// File and Line locate the rule.
	File string
	Line int
	// Reason says what failed and what the user can do.
	Reason string
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("%s: %v: %s", e.Source, ErrDenied, e.why())
}

// why is the refusal without its source: RULE (FILE:LINE): REASON.
func (e *DeniedError) why() string {
	r := Rule{Name: e.Rule, File: e.File, Line: e.Line}
	return r.String() + ": " + e.Reason
}

func (e *DeniedError) Unwrap() error { return ErrDenied }

// where locates a rule: FILE:LINE, or the file alone when the line is
// not known, or "the default" for no file.
func where(file string, line int) string {
	switch {
	case file == "":
		return "the default"
	case line <= 0:
		return file
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// Rule locates one rule of a policy file, for a caller that refuses by it
// (a signer not found, a commit not signed, an audit finding).
type Rule struct {
	// Name is the rule in the user's words: "sources.allow",
	// "signers[2]" (counted from 1), "audit.fail_on", "audit.accept[1]".
	Name string
	// File and Line locate it; Line is 0 for the default of a file that
	// does not say (audit.fail_on), and File is "" for the default of no
	// file.
	File string
	Line int
}

// String returns "NAME (FILE:LINE)".
func (r Rule) String() string { return fmt.Sprintf("%s (%s)", r.Name, where(r.File, r.Line)) }

// Deny returns the refusal of s by r, with the reason: what failed and
// what the user can do.
func (r Rule) Deny(s source.Origin, reason string) *DeniedError {
	return &DeniedError{Source: s.String(), Rule: r.Name, File: r.File, Line: r.Line, Reason: reason}
}

// canonical returns s with its location made canonical (rule 15), and
// the reason a source of kind "unknown" is refused; a location of kind
// oci, git, github or url that cannot be made canonical gives a source
// of kind "unknown", which every rule that could apply refuses (rule 5),
// with a reason saying why.
func canonical(s source.Origin) (source.Origin, string) {
	if !published(s) {
		return s, unknownReason
	}
	kind, loc, err := source.CanonicalLocation(s.Kind, s.Location)
	if err != nil {
		return source.Origin{Kind: source.Unknown, Pinned: s.Pinned, Display: s.String()},
			fmt.Sprintf("the source's location cannot be made canonical, so no rule can be matched against it (%v); write the source in a form whose location can", err)
	}
	s.Kind, s.Location = kind, loc
	return s, unknownReason
}

// published reports whether s is a published source (rule 4).
func published(s source.Origin) bool {
	switch s.Kind {
	case source.GitHub, source.Git, source.OCI, source.URL:
		return true
	}
	return false
}

// Policy is the effective policy of one scope. The zero Policy, and one
// loaded where no file exists, allows every source, requires no signer
// and fails on audit findings of high severity or above. It is not
// changed once built and is safe for concurrent use.
type Policy struct {
	files []*rules // the user's first
}

// Load reads the user's policy (under home; "" for none) and the
// project's (under projectRoot; "" for none) and returns them combined
// (rules 11 to 14). A missing file is no rules; a file that does not
// parse is [ErrInvalid], and so is one that extends another (rule 18),
// which [LoadWith] reads.
func Load(home, projectRoot string) (*Policy, error) {
	return LoadWith(home, projectRoot, LoadOptions{})
}

// Parse reads one policy file's content; file names it in errors, and
// the files it names relative are found in file's folder. ~ is the home
// of [os.UserHomeDir].
func Parse(data []byte, file string) (*Policy, error) {
	home, _ := os.UserHomeDir()
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrInvalid, file, MaxFileSize)
	}
	f, err := parse(data, file, home)
	if err != nil {
		return nil, err
	}
	if _, err := extendChain(f, home, true, nil, LoadOptions{}); err != nil {
		return nil, err // it extends another, which Parse cannot fetch
	}
	return &Policy{files: []*rules{f}}, nil
}

// Files returns the files p was read from, user's first.
func (p *Policy) Files() []string {
	var out []string
	for _, f := range p.files {
		out = append(out, f.path)
	}
	return out
}

// Check says whether s is allowed (sources.allow, sources.pinned): nil, or
// a [*DeniedError].
func (p *Policy) Check(s source.Origin) error {
	if !knownKind(s.Kind) && s.Kind != source.Inline && s.Kind != source.Unknown {
		return &DeniedError{Source: s.String(), Rule: "source.kind", Reason: fmt.Sprintf("kind %q is not a kind of source the policy knows (%s, inline)", s.Kind, kindList)}
	}
	s, why := canonical(s)
	for _, f := range p.files {
		if _, err := f.allowed(s, why); err != nil {
			return err
		}
	}
	if s.Kind == source.Unknown {
		// No pattern names it, so no rule can be known not to apply.
		for _, f := range p.files {
			switch {
			case f.pinned:
				return Rule{Name: "sources.pinned", File: f.path, Line: f.pinnedLine}.Deny(s, why)
			case len(f.signers) > 0:
				return f.signers[0].Rule.Deny(s, why)
			}
		}
		return nil
	}
	if r, ok := p.pinRule(s); ok && !s.Pinned {
		return r.Deny(s, "the source names no immutable version; name one (github:OWNER/REPO@COMMIT, oci://HOST/REPO@sha256:DIGEST, URL#sha256=HEX, a git source's commit)")
	}
	return nil
}

// unknownReason is why a source of kind "unknown" is refused (rule 5).
const unknownReason = "the skill's source does not say where it comes from (an archive, or a source of its own type, without an Origin method), so the policy cannot tell whether its rules allow it; give it an origin: build it with Artifact.Skill of package source/oci, Client.Skill of source/git or source/github, skill.Dir for a folder, or implement source.OriginSource on the source"

// pinRule returns the first sources.pinned rule that applies to s.
func (p *Policy) pinRule(s source.Origin) (Rule, bool) {
	if !published(s) {
		return Rule{}, false
	}
	for _, f := range p.files {
		if f.pinned {
			return Rule{Name: "sources.pinned", File: f.path, Line: f.pinnedLine}, true
		}
	}
	return Rule{}, false
}

// SignerRule is one signers rule that applies to a source: satisfied by
// a signature that matches any of its Requirements.
type SignerRule struct {
	Rule
	// Sources are the patterns the rule names, in the policy's notation
	// KIND:LOCATION, their locations canonical (rules 3 and 15):
	// oci:GHCR.IO:443/acme/* is oci:ghcr.io/acme/*.
	Sources      []string
	Requirements []Signer
}

// Signer is one signer a signers rule accepts, as the policy file names
// it: a public key, or a keyless identity and issuer. It is plain data:
// the caller that verifies turns it into package signature's terms
// (package trust's Requirement), so that reading a policy links no
// Sigstore code.
type Signer struct {
	// Key is the public key a key signature must verify with (ECDSA
	// P-256, P-384, P-521 or Ed25519, checked when the file is read);
	// KeyName is where it was named: its file, or "the key at line N".
	Key     crypto.PublicKey
	KeyName string
	// Identity or IdentityRegexp, Issuer or IssuerRegexp: what a keyless
	// signature's certificate must name (rule 6), exactly or matching the
	// expression as a whole.
	Identity, IdentityRegexp string
	Issuer, IssuerRegexp     string
	// TrustedRoot is the trusted_root.json the rule names (rule 8), nil
	// for Sigstore's public-good root; TrustedRootFile is its file.
	TrustedRoot     []byte
	TrustedRootFile string
}

// SignerRules returns the signers rules (with keys or identities) that
// apply to s, the user's first; every one must be satisfied (rule 6).
// The error is a location of s that cannot be made canonical (rule 15),
// to which no rule can be known not to apply; [Policy.Check] refuses
// such a source too.
func (p *Policy) SignerRules(s source.Origin) ([]SignerRule, error) {
	s, why := canonical(s)
	if s.Kind == source.Unknown && why != unknownReason && len(p.files) > 0 {
		return nil, fmt.Errorf("%s: %w: %s", s.String(), ErrDenied, why)
	}
	var out []SignerRule
	for _, f := range p.files {
		for _, r := range f.signers {
			if r.commits || !r.matches(s) {
				continue
			}
			out = append(out, SignerRule{Rule: r.Rule, Sources: r.patternTexts(), Requirements: r.requirements()})
		}
	}
	return out, nil
}

// CommitRule is one signers rule with commits that applies to a git or
// GitHub source: its pinned commit must be signed by a key of the
// allowed-signers file or of the GPG keyring (either may be "").
type CommitRule struct {
	Rule
	// Sources are the patterns the rule names, as [SignerRule].Sources.
	Sources                    []string
	AllowedSigners, GPGKeyring string
}

// CommitRules returns every commits rule that applies to s, the user's
// first; each must be satisfied (rules 7 and 13).
func (p *Policy) CommitRules(s source.Origin) []CommitRule {
	s, _ = canonical(s)
	var out []CommitRule
	for _, f := range p.files {
		for _, r := range f.signers {
			if r.commits && r.matches(s) {
				out = append(out, r.commitRule())
			}
		}
	}
	return out
}

// Signers returns every signers rule of the policy, whatever source it
// applies to, the user's file first: those with keys or identities
// (rule 6), which name oci sources, and those with commits (rule 7),
// which name git and github sources. Every one applies to the sources
// it names (rule 13). For a caller that writes the rules in another
// form, such as an admission policy for a cluster.
func (p *Policy) Signers() ([]SignerRule, []CommitRule) {
	var sigs []SignerRule
	var commits []CommitRule
	for _, f := range p.files {
		for _, r := range f.signers {
			if r.commits {
				commits = append(commits, r.commitRule())
				continue
			}
			sigs = append(sigs, SignerRule{Rule: r.Rule, Sources: r.patternTexts(), Requirements: r.requirements()})
		}
	}
	return sigs, commits
}

// FailOn returns the audit severity at which a skill is refused: the
// lowest of the files' thresholds, high by default (rule 14).
func (p *Policy) FailOn() audit.Severity {
	s := defaultFailOn
	for _, f := range p.files {
		s = min(s, f.failOn)
	}
	return s
}

// FailOnRule returns the audit.fail_on rule that sets [Policy.FailOn], for
// a refusal to name; Line is 0 for the default.
func (p *Policy) FailOnRule() Rule {
	r, s := Rule{Name: "audit.fail_on"}, defaultFailOn+1
	for _, f := range p.files {
		if f.failOn < s {
			r, s = Rule{Name: "audit.fail_on", File: f.path, Line: f.failOnLine}, f.failOn
		}
	}
	return r
}

// Accepted reports whether finding f in skill (from s) is accepted by the
// policy, so that it does not refuse the skill: every file whose
// threshold f reaches accepts it (rule 14). Where there is no user's
// file the default stands for it, which accepts nothing at high or
// above: a project's file alone cannot accept what the default refuses.
// A finding no threshold reaches refuses nothing and is reported
// accepted.
func (p *Policy) Accepted(f audit.Finding, skill string, s source.Origin) bool {
	s, _ = canonical(s)
	if !p.hasUser() && f.Severity >= defaultFailOn {
		return false
	}
	for _, file := range p.files {
		if f.Severity >= file.failOn && file.acceptance(f.Rule, skill, s) == nil {
			return false
		}
	}
	return true
}

// UserRefusal reports whether the user's own file (or the one file
// [Parse] read) refuses finding f in skill (from s): its severity reaches
// that file's threshold and that file does not accept it. It returns the
// file's audit.fail_on rule, for a refusal to name. The default that
// stands for a missing user's file refuses nothing here: what only the
// default or a project's file refuses is not the user's own word. A
// caller uses it for what a project may record but not decide for the
// user (rule 16).
func (p *Policy) UserRefusal(f audit.Finding, skill string, s source.Origin) (Rule, bool) {
	s, _ = canonical(s)
	for _, file := range p.files {
		if !file.project && f.Severity >= file.failOn && file.acceptance(f.Rule, skill, s) == nil {
			return Rule{Name: "audit.fail_on", File: file.path, Line: file.failOnLine}, true
		}
	}
	return Rule{}, false
}

// hasUser reports whether p has a user's file (or the one file [Parse]
// read), as opposed to a project's alone.
func (p *Policy) hasUser() bool {
	return slices.ContainsFunc(p.files, func(f *rules) bool { return !f.project })
}
