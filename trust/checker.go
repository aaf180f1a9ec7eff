package trust

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
)

// SignatureVerifier checks the Sigstore signatures of a published source
// at a pin: an OCI source's manifest digest ([SignatureVerifierOf] gives
// the one of a [source.Signed], as source/oci's Remote and SkillSource
// are).
type SignatureVerifier interface {
	// VerifySignature returns the signer of the content at pin when a
	// signature attached to it satisfies one of reqs. Errors wrap
	// source.ErrUnsigned, source.ErrUntrusted or
	// source.ErrInvalidSignature.
	VerifySignature(ctx context.Context, pin string, reqs []signature.Requirement) (signature.Signer, error)
}

// Checker is the trust engine (see the package doc): a policy, the risks
// let through, and the memory of verdicts by content. It is safe for
// concurrent use.
type Checker struct {
	policy     *policy.Policy
	allowRisks []string
	signers    []signature.Requirement // RequireSigners
	reports    *memo[audit.Report]     // by content digest
	verified   *memo[struct{}]         // by origin and pin
	cleanSets  *memo[struct{}]         // by a clean set's key (# Kept reports, rule 8)
	kept       reportStore             // RememberReports
	names      settingNames            // WithSettingNames
}

// Option configures a [Checker].
type Option func(*config)

type config struct {
	allowRisks []string
	signers    []signature.Requirement
	reportsDir string
	names      settingNames
}

// requiredSignersRule names the signers rule of [RequireSigners] in
// refusals.
const requiredSignersRule = "trust.RequireSigners"

// RequireSigners has every OCI source carry a signature by one of reqs
// (a key, or a keyless identity and issuer, as cosign names them): one
// signers rule of the caller's, checked before the policy's and as they
// are (rule 3), named "trust.RequireSigners" in refusals (their messages
// name it as [WithSettingNames] names [SettingRequireSigners]). Several
// accumulate into that one rule. Sources of other kinds carry no
// Sigstore signature, and the rule does not apply to them, as the
// policy's signers rules name oci sources only (a program that must
// refuse them asks [Checker.RequiredSigners] first, as package install
// does). Default: none; only the policy's signers rules apply.
func RequireSigners(reqs ...signature.Requirement) Option {
	return func(c *config) { c.signers = append(c.signers, reqs...) }
}

// AllowRisks has findings of the audit rules named (their IDs, as
// audit.Rules lists them) refuse no skill, as a user who read them
// proceeds knowingly. Several accumulate. Default: none; only the
// policy's accepted findings are let through.
func AllowRisks(rules ...string) Option {
	return func(c *config) { c.allowRisks = append(c.allowRisks, rules...) }
}

// WithSettingNames has the checker's messages that tell the user which
// setting of the SDK to change, and package install's that it words with
// the checker, name each by names[SETTING], SETTING its name in the SDK:
// a command-line tool maps "trust.AllowRisks" to its "--allow-risk"
// (the keys are listed at [SettingAllowRisks]). A later one overrides an
// earlier one. Default: the SDK's names.
func WithSettingNames(names map[string]string) Option {
	return func(c *config) { c.names = names }
}

// The settings of the SDK that the checker's messages name: the keys of
// [WithSettingNames].
const (
	SettingAllowRisks     = "trust.AllowRisks"
	SettingRequireSigners = "trust.RequireSigners"
)

// settingNames are the names of the SDK's settings in the words of the
// checker's user ([WithSettingNames]).
type settingNames map[string]string

// of is the name of setting, as the SDK names it, in n's words.
func (n settingNames) of(setting string) string {
	if name := n[setting]; name != "" {
		return name
	}
	return setting
}

// RememberReports has the checker keep the audit report of every tree
// whose content digest it is given ([Checker.AuditContent], a
// [Materializer]'s trees) in the folder .audit under dir, a skill cache's
// root, and read it back there instead of auditing the same content
// again, in this process or a later one (# Kept reports). A later one
// overrides an earlier one. Default: reports are kept in memory only,
// for the checker's life; [NewMaterializer] and package install keep
// them under their skill cache's root ([Checker.RememberReportsIn]).
func RememberReports(dir string) Option {
	return func(c *config) { c.reportsDir = dir }
}

