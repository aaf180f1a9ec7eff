package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/trust"
)

// trustFlags are the trust flags of add, sync and verify: who must have
// signed (named as cosign names them), the signers and audit rules the
// user accepts.
type trustFlags struct {
	keys           []string
	identity       string
	identityRegexp string
	issuer         string
	issuerRegexp   string
	trustedRoot    string
	acceptSigners  []string
	allowRisks     []string
	// frozen: a file a policy extends must be pinned in the lock file
	// already (sync --frozen); offline: and kept in the cache, as the
	// policy is read without the network (verify); readOnly: no pin is
	// recorded (the commands that change nothing: list, outdated, run).
	frozen, offline, readOnly bool
}

// policyRequest is how the trust flags have the policy read, for the
// project (or none, "").
func (f *trustFlags) policyRequest(project string) install.PolicyRequest {
	return install.PolicyRequest{ProjectRoot: project, Frozen: f.frozen, Offline: f.offline, ReadOnly: f.readOnly}
}

// register adds the trust flags to cmd; verify has no --accept-signer
// and --allow-risk (accept false), as it changes nothing.
func (f *trustFlags) register(cmd *cobra.Command, accept bool) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.keys, "key", nil, "require an OCI source's signature by this public key (PEM, as 'cosign generate-key-pair' writes cosign.pub; repeatable: any of them)")
	fl.StringVar(&f.identity, "certificate-identity", "", "require a keyless signature whose certificate names this identity (an email, or a workflow URI)")
	fl.StringVar(&f.identityRegexp, "certificate-identity-regexp", "", "as --certificate-identity, a regular expression the whole identity must match (anchored for you, stricter than cosign: alice@example\\.com does not match evil-alice@example.com.attacker; end a prefix with .*)")
	fl.StringVar(&f.issuer, "certificate-oidc-issuer", "", "require a keyless signature whose certificate names this OIDC issuer")
	fl.StringVar(&f.issuerRegexp, "certificate-oidc-issuer-regexp", "", "as --certificate-oidc-issuer, a regular expression the whole issuer must match (anchored for you, as --certificate-identity-regexp)")
	fl.StringVar(&f.trustedRoot, "trusted-root", "", "check keyless signatures against this trusted_root.json (default: Sigstore's public-good root); the lock file records its digest and path, and sync and verify use it again offline")
	if accept {
		fl.StringArrayVar(&f.acceptSigners, "accept-signer", nil, "accept this new signer of a source in place of the one the lock file records, named as the refusal names it (its key ID sha256:..., or IDENTITY (issuer ISSUER)); repeatable")
		fl.StringArrayVar(&f.allowRisks, "allow-risk", nil, "install skills whose audit finds this rule (by id, e.g. download-exec) at or above the threshold; repeatable ('agentskills audit' shows the findings)")
	}
}

// option returns the installer option that enforces the trust flags and
// the policy: the user's (under the home folder) and, in a project, the
// project's, each with the files it extends (loadPolicy, fetched within
// ctx and the download timeout).
func (f *trustFlags) option(ctx context.Context, global bool, timeout time.Duration) (install.Option, error) {
	reqs, err := f.requirements()
	if err != nil {
		return nil, inputError{err}
	}
	env, err := install.CurrentEnv()
	if err != nil {
		return nil, err
	}
	project := env.Project
	if global {
		project = ""
	}
	p, err := loadPolicy(ctx, env, f.policyRequest(project), timeout)
	if err != nil {
		return nil, policyError(err, "(fix the policy file, or move it away)")
	}
	return install.WithTrust(trust.NewChecker(p, trust.AllowRisks(f.allowRisks...), trust.RequireSigners(reqs...), trust.WithSettingNames(settingFlags)), install.Trust{AcceptSigners: f.acceptSigners}), nil
}

// requirements reads the signer requirements the flags name: one per
// --key, and one for the certificate flags.
func (f *trustFlags) requirements() ([]signature.Requirement, error) {
	var reqs []signature.Requirement
	for _, file := range f.keys {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--key %s: %w", file, err)
		}
		pub, err := signature.LoadPublicKey(data)
		if err != nil {
			return nil, fmt.Errorf("--key %s: %w (give the public key, cosign.pub, not the private one)", file, err)
		}
		reqs = append(reqs, signature.Requirement{Key: pub})
	}
	keyless := f.identity != "" || f.identityRegexp != "" || f.issuer != "" || f.issuerRegexp != ""
	switch {
	case !keyless && f.trustedRoot != "":
		return nil, errors.New("--trusted-root is for keyless signatures: give --certificate-identity (or -regexp) and --certificate-oidc-issuer (or -regexp) too")
	case !keyless:
		return reqs, nil
	case f.identity == "" && f.identityRegexp == "":
		return nil, errors.New("a keyless signer needs --certificate-identity or --certificate-identity-regexp, as cosign does")
	case f.issuer == "" && f.issuerRegexp == "":
		return nil, errors.New("a keyless signer needs --certificate-oidc-issuer or --certificate-oidc-issuer-regexp, as cosign does")
	}
	r := signature.Requirement{Identity: f.identity, IdentityRegexp: f.identityRegexp, Issuer: f.issuer, IssuerRegexp: f.issuerRegexp}
	if f.trustedRoot != "" {
		data, err := os.ReadFile(f.trustedRoot)
		if err != nil {
			return nil, fmt.Errorf("--trusted-root: %w", err)
		}
		r.TrustedRoot = data
		if r.TrustedRootFile, err = filepath.Abs(f.trustedRoot); err != nil {
			return nil, fmt.Errorf("--trusted-root: %w", err)
		}
	}
	return append(reqs, r), nil
}

