package trust

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/source"
)

// ErrRefused identifies a source or skill that the trust checks refuse:
// a source the policy does not allow, a signature that is missing,
// invalid or by another signer than the one required, an unsigned commit
// the policy requires signed, or a skill whose audit reaches the
// threshold. A [*RefusedError] is one, or wraps it.
var ErrRefused = errors.New("refused by the trust checks")

// RefusedError is a skill refused by the trust checks (rule 5). An
// Agent returns it before any driver starts. Package install returns it
// too: for a source refused before it is read, and, with Refusals, for
// the skills an Add refused among those it installed.
type RefusedError struct {
	// Key is the skill's key and Name its runtime name.
	Key, Name string
	// Origin is where the skill comes from.
	Origin source.Origin
	// Rule is the policy's rule that refused it, with its file and line:
	// "sources.allow", "sources.pinned", "signers[N]", "commits[N]" or
	// "audit.fail_on".
	Rule policy.Rule
	// Findings are the audit findings that refused the skill, for
	// audit.fail_on, as the audit keeps them (within its caps), and Path
	// the folder whose files they name.
	Findings []audit.Finding
	Path     string
	// Omitted counts, by rule, the refusing findings past the audit's
	// caps, which Findings does not hold.
	Omitted audit.Omitted
	// Err is the refusal's cause: the *policy.DeniedError of a source
	// the policy does not allow, or the signature check's error; nil for
	// the audit.
	Err error
	// Detail, when not empty, is the refusal as the caller words it,
	// with what the user can do (package install's, which names the
	// source, the pin and the list of signers that refused it): the
	// error is ErrRefused followed by Detail.
	Detail string
	// Refusals, when not empty, are the refusals of a request of several
	// skills (package install's Add, which installs the others): the
	// error lists them, and the fields above are zero.
	Refusals []Refusal
}

// Refusal is one skill or source refused by the trust checks, as a
// request of several reports it: package install's Add in a
// [*RefusedError], and its Installer.CheckTrust.
type Refusal struct {
	// Skill is the skill's name; "" when the whole source is refused.
	Skill string `json:"skill,omitempty"`
	// Source is the source, as recorded.
	Source string `json:"source"`
	// Reason says what failed and what the user can do.
	Reason string `json:"reason"`
	// Findings, for a refusal by the audit, are the findings that refuse
	// the skill, as the audit keeps them (within its caps).
	Findings []audit.Finding `json:"findings,omitempty"`
	// Omitted counts, by rule, the refusing findings past the audit's
	// caps, which Findings does not hold.
	Omitted audit.Omitted `json:"omitted,omitempty"`
}

// Error names the skill, its source, the rule and its file, what was
// found and what the user can do; a refusal of a source before any of
// its skills is known (Key "", as package install checks a source
// first) is ErrRefused followed by its cause; one with a Detail is
// ErrRefused followed by it; a list of Refusals is ErrRefused followed
// by each, a line each.
func (e *RefusedError) Error() string {
	if len(e.Refusals) > 0 {
		lines := make([]string, len(e.Refusals))
		for i, r := range e.Refusals {
			what := r.Source
			if r.Skill != "" {
				what = "skill " + r.Skill + " from " + r.Source
			}
			lines[i] = what + ": " + r.Reason
		}
		return fmt.Sprintf("%v: %s", ErrRefused, strings.Join(lines, "\n"))
	}
	if e.Detail != "" {
		return fmt.Sprintf("%v: %s", ErrRefused, e.Detail)
	}
	if e.Key == "" && e.Err != nil {
		// A source refused before any skill of it is known.
		return fmt.Sprintf("%v: %v", ErrRefused, e.Err)
	}
	var b strings.Builder
	var denied *policy.DeniedError
	if errors.As(e.Err, &denied) {
		// It names the source itself.
		return fmt.Sprintf("agentadaptor: skill %q refused by the trust policy: %v", e.Key, e.Err)
	}
	fmt.Fprintf(&b, "agentadaptor: skill %q from %s refused by the trust policy", e.Key, originDisplay(e.Origin))
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, ", rule %s: %v (have the publisher sign it by a signer the rule names, or change the rule)", e.Rule, e.Err)
	default:
		fmt.Fprintf(&b, ", rule %s (%s): the audit found", e.Rule, e.threshold())
		for i, f := range e.Findings {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s (%s) in %s", f.Rule, f.Severity, filepath.Join(e.Path, filepath.FromSlash(f.File)))
			if f.Line > 0 {
				fmt.Fprintf(&b, ":%d", f.Line)
			}
			fmt.Fprintf(&b, ": %s", f.Message)
			if f.Excerpt != "" {
				fmt.Fprintf(&b, ": %s", f.Excerpt)
			}
		}
		if more := e.Omitted.String(); more != "" {
			fmt.Fprintf(&b, "; %s", more)
		}
		b.WriteString("; read the files, then accept the findings in the policy (audit.accept) or let their rules through (trust.AllowRisks, agentskills --allow-risk RULE), or do not use the skill")
	}
	return b.String()
}

// threshold names the lowest severity among the findings.
func (e *RefusedError) threshold() string {
	if len(e.Findings) == 0 {
		return "no finding"
	}
	low := e.Findings[0].Severity
	for _, f := range e.Findings[1:] {
		low = min(low, f.Severity)
	}
	return "findings at " + low.String() + " or above"
}

// Is reports whether target is [ErrRefused] or policy.ErrDenied: every
// refusal is the policy's, whichever of its rules refused. A list of
// Refusals, which say why in words alone, is ErrRefused only.
func (e *RefusedError) Is(target error) bool {
	return target == ErrRefused || target == policy.ErrDenied && len(e.Refusals) == 0
}

// Unwrap returns Err.
func (e *RefusedError) Unwrap() error { return e.Err }

// originDisplay names an origin for messages.
func originDisplay(s source.Origin) string {
	switch {
	case s.Display != "":
		return s.Display
	case s.Location != "":
		return string(s.Kind) + " " + s.Location
	}
	return "an " + string(s.Kind) + " source"
}

// Refused reports true: an Agent returns the error of a materializer
// that has this method as it is, not as a
// *skill.SkillMaterializationError.
func (e *RefusedError) Refused() bool { return true }