// RememberReportsIn returns a checker that is c, keeping reports under
// dir ([RememberReports]) when c keeps none on disk, else c itself: what
// a user of the checker with a skill cache root of its own calls, as
// [NewMaterializer] and package install do. The two share everything
// else, the memory of verdicts too. A dir of "" returns c.
func (c *Checker) RememberReportsIn(dir string) *Checker {
	if dir == "" || c.kept.dir != "" {
		return c
	}
	d := *c
	d.kept = newReportStore(dir)
	return &d
}

// Policy returns the policy c enforces: the zero Policy when
// [NewChecker] was given none.
func (c *Checker) Policy() *policy.Policy { return c.policy }

// NewChecker returns a checker of the policy p. A nil p is the zero
// Policy, which allows every source, requires no signer and refuses
// skills with audit findings of high severity or above.
func NewChecker(p *policy.Policy, opts ...Option) *Checker {
	if p == nil {
		p = new(policy.Policy)
	}
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return &Checker{policy: p, allowRisks: c.allowRisks, signers: c.signers, names: c.names,
		reports: reportMemo(), verified: new(memo[struct{}]), cleanSets: new(memo[struct{}]), kept: newReportStore(c.reportsDir)}
}

// RequiredSigners returns the signers [RequireSigners] gave c, any of
// which must have signed an OCI source: none by default.
func (c *Checker) RequiredSigners() []signature.Requirement { return c.signers }

// Check checks o against the policy before anything of it is read (rule
// 2). A refusal is a *[RefusedError] that wraps the *policy.DeniedError.
func (c *Checker) Check(o source.Origin) error {
	err := c.policy.Check(o)
	if err == nil {
		return nil
	}
	rule := policy.Rule{Name: "sources"}
	var denied *policy.DeniedError
	if errors.As(err, &denied) {
		rule = policy.Rule{Name: denied.Rule, File: denied.File, Line: denied.Line}
	}
	return refused(Refusal{Origin: o, Rule: rule, Err: err})
}

// SignerRule is a signers rule in package signature's terms: satisfied
// by a signature that matches any of its Requirements.
type SignerRule struct {
	policy.Rule
	Requirements []signature.Requirement
}

// signerRuleOf turns a policy's signers rule into package signature's
// terms, each of its signers with requirement.
func signerRuleOf(r policy.SignerRule) SignerRule {
	out := SignerRule{Rule: r.Rule}
	for _, s := range r.Requirements {
		out.Requirements = append(out.Requirements, requirement(s))
	}
	return out
}

// requirement turns one signer a policy accepts into package signature's
// terms: the policy holds it as plain data, so that reading a policy links
// no Sigstore code.
func requirement(s policy.Signer) signature.Requirement {
	return signature.Requirement{
		Key:      s.Key,
		Identity: s.Identity, IdentityRegexp: s.IdentityRegexp,
		Issuer: s.Issuer, IssuerRegexp: s.IssuerRegexp,
		TrustedRoot: s.TrustedRoot, TrustedRootFile: s.TrustedRootFile,
	}
}

// verifyRule checks the signers rule r for o against the signatures v
// finds at pin, and returns the signer that satisfied it. A nil v carries
// no signature. A refusal is a *[RefusedError] naming the rule, whose Err
// is the verifier's error.
func verifyRule(ctx context.Context, o source.Origin, v SignatureVerifier, pin string, r SignerRule) (signature.Signer, error) {
	if v == nil {
		return signature.Signer{}, refused(Refusal{Origin: o, Rule: r.Rule, Err: fmt.Errorf("%w: the rule requires a signature by %s, and a %s source carries no signature to check (use a signed oci:// source)",
			source.ErrUnsigned, describe(r.Requirements), o.Kind)})
	}
	s, err := v.VerifySignature(ctx, pin, r.Requirements)
	if err != nil {
		return signature.Signer{}, refused(Refusal{Origin: o, Rule: r.Rule, Err: err})
	}
	return s, nil
}

