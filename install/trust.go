package install

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// ErrRefused reports a source or skill that the trust checks refuse
// (see # Trust in the package doc): a source the policy does not allow,
// a signature that is missing, invalid or by another signer than the one
// required or recorded, an unsigned commit the policy requires signed,
// or a skill whose audit reaches the threshold. It is trust.ErrRefused,
// the one sentinel of every refusal of the trust checks.
var ErrRefused = trust.ErrRefused

// Trust is what Add, Sync and [Installer.CheckTrust] check about who
// published a skill and what it does; see [WithTrust] and # Trust in the
// package doc.
type Trust struct {
	// Signers are the signer requirements given by the user (a
	// command's --key and --certificate-* flags): every OCI source must
	// carry a signature by one of them. Default: none (the policy's, and
	// the signer the lock file records, still apply).
	Signers []signature.Requirement
	// Policy is the policy enforced. Default (nil): the zero policy,
	// which allows every source, requires no signer and refuses skills
	// with audit findings of high severity or above.
	Policy *policy.Policy
	// AcceptSigners names new signers accepted in place of the one the
	// lock file records, each as [signature.Signer.String] writes it or
	// by its key ID ("sha256:..."). Default: none; a changed signer is
	// refused with a [*SignerChangedError].
	AcceptSigners []string
	// AllowRisks names audit rules (audit.Rule.ID) whose findings do not
	// refuse a skill, as trust.AllowRisks does. Default: none.
	AllowRisks []string

	// checker is the trust engine of Policy and AllowRisks.
	checker *trust.Checker
}

// WithTrust makes Add, Sync and [Installer.CheckTrust] enforce t (the
// rules of # Trust in the package doc). Default: no trust checks at all: no policy,
// no signature and no audit (the lock file's recorded signers are kept as
// they are).
func WithTrust(t Trust) Option {
	return func(o *config) {
		t.checker = trust.NewChecker(t.Policy, trust.AllowRisks(t.AllowRisks...))
		o.trust = &t
	}
}

// SignerChangedError is the refusal of content signed by another signer
// than the one the lock file records for its source (Trust rule 4): a
// refusal of the lock file's, beside the trust engine's
// *trust.RefusedError. It wraps [ErrRefused], the sentinel of both.
type SignerChangedError struct {
	// Source is the source, as recorded.
	Source string
	// Recorded is the signer the lock file records; Found is the one who
	// signed the content now.
	Recorded, Found signature.Signer
}

func (e *SignerChangedError) Error() string {
	return fmt.Sprintf("%v: %s is now signed by %s, but the lock file records %s; nothing of it was installed (if the publisher changed signer, accept the new one by name: Trust.AcceptSigners %q)",
		ErrRefused, e.Source, e.Found, e.Recorded, e.AcceptAs())
}

// AcceptAs is how Trust.AcceptSigners names the new signer: its key ID,
// or its String.
func (e *SignerChangedError) AcceptAs() string { return acceptName(e.Found) }

// Unwrap returns ErrRefused.
func (e *SignerChangedError) Unwrap() error { return ErrRefused }

// acceptName is how a user names s to accept it: its key ID, or its
// String.
func acceptName(s signature.Signer) string {
	if s.KeyID != "" {
		return s.KeyID
	}
	return s.String()
}

// Refusal is one skill or source refused by the trust checks, as Add
// reports it in a *trust.RefusedError (its Refusals) and
// [Installer.CheckTrust] returns it: trust.Refusal.
type Refusal = trust.Refusal

// lockSigner is a signer as the lock file records it: who signed (the key
// ID, or the identity and issuer) and, for a key, its public key in PEM,
// so that a later sync or verify checks the signature again without the
// user naming the key (Trust rule 4).
type lockSigner struct {
	signature.Signer
	// PublicKey is the PKIX PEM of the key that verified, for a key
	// signature.
	PublicKey string `json:"public_key,omitempty"`
	// TrustedRoot is the trusted root that verified a keyless signature,
	// when it was not Sigstore's public-good root.
	TrustedRoot *lockRoot `json:"trusted_root,omitempty"`
}

