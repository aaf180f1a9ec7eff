package install

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// Trust is what the lock file's rules add to the trust engine that Add,
// Sync and [Installer.CheckTrust] enforce (see [WithTrust] and # Trust in
// the package doc): the new signers accepted in place of those the lock
// file records. The signers a user requires of the sources are the
// engine's (trust.RequireSigners).
type Trust struct {
	// AcceptSigners names new signers accepted in place of the one the
	// lock file records, each as [signature.Signer.String] writes it or
	// by its key ID ("sha256:..."). Default: none; a changed signer is
	// refused with a [*SignerChangedError].
	AcceptSigners []string

	// checker is the trust engine WithTrust was given.
	checker *trust.Checker
}

// WithTrust makes Add, Sync and [Installer.CheckTrust] enforce the trust
// engine c (its policy, the audit rules it lets through with
// trust.AllowRisks and the signers it requires with trust.RequireSigners)
// and t, what the lock file's rules add (the rules of
// # Trust in the package doc). A nil c is trust.NewChecker(nil): the zero
// policy, which allows every source, requires no signer and refuses
// skills with audit findings of high severity or above. Default: no
// trust checks at all: no policy, no signature and no audit (the lock
// file's recorded signers are kept as they are).
func WithTrust(c *trust.Checker, t Trust) Option {
	return func(o *config) {
		if c == nil {
			c = trust.NewChecker(nil)
		}
		t.checker = c
		o.trust = &t
	}
}

// SignerChangedError is the refusal of content signed by another signer
// than the one the lock file records for its source (Trust rule 4): a
// refusal of the lock file's, beside the trust engine's
// *trust.RefusedError. It wraps trust.ErrRefused, the sentinel of both.
type SignerChangedError struct {
	// Source is the source, as recorded.
	Source string
	// Recorded is the signer the lock file records; Found is the one who
	// signed the content now.
	Recorded, Found signature.Signer

	accept string // how the message names Trust.AcceptSigners (WithSettingNames); "": by that name
}

func (e *SignerChangedError) Error() string {
	return fmt.Sprintf("%s: %v: it is now signed by %s, but the lock file records %s; nothing of it was installed (if the publisher changed signer, accept the new one by name: %s %q)",
		e.Source, trust.ErrRefused, e.Found, e.Recorded, cmp.Or(e.accept, SettingAcceptSigners), e.AcceptAs())
}

// AcceptAs is how Trust.AcceptSigners names the new signer: its key ID,
// or its String.
func (e *SignerChangedError) AcceptAs() string { return acceptName(e.Found) }

// Unwrap returns trust.ErrRefused.
func (e *SignerChangedError) Unwrap() error { return trust.ErrRefused }

