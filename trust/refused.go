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

// RefusedError is the refusal of one skill or source, or of several,
// by the trust checks (rule 5), each a [Refusal]. An Agent returns it,
// with one refusal, before any driver starts. Package install returns it
// too: for a source refused before it is read, and for the skills an Add
// refused among those it installed.
type RefusedError struct {
	// Refusals are the skills and sources refused: one for an Agent's
	// skill or a source refused before it is read, one or more for the
	// skills a request of several refused.
	Refusals []Refusal
}

// Refusal is one skill or source refused by the trust checks: what a
// [*RefusedError] lists, and what package install's Installer.CheckTrust
// reports.
type Refusal struct {
	// Skill is the skill's name (its runtime name, for an Agent's); ""
	// when the whole source is refused.
	Skill string `json:"skill,omitempty"`
	// Key is an Agent's skill's key; "" for a skill package install
	// refused.
	Key string `json:"-"`
	// Source is the source, as recorded; "" when Reason names it.
	Source string `json:"source"`
	// Origin is where the skill comes from, as the policy saw it.
	Origin source.Origin `json:"-"`
	// Rule is the policy's rule that refused it, with its file and line:
	// "sources.allow", "sources.pinned", "signers[N]", "commits[N]" or
	// "audit.fail_on", "trust.RequireSigners" ([RequireSigners]), or a
	// signers rule of the caller's own ([SourceCheck]); zero when Reason
	// alone says why.
	Rule policy.Rule `json:"-"`
	// Reason, when not empty, says what failed and what the user can do,
	// in the words of whoever checked (package install's name the
	// source, the pin and the list of signers that refused it).
	Reason string `json:"reason"`
	// Findings, for a refusal by the audit, are the findings that refuse
	// the skill, as the audit keeps them (within its caps), and Path the
	// folder whose files they name.
	Findings []audit.Finding `json:"findings,omitempty"`
	Path     string          `json:"-"`
	// Omitted counts, by rule, the refusing findings past the audit's
	// caps, which Findings does not hold.
	Omitted audit.Omitted `json:"omitted,omitempty"`
	// Err is the refusal's cause: the *policy.DeniedError of a source
	// the policy does not allow, or the signature check's error; nil for
	// the audit.
	Err error `json:"-"`

	names settingNames // how the message names settings (WithSettingNames)
}

// refused is the *RefusedError of r alone.
func refused(r Refusal) *RefusedError { return &RefusedError{Refusals: []Refusal{r}} }

// Error is ErrRefused followed by each refusal, a line each; one
// refusal of a whole source with a Reason reads SOURCE: ErrRefused:
// REASON. A refusal reads: with a Reason, its skill and source (when set) and the Reason;
// a source refused before any of its skills is known (no Key, as package
// install checks a source first), its cause; an Agent's skill, its key,
// its source, the rule and its file, what was found and what the user
// can do.
func (e *RefusedError) Error() string {
	if len(e.Refusals) == 1 {
		switch r := e.Refusals[0]; {
		case r.Reason == "" && r.Key != "":
			return r.agentMessage()
		case r.Reason != "" && r.Skill == "" && r.Source != "":
			return fmt.Sprintf("%s: %v: %s", r.Source, ErrRefused, r.Reason)
		}
	}
	lines := make([]string, len(e.Refusals))
	for i, r := range e.Refusals {
		lines[i] = r.line()
	}
	return fmt.Sprintf("%v: %s", ErrRefused, strings.Join(lines, "\n"))
}

// line is r as one line of a RefusedError's message, after ErrRefused.
func (r Refusal) line() string {
	if r.Reason == "" {
		if r.Err != nil {
			return r.Err.Error() // a source refused before any skill of it is known
		}
		return r.agentMessage()
	}
	switch {
	case r.Skill != "":
		return "skill " + r.Skill + " from " + r.Source + ": " + r.Reason
	case r.Source != "":
		return r.Source + ": " + r.Reason
	}
	return r.Reason
}

// agentMessage is the refusal of an Agent's skill r.
func (r Refusal) agentMessage() string {
	var b strings.Builder
	var denied *policy.DeniedError
	if errors.As(r.Err, &denied) {
		// It names the source itself.
		return fmt.Sprintf("agentadaptor: skill %q refused by the trust policy: %v", r.Key, r.Err)
	}
	fmt.Fprintf(&b, "agentadaptor: skill %q from %s refused by the trust policy", r.Key, originDisplay(r.Origin))
	switch {
	case r.Err != nil && r.Rule == policy.Rule{Name: requiredSignersRule}:
		// The caller's rule, set by a setting rather than written in a
		// file: it is named as the caller names the setting.
		fmt.Fprintf(&b, ", the signers required (%s): %v (have the publisher sign it by one of them, or require another signer)", r.names.of(SettingRequireSigners), r.Err)
	case r.Err != nil:
		fmt.Fprintf(&b, ", rule %s: %v (have the publisher sign it by a signer the rule names, or change the rule)", r.Rule, r.Err)
	default:
		fmt.Fprintf(&b, ", rule %s (%s): the audit found", r.Rule, r.threshold())
		for i, f := range r.Findings {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s (%s) in %s", f.Rule, f.Severity, filepath.Join(r.Path, filepath.FromSlash(f.File)))
			if f.Line > 0 {
				fmt.Fprintf(&b, ":%d", f.Line)
			}
			fmt.Fprintf(&b, ": %s", f.Message)
			if f.Excerpt != "" {
				fmt.Fprintf(&b, ": %s", f.Excerpt)
			}
		}
		if more := r.Omitted.String(); more != "" {
			fmt.Fprintf(&b, "; %s", more)
		}
		fmt.Fprintf(&b, "; read the files, then accept the findings in the policy (audit.accept) or let their rules through (%s: %s), or do not use the skill",
			r.names.of(SettingAllowRisks), strings.Join(ruleIDs(r.Findings, r.Omitted), ", "))
	}
	return b.String()
}

// threshold names the lowest severity among the findings.
func (r Refusal) threshold() string {
	if len(r.Findings) == 0 {
		return "no finding"
	}
	low := r.Findings[0].Severity
	for _, f := range r.Findings[1:] {
		low = min(low, f.Severity)
	}
	return "findings at " + low.String() + " or above"
}

// Is reports whether target is [ErrRefused], or policy.ErrDenied when
// a rule of the policy (or a signers rule of the caller's own) refused
// every one of the refusals: refusals that say why in words alone (the
// skills an Add of package install refused by their audit) are
// ErrRefused only.
func (e *RefusedError) Is(target error) bool {
	if target == ErrRefused {
		return true
	}
	if target != policy.ErrDenied || len(e.Refusals) == 0 {
		return false
	}
	for _, r := range e.Refusals {
		if r.Rule.Name == "" {
			return false
		}
	}
	return true
}

// Unwrap returns the cause of each refusal that has one.
func (e *RefusedError) Unwrap() []error {
	var out []error
	for _, r := range e.Refusals {
		if r.Err != nil {
			out = append(out, r.Err)
		}
	}
	return out
}

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