// trustHint gives a refusal the flag that helps with it: the library
// names its own settings (install's Trust.AcceptSigners,
// trust.AllowRisks).
func trustHint(err error) error {
	var changed *install.SignerChangedError
	var refused *trust.RefusedError
	switch {
	case errors.As(err, &changed):
		h := fmt.Sprintf("if you trust the new signer, run it again with --accept-signer '%s'", changed.AcceptAs())
		if changed.Found.KeyID != "" {
			h += " and --key NEW.pub (the new public key)"
		}
		return hinted{err, h}
	case errors.As(err, &refused):
		var rules []string
		for _, r := range refused.Refusals {
			// A refusal lists some findings and counts the others
			// (Refusal.Omitted), of rules it may not list.
			for _, rule := range append(ruleIDs(r.Findings), slices.Sorted(maps.Keys(r.Omitted))...) {
				if !slices.Contains(rules, rule) {
					rules = append(rules, rule)
				}
			}
		}
		if len(rules) > 0 {
			return hinted{err, "read the skill ('agentskills audit SOURCE' shows every finding); if you trust it, run it again with --allow-risk " + strings.Join(rules, " --allow-risk ")}
		}
	}
	return err
}

// ruleIDs returns the rule of each finding, in order.
func ruleIDs(findings []audit.Finding) []string {
	out := make([]string, len(findings))
	for i, f := range findings {
		out[i] = f.Rule
	}
	return out
}

// checkTrust runs the trust checks of verify (install's CheckTrust) and
// prints each refusal on stderr. It returns the failure that ends verify
// when any skill is refused (its message, the error line of --json,
// lists every reason), else nil; the error is for a check that could not
// run. It runs after in.Verify, which has just read and hashed every
// canonical copy and recorded what it found in in's stat record (install
// rule 16), so the check takes those digests rather than hashing every
// copy a second time: what it judges is what verify read.
func checkTrust(ctx context.Context, in *install.Installer, s *streams) (refused, _ error) {
	refusals, err := in.CheckTrust(ctx, install.CheckTrustRequest{})
	if err != nil {
		return nil, installErr(err)
	}
	if len(refusals) == 0 {
		return nil, nil
	}
	lines := []string{fmt.Sprintf("%d installed skills are refused by the trust checks (the policy, the recorded signer, the audit):", len(refusals))}
	for _, r := range refusals {
		line := fmt.Sprintf("%s (%s): %s", r.Skill, r.Source, r.Reason)
		fmt.Fprintln(s.err, "refused  "+line)
		lines = append(lines, line)
	}
	return reported(strings.Join(lines, "\n")), nil
}

// printAllowed prints, for verify, each audit finding the lock file allows
// (add --allow-risk recorded it for the skill's content).
func printAllowed(ctx context.Context, in *install.Installer, s *streams) error {
	allowed, err := in.RecordedRisks(ctx)
	if err != nil {
		return installErr(err)
	}
	for _, name := range slices.Sorted(maps.Keys(allowed)) {
		a := allowed[name]
		fmt.Fprintf(s.out, "allowed  %s: audit rules %s, for its content %s (recorded by --allow-risk)\n", name, strings.Join(a.Rules, ", "), shortPin(a.Digest))
	}
	return nil
}

// loadPolicy reads the user's policy and, unless req.ProjectRoot is "",
// the project's, each with the files it extends: fetched within ctx
// (Ctrl-C stops it) and the download timeout (0: the default), pinned in
// the lock file beside it unless req says otherwise and kept in the
// cache (install.LoadPolicy).
func loadPolicy(ctx context.Context, env install.Env, req install.PolicyRequest, timeout time.Duration) (*policy.Policy, error) {
	opts := []install.Option{install.WithSettingNames(settingFlags)}
	if timeout > 0 {
		opts = append(opts, install.WithDownloadTimeout(timeout))
	}
	p, err := install.New(env, opts...).LoadPolicy(ctx, req)
	if err != nil && ctx.Err() != nil {
		// A download's error says "context canceled" without wrapping it.
		return nil, fmt.Errorf("%w: %w", errInterrupted, err)
	}
	return p, err
}

// policyError is an error reading the policy, with advice: a policy file
// that does not parse is the user's input (exit 2); a file it extends
// that cannot be fetched or is refused keeps its own class.
func policyError(err error, advice string) error {
	err = fmt.Errorf("%w %s", err, advice)
	if errors.Is(err, policy.ErrInvalid) || errors.Is(err, install.ErrInvalidSource) {
		return inputError{err}
	}
	return err
}
