package policy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/source"
)

// Explain says, in lines a user reads, what the policy allows for s and
// which rule of which file says so: for `agentskills policy check`. The
// first line says allowed or denied.
func (p *Policy) Explain(s source.Origin) []string {
	s, why := canonical(s)
	var out []string
	var denied *DeniedError
	if errors.As(p.Check(s), &denied) {
		out = append(out, "denied: "+denied.why())
	} else {
		out = append(out, "allowed")
	}
	if len(p.files) == 0 {
		out = append(out, "  no policy file: every source is allowed, none needs a signer")
	}
	for _, f := range p.files {
		switch pat, err := f.allowed(s, why); {
		case err != nil:
			out = append(out, fmt.Sprintf("  sources.allow (%s): no pattern matches", where(f.path, f.allowLine)))
		case pat != nil:
			out = append(out, fmt.Sprintf("  sources.allow (%s): matches %s", where(f.path, pat.line), pat.text))
		case s.Kind == source.Inline:
			out = append(out, fmt.Sprintf("  sources.allow (%s): an inline source is part of the program", f.path))
		default:
			out = append(out, fmt.Sprintf("  sources.allow (%s): not given, every source is allowed", f.path))
		}
	}
	if r, ok := p.pinRule(s); ok {
		state := "it is not"
		if s.Pinned {
			state = "it is"
		}
		out = append(out, fmt.Sprintf("  must be pinned: %s, %s", r, state))
	}
	out = append(out, p.explainSigners(s)...)
	rule := p.FailOnRule()
	out = append(out, fmt.Sprintf("  audit: a finding at %s or above refuses a skill: %s", p.FailOn(), rule))
	for _, f := range p.files {
		for _, e := range f.accept {
			if e.source != nil && !e.source.matches(s, false) {
				continue
			}
			skill := "any skill"
			if e.skill != "" {
				skill = "skill " + e.skill
			}
			line := fmt.Sprintf("  accepted: %s in %s, %s: %s", e.rule, skill, e.Rule, strings.Join(strings.Fields(e.reason), " "))
			if f.project && !p.hasUser() {
				line += fmt.Sprintf(" (below %s only: with no user's policy file the default refuses the rest)", defaultFailOn)
			}
			out = append(out, line)
		}
	}
	return out
}

// explainSigners says who must have signed s, rule by rule.
func (p *Policy) explainSigners(s source.Origin) []string {
	var out []string
	for _, f := range p.files {
		for _, r := range f.signers {
			if !r.matches(s) {
				continue
			}
			who := r.signers(true)
			if r.commits {
				out = append(out, fmt.Sprintf("  signed commit required: %s: %s", r.Rule, strings.Join(who, " or ")))
				continue
			}
			out = append(out, fmt.Sprintf("  signature required: %s: %s", r.Rule, strings.Join(who, " or ")))
		}
	}
	if len(out) == 0 {
		out = append(out, "  no signature required")
	}
	return out
}
