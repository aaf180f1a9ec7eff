package main

import (
	"context"
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
project's can only tighten the user's. Either may extend a file its
team publishes (extends: SOURCE), which it can only tighten; show prints
the effective policy and where each rule comes from. Show pins each file
extended in the lock file beside the file that extends it, as add and
sync do; check and export write no lock file (a file not pinned yet is
read at what its source names now). The format is documented with
package policy (go doc github.com/agentadaptor/agentadaptor/policy).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newPolicyCheckCmd(s), newPolicyExportCmd(s), newPolicyShowCmd(s))
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
			return runPolicyCheck(cmd.Context(), opts, args)
		}),
	}
	cmd.Flags().BoolVar(&opts.pinned, "pinned", false, "check the sources as pinned to a version")
	return cmd
}

// runPolicyCheck explains the policy of the working folder for each
// source; denied when the policy refuses one.
func runPolicyCheck(ctx context.Context, opts *policyCheckOptions, args []string) error {
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
	p, err := loadPolicy(ctx, env, install.PolicyRequest{ProjectRoot: env.Project, ReadOnly: true}, 0)
	if err != nil {
		return policyError(err, "; fix the file, or move it away to check without it")
	}
	files := p.Files()
	if len(files) == 0 {
		fmt.Fprintf(s.out, "No policy file (looked for %s and %s).\n",
			escapePath(filepath.Join(env.Home, ".agents", policy.FileName)), escapePath(filepath.Join(env.Project, ".agents", policy.FileName)))
	}
	for _, f := range files {
		fmt.Fprintf(s.out, "Policy file: %s\n", escapePath(f))
	}
	for _, l := range p.Loosenings() {
		fmt.Fprintf(s.out, "warning: %s\n", escapePath(l.String()))
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
			return runPolicyExport(cmd.Context(), opts)
		}),
	}
	cmd.Flags().StringVar(&opts.format, "format", "", "the admission controller: "+strings.Join(formats, " or "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runPolicyExport writes the policy of the working folder's scope as an
// admission policy, and its notes to stderr.
func runPolicyExport(ctx context.Context, opts *policyExportOptions) error {
	s := opts.io
	f := admission.Format(opts.format)
	if !slices.Contains(admission.Formats(), f) {
		return usageErrorf("--format %q: say which admission controller, policy-controller or kyverno", opts.format)
	}
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	p, err := loadPolicy(ctx, env, install.PolicyRequest{ProjectRoot: env.Project, ReadOnly: true}, 0)
	if err != nil {
		return policyError(err, "; fix the file, or move it away to export without it")
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

// policyShowOptions are the options of policy show.
type policyShowOptions struct {
	io     *streams
	asJSON bool
}

func newPolicyShowCmd(s *streams) *cobra.Command {
	opts := &policyShowOptions{io: s}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the effective policy and where each rule comes from",
		Long: `Show prints the effective trust policy of the working folder: the user's
file, the project's, and the files each extends (extends: SOURCE), fetched,
pinned in the lock file beside the file that extends them and kept in the
cache. Every rule of every file applies: a file only tightens the files it
extends, and the project's file only tightens the user's. For each file it
prints its chain (the file loaded, then each file extended, each named
SOURCE@PIN), and for each rule its file and line. A rule that would loosen
a file it extends has no effect, and is listed as a warning.

--json prints the same as one JSON object: files (each with its chain,
and for an extended file its source, pin and digest), effective (the
audit threshold and whether sources must be pinned, each with its rule),
rules and loosenings.`,
		Example: `  agentskills policy show
  agentskills policy show --json | jq '.rules[] | select(.rule == "sources.allow")'`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runPolicyShow(cmd.Context(), opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print the policy as JSON")
	return cmd
}

// shownRule is a rule as policy show prints it in JSON.
type shownRule struct {
	Rule  string   `json:"rule"`
	Value string   `json:"value,omitempty"`
	File  string   `json:"file,omitempty"`
	Line  int      `json:"line,omitempty"`
	Chain []string `json:"chain,omitempty"`
}

// shownFile is a policy file as policy show prints it in JSON.
type shownFile struct {
	File    string   `json:"file"`
	Scope   string   `json:"scope"`
	Chain   []string `json:"chain"`
	Extends string   `json:"extends,omitempty"`
	Source  string   `json:"source,omitempty"`
	Pin     string   `json:"pin,omitempty"`
	Digest  string   `json:"digest,omitempty"`
}

// shownPolicy is the JSON of policy show.
type shownPolicy struct {
	Files      []shownFile          `json:"files"`
	Effective  map[string]shownRule `json:"effective"`
	Rules      []shownRule          `json:"rules"`
	Loosenings []shownLoosening     `json:"loosenings"`
}

// shownLoosening is a rule without effect (package policy, rule 21).
type shownLoosening struct {
	shownRule
	Base   shownRule `json:"base"`
	Reason string    `json:"reason"`
}

// runPolicyShow prints the effective policy of the working folder.
func runPolicyShow(ctx context.Context, opts *policyShowOptions) error {
	s := opts.io
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	p, err := loadPolicy(ctx, env, install.PolicyRequest{ProjectRoot: env.Project}, 0)
	if err != nil {
		return policyError(err, "; fix the file, or move it away")
	}
	out := shownPolicy{Effective: map[string]shownRule{}, Rules: []shownRule{}, Loosenings: []shownLoosening{}}
	for _, l := range p.Layers() {
		f := shownFile{File: l.File, Scope: "user", Chain: l.Chain, Extends: l.Extends}
		if l.Project {
			f.Scope = "project"
		}
		if e := l.Fetched; e != nil {
			f.Source, f.Pin, f.Digest = e.Source, e.Pin, e.Digest
		}
		out.Files = append(out.Files, f)
	}
	pinned := shownRule{Rule: "sources.pinned", Value: "false"}
	for _, e := range p.Entries() {
		r := shownRule{Rule: e.Name, Value: e.Value, File: e.File, Line: e.Line, Chain: e.Chain}
		out.Rules = append(out.Rules, r)
		if e.Name == "sources.pinned" && e.Value == "true" && pinned.Value != "true" {
			pinned = r
		}
	}
	fr := p.FailOnRule()
	out.Effective["audit.fail_on"] = shownRule{Rule: fr.Name, Value: p.FailOn().String(), File: fr.File, Line: fr.Line}
	out.Effective["sources.pinned"] = pinned
	for _, l := range p.Loosenings() {
		out.Loosenings = append(out.Loosenings, shownLoosening{
			shownRule: shownRule{Rule: l.Name, File: l.File, Line: l.Line},
			Base:      shownRule{Rule: l.Base.Name, File: l.Base.File, Line: l.Base.Line}, Reason: l.Reason})
	}
	if opts.asJSON {
		return writeJSON(s, out)
	}
	if len(out.Files) == 0 {
		fmt.Fprintf(s.out, "No policy file (looked for %s and %s): every source is allowed, none needs a signer, the audit refuses at %s.\n",
			escapePath(filepath.Join(env.Home, ".agents", policy.FileName)), escapePath(filepath.Join(env.Project, ".agents", policy.FileName)), p.FailOn())
		return nil
	}
	fmt.Fprintln(s.out, "Effective policy (every rule of every file applies):")
	for _, k := range []string{"audit.fail_on", "sources.pinned"} {
		r := out.Effective[k]
		fmt.Fprintf(s.out, "  %s: %s (%s)\n", k, r.Value, escapePath(ruleWhere(r)))
	}
	for _, f := range out.Files {
		fmt.Fprintf(s.out, "\n%s (%s)\n", escapePath(f.File), f.Scope)
		if len(f.Chain) > 1 {
			var chain []string
			for _, c := range f.Chain {
				chain = append(chain, escapePath(c))
			}
			fmt.Fprintf(s.out, "  chain: %s\n", strings.Join(chain, " extends "))
		}
		if f.Digest != "" {
			fmt.Fprintf(s.out, "  pinned at %s, content %s\n", escapePath(f.Pin), escapePath(f.Digest))
		}
		for _, r := range out.Rules {
			if r.File == f.File {
				fmt.Fprintf(s.out, "  line %d: %s: %s\n", r.Line, r.Rule, r.Value) // policy.Entry.Value: on one line, quoted when it holds a control character
			}
		}
	}
	if len(out.Loosenings) > 0 {
		fmt.Fprintln(s.out)
		for _, l := range p.Loosenings() {
			fmt.Fprintf(s.out, "warning: %s\n", escapePath(l.String()))
		}
	}
	return nil
}

// ruleWhere locates a shown rule: FILE:LINE, FILE, or the default.
func ruleWhere(r shownRule) string {
	switch {
	case r.File == "":
		return "the default"
	case r.Line == 0:
		return r.File
	}
	return fmt.Sprintf("%s:%d", r.File, r.Line)
}