// requirement is what a later verification requires of the signer r
// records: its key, or its identity and issuer exactly, against the
// trusted root it records (read from its file, under root when
// relative), else Sigstore's public-good one.
func (r *lockSigner) requirement(root string) (signature.Requirement, error) {
	if r.KeyID == "" {
		req := signature.Requirement{Identity: r.Identity, Issuer: r.Issuer}
		if r.TrustedRoot != nil {
			data, file, err := r.TrustedRoot.read(root)
			if err != nil {
				return signature.Requirement{}, fmt.Errorf("%w: the signer the lock file records, %s, cannot be checked: %w", ErrRefused, r.Signer, err)
			}
			req.TrustedRoot, req.TrustedRootFile = data, file
		}
		return req, nil
	}
	pub, err := signature.LoadPublicKey([]byte(r.PublicKey))
	if err != nil {
		return signature.Requirement{}, fmt.Errorf("%w: the key recorded for signer %s: %w", ErrInvalidLock, r.KeyID, err)
	}
	return signature.Requirement{Key: pub}, nil
}

// engine is the trust checker of t, which WithTrust makes.
func (t *Trust) engine() *trust.Checker {
	if t.checker == nil {
		t.checker = trust.NewChecker(t.Policy, trust.AllowRisks(t.AllowRisks...))
	}
	return t.checker
}

// effectivePolicy is t's policy, or the zero one, as its checker's.
func (t *Trust) effectivePolicy() *policy.Policy {
	if t.Policy == nil {
		return new(policy.Policy)
	}
	return t.Policy
}

// sourceTrust is what is checked of one source and what was found: built
// before the source is read (checkSource), used as it is read (verifyPin),
// and recorded in its skills' lock entries.
type sourceTrust struct {
	in       *Installer
	t        *Trust
	ps       source.Origin
	lists    []signerList // every list must be satisfied
	recorded *lockSigner  // the signer the lock file records, or nil
	commits  []policy.CommitRule
	// found, once verified
	signer       *lockSigner
	commitSigner string
	// verifiedPin is the pin verifyPin verified with the network, and
	// verifiedKeys the commitKeys it verified the commit with: what a
	// verdict of the skills read there records (rememberVerdict).
	verifiedPin, verifiedKeys string
}

// signerList is one list of signer requirements, satisfied by a
// signature of any of them: the Trust.Signers, a policy rule, or the
// signer the lock file records. The trust checker verifies them all
// (trust.Checker.VerifySignatures): the policy's rules, and install's
// own, which are not the policy's (extra), as rules of their own.
type signerList struct {
	from string // where the list comes from, in messages
	trust.SignerRule
	extra bool
}

// lockSignerRule names the list of the signer the lock file records: its
// refusal is the lock file's, not the policy's, and wraps [ErrRefused]
// alone.
const lockSignerRule = "lock file signer"

// checkSource checks a source against the policy before anything is read
// (Trust rule 1) and returns what reading it must verify; recorded is the
// signer the lock file records for it (nil: none). A nil Installer trust
// gives a nil sourceTrust: nothing is checked.
func (in *Installer) checkSource(text, pin string, typed bool, recorded *lockSigner) (*sourceTrust, error) {
	t := in.trust
	if t == nil {
		return nil, nil
	}
	ps, err := in.policySource(text, pin, typed)
	if err != nil {
		return nil, err
	}
	p := t.effectivePolicy()
	if err := t.engine().Check(ps); err != nil {
		return nil, err // a *trust.RefusedError of the source
	}
	st := &sourceTrust{in: in, t: t, ps: ps, recorded: recorded}
	if len(t.Signers) > 0 {
		st.lists = append(st.lists, signerList{"Trust.Signers", trust.SignerRule{Rule: policy.Rule{Name: "Trust.Signers"}, Requirements: t.Signers}, true})
	}
	lists, err := p.SignerRules(ps)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefused, ps.Display, err)
	}
	for _, r := range lists {
		st.lists = append(st.lists, signerList{"the policy's " + r.Rule.String(), trust.SignerRuleOf(r), false})
	}
	if len(st.lists) == 0 && recorded != nil {
		req, err := recorded.requirement(in.Root())
		if err != nil {
			return nil, err
		}
		st.lists = []signerList{{"the signer the lock file records", trust.SignerRule{Rule: policy.Rule{Name: lockSignerRule}, Requirements: []signature.Requirement{req}}, true}}
	}
	// The policy's signers rules name oci sources only (rule 6 of package
	// policy), so lists is empty for any other source.
	if len(st.lists) > 0 && ps.Kind != source.OCI {
		if len(t.Signers) > 0 && recorded == nil {
			return nil, fmt.Errorf("%w: %s is a %s source: signature requirements (Trust.Signers) apply to oci:// sources only, which carry Sigstore signatures; require a signed commit in the policy instead", ErrRefused, ps.Display, ps.Kind)
		}
		st.lists = nil // flags name OCI signers; a sync applies them to its OCI sources only
	}
	if ps.Kind == source.Git || ps.Kind == source.GitHub {
		st.commits = p.CommitRules(ps)
	}
	return st, nil
}

