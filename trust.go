package adaptor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// ErrPolicy identifies a skill refused by the trust policy (see "Trust"
// in the package doc). The error is a *[PolicyError]; errors.Is with
// policy.ErrDenied holds for it too.
var ErrPolicy = errors.New("agentadaptor: skill refused by the trust policy")

// Origin is implemented by a skill source that says where it comes from,
// as the policy sees it: oci.TrustedSource does (see
// oci.Artifact.TrustedSkill), and so do the sources of git's and
// github's Client.TrustedSkill. A source without it is a local folder
// when it is one (a source with a SkillPath method, as skill.Dir makes),
// "inline" when it has no location at all (skill.Inline, skill.FS), and
// "unknown" otherwise (an archive, a source of another type), which a
// policy with rules that could apply refuses.
type Origin interface {
	Origin() source.Origin
}

// SignatureVerifier is implemented by a skill source whose signatures can
// be checked: oci.TrustedSource does, against the manifest digest its
// reference is pinned to.
type SignatureVerifier interface {
	// VerifySignature returns the signer of the source's content when a
	// signature attached to it satisfies one of reqs. Errors wrap
	// signature.ErrUnsigned, signature.ErrUntrusted or
	// signature.ErrInvalid.
	VerifySignature(ctx context.Context, reqs []signature.Requirement) (signature.Signer, error)
}

// CommitVerifier is implemented by a skill source whose pinned commit's
// signature can be checked: the sources of git's and github's
// Client.TrustedSkill do, through system git.
type CommitVerifier interface {
	// VerifyCommit returns who signed the pinned commit when a key of
	// keys did; errors wrap source.ErrCommitSignature.
	VerifyCommit(ctx context.Context, keys source.CommitKeys) (string, error)
}

// PolicyError is a skill refused by the trust policy. It is returned
// before any driver starts.
type PolicyError struct {
	// Key is the skill's key and Name its runtime name.
	Key, Name string
	// Source is where the skill comes from.
	Source source.Origin
	// Rule is the policy's rule that refused it, with its file and line:
	// "sources.allow", "sources.pinned", "signers[N]" or "audit.fail_on".
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
}

// Error names the skill, its source, the rule and its file, what was
// found and what the user can do.
func (e *PolicyError) Error() string {
	var b strings.Builder
	var denied *policy.DeniedError
	if errors.As(e.Err, &denied) {
		// It names the source itself.
		return fmt.Sprintf("agentadaptor: skill %q refused by the trust policy: %v", e.Key, e.Err)
	}
	fmt.Fprintf(&b, "agentadaptor: skill %q from %s refused by the trust policy", e.Key, sourceDisplay(e.Source))
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
		b.WriteString("; read the files, then accept the findings in the policy (audit.accept) or let their rules through (AllowRisk, agentskills --allow-risk RULE), or do not use the skill")
	}
	return b.String()
}

// threshold names the lowest severity among the findings.
func (e *PolicyError) threshold() string {
	if len(e.Findings) == 0 {
		return "no finding"
	}
	low := e.Findings[0].Severity
	for _, f := range e.Findings[1:] {
		low = min(low, f.Severity)
	}
	return "findings at " + low.String() + " or above"
}

// Is reports whether target is [ErrPolicy] or policy.ErrDenied.
func (e *PolicyError) Is(target error) bool { return target == ErrPolicy || target == policy.ErrDenied }

// Unwrap returns Err.
func (e *PolicyError) Unwrap() error { return e.Err }

