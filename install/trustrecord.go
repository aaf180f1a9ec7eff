package install

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// What the lock file records of the trust checks beyond who signed
// (# Trust in the package doc): the trusted root that verified a keyless
// signer (rule 4), a change of the recorded signer (rule 4), and the
// audit findings allowed for a skill's content (rule 5).

// lockRoot is a trusted root (a trusted_root.json) as the lock file
// records it (Trust rule 4).
type lockRoot struct {
	// Digest is the file's SHA-256, "sha256:HEX".
	Digest string `json:"digest"`
	// Path is the file: relative to the scope's root (slash-separated)
	// when it is inside it, else absolute; "" when the root was given
	// without a file (signature.Requirement.TrustedRootFile).
	Path string `json:"path,omitempty"`
}

// read reads the trusted root r records, its path taken under root when
// relative, and checks its digest. A relative path that leads out of root
// is [ErrInvalidLock]; a file that cannot be read or has another digest is
// signature.ErrRequirement, saying what to do.
func (r *lockRoot) read(root string) (data []byte, file string, _ error) {
	const fix = "restore it, or give the trusted root again as a requirement (Trust.Signers; agentskills --trusted-root FILE with the identity and issuer) and add the source again to record it"
	if r.Path == "" {
		return nil, "", fmt.Errorf("trusted root %s: %w: the lock file records it, but not its file; give the trusted root as a requirement (Trust.Signers; agentskills --trusted-root FILE with the identity and issuer)", r.Digest, signature.ErrRequirement)
	}
	file = filepath.FromSlash(r.Path)
	if !filepath.IsAbs(file) {
		if !filepath.IsLocal(file) {
			return nil, "", fmt.Errorf("trusted root %q: %w: it leads out of %s; fix or remove that entry", r.Path, ErrInvalidLock, root)
		}
		file = filepath.Join(root, file)
	}
	data, err := readfile.Small(file, policy.MaxFileSize)
	if err != nil {
		return nil, "", fmt.Errorf("trusted root %s: %w: the lock file records it, but it cannot be read (%v); %s", r.Path, signature.ErrRequirement, err, fix)
	}
	if d := rootDigest(data); d != r.Digest {
		return nil, "", fmt.Errorf("trusted root %s: %w: it has changed: its digest is %s, the lock file records %s; %s", r.Path, signature.ErrRequirement, d, r.Digest, fix)
	}
	return data, file, nil
}

// rootDigest is the digest of a trusted root as lockRoot records it.
func rootDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// verifiedRoot is the record of the trusted root that verified the
// keyless signer s of r at pin, one of reqs' (Trust rule 4): nil for
// Sigstore's public-good root. When requirements that s meets name
// different roots, each is verified alone, in order, from the bundle just
// kept in the skill cache.
func (st *sourceTrust) verifiedRoot(ctx context.Context, r trust.SignatureVerifier, pin string, reqs []signature.Requirement, s signature.Signer) (*lockRoot, error) {
	var meets []signature.Requirement
	for _, q := range reqs {
		if q.Key == nil && q.Matches(s) {
			meets = append(meets, q)
		}
	}
	if len(meets) > 1 && slices.ContainsFunc(meets[1:], func(q signature.Requirement) bool { return !bytes.Equal(q.TrustedRoot, meets[0].TrustedRoot) }) {
		i := slices.IndexFunc(meets, func(q signature.Requirement) bool {
			_, err := r.VerifySignature(ctx, pin, []signature.Requirement{q})
			return err == nil
		})
		if i < 0 {
			return nil, fmt.Errorf("%s at %s: %w: signer %s verified, but against no single trusted root of the requirements", st.ps.Display, shortPin(pin), ErrRefused, s)
		}
		meets = meets[i:]
	}
	if len(meets) == 0 {
		return nil, fmt.Errorf("%s at %s: %w: signer %s verified, but no requirement names it", st.ps.Display, shortPin(pin), ErrRefused, s)
	}
	q := meets[0]
	if len(q.TrustedRoot) == 0 {
		return nil, nil
	}
	lr := &lockRoot{Digest: rootDigest(q.TrustedRoot)}
	if q.TrustedRootFile != "" {
		lr.Path = relTo(st.in.Root(), q.TrustedRootFile)
	}
	return lr, nil
}