// verifyPin verifies a published source at pin before its content is
// downloaded: the OCI signatures required (Trust rule 2), a changed signer
// (Trust rule 4), the commit's signature the policy requires (Trust rule 3).
func (st *sourceTrust) verifyPin(ctx context.Context, rs source.Remote, pin string) error {
	if st == nil {
		return nil
	}
	if len(st.lists) > 0 {
		if err := st.verifySignatures(ctx, rs, pin); err != nil {
			return err
		}
	}
	keys, keysOK := st.commitKeys() // before the check: a verdict names no keys newer than those checked
	if len(st.commits) > 0 {
		var cv source.CommitVerifier
		if v, ok := rs.(source.CommitVerifier); ok {
			cv = v
		}
		who, err := st.t.engine().VerifyCommits(ctx, st.ps, cv, pin)
		var refused *trust.RefusedError
		switch {
		case errors.As(err, &refused) && cv == nil:
			refused.Detail = fmt.Sprintf("%s: the policy's %s requires a signed commit, but this source cannot check one", st.ps.Display, refused.Rule)
			return err
		case errors.As(err, &refused):
			refused.Detail = fmt.Sprintf("%s at %s: the policy's %s requires a commit signed by a key it names: %v; nothing of it was installed (ask the publisher to sign the commit, pin a signed one, or change the policy)", st.ps.Display, shortPin(pin), refused.Rule, refused.Err)
			return err
		case err != nil:
			return err
		}
		st.commitSigner = who
	}
	if keysOK {
		st.verifiedPin, st.verifiedKeys = pin, keys
	}
	return nil
}

// verifySignatures verifies the OCI source rs at pin against every list
// of requirements, with the trust checker, and checks the signer against
// the one recorded.
func (st *sourceTrust) verifySignatures(ctx context.Context, rs source.Remote, pin string) error {
	signed, ok := rs.(source.Signed)
	if !ok {
		return fmt.Errorf("%w: %s is not an OCI source, and carries no signature", ErrRefused, st.ps.Display)
	}
	r := trust.SignatureVerifierOf(signed)
	var extra []trust.SignerRule
	for _, list := range st.lists {
		if list.extra {
			extra = append(extra, list.SignerRule)
		}
	}
	signers, err := st.t.engine().VerifySignatures(ctx, st.ps, r, pin, extra...)
	if err != nil {
		var refused *trust.RefusedError
		if !errors.As(err, &refused) {
			return err
		}
		i := slices.IndexFunc(st.lists, func(l signerList) bool { return l.Rule == refused.Rule })
		if i < 0 {
			return err
		}
		list := st.lists[i]
		var want []string
		for _, r := range list.Requirements {
			want = append(want, r.String())
		}
		what := "nothing of it was installed"
		if st.recorded != nil && len(st.lists) == 1 && list.Requirements[0].Matches(st.recorded.Signer) {
			what += "; if its publisher changed signer, give the new signer's key or identity (Trust.Signers) and accept it by name (Trust.AcceptSigners)"
		}
		if list.Rule.Name == lockSignerRule {
			// The lock file's refusal, not the policy's: no *trust.RefusedError.
			return fmt.Errorf("%w: %s at %s must be signed by %s (%s): %w; %s", ErrRefused, st.ps.Display, shortPin(pin), strings.Join(want, " or "), list.from, refused.Err, what)
		}
		refused.Detail = fmt.Sprintf("%s at %s must be signed by %s (%s): %v; %s", st.ps.Display, shortPin(pin), strings.Join(want, " or "), list.from, refused.Err, what)
		return err
	}
	if len(signers) != len(st.lists) {
		return fmt.Errorf("%w: %s at %s: the policy's signers rules changed while it was checked", ErrRefused, st.ps.Display, shortPin(pin))
	}
	s, reqs := signers[0], st.lists[0].Requirements
	ls := &lockSigner{Signer: s}
	if s.KeyID != "" {
		if ls.PublicKey, err = matchingKey(reqs, s.KeyID); err != nil {
			return err
		}
	} else if ls.TrustedRoot, err = st.verifiedRoot(ctx, r, pin, reqs, s); err != nil {
		return err
	}
	st.signer = ls
	if r := st.recorded; r != nil && r.Signer != st.signer.Signer && !st.accepted(st.signer.Signer) {
		return &SignerChangedError{Source: st.ps.Display, Recorded: r.Signer, Found: st.signer.Signer}
	}
	return nil
}