// sourceDisplay names a source for messages.
func sourceDisplay(s source.Origin) string {
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
// (absolute, at its real path with links resolved as package source's
// rule 15 says, not pinned), else Kind "inline" for a source
// with no location (an InlineSkillMD or SkillFS method: skill.Inline,
// skill.FS), else Kind "unknown": an archive or a source of another type
// that comes from somewhere it does not say.
func OriginOf(src skill.Source) source.Origin {
	if o, ok := src.(Origin); ok {
		return o.Origin()
	}
	if p, ok := src.(interface{ SkillPath() string }); ok {
		loc, err := filepath.Abs(p.SkillPath())
		if err != nil {
			loc = filepath.Clean(p.SkillPath())
		}
		return source.Origin{Kind: "local", Location: source.RealPath(loc), Display: p.SkillPath()}
	}
	switch src.(type) {
	case interface{ InlineSkillMD() string }, interface {
		SkillFS() (fs.FS, string)
	}:
		return source.Origin{Kind: "inline"}
	}
	if a, ok := src.(interface {
		SkillArchive() (skill.Opener, string, string, string)
	}); ok {
		display := "an archive without an origin"
		if _, _, _, fp := a.SkillArchive(); fp != "" {
			display += " (fingerprint " + fp + ")"
		}
		return source.Origin{Kind: "unknown", Display: display}
	}
	return source.Origin{Kind: "unknown", Display: fmt.Sprintf("a %T source without an origin", src)}
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
	reports   memo[audit.Report]       // by content digest
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
	refuse := func(rule policy.Rule, cause error) *PolicyError {
		return &PolicyError{Key: s.Key, Name: name, Source: origin, Rule: rule, Err: cause}
	}
	if err := m.policy.Check(origin); err != nil {
		rule := policy.Rule{Name: "sources"}
		var denied *policy.DeniedError
		if errors.As(err, &denied) {
			rule = policy.Rule{Name: denied.Rule, File: denied.File, Line: denied.Line}
		}
		return "", "", refuse(rule, err)
	}
	if dir, digest, err = materializeContent(ctx, m.next, s); err != nil {
		return "", "", err
	}
	if rule, err := m.checkSigners(ctx, s, origin, digest); err != nil {
		return "", "", refuse(rule, err)
	}
	rep, err := m.audit(dir, digest)
	if err != nil {
		return "", "", &skill.SkillMaterializationError{Key: s.Key, RuntimeName: name, Cause: fmt.Errorf("audit %s: %w", dir, err)}
	}
	if refusing := m.refusing(rep, name, origin); len(refusing.Findings) > 0 {
		e := refuse(m.policy.FailOnRule(), nil)
		e.Findings, e.Omitted, e.Path = refusing.Findings, refusing.Omitted, dir
		return "", "", e
	}
	return dir, digest, nil
}

// checkSigners checks every signers rule the policy has for the skill's
// source, and returns the rule that refused it. A verdict is remembered by
// the content digest and the source, so a warm run verifies nothing
// again.
func (m *PolicyMaterializer) checkSigners(ctx context.Context, s skill.Skill, origin source.Origin, digest string) (policy.Rule, error) {
	rules, err := m.policy.SignerRules(origin)
	commits := m.policy.CommitRules(origin)
	if err != nil || len(rules)+len(commits) == 0 {
		return policy.Rule{Name: "signers"}, err
	}
	key := digest + "\x00" + origin.Kind + "\x00" + origin.Location + "\x00" + origin.Display
	if _, ok := m.signers.get(key); ok && origin.Pinned {
		return policy.Rule{}, nil
	}
	v, ok := s.Source.(SignatureVerifier)
	signers := make([]signature.Signer, len(rules))
	for i, r := range rules {
		if !ok {
			return r.Rule, fmt.Errorf("%w: the rule requires a signature by %s, and a %s source carries no signature to check (use a signed oci:// source)",
				signature.ErrUnsigned, describe(r.Requirements), origin.Kind)
		}
		if signers[i], err = v.VerifySignature(ctx, r.Requirements); err != nil {
			return r.Rule, err
		}
	}
	cv, ok := s.Source.(CommitVerifier)
	for _, r := range commits {
		if !ok {
			return r.Rule, fmt.Errorf("%w: the rule requires a signed commit, and a %s source has no commit to check (build the skill with Client.TrustedSkill of package source/git or source/github)",
				source.ErrCommitSignature, origin.Kind)
		}
		if _, err := cv.VerifyCommit(ctx, source.CommitKeys{AllowedSigners: r.AllowedSigners, GPGKeyring: r.GPGKeyring}); err != nil {
			return r.Rule, err
		}
	}
	if origin.Pinned {
		m.signers.put(key, signers)
	}
	return policy.Rule{}, nil
}

// describe says what one rule's requirements ask for.
func describe(reqs []signature.Requirement) string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.String()
	}
	return strings.Join(out, " or ")
}

// audit returns the report of the tree in dir, remembered by its
// content digest.
func (m *PolicyMaterializer) audit(dir, digest string) (audit.Report, error) {
	if r, ok := m.reports.get(digest); ok {
		return r, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return audit.Report{}, err
	}
	defer root.Close()
	rep, err := audit.Tree(root.FS())
	if err != nil {
		return audit.Report{}, err
	}
	m.reports.put(digest, rep)
	return rep, nil
}

// refusing returns the findings at or above the policy's threshold that
// neither the policy accepts nor AllowRisk lets through, and the counts
// of such findings past the audit's caps.
func (m *PolicyMaterializer) refusing(rep audit.Report, name string, origin source.Origin) audit.Report {
	failOn := m.policy.FailOn()
	return rep.Filter(func(f audit.Finding) bool {
		return f.Severity >= failOn && !slices.Contains(m.allowRisk, f.Rule) && !m.policy.Accepted(f, name, origin)
	})
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
