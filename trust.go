package adaptor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
)

// ErrPolicy identifies a skill refused by the trust policy (see "Trust"
// in the package doc). The error is a *[PolicyError]; errors.Is with
// policy.ErrDenied holds for it too.
var ErrPolicy = errors.New("agentadaptor: skill refused by the trust policy")

// The rules a [PolicyError] names besides those of a policy file.
const (
	// RuleSigners is the rule of a refusal for a signature: the policy's
	// signers for the skill's source are not all satisfied.
	RuleSigners = "signers"
	// RuleAudit is the rule of a refusal for audit findings at or above
	// the policy's threshold.
	RuleAudit = "audit.fail_on"
)

// Origin is implemented by a skill source that says where it comes from,
// as the policy sees it: the sources of package source/oci's skills do.
// A source without it is a local folder when it is one (a source with a
// SkillPath method, as skill.Dir makes), and "inline" otherwise.
type Origin interface {
	Origin() policy.Source
}

// SignatureVerifier is implemented by a skill source whose signatures can
// be checked: the sources of package source/oci's skills do, against
// the manifest digest their reference is pinned to.
type SignatureVerifier interface {
	// VerifySignature returns the signer of the source's content when a
	// signature attached to it satisfies one of reqs. Errors wrap
	// signature.ErrUnsigned, signature.ErrUntrusted or
	// signature.ErrInvalid.
	VerifySignature(ctx context.Context, reqs []signature.Requirement) (signature.Signer, error)
}

// PolicyError is a skill refused by the trust policy. It is returned
// before any driver starts.
type PolicyError struct {
	// Key is the skill's key and Name its runtime name.
	Key, Name string
	// Source is where the skill comes from.
	Source policy.Source
	// Rule is the rule that refused it: a policy file's
	// ("sources.allow", "sources.pinned", ...), [RuleSigners] or
	// [RuleAudit].
	Rule string
	// Files are the policy files in force, user's first.
	Files []string
	// Findings are the audit findings that refused the skill, for
	// [RuleAudit].
	Findings []audit.Finding
	// Path is the skill's materialized folder, for [RuleAudit].
	Path string
	// Err is the refusal's cause: the *policy.DeniedError of a source
	// the policy does not allow, or the signature check's error.
	Err error
}