// accepted reports whether s is named in Trust.AcceptSigners.
func (st *sourceTrust) accepted(s signature.Signer) bool {
	return slices.ContainsFunc(st.t.AcceptSigners, func(name string) bool {
		name = strings.TrimSpace(name)
		return name == s.String() || s.KeyID != "" && (name == s.KeyID || name == "key "+s.KeyID)
	})
}

// matchingKey returns the PEM of the key of list whose ID is id.
func matchingKey(list []signature.Requirement, id string) (string, error) {
	for _, r := range list {
		if r.Key == nil {
			continue
		}
		if k, err := signature.KeyID(r.Key); err == nil && k == id {
			return publicKeyPEM(r.Key)
		}
	}
	return "", fmt.Errorf("signer %s verified, but no required key has that ID", id)
}

// publicKeyPEM is pub in PKIX PEM, as cosign writes cosign.pub.
func publicKeyPEM(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// mark gives the skills read from the source what st checked and found.
func (st *sourceTrust) mark(skills []candidate) {
	if st == nil {
		return
	}
	for i := range skills {
		skills[i].trust = st
	}
}

// trusted is who signed c, as its lock entry records it: what its
// source's checks verified, else, read at the pin old records, what old
// records.
func (c *candidate) trusted(old *lockEntry) (*lockSigner, string) {
	var s *lockSigner
	var cs string
	if c.trust != nil {
		s, cs = c.trust.signer, c.trust.commitSigner
	}
	if old != nil && old.Pin == c.pin && old.Source == c.source {
		if s == nil {
			s = old.Signer
		}
		if cs == "" {
			cs = old.CommitSigner
		}
	}
	return s, cs
}

// auditSkill audits a skill's tree and returns the findings that refuse
// it unless allowed (Trust rule 5): at or above the policy's threshold and
// not accepted by the policy.
func (in *Installer) auditSkill(c *candidate, ps source.Origin) (audit.Report, error) {
	t := in.trust
	fsys, closeFS, err := c.tree().open()
	if err != nil {
		return audit.Report{}, err
	}
	defer closeFS()
	return blocking(t, fsys, c.label(), ps)
}

// auditFolder is auditSkill of an installed skill's folder.
func (in *Installer) auditFolder(dir, name string, ps source.Origin) (audit.Report, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return audit.Report{}, err
	}
	defer root.Close()
	return blocking(in.trust, root.FS(), name, ps)
}

// blocking is the audit of the tree fsys of the skill name from ps, and
// its findings that refuse the skill before the risks allowed by
// Trust.AllowRisks or recorded in the lock file (Trust rule 5).
func blocking(t *Trust, fsys fs.FS, name string, ps source.Origin) (audit.Report, error) {
	rep, err := t.engine().Audit(fsys, "")
	if err != nil {
		return audit.Report{}, err
	}
	return t.engine().Blocking(rep, name, ps), nil
}

// maxRefusalFindings bounds the audit findings that the refusals of one
// request list in all: past it each refusal lists its first finding and
// counts the others (Refusal.Omitted), so that a source of thousands of
// refused skills is reported in bounded memory.
const maxRefusalFindings = 1000