// verifyCommits checks the commit at pin against rules, the commits
// rules of the policy for o (rule 3), with v, and returns who signed it
// for the first rule ("" when there is none). A nil v has no commit to
// check. A refusal is a *[RefusedError] naming the rule, whose Err wraps
// source.ErrCommitSignature.
func verifyCommits(ctx context.Context, o source.Origin, v source.CommitVerifier, pin string, rules []policy.CommitRule) (string, error) {
	var signer string
	for i, r := range rules {
		if v == nil {
			return "", refused(Refusal{Origin: o, Rule: r.Rule, Err: fmt.Errorf("%w: the rule requires a signed commit, and a %s source has no commit to check (build the skill with Client.Skill of package source/git or source/github)",
				source.ErrCommitSignature, o.Kind)})
		}
		who, err := v.VerifyCommit(ctx, pin, source.CommitKeys{AllowedSigners: r.AllowedSigners, GPGKeyring: r.GPGKeyring})
		if err != nil {
			return "", refused(Refusal{Origin: o, Rule: r.Rule, Err: err})
		}
		if i == 0 {
			signer = who
		}
	}
	return signer, nil
}

// describe says what one rule's requirements ask for.
func describe(reqs []signature.Requirement) string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.String()
	}
	return strings.Join(out, " or ")
}

// report returns the audit report of the tree fsys, whose content digest
// is digest: the one remembered (rule 6) or kept (# Kept reports) for
// it, else a new one, remembered and kept. An empty digest is neither
// recalled nor kept.
func (c *Checker) report(fsys fs.FS, digest string) (audit.Report, error) {
	if r, ok := c.recall(digest); ok {
		return r, nil
	}
	rep, err := audit.Tree(fsys)
	if err != nil {
		return audit.Report{}, err
	}
	c.keep(digest, rep)
	return rep, nil
}

// recall returns the report remembered or kept for digest, if any,
// without reading the tree.
func (c *Checker) recall(digest string) (audit.Report, bool) {
	if digest == "" {
		return audit.Report{}, false
	}
	if r, ok := c.reports.get(digest); ok {
		return r, true
	}
	if r, ok := c.kept.get(digest); ok {
		c.reports.put(digest, r)
		return r, true
	}
	return audit.Report{}, false
}

// Flush writes what c learnt of its kept reports (# Kept reports, rule
// 7) under its skill cache's root, for later processes: which it found
// empty, so that each is not read again while its file is unchanged. A
// program that checks many skills calls it once it has checked them, as
// package install does at the end of each operation; without it, the
// next process reads every kept report. A checker that keeps no report
// on disk writes nothing.
func (c *Checker) Flush() { c.kept.save() }

// keep remembers rep, the report of a whole audit of a tree whose
// content digest is digest, and keeps it on disk where c keeps reports.
func (c *Checker) keep(digest string, rep audit.Report) {
	if digest == "" {
		return
	}
	c.reports.put(digest, rep)
	c.kept.put(digest, rep)
}

// Refusing returns the findings of rep, the audit of the skill named
// skill from o, that refuse it (rule 4): those at or above the policy's
// threshold that the policy does not accept, except those of a rule
// [AllowRisks] lets through; with the counts of such findings past the
// audit's caps.
//
// What refuses is taken from rep's findings alone, so an empty report
// (no finding, none past the caps) refuses under every policy,
// threshold, accepted finding and allowed risk. The clean sets rely on
// that (cleanset.go, # Kept reports, rule 8): a set whose every tree's
// report was empty is allowed without its reports, and the policy is
// never asked of them (Materializer.judge is skipped). A policy that
// could refuse an empty report (one requiring something of every
// skill's audit, say) must end that shortcut, or key a clean set by it.
func (c *Checker) Refusing(rep audit.Report, skill string, o source.Origin) audit.Report {
	left, _ := split(c.blocking(rep, skill, o), c.allowRisks)
	return left
}

