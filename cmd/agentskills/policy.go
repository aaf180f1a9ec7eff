package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/policy/admission"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/trust"
)

// policyCheckOptions are the options of policy check.
type policyCheckOptions struct {
	io     *streams
	pinned bool
}

func newPolicyCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Explain the trust policy that add, sync, run and verify enforce, or export it for a cluster",
		Long: `The trust policy is read from two files: the user's,
~/.agents/` + policy.FileName + `, and the project's,
.agents/` + policy.FileName + ` in the working folder. Both apply, and the
project's can only tighten the user's. The format is documented with
package policy (go doc github.com/agentadaptor/agentadaptor/policy).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newPolicyCheckCmd(s), newPolicyExportCmd(s))
	return cmd
}

func newPolicyCheckCmd(s *streams) *cobra.Command {
	opts := &policyCheckOptions{io: s}
	cmd := &cobra.Command{
		Use:   "check SOURCE...",
		Short: "Say whether the policy allows each source, and what it requires of it",
		Long: `Check says, for each source, whether the policy allows it and which rule
of which file says so, whether it must be pinned, who must have signed
it, the audit threshold and the findings the policy accepts for it.

A SOURCE is written as add takes it (oci://HOST/REPO:TAG, github:OWNER/REPO,
OWNER/REPO, git+https://..., an https:// address, ./FOLDER), and check
answers what add would do with it: the policy sees its canonical location
(host in lower case, default port dropped, path cleaned, a folder or
file:// repository at its real path, links resolved), and a source
whose location cannot be made canonical is denied, as add refuses it. The
policy's own notation, KIND:LOCATION, is read too where it cannot be taken
for a source of add: git:HOST/PATH, oci:HOST/REPO, url:https://..., and
local:PATH (github:OWNER/REPO means the same either way). --pinned checks
a source as one that names its version (a commit, a digest, a URL's
#sha256=); a source that names one (OWNER/REPO@COMMIT, oci://...@sha256:...)
is pinned without it.

Exit 1 when the policy denies a source, 2 when a source or a policy file
is not valid.`,
		Example: `  agentskills policy check github:acme/tools oci://ghcr.io/acme/skills:1
  agentskills policy check --pinned oci:ghcr.io/acme/skills ./skills/review`,
		Args: requireArgs("SOURCE"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runPolicyCheck(opts, args)
		}),
	}
	cmd.Flags().BoolVar(&opts.pinned, "pinned", false, "check the sources as pinned to a version")
	return cmd
}

// runPolicyCheck explains the policy of the working folder for each
// source; denied when the policy refuses one.
func runPolicyCheck(opts *policyCheckOptions, args []string) error {
	s := opts.io
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	in := install.New(env, install.WithSettingNames(settingFlags))
	var sources []source.Origin
	refused := map[int]error{} // by index: sources add refuses before the policy
	for i, a := range args {
		src, err := checkedSource(in, a)
		switch {
		case errors.Is(err, trust.ErrRefused):
			src, refused[i] = source.Origin{Display: a}, err
		case errors.Is(err, install.ErrInvalidSource):
			return inputError{err}
		case err != nil:
			return usageErrorf("%v", err)
		}
		src.Pinned = src.Pinned || opts.pinned
		sources = append(sources, src)
	}
	p, err := policy.Load(env.Home, env.Project)
	if err != nil {
		return inputError{fmt.Errorf("%w; fix the file, or move it away to check without it", err)}
	}
	files := p.Files()
	if len(files) == 0 {
		fmt.Fprintf(s.out, "No policy file (looked for %s and %s).\n",
			escapePath(filepath.Join(env.Home, ".agents", policy.FileName)), escapePath(filepath.Join(env.Project, ".agents", policy.FileName)))
	}
	for _, f := range files {
		fmt.Fprintf(s.out, "Policy file: %s\n", escapePath(f))
	}
	denied := false
	for i, src := range sources {
		fmt.Fprintln(s.out)
		if err := refused[i]; err != nil {
			fmt.Fprintf(s.out, "%s: denied: %v\n", src.Display, err)
			denied = true
			continue
		}
		lines := p.Explain(src)
		fmt.Fprintf(s.out, "%s: %s\n", src.Display, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintln(s.out, l)
		}
		if err := p.Check(src); errors.Is(err, policy.ErrDenied) {
			denied = true
		}
	}
	if denied {
		fmt.Fprintln(s.err, "agentskills policy check: the policy denies a source; change the source, or the rule named above")
		return errFailed
	}
	return nil
}

// checkedSource reads text as add reads a source, or in the policy's
// notation KIND:LOCATION where add would not read it (git:HOST/PATH,
// oci:HOST/REPO, url:URL, local:PATH): the source as the policy sees
// it, its location canonical.
func checkedSource(in *install.Installer, text string) (source.Origin, error) {
	k, rest, _ := strings.Cut(text, ":")
	switch kind := source.Kind(k); {
	case (kind == source.OCI || kind == source.Git) && !strings.HasPrefix(rest, "//"), kind == source.URL, kind == source.Local:
		return source.ParseOrigin(text)
	}
	return in.Origin(text)
}

// policyExportOptions are the options of policy export.
type policyExportOptions struct {
	io     *streams
	format string
}

func newPolicyExportCmd(s *streams) *cobra.Command {
	opts := &policyExportOptions{io: s}
	var formats []string
	for _, f := range admission.Formats() {
		formats = append(formats, string(f))
	}
	cmd := &cobra.Command{
		Use:   "export --format " + strings.Join(formats, "|"),
		Short: "Write the signers rules as an admission policy for a Kubernetes cluster",
		Long: `Export writes, as YAML on standard output, an admission policy that
requires of the skills' images in a cluster what the signers rules of the
user's and the project's policy files require of the oci sources they
name: the kubelet mounts an image volume without checking who signed it,
and an admission controller checks it before a pod is admitted.

--format policy-controller writes one Sigstore policy-controller
ClusterImagePolicy (policy.sigstore.dev/v1beta1) per signers rule;
--format kyverno writes one Kyverno ClusterPolicy (kyverno.io/v1) with a
verifyImages rule per signers rule, which checks image volumes too. Keys
are written inline, identities as keyless authorities, and each rule's
source patterns as the tool's image globs.

What cannot be written (a commits rule for git sources, a key for
policy-controller) is left out, and a pattern a glob cannot say exactly
is written wider (one it cannot say at all is cut at that part and
written PREFIX/**), never narrower; both are listed on standard error. Exit 2 when no signers rule can be written.
How each rule maps is the doc of package policy/admission.`,
		Example: `  agentskills policy export --format kyverno > skills-signers.yaml
  kubectl apply -f skills-signers.yaml`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runPolicyExport(opts)
		}),
	}
	cmd.Flags().StringVar(&opts.format, "format", "", "the admission controller: "+strings.Join(formats, " or "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runPolicyExport writes the policy of the working folder's scope as an
// admission policy, and its notes to stderr.
func runPolicyExport(opts *policyExportOptions) error {
	s := opts.io
	f := admission.Format(opts.format)
	if !slices.Contains(admission.Formats(), f) {
		return usageErrorf("--format %q: say which admission controller, policy-controller or kyverno", opts.format)
	}
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	p, err := policy.Load(env.Home, env.Project)
	if err != nil {
		return inputError{fmt.Errorf("%w; fix the file, or move it away to export without it", err)}
	}
	e, err := admission.Policies(p, f)
	if e != nil {
		for _, n := range e.Notes {
			fmt.Fprintln(s.err, "note: "+n)
		}
	}
	if err != nil {
		return inputError{err}
	}
	_, err = s.data.Write(e.YAML)
	return err
}