// signerChange is the signer the lock file records in entry and the one
// old recorded, as Change.Signer and Change.PreviousSigner report them:
// "" and "" when they are the same or old is nil (a new skill).
func signerChange(old, entry *lockEntry) (now, before string) {
	if old == nil {
		return "", ""
	}
	name := func(s *lockSigner) string {
		if s == nil {
			return ""
		}
		return s.Signer.String()
	}
	now, before = name(entry.Signer), name(old.Signer)
	if now == before {
		return "", ""
	}
	return now, before
}

// allowRisks splits rep into the findings whose rule rules does not
// name, left (with the counts past the audit's caps of those rules), and
// the rules that name at least one finding, used, sorted.
func allowRisks(rep audit.Report, rules []string) (left audit.Report, used []string) {
	left = rep.Filter(func(f audit.Finding) bool { return !slices.Contains(rules, f.Rule) })
	for _, f := range rep.Findings {
		if slices.Contains(rules, f.Rule) && !slices.Contains(used, f.Rule) {
			used = append(used, f.Rule)
		}
	}
	slices.Sort(used)
	return left, used
}

// allowCandidate removes from rep, the audit of c, the findings
// Trust.AllowRisks allows and those rec (what the lock file records for
// c, or nil) allows for c's content (Trust rule 5), and sets c.allowed to
// what was allowed, with the content digest audited, for the lock file
// to record.
func (in *Installer) allowCandidate(ctx context.Context, c *candidate, rep audit.Report, rec *RiskAllowance, ps source.Origin) (audit.Report, error) {
	c.allowed = nil
	left, used := allowRisks(rep, in.trust.AllowRisks)
	if len(used) == 0 && (len(left.Findings) == 0 || rec == nil) {
		return left, nil
	}
	d, err := checkTree(ctx, c.tree(), c.name, in.cache)
	if err != nil {
		return audit.Report{}, err
	}
	if rec != nil && d == rec.Digest {
		var more []string
		left, more = allowRisks(left, in.recordable(rec.Rules, left, c.label(), ps))
		used = slices.Compact(slices.Sorted(slices.Values(append(used, more...))))
	}
	if len(used) > 0 {
		c.allowed = &RiskAllowance{Rules: used, Digest: d}
	}
	return left, nil
}

// allowInstalled is allowCandidate of the installed skill folder dir,
// recorded with rec.
func (in *Installer) allowInstalled(ctx context.Context, dir, name string, rep audit.Report, rec *RiskAllowance, ps source.Origin) (audit.Report, error) {
	left, _ := allowRisks(rep, in.trust.AllowRisks)
	if len(left.Findings) == 0 || rec == nil {
		return left, nil
	}
	d, err := skill.ContentDigest(ctx, dir)
	if err != nil {
		return audit.Report{}, err
	}
	if d == rec.Digest {
		left, _ = allowRisks(left, in.recordable(rec.Rules, left, name, ps))
	}
	return left, nil
}

// recordable returns the rules of rules, which a lock file records as
// allowed for a skill's content, that the record may lift in rep, the
// skill's audit: those with no finding the user's own policy file
// refuses (policy rule 16). A lock file is the project's word; where the
// user's file refuses a finding, only that file's audit.accept or
// Trust.AllowRisks (the user naming the rule now) lifts it.
func (in *Installer) recordable(rules []string, rep audit.Report, name string, ps source.Origin) []string {
	p := in.trust.effectivePolicy()
	return slices.DeleteFunc(slices.Clone(rules), func(rule string) bool {
		for _, f := range rep.Findings {
			if f.Rule == rule {
				if _, refused := p.UserRefusal(f, name, ps); refused {
					return true
				}
			}
		}
		return false
	})
}

// allowance is what the lock entry of c, installed with content digest
// d, records of the audit findings allowed (Trust rule 5): what its audit
// allowed, for the content audited; without trust checks (checked
// false), what old records for the same content.
func (c *candidate) allowance(d string, old *lockEntry, checked bool) *RiskAllowance {
	if checked {
		if c.allowed != nil && c.allowed.Digest == d {
			return c.allowed
		}
		return nil
	}
	if old != nil && old.AllowedRisks != nil && old.AllowedRisks.Digest == d {
		return old.AllowedRisks
	}
	return nil
}

// RecordedRisks returns the audit findings allowed that the scope's lock
// file records (Trust rule 5), by skill: what `agentskills verify` shows.
// A skill that records none is not in it.
func (in *Installer) RecordedRisks() (map[string]RiskAllowance, error) {
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	out := map[string]RiskAllowance{}
	for name, e := range lock.Skills {
		if e.AllowedRisks != nil {
			out[name] = *e.AllowedRisks
		}
	}
	return out, nil
}