// blocking returns the findings of rep, the audit of the skill named
// skill from o, at or above the policy's threshold that the policy does
// not accept, whatever [AllowRisks] lets through.
func (c *Checker) blocking(rep audit.Report, skill string, o source.Origin) audit.Report {
	failOn := c.policy.FailOn()
	return rep.Filter(func(f audit.Finding) bool {
		return f.Severity >= failOn && !c.policy.Accepted(f, skill, o)
	})
}

// split splits rep into the findings whose rule rules does not name,
// left (with the counts past the audit's caps of those rules), and the
// rules that name at least one finding, used, sorted.
func split(rep audit.Report, rules []string) (left audit.Report, used []string) {
	left = rep.Filter(func(f audit.Finding) bool { return !slices.Contains(rules, f.Rule) })
	for _, f := range rep.Findings {
		if slices.Contains(rules, f.Rule) && !slices.Contains(used, f.Rule) {
			used = append(used, f.Rule)
		}
	}
	slices.Sort(used)
	return left, used
}

// maxVerdicts bounds the verdicts a memo keeps; when it is reached the
// memo starts again empty.
const maxVerdicts = 4096

// maxRememberedFindings bounds the findings of the audit reports a
// checker remembers in memory, in all: a source of thousands of refused
// skills, each with its hundreds of findings, is audited in bounded
// memory (the reports kept on disk are not bounded so).
const maxRememberedFindings = 5000

// memo is a bounded memory of verdicts by key: when it reaches
// maxVerdicts, or its values' cost reaches max, it starts again empty.
// It is safe for concurrent use; the zero value is ready, and counts no
// cost.
type memo[V any] struct {
	mu   sync.Mutex
	m    map[string]V
	cost func(V) int // a value's cost; nil: none
	max  int         // the most the values may cost in all
	held int         // what the values cost
}

// reportMemo returns the memo of audit reports, which holds at most
// maxRememberedFindings findings.
func reportMemo() *memo[audit.Report] {
	return &memo[audit.Report]{cost: func(r audit.Report) int { return len(r.Findings) }, max: maxRememberedFindings}
}

func (c *memo[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

// getEach looks each of keys up under one lock: values[i] and found[i]
// are get(keys[i]).
func (c *memo[V]) getEach(keys []string) (values []V, found []bool) {
	values, found = make([]V, len(keys)), make([]bool, len(keys))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range keys {
		values[i], found[i] = c.m[k]
	}
	return values, found
}

func (c *memo[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cost := 0
	if c.cost != nil {
		cost = c.cost(v)
	}
	if c.m == nil || len(c.m) >= maxVerdicts || c.held+cost > c.max && c.held > 0 {
		c.m, c.held = make(map[string]V), 0
	}
	c.m[key] = v
	c.held += cost
}

// SignatureVerifierOf returns the verifier of the signatures s finds
// (the Sigstore bundles of source/oci's Remote and SkillSource): package
// signature verifies them.
func SignatureVerifierOf(s source.Signed) SignatureVerifier {
	return bundles{s}
}

// signatureVerifier returns what checks the signatures of src: src itself
// when it is a [SignatureVerifier], [SignatureVerifierOf] of a
// [source.Signed], else nil, as src carries no signature.
func signatureVerifier(src any) SignatureVerifier {
	switch v := src.(type) {
	case SignatureVerifier:
		return v
	case source.Signed:
		return SignatureVerifierOf(v)
	}
	return nil
}

// bundles is the SignatureVerifier of a source.Signed.
type bundles struct{ f source.Signed }

func (b bundles) VerifySignature(ctx context.Context, pin string, reqs []signature.Requirement) (signature.Signer, error) {
	check := &signature.BundleCheck{Reqs: reqs}
	if err := b.f.VerifyBundles(ctx, pin, check); err != nil {
		return signature.Signer{}, err
	}
	return check.Signer, nil
}
