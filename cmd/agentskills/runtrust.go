package main

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/spf13/cobra"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/trust"
)

// runTrustHelp is what run --help says about trust.
const runTrustHelp = `Trust: run enforces the trust policy (the user's
~/.agents/agentskills.policy.yaml and the workspace's
.agents/agentskills.policy.yaml, the workspace's only tightening the
user's) before the agent starts: where each skill comes from, who must
have signed it, and an audit of each skill's files, which refuses
findings at the policy's threshold (high by default). --allow-risk RULE
lets findings of that audit rule through, for one run, once you have read
them. An oci:// skill is pinned to its manifest digest and, with --key or
--certificate-identity[-regexp] and --certificate-oidc-issuer[-regexp]
(checked against --trusted-root, as cosign checks them, except that a
-regexp must match the whole value), must carry a
signature by that signer before it is mounted. A refused skill stops the
run before the agent starts: exit 1, the reason on stderr, and code
"policy" in the error line of --json.`

// registerRunTrust adds run's trust flags to cmd: those of add (who must
// have signed an oci:// skill) and --allow-risk.
func registerRunTrust(cmd *cobra.Command, f *trustFlags) {
	f.register(cmd, false)
	cmd.Flags().StringArrayVar(&f.allowRisks, "allow-risk", nil, "mount skills whose audit finds this rule (by id, e.g. download-exec) at or above the threshold; repeatable ('agentskills audit' shows the findings)")
}

// checkRunTrust refuses signer flags for a run without an oci:// skill,
// whose signatures are all they check: bad usage, said before anything
// is read.
func checkRunTrust(f *trustFlags, sources []string) error {
	signers := len(f.keys) > 0 || f.identity != "" || f.identityRegexp != "" || f.issuer != "" || f.issuerRegexp != ""
	isOCI := func(s string) bool {
		spec, err := source.Parse(s)
		return err == nil && spec.Kind == source.OCI
	}
	if signers && !slices.ContainsFunc(sources, isOCI) {
		return usageErrorf("--key and --certificate-identity check the signatures of oci:// skill sources, and no --skill is one")
	}
	return nil
}

// runTrust is what one run enforces: the policy, the signers of the
// flags and the rules let through.
type runTrust struct {
	policy *policy.Policy
	reqs   []signature.Requirement
	allow  []string
}

// loadRunTrust reads the policy of the user and of the workspace, and the
// trust flags. A run changes no lock file: the files a policy extends
// are read at the lock file's pins, and one not pinned at what its
// source names now, within ctx and the download timeout.
func loadRunTrust(ctx context.Context, f *trustFlags, sources []string, env install.Env, workspace string, timeout time.Duration) (*runTrust, error) {
	if err := checkRunTrust(f, sources); err != nil {
		return nil, err
	}
	reqs, err := f.requirements()
	if err != nil {
		return nil, inputError{err}
	}
	p, err := loadPolicy(ctx, env, install.PolicyRequest{ProjectRoot: workspace, ReadOnly: true}, timeout)
	if err != nil {
		return nil, policyError(err, "(fix the file, or move it away)")
	}
	return &runTrust{policy: p, reqs: reqs, allow: f.allowRisks}, nil
}

// agentOption has the agent enforce the policy on every skill: its
// materializer, the default one, checks.
func (t *runTrust) agentOption() adaptor.Option {
	return adaptor.WithSkillMaterializer(t.materializer())
}

// materializer is the default materializer, checking every skill it
// stages against the policy, the signers and the rules let through.
func (t *runTrust) materializer() skill.Materializer {
	return trust.NewMaterializer(nil, trust.NewChecker(t.policy, trust.AllowRisks(t.allow...), trust.RequireSigners(t.reqs...), trust.WithSettingNames(settingFlags)))
}

// findSkills finds the skills of each source as findSkills does, each
// with its origin for the policy. An oci:// source is pinned first, and
// the pin is what is fetched, its signatures checked (the Materializer
// of agentOption) and mounted.
func (t *runTrust) findSkills(ctx context.Context, finder *install.Installer, sources []string) ([]skill.Ref, error) {
	var refs []skill.Ref
	for _, src := range sources {
		origin, pinned, err := t.pin(ctx, finder, src)
		if err != nil {
			return nil, err
		}
		found, err := findSkills(ctx, finder, []string{cmp.Or(pinned, src)})
		if err != nil {
			return nil, err
		}
		for _, r := range found {
			s := r.(skill.Skill)
			folder := runOrigin{PathSource: skill.PathSource{Path: s.Source.(interface{ SkillPath() string }).SkillPath()}, origin: origin}
			if pinned != "" {
				s.Source = runOCIOrigin{runOrigin: folder, ref: pinned}
			} else {
				s.Source = folder
			}
			refs = append(refs, s)
		}
	}
	return refs, nil
}

// pin returns where src comes from and, for an oci:// source, the
// reference pinned to the manifest digest its tag names now.
func (t *runTrust) pin(ctx context.Context, finder *install.Installer, src string) (source.Origin, string, error) {
	origin, err := finder.Origin(src)
	if err != nil || origin.Kind != source.OCI {
		return origin, "", err
	}
	ref, err := oci.ParseReference(src)
	if err != nil {
		return origin, "", inputError{err}
	}
	if ref.Digest == "" {
		if ref.Digest, err = oci.Resolve(ctx, src); err != nil {
			return origin, "", err
		}
	}
	return origin, ref.String(), nil
}

// runOrigin is a found skill's folder that says where the skill came
// from ([source.OriginSource]).
type runOrigin struct {
	skill.PathSource
	origin source.Origin
}

func (s runOrigin) Origin() source.Origin { return s.origin }

// runOCIOrigin is the folder of an oci:// skill, whose signatures are
// those of its pinned reference ([source.Signed], [source.PinnedSource]).
type runOCIOrigin struct {
	runOrigin
	ref string
}

func (s runOCIOrigin) Pin() string {
	ref, err := oci.ParseReference(s.ref)
	if err != nil {
		return ""
	}
	return ref.Digest
}

// VerifyBundles has v check the signature bundles attached to the
// reference at pin.
func (s runOCIOrigin) VerifyBundles(ctx context.Context, pin string, v source.BundleVerifier) error {
	ref, err := oci.ParseReference(s.ref)
	if err != nil {
		return err
	}
	ref.Digest = pin
	return oci.Verify(ctx, ref.String(), v)
}

// isTrustRefusal reports whether err is a refusal of the trust checks
// (the policy, a signature, the audit): exit 1, code "policy".
func isTrustRefusal(err error) bool {
	return errors.Is(err, trust.ErrRefused)
}
