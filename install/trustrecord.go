package install

import (
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
// signature.ErrRequirement, saying what to do: give the trusted root
// again with setting, the name of signature.Requirement.TrustedRoot in
// the words of the installer's user.
func (r *lockRoot) read(root, setting string) (data []byte, file string, _ error) {
	fix := "restore it, or give the trusted root again as a requirement (" + setting + ") and add the source again to record it"
	if r.Path == "" {
		return nil, "", fmt.Errorf("trusted root %s: %w: the lock file records it, but not its file; give the trusted root as a requirement (%s)", r.Digest, signature.ErrRequirement, setting)
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

// recordedRoot is the record of the trusted root of q, the requirement
// that verified a keyless signer (Trust rule 4): nil for Sigstore's
// public-good root, or for a key.
func (st *sourceTrust) recordedRoot(q signature.Requirement) *lockRoot {
	if q.Key != nil || len(q.TrustedRoot) == 0 {
		return nil
	}
	lr := &lockRoot{Digest: rootDigest(q.TrustedRoot)}
	if q.TrustedRootFile != "" {
		lr.Path = relTo(st.in.Root(), q.TrustedRootFile)
	}
	return lr
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

// allowCandidate removes from rep, the refusing findings of c's audit,
// those rec (what the lock file records for c, or nil) allows for c's
// content (Trust rule 5), and sets c.allowed to what was allowed (the
// rules trust.AllowRisks let through, allowed, and those of rec), with the
// content digest audited, for the lock file to record.
func (in *Installer) allowCandidate(ctx context.Context, c *candidate, rep audit.Report, allowed []string, rec *RiskAllowance, ps source.Origin) (audit.Report, error) {
	c.allowed = nil
	if len(allowed) == 0 && (len(rep.Findings) == 0 || rec == nil) {
		return rep, nil
	}
	d := c.digest
	if d == "" {
		var err error
		if d, err = checkTree(ctx, c.tree(), c.name, in.cache); err != nil {
			return audit.Report{}, err
		}
	}
	used := allowed
	if rec != nil && d == rec.Digest {
		var more []string
		rep, more = in.trust.checker.LiftRecorded(rec.Rules, rep, c.label(), ps)
		used = slices.Compact(slices.Sorted(slices.Values(append(slices.Clip(used), more...))))
	}
	if len(used) > 0 {
		c.allowed = &RiskAllowance{Rules: used, Digest: d}
	}
	return rep, nil
}

// allowInstalled is allowCandidate of the installed skill folder dir,
// recorded with rec, whose content digest is d ("": not known yet).
func (in *Installer) allowInstalled(ctx context.Context, dir, d, name string, rep audit.Report, rec *RiskAllowance, ps source.Origin) (audit.Report, error) {
	if len(rep.Findings) == 0 || rec == nil {
		return rep, nil
	}
	if d == "" {
		var err error
		if d, err = skill.ContentDigest(ctx, dir); err != nil {
			return audit.Report{}, err
		}
	}
	if d == rec.Digest {
		rep, _ = in.trust.checker.LiftRecorded(rec.Rules, rep, name, ps)
	}
	return rep, nil
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
// A skill that records none is not in it; a context done before it
// reads the lock file fails it with [ErrInterrupted].
func (in *Installer) RecordedRisks(ctx context.Context) (map[string]RiskAllowance, error) {
	if ctx.Err() != nil {
		return nil, interrupted(ctx, "nothing was changed")
	}
	lock, err := in.viewLock()
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