// acceptName is how a user names s to accept it: its key ID, or its
// String.
func acceptName(s signature.Signer) string {
	if s.KeyID != "" {
		return s.KeyID
	}
	return s.String()
}

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
func (r *lockSigner) requirement(root, trustedRoot string) (signature.Requirement, error) {
	if r.KeyID == "" {
		req := signature.Requirement{Identity: r.Identity, Issuer: r.Issuer}
		if r.TrustedRoot != nil {
			data, file, err := r.TrustedRoot.read(root, trustedRoot)
			if err != nil {
				return signature.Requirement{}, &trust.RefusedError{Refusals: []trust.Refusal{{Reason: fmt.Sprintf("the signer the lock file records, %s, cannot be checked: %v", r.Signer, err), Err: err}}}
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

// effectivePolicy is the policy of t's trust engine.
func (t *Trust) effectivePolicy() *policy.Policy { return t.checker.Policy() }

// sourceTrust is what is checked of one source and what was found: built
// before the source is read (checkSource), used as it is read (verifyPin),
// and recorded in its skills' lock entries.
type sourceTrust struct {
	in       *Installer
	t        *Trust
	check    *trust.SourceCheck // what the trust engine verifies; nil: nothing
	ps       source.Origin
	recorded *lockSigner // the signer the lock file records, or nil
	commits  []policy.CommitRule
	// found, once verified
	signer       *lockSigner
	commitSigner string
	// verifiedPin is the pin verifyPin verified with the network, and
	// verifiedKeys the commitKeys it verified the commit with: what a
	// verdict of the skills read there records (rememberVerdict).
	verifiedPin, verifiedKeys string
}

// signed reports whether the source must carry signatures: the trust
// engine has signers rules for it.
func (st *sourceTrust) signed() bool {
	return st != nil && st.check != nil && len(st.check.SignerRules()) > 0
}

// lockSignerRule names the signers rule of the signer the lock file
// records: its refusal is the lock file's, not the policy's, and matches
// trust.ErrRefused and not policy.ErrDenied.
const lockSignerRule = "the signer the lock file records"

// checkSource checks a source against the policy before anything is read
// (Trust rule 1) and returns what reading it must verify; recorded is the
// signer the lock file records for it (nil: none). A nil Installer trust
// gives a nil sourceTrust: nothing is checked.
func (in *Installer) checkSource(text, pin string, typed bool, recorded *lockSigner) (*sourceTrust, error) {
	return in.checkSourceBy(in.trust, text, pin, typed, recorded)
}

// checkSourceBy is checkSource with the trust t.
func (in *Installer) checkSourceBy(t *Trust, text, pin string, typed bool, recorded *lockSigner) (*sourceTrust, error) {
	if t == nil {
		return nil, nil
	}
	ps, err := in.policySource(text, pin, typed)
	if err != nil {
		return nil, err
	}
	// The policy's signers rules name oci sources only (rule 6 of package
	// policy), and the engine's required signers apply to OCI sources
	// only; naming them for a source of another kind is refused, as
	// nothing could satisfy them (a sync applies them to its OCI sources
	// only).
	if len(t.checker.RequiredSigners()) > 0 && ps.Kind != source.OCI && recorded == nil {
		if err := t.checker.Check(ps); err != nil {
			return nil, err
		}
		return nil, &trust.RefusedError{Refusals: []trust.Refusal{{Source: ps.Display, Origin: ps,
			Reason: fmt.Sprintf("it is a %s source: signature requirements (%s) apply to oci:// sources only, which carry Sigstore signatures; require a signed commit in the policy instead", ps.Kind, in.setting(SettingRequireSigners))}}}
	}
	check, err := t.checker.CheckSource(ps)
	if err != nil {
		return nil, err // a *trust.RefusedError of the source
	}
	if len(check.SignerRules()) == 0 && recorded != nil && ps.Kind == source.OCI {
		req, err := recorded.requirement(in.Root(), in.setting(SettingTrustedRoot))
		if err != nil {
			return nil, err
		}
		if check, err = t.checker.CheckSource(ps, trust.SignerRule{Rule: policy.Rule{Name: lockSignerRule}, Requirements: []signature.Requirement{req}}); err != nil {
			return nil, err
		}
	}
	return &sourceTrust{in: in, t: t, check: check, ps: ps, recorded: recorded, commits: check.CommitRules()}, nil
}

// verifyPin verifies a published source at pin before its content is
// downloaded, with the trust engine: the OCI signatures required (Trust
// rule 2), a changed signer (Trust rule 4), the commit's signature the
// policy requires (Trust rule 3).
func (st *sourceTrust) verifyPin(ctx context.Context, rs source.Remote, pin string) error {
	if st == nil {
		return nil
	}
	if st.signed() {
		if err := st.verifySignatures(ctx, rs, pin); err != nil {
			return err
		}
	}
	keys, keysOK := st.commitKeys() // before the check: a verdict names no keys newer than those checked
	if len(st.commits) > 0 {
		cv, _ := rs.(source.CommitVerifier)
		who, err := st.check.VerifyCommits(ctx, cv, pin)
		if err != nil {
			return err
		}
		st.commitSigner = who
	}
	if keysOK {
		st.verifiedPin, st.verifiedKeys = pin, keys
	}
	return nil
}

// verifySignatures verifies the OCI source rs at pin with the trust
// engine, records who signed as the lock file will, and checks the
// signer against the one recorded.
func (st *sourceTrust) verifySignatures(ctx context.Context, rs source.Remote, pin string) error {
	var v trust.SignatureVerifier
	if s, ok := rs.(source.Signed); ok {
		v = trust.SignatureVerifierOf(s)
	}
	signed, err := st.check.VerifySignatures(ctx, v, pin)
	var refused *trust.RefusedError
	if errors.As(err, &refused) {
		r := &refused.Refusals[0]
		rules := st.check.SignerRules()
		if st.recorded != nil && len(rules) == 1 && rules[0].Requirements[0].Matches(st.recorded.Signer) {
			r.Reason += fmt.Sprintf("; if its publisher changed signer, give the new signer's key or identity (%s) and accept it by name (%s)", st.in.setting(SettingRequireSigners), st.in.setting(SettingAcceptSigners))
		}
		if r.Rule.Name == lockSignerRule {
			// The lock file's refusal, not the policy's: it names no
			// rule of the policy, so it does not match policy.ErrDenied.
			r.Rule = policy.Rule{}
		}
	}
	if err != nil {
		return err
	}
	ls := &lockSigner{Signer: signed.Signer}
	if ls.PublicKey, err = signed.PublicKeyPEM(); err != nil {
		return err
	}
	ls.TrustedRoot = st.recordedRoot(signed.Requirement)
	st.signer = ls
	if r := st.recorded; r != nil && r.Signer != st.signer.Signer && !st.accepted(st.signer.Signer) {
		return &SignerChangedError{Source: st.ps.Display, Recorded: r.Signer, Found: st.signer.Signer, accept: st.in.setting(SettingAcceptSigners)}
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

// mark gives the skills read from the source what st checked and found.
func (st *sourceTrust) mark(skills []candidate) {
	if st == nil {
		return
	}
	for i := range skills {
		skills[i].trust = st
	}
}

// recordedVersion is the version c's lock entry records: the tag its
// source's range picked when it was read, else, read at the pin old
// records from the same source, what old records if the source's own
// reference admits it (a version outside its range, or not the tag it
// names, was written by hand and is dropped).
func (c *candidate) recordedVersion(old *lockEntry) string {
	if c.version == "" && old != nil && old.Pin == c.pin && old.Source == c.source {
		if old.Version != "" && !versionFits(old.Version, sourceRef(old.Source)) {
			return ""
		}
		return old.Version
	}
	return c.version
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

// auditSkill audits a skill's tree with the trust engine and returns
// the findings that refuse it (Trust rule 5), and the rules of
// trust.AllowRisks that let findings through. The tree's content digest
// is computed first, when c has none yet: the digest of the files its
// extraction wrote, whose audit, made as it wrote them, is handed to
// the trust engine (rememberExtracted: no file is read again), else
// checkTree's, as staging reads the tree; it is kept in c for staging
// to use, and the report kept for it (trust.Checker.AuditContent) is
// used without auditing the tree again.
func (in *Installer) auditSkill(ctx context.Context, c *candidate, ps source.Origin) (audit.Report, []string, error) {
	t := c.tree()
	if c.digest == "" {
		c.digest = in.rememberExtracted(c)
	}
	if c.digest == "" && c.name != "" {
		ht := t
		ht.opened = in.hashing
		if d, err := checkTree(ctx, ht, c.name, in.cache); err == nil {
			c.digest = d
		}
	}
	t.opened = in.auditing
	fsys := &lazyTree{t: t}
	defer fsys.close()
	return in.trust.checker.AuditContent(fsys, c.digest, c.label(), ps)
}

// lazyTree is the file system of a tree, opened on its first use: the
// audit of content whose report is kept opens nothing. It is safe for
// concurrent use.
type lazyTree struct {
	t       tree
	once    sync.Once
	fsys    resolvedFS
	closeFS func()
	err     error
}

func (l *lazyTree) get() (resolvedFS, error) {
	l.once.Do(func() { l.fsys, l.closeFS, l.err = l.t.open() })
	return l.fsys, l.err
}

// close closes the tree's file system, if it was opened.
func (l *lazyTree) close() {
	l.once.Do(func() { l.err = fs.ErrClosed }) // nothing is opened once closing began
	if l.closeFS != nil {
		l.closeFS()
	}
}

func (l *lazyTree) Open(name string) (fs.File, error) {
	fsys, err := l.get()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fsys.Open(name)
}

func (l *lazyTree) Stat(name string) (fs.FileInfo, error) {
	fsys, err := l.get()
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fsys.Stat(name)
}

func (l *lazyTree) ReadDir(name string) ([]fs.DirEntry, error) {
	fsys, err := l.get()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return fsys.ReadDir(name)
}

// rememberExtracted hands the trust engine the report c's extraction
// made of its folder as it wrote it (audit.Scanner), by c's content
// digest, and returns the digest: "" when there is no such report (a
// skill not extracted here, or a report the Scanner cannot tell, whose
// tree the engine then reads, as it reads a folder source).
func (in *Installer) rememberExtracted(c *candidate) string {
	x := c.extracted
	if x == nil || x.scan == nil || c.name == "" {
		return ""
	}
	rep, err := x.scan.Report(cmp.Or(c.subpath, "."))
	if err != nil {
		return ""
	}
	digest := skillcache.FilesDigest(c.name, x.filesIn(c.subpath))
	in.trust.checker.Remember(digest, rep)
	return digest
}

// auditFolder is auditSkill of an installed skill's folder, whose content
// digest is digest ("": not known, nothing is kept).
func (in *Installer) auditFolder(dir, digest, name string, ps source.Origin) (audit.Report, []string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return audit.Report{}, nil, err
	}
	defer root.Close()
	fsys := root.FS()
	if in.auditing != nil {
		fsys = openingFS{fsys, in.auditing}
	}
	return in.trust.checker.AuditContent(fsys, digest, name, ps)
}

// openingFS is the file system of an os.Root that calls opened as each
// file is opened: only tests use it (Installer.auditing).
type openingFS struct {
	fsys   fs.FS
	opened func(name string)
}

func (o openingFS) Open(name string) (fs.File, error) {
	o.opened(name)
	return o.fsys.Open(name)
}

func (o openingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(o.fsys, name) }
func (o openingFS) ReadLink(name string) (string, error)       { return fs.ReadLink(o.fsys, name) }
func (o openingFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(o.fsys, name) }

// maxRefusalFindings bounds the audit findings that the refusals of one
// request list in all: past it each refusal lists its first finding and
// counts the others (Refusal.Omitted), so that a source of thousands of
// refused skills is reported in bounded memory.
const maxRefusalFindings = 1000

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
func (in *Installer) auditUse(ctx context.Context, use []*candidate, strict bool) ([]*candidate, []Change, []trust.Refusal, error) {
	if in.trust == nil {
		return use, nil, nil, nil
	}
	lock, err := in.peekLock()
	if err != nil {
		return nil, nil, nil, err
	}
	var keep []*candidate
	var skipped []Change
	var refused []trust.Refusal
	left := maxRefusalFindings
	for _, c := range use {
		if c.root != "" && c.digest == "" && c.extracted == nil {
			// A folder source's skill: its digest is computed as it
			// is staged, and its audit waits for it (auditStaged).
			c.auditStaged = true
			keep = append(keep, c)
			continue
		}
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

// stagedAudits is what the audits an Add left to staging need and find
// (auditStaged).
type stagedAudits struct {
	strict  bool
	left    int             // findings the refusals may still list
	refused []trust.Refusal // the request's refusals, auditUse's first
	skipped []Change        // the skills auditStaged refused
}

// newStagedAudits is stagedAudits after auditUse refused refused.
func newStagedAudits(strict bool, refused []trust.Refusal) *stagedAudits {
	a := &stagedAudits{strict: strict, left: maxRefusalFindings, refused: refused}
	for _, r := range refused {
		a.left -= len(r.Findings)
	}
	a.left = max(a.left, 1)
	return a
}

// auditStaged audits the skills of plans whose audit auditUse left to
// staging (a folder source's, whose digest staging computes while it
// copies): the report kept for the staged content's digest is read, and
// without one the staged copy is audited, so that what was audited is
// what is installed and no skill is read once more only to be hashed. It
// returns the plans, and their wants, left; a refused skill is left out
// and reported as Add's auditUse reports it (Trust rule 6), and with
// strict, or when no skill is left, the request fails before anything
// changes.
func (in *Installer) auditStaged(ctx context.Context, a *stagedAudits, plans []*plan, wants []want) ([]*plan, []want, error) {
	if a == nil || in.trust == nil {
		return plans, wants, nil
	}
	keepP, keepW := plans[:0:0], wants[:0:0]
	refused := 0
	for i, p := range plans {
		if !p.c.auditStaged {
			keepP, keepW = append(keepP, p), append(keepW, wants[i])
			continue
		}
		var rec *RiskAllowance
		if p.old != nil { // of the same source and folder (addWants)
			rec = p.old.AllowedRisks
		}
		staged := p.c
		staged.dir, staged.root, staged.noLinks, staged.digest = p.st.content(), "", true, p.st.digest
		r, err := in.auditCandidate(ctx, &staged, rec, &a.left)
		if err != nil {
			return nil, nil, err
		}
		p.c.allowed = staged.allowed
		if r == nil {
			keepP, keepW = append(keepP, p), append(keepW, wants[i])
			continue
		}
		refused++
		a.refused = append(a.refused, *r)
		a.skipped = append(a.skipped, Change{Skill: p.c.label(), Source: p.c.source, Path: p.c.pathInSource(), Action: ActionSkipped, Reason: r.Reason})
	}
	if refused > 0 && (a.strict || len(keepP) == 0) {
		why := "no skill is left to install; nothing was changed"
		if a.strict {
			why = "nothing was changed (strict: a skill that cannot be installed stops the request)"
		}
		a.skipped = nil // the error says it, as auditUse's does
		return nil, nil, fmt.Errorf("%w\n%s", &trust.RefusedError{Refusals: a.refused}, why)
	}
	return keepP, keepW, nil
}

// auditCandidate audits one skill about to be installed, whose lock entry
// records rec (nil: none), and returns its refusal, or nil when it passes.
// The refusal lists at most *left findings (one at least), which it takes
// from *left.
func (in *Installer) auditCandidate(ctx context.Context, c *candidate, rec *RiskAllowance, left *int) (*trust.Refusal, error) {
	ps := source.Origin{Display: c.source}
	if c.trust != nil {
		ps = c.trust.ps
	} else if p, err := in.policySource(c.source, c.pin, false); err == nil {
		ps = p
	}
	rep, allowed, err := in.auditSkill(ctx, c, ps)
	if err == nil {
		rep, err = in.allowCandidate(ctx, c, rep, allowed, rec, ps)
	}
	if err != nil {
		return nil, fmt.Errorf("skill %s in %s: audit: %w", c.label(), c.where(), err)
	}
	if len(rep.Findings) == 0 {
		return nil, nil
	}
	rep = rep.Trim(*left)
	*left -= len(rep.Findings)
	r := in.trust.checker.AuditRefusal(c.label(), c.source, rep)
	return &r, nil
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
	if st == nil || len(st.commits) == 0 && !st.signed() {
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
	if !st.signed() {
		return nil
	}
	rs, err := in.parseSource(source, false)
	if err != nil {
		return err
	}
	if rs == nil {
		return fmt.Errorf("%s: %w: it is recorded with a signer, but is not a published source", source, ErrInvalidLock)
	}
	return st.verifySignatures(ctx, rs, pin)
}

// auditRecorded audits a recorded skill a sync is about to install
// (# Trust, rule 6), whose lock entry records rec: a sync refuses it,
// changing nothing.
func (in *Installer) auditRecorded(ctx context.Context, c *candidate, rec *RiskAllowance) error {
	if in.trust == nil {
		return nil
	}
	left := maxRefusalFindings
	r, err := in.auditCandidate(ctx, c, rec, &left)
	if err != nil || r == nil {
		return err
	}
	return &trust.RefusedError{Refusals: []trust.Refusal{*r}}
}

// CheckTrustRequest says how [Installer.CheckTrust] checks.
type CheckTrustRequest struct {
	// Rehash reads and hashes every installed canonical copy, trusting
	// no stat record (rule 16), as [Installer.Verify] does: what an
	// explicit integrity check wants, since a write through a shared
	// mapping can change a file and none of its stats. Default (false):
	// a canonical copy whose stats are what the record holds has the
	// digest it records; right after a [Installer.Verify] of the same
	// Installer, which hashed every copy and recorded what it found,
	// that is the digest Verify read, so a verify followed by its trust
	// check reads each copy once.
	Rehash bool
}

// CheckTrust checks what the scope's lock file records against the
// Installer's trust ([WithTrust]; without it there is nothing to check
// and it returns nil) without changing anything (Trust rule 7): each recorded
// source against the policy (a source it no longer allows), each
// recorded signer of an OCI source again, from the signature bundles the
// skill cache holds (the network only when it holds none), and the
// installed canonical copy of each skill against the audit threshold. It
// returns every refusal, sorted by skill; the error is for a check that
// could not run (a lock file that cannot be read). req.Rehash reads
// every canonical copy rather than take its digest from the stat record
// (rule 16).
func (in *Installer) CheckTrust(ctx context.Context, req CheckTrustRequest) ([]trust.Refusal, error) {
	in.stamps.forgetDevs()
	if in.trust == nil {
		return nil, nil
	}
	lock, err := in.viewLock()
	if err != nil {
		return nil, err
	}
	defer in.saveRecords()
	var out []trust.Refusal
	left := maxRefusalFindings
	reads, bySource := recordedReads(lock)
	for _, k := range reads {
		names := bySource[k]
		st, err := in.checkRecorded(k.source, k.pin, names, lock)
		if err == nil && st.signed() {
			err = in.verifyCached(ctx, k.source, k.pin, st)
		}
		if err != nil {
			if ctx.Err() != nil {
				return out, interrupted(ctx, "the check is incomplete")
			}
			for _, name := range names {
				out = append(out, trust.Refusal{Skill: name, Source: k.source, Reason: err.Error()})
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
			digest, _ := in.stamps.digest(ctx, in, dir, req.Rehash)
			rep, _, err := in.auditFolder(dir, digest, name, ps)
			if err == nil {
				rep, err = in.allowInstalled(ctx, dir, digest, name, rep, lock.Skills[name].AllowedRisks, ps)
			}
			if err != nil {
				out = append(out, trust.Refusal{Skill: name, Source: k.source, Reason: fmt.Sprintf("audit of %s: %v", dir, err)})
				continue
			}
			if len(rep.Findings) > 0 {
				rep = rep.Trim(left)
				left -= len(rep.Findings)
				out = append(out, in.trust.checker.AuditRefusal(name, k.source, rep))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b trust.Refusal) int { return strings.Compare(a.Skill, b.Skill) })
	return out, nil
}

// refusedBy is the *trust.RefusedError of a source refused where
// install checks the policy itself (a redirect's hop, a web index's
// skill): it reads SOURCE: refused by the trust checks: REASON: CAUSE,
// and carries the policy's rule when the policy refused, so that
// errors.As finds the one refusal type and errors.Is policy.ErrDenied
// holds as for the engine's refusals. An empty source leaves the
// subject to the caller; an empty reason is the cause's own words.
func refusedBy(src, reason string, cause error) error {
	r := trust.Refusal{Source: src, Reason: reason, Err: cause}
	switch {
	case cause != nil && reason == "":
		r.Reason = cause.Error()
	case cause != nil:
		r.Reason += ": " + cause.Error()
	}
	var denied *policy.DeniedError
	if errors.As(cause, &denied) {
		r.Rule = policy.Rule{Name: denied.Rule, File: denied.File, Line: denied.Line}
	}
	return &trust.RefusedError{Refusals: []trust.Refusal{r}}
}