// auditReason says why findings refuse a skill, and what to do.
func auditReason(rep audit.Report) string {
	var parts, rules []string
	for _, f := range rep.Findings {
		at := f.File
		if f.Line > 0 {
			at = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		parts = append(parts, fmt.Sprintf("%s (%s) at %s: %s", f.Rule, f.Severity, at, f.Message))
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	if more := rep.Omitted.String(); more != "" {
		parts = append(parts, more)
		for _, rule := range slices.Sorted(maps.Keys(rep.Omitted)) {
			if !slices.Contains(rules, rule) {
				rules = append(rules, rule)
			}
		}
	}
	return fmt.Sprintf("the audit found %s; read the skill, and if you trust it, allow these rules by name (Trust.AllowRisks: %s) or accept the findings in the policy",
		strings.Join(parts, "; "), strings.Join(rules, ", "))
}

// checkSources checks every source of an Add against the policy before
// any is read (Trust rule 1), and returns what reading each must verify, in
// order (nil entries when the Installer has no trust). The signer a
// source's skills were installed with before (Trust rule 4) is what the lock
// file records for the same source.
func (in *Installer) checkSources(sources []string) ([]*sourceTrust, error) {
	out := make([]*sourceTrust, len(sources))
	if in.trust == nil {
		return out, nil
	}
	lock, err := in.peekLock()
	if err != nil {
		return nil, err
	}
	var problems []error
	for i, src := range sources {
		var recorded *lockSigner
		for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
			if e := lock.Skills[name]; e.Signer != nil && in.sameSource(e.Source, src) {
				recorded = e.Signer
				break
			}
		}
		if out[i], err = in.checkSource(src, "", true, recorded); err != nil {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		return nil, refuse(problems)
	}
	return out, nil
}

// recordedSigner is the signer the lock file records for the skills
// names (read from one source at one pin), or nil.
func recordedSigner(lock *lockFile, names []string) *lockSigner {
	for _, name := range names {
		if s := lock.Skills[name].Signer; s != nil {
			return s
		}
	}
	return nil
}

// auditUse audits the skills an Add is about to install (Trust rule 6) and
// returns those that pass, and for each refused one its skipped Change
// and its Refusal. With strict, a refused skill fails the request before
// anything changes; so does refusing every skill.
func (in *Installer) auditUse(ctx context.Context, use []*candidate, strict bool) ([]*candidate, []Change, []Refusal, error) {
	if in.trust == nil {
		return use, nil, nil, nil
	}
	lock, err := in.peekLock()
	if err != nil {
		return nil, nil, nil, err
	}
	var keep []*candidate
	var skipped []Change
	var refused []Refusal
	left := maxRefusalFindings
	for _, c := range use {
		var rec *RiskAllowance
		if e := lock.Skills[c.name]; e != nil && in.sameSource(e.Source, c.source) && e.Subpath == c.subpath {
			rec = e.AllowedRisks
		}
		r, err := in.auditCandidate(ctx, c, rec, &left)
		if err != nil {
			return nil, nil, nil, err
		}
		if r == nil {
			keep = append(keep, c)
			continue
		}
		refused = append(refused, *r)
		skipped = append(skipped, Change{Skill: c.label(), Source: c.source, Path: c.pathInSource(), Action: ActionSkipped, Reason: r.Reason})
	}
	if len(refused) > 0 && (strict || len(keep) == 0) {
		why := "no skill is left to install; nothing was changed"
		if strict {
			why = "nothing was changed (strict: a skill that cannot be installed stops the request)"
		}
		return nil, nil, nil, fmt.Errorf("%w\n%s", &trust.RefusedError{Refusals: refused}, why)
	}
	return keep, skipped, refused, nil
}

// auditCandidate audits one skill about to be installed, whose lock entry
// records rec (nil: none), and returns its refusal, or nil when it passes.
// The refusal lists at most *left findings (one at least), which it takes
// from *left.
func (in *Installer) auditCandidate(ctx context.Context, c *candidate, rec *RiskAllowance, left *int) (*Refusal, error) {
	ps := source.Origin{Display: c.source}
	if c.trust != nil {
		ps = c.trust.ps
	} else if p, err := in.policySource(c.source, c.pin, false); err == nil {
		ps = p
	}
	rep, err := in.auditSkill(c, ps)
	if err == nil {
		rep, err = in.allowCandidate(ctx, c, rep, rec, ps)
	}
	if err != nil {
		return nil, fmt.Errorf("skill %s in %s: audit: %w", c.label(), c.where(), err)
	}
	if len(rep.Findings) == 0 {
		return nil, nil
	}
	rep = rep.Trim(*left)
	*left -= len(rep.Findings)
	return &Refusal{Skill: c.label(), Source: c.source, Reason: auditReason(rep), Findings: rep.Findings, Omitted: rep.Omitted}, nil
}

// checkRecorded is checkSource of a source a lock file records at pin
// for the skills names (a sync).
func (in *Installer) checkRecorded(source, pin string, names []string, lock *lockFile) (*sourceTrust, error) {
	if err := in.checkHost(source, pin, names, lock); err != nil {
		return nil, err
	}
	text := source
	if pin == "" {
		text = in.sourcePath(source)
	}
	return in.checkSource(text, pin, false, recordedSigner(lock, names))
}

// cachedOK reports whether a sync may take the skills names from the
// skill cache, as far as st is concerned. Where something is verified of
// the source (a signed commit the policy requires, a signer of an OCI
// source), the cache must hold this machine's verdict (rememberVerdict)
// on each skill's recorded digest read from this source at the recorded
// pin, and for a commit, verified with the keys the policy names now: a
// lock file's pin, digest and commit_signer alone are never trusted.
// Otherwise the source is read and verified again, with the network.
func (st *sourceTrust) cachedOK(names []string, lock *lockFile) bool {
	if st == nil || len(st.commits) == 0 && len(st.lists) == 0 {
		return true
	}
	keys, ok := st.commitKeys()
	if !ok {
		return false
	}
	var signer string
	for _, name := range names {
		e := lock.Skills[name]
		v, ok := st.in.recalledVerdict(st, e.Pin, e.Digest, keys)
		if !ok || len(st.commits) > 0 && v.Signer == "" {
			return false
		}
		if signer == "" {
			signer = v.Signer
		}
	}
	if len(st.commits) > 0 {
		st.commitSigner = signer
	}
	return true
}

// verifyCached verifies the signatures of a published source whose
// skills a sync takes from the skill cache: from the bundles the cache
// holds, without the network when it holds them (Trust rule 4).
func (in *Installer) verifyCached(ctx context.Context, source, pin string, st *sourceTrust) error {
	if st == nil || len(st.lists) == 0 {
		return nil
	}
	rs, err := in.parseSource(source, false)
	if err != nil {
		return err
	}
	if rs == nil {
		return fmt.Errorf("%w: %s is recorded with a signer, but is not a published source", ErrInvalidLock, source)
	}
	return st.verifySignatures(ctx, rs, pin)
}

// auditRecorded audits a recorded skill a sync is about to install (rule
// T6), whose lock entry records rec: a sync refuses it, changing nothing.
func (in *Installer) auditRecorded(ctx context.Context, c *candidate, rec *RiskAllowance) error {
	if in.trust == nil {
		return nil
	}
	left := maxRefusalFindings
	r, err := in.auditCandidate(ctx, c, rec, &left)
	if err != nil || r == nil {
		return err
	}
	return fmt.Errorf("%w: skill %s from %s: %s", ErrRefused, r.Skill, r.Source, r.Reason)
}

// CheckTrust checks what the scope's lock file records against the
// Installer's trust ([WithTrust]; without it there is nothing to check
// and it returns nil) without changing anything (Trust rule 7): each recorded
// source against the policy (a source it no longer allows), each
// recorded signer of an OCI source again, from the signature bundles the
// skill cache holds (the network only when it holds none), and the
// installed canonical copy of each skill against the audit threshold. It
// returns every refusal, sorted by skill; the error is for a check that
// could not run (a lock file that cannot be read).
func (in *Installer) CheckTrust(ctx context.Context) ([]Refusal, error) {
	if in.trust == nil {
		return nil, nil
	}
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	var out []Refusal
	left := maxRefusalFindings
	reads, bySource := recordedReads(lock)
	for _, k := range reads {
		names := bySource[k]
		st, err := in.checkRecorded(k.source, k.pin, names, lock)
		if err == nil && st != nil && len(st.lists) > 0 {
			err = in.verifyCached(ctx, k.source, k.pin, st)
		}
		if err != nil {
			if ctx.Err() != nil {
				return out, interrupted(ctx, "the check is incomplete")
			}
			for _, name := range names {
				out = append(out, Refusal{Skill: name, Source: k.source, Reason: err.Error()})
			}
			continue
		}
		for _, name := range names {
			dir := in.canonicalPath(name)
			if _, err := os.Stat(dir); err != nil {
				continue // missing: Verify reports it
			}
			ps := source.Origin{Display: k.source}
			if st != nil {
				ps = st.ps
			}
			rep, err := in.auditFolder(dir, name, ps)
			if err == nil {
				rep, err = in.allowInstalled(ctx, dir, name, rep, lock.Skills[name].AllowedRisks, ps)
			}
			if err != nil {
				out = append(out, Refusal{Skill: name, Source: k.source, Reason: fmt.Sprintf("audit of %s: %v", dir, err)})
				continue
			}
			if len(rep.Findings) > 0 {
				rep = rep.Trim(left)
				left -= len(rep.Findings)
				out = append(out, Refusal{Skill: name, Source: k.source, Reason: auditReason(rep), Findings: rep.Findings, Omitted: rep.Omitted})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Refusal) int { return strings.Compare(a.Skill, b.Skill) })
	return out, nil
}