// Error names the skill, its source, the rule and what the user can do.
func (e *PolicyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agentadaptor: skill %q from %s refused by the trust policy", e.Key, sourceDisplay(e.Source))
	switch e.Rule {
	case RuleAudit:
		fmt.Fprintf(&b, " (%s %s", RuleAudit, e.threshold())
		if len(e.Files) > 0 {
			fmt.Fprintf(&b, " of %s", strings.Join(e.Files, ", "))
		}
		b.WriteString("): the audit found")
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
		b.WriteString("; read the files, then accept the findings in the policy or allow their rules (AllowRisk, agentskills --allow-risk RULE), or do not use the skill")
	case RuleSigners:
		fmt.Fprintf(&b, " (%s", RuleSigners)
		if len(e.Files) > 0 {
			fmt.Fprintf(&b, " of %s", strings.Join(e.Files, ", "))
		}
		fmt.Fprintf(&b, "): %v", e.Err)
	default:
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// threshold is the lowest severity among the findings.
func (e *PolicyError) threshold() string {
	if len(e.Findings) == 0 {
		return ""
	}
	low := e.Findings[0].Severity
	for _, f := range e.Findings[1:] {
		low = min(low, f.Severity)
	}
	return "at " + low.String()
}

// Is reports whether target is [ErrPolicy] or policy.ErrDenied.
func (e *PolicyError) Is(target error) bool { return target == ErrPolicy || target == policy.ErrDenied }

// Unwrap returns Err.
func (e *PolicyError) Unwrap() error { return e.Err }

// sourceDisplay names a source for messages.
func sourceDisplay(s policy.Source) string {
	switch {
	case s.Display != "":
		return s.Display
	case s.Location != "":
		return s.Kind + " " + s.Location
	}
	return "an " + s.Kind + " source"
}

// OriginOf returns where src comes from as the policy sees it: src's own
// [Origin], else a local folder for a source with a SkillPath method
// (absolute and cleaned, not pinned), else Kind "inline".
func OriginOf(src skill.Source) policy.Source {
	if o, ok := src.(Origin); ok {
		return o.Origin()
	}
	if p, ok := src.(interface{ SkillPath() string }); ok {
		loc, err := filepath.Abs(p.SkillPath())
		if err != nil {
			loc = filepath.Clean(p.SkillPath())
		}
		return policy.Source{Kind: "local", Location: loc, Display: p.SkillPath()}
	}
	return policy.Source{Kind: "inline"}
}

// PolicyOption configures the enforcement of a policy ([WithPolicy],
// [NewPolicyMaterializer]).
type PolicyOption func(*policyConfig)

type policyConfig struct {
	allowRisk []string
}

// AllowRisk has findings of the audit rules named (their IDs, as
// audit.Rules lists them) refuse no skill, as a user who read them
// proceeds knowingly. Several accumulate. Default: none; only the
// policy's accepted findings are let through.
func AllowRisk(rules ...string) PolicyOption {
	return func(c *policyConfig) { c.allowRisk = append(c.allowRisk, rules...) }
}

// WithPolicy has every run and [Agent.Inspect] enforce p on the selected
// skills before any driver starts (see "Trust" in the package doc):
// where each comes from, who signed it, and what the audit finds in it.
// The agent's materializer is wrapped with [NewPolicyMaterializer]. A nil
// p checks nothing. Default: no policy, nothing checked and nothing
// audited.
func WithPolicy(p *policy.Policy, opts ...PolicyOption) Option {
	return agentOption(func(c *agentConfig) {
		c.policy = p
		c.policyOpts = append(c.policyOpts, opts...)
	})
}

// PolicyMaterializer is a skill.Materializer that enforces a policy on
// every skill it materializes with another one (see "Trust" in the package
// doc). It is safe for concurrent use when the materializer it wraps is.
type PolicyMaterializer struct {
	next      skill.Materializer
	policy    *policy.Policy
	allowRisk []string
	findings  memo[[]audit.Finding]    // by content digest
	signers   memo[[]signature.Signer] // by content digest and source
}

var _ skill.ContentMaterializer = (*PolicyMaterializer)(nil)

// NewPolicyMaterializer returns a materializer that checks the policy p
// (a nil p: the zero Policy, which allows every source and fails on
// findings of high severity) on each skill, materializes it with next
// (nil: skill.NewDefaultSkillMaterializer()), and audits what next
// wrote. A refusal is a *[PolicyError]. It is how a caller without an
// Agent enforces a policy; an Agent given [WithPolicy] uses one.
func NewPolicyMaterializer(next skill.Materializer, p *policy.Policy, opts ...PolicyOption) *PolicyMaterializer {
	if next == nil {
		next = skill.NewDefaultSkillMaterializer()
	}
	if p == nil {
		p = new(policy.Policy)
	}
	var c policyConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return &PolicyMaterializer{next: next, policy: p, allowRisk: c.allowRisk}
}

// Materialize is [PolicyMaterializer.MaterializeContent] without the
// digest.
func (m *PolicyMaterializer) Materialize(ctx context.Context, s skill.Skill) (string, error) {
	dir, _, err := m.MaterializeContent(ctx, s)
	return dir, err
}

// MaterializeContent checks where s comes from before anything is
// fetched or written, materializes it, checks its signers and audits the
// folder, and returns the folder and its content digest.
func (m *PolicyMaterializer) MaterializeContent(ctx context.Context, s skill.Skill) (dir, digest string, err error) {
	name, err := skill.RuntimeName(s)
	if err != nil {
		return "", "", &skill.SkillMaterializationError{Key: s.Key, Cause: err}
	}
	origin := OriginOf(s.Source)
	refuse := func(rule string, cause error) *PolicyError {
		return &PolicyError{Key: s.Key, Name: name, Source: origin, Rule: rule, Files: m.policy.Files(), Err: cause}
	}
	if err := m.policy.Check(origin); err != nil {
		rule := "sources"
		var denied *policy.DeniedError
		if errors.As(err, &denied) {
			rule = denied.Rule
		}
		return "", "", refuse(rule, err)
	}
	if cm, ok := m.next.(skill.ContentMaterializer); ok {
		dir, digest, err = cm.MaterializeContent(ctx, s)
	} else {
		dir, err = m.next.Materialize(ctx, s)
	}
	if err != nil {
		return "", "", err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", err
	}
	if digest == "" {
		if digest, err = skill.ContentDigest(ctx, dir); err != nil {
			return "", "", err
		}
	}
	if err := m.checkSigners(ctx, s, origin, digest); err != nil {
		return "", "", refuse(RuleSigners, err)
	}
	findings, err := m.audit(dir, digest)
	if err != nil {
		return "", "", &skill.SkillMaterializationError{Key: s.Key, RuntimeName: name, Cause: fmt.Errorf("audit %s: %w", dir, err)}
	}
	if refusing := m.refusing(findings, name, origin); len(refusing) > 0 {
		e := refuse(RuleAudit, nil)
		e.Findings, e.Path = refusing, dir
		return "", "", e
	}
	return dir, digest, nil
}

// checkSigners checks every signer requirement the policy has for the
// skill's source. A verdict is remembered by the content digest and the
// source, so a warm run verifies nothing again.
func (m *PolicyMaterializer) checkSigners(ctx context.Context, s skill.Skill, origin policy.Source, digest string) error {
	reqs, err := m.policy.Signers(origin)
	if err != nil || len(reqs) == 0 {
		return err
	}
	key := digest + "\x00" + origin.Kind + "\x00" + origin.Location + "\x00" + origin.Display
	if _, ok := m.signers.get(key); ok && origin.Pinned {
		return nil
	}
	v, ok := s.Source.(SignatureVerifier)
	if !ok {
		return fmt.Errorf("%w: the policy requires a signature by %s, and a %s source carries no signature to check (use a signed oci:// source)",
			signature.ErrUnsigned, describe(reqs[0]), origin.Kind)
	}
	signers := make([]signature.Signer, len(reqs))
	for i, list := range reqs {
		if signers[i], err = v.VerifySignature(ctx, list); err != nil {
			return err
		}
	}
	if origin.Pinned {
		m.signers.put(key, signers)
	}
	return nil
}

// describe says what one rule's requirements ask for.
func describe(reqs []signature.Requirement) string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.String()
	}
	return strings.Join(out, " or ")
}

// audit returns the findings of the tree in dir, remembered by its
// content digest.
func (m *PolicyMaterializer) audit(dir, digest string) ([]audit.Finding, error) {
	if f, ok := m.findings.get(digest); ok {
		return f, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	findings, err := audit.Tree(root.FS())
	if err != nil {
		return nil, err
	}
	m.findings.put(digest, findings)
	return findings, nil
}

// refusing returns the findings at or above the policy's threshold that
// neither the policy accepts nor AllowRisk lets through.
func (m *PolicyMaterializer) refusing(findings []audit.Finding, name string, origin policy.Source) []audit.Finding {
	var out []audit.Finding
	failOn := m.policy.FailOn()
	for _, f := range findings {
		if f.Severity < failOn || slices.Contains(m.allowRisk, f.Rule) || m.policy.Accepted(f, name, origin) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// memo is a bounded memory of verdicts by key: when it reaches
// maxVerdicts it starts again empty. It is safe for concurrent use; the
// zero value is ready.
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (c *memo[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *memo[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxVerdicts {
		c.m = make(map[string]V)
	}
	c.m[key] = v
}
