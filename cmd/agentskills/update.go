package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
)

// updateOptions are the options of update.
type updateOptions struct {
	io      *streams
	scope   scopeFlags
	dryRun  bool
	latest  bool
	force   bool
	lenient bool
	timeout time.Duration
	trust   trustFlags
	// eval gates the update on the skills' evaluations (updateeval.go).
	eval updateEvalFlags
}

const updateLong = `Update moves the pins of the installed skills (every one, or the NAMEs
given) to what their sources name now and installs the new content, for
the agents the lock file records. Each source is read once (see
'agentskills outdated'): a GitHub, git or OCI source at what its branch,
tag or version range names now, a URL when its server says it changed, a
folder read again. For each skill it prints the pin move (for a folder or
a URL, the content digests) and the files the new content adds, removes
and changes; --dry-run prints the same and changes nothing.

A version range (OWNER/REPO@^1.2, #ref=^1.2, oci://HOST/REPO:^1.2) moves
within its range; --latest leaves it for the repository's highest version
tag, and the lock file then records the range ^MAJOR.MINOR.PATCH of that
tag. A URL pinned with #sha256= never moves.

Everything is checked before anything changes, as add does: a skill edited
since it was installed is kept (exit 1, naming the changed files) unless
--force, which first moves it to .agents/backups; the trust checks of add
apply (the policy, the signer the lock file records: content signed by
another is refused unless --accept-signer names the new signer, and the
update then says "signer of NAME changed from OLD to NEW (accepted)", also
for the same content; the audit refuses a skill, and the whole update,
unless --allow-risk names the rule or the lock file records it allowed for
the same content); a source that cannot be read fails the update, and so does a
skill the source no longer holds where the lock file says (remove it, or
add it again from where the source keeps it now). New content that
breaks only the Agent Skills specification is refused unless --lenient,
as add refuses it. The lock file is replaced atomically, and Ctrl-C
stops between two skills with the lock file recording exactly what is
in place.

Exit codes: 0 success (also when nothing needed updating), 1 the update
failed (an edited skill, an unreachable source, a refusal), 2 bad usage or
input (a NAME that is not installed, an invalid lock file), 130
interrupted.`

func newUpdateCmd(s *streams) *cobra.Command {
	opts := &updateOptions{io: s}
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move installed skills to what their sources name now",
		Long:  updateLong,
		Example: `  agentskills update --dry-run
  agentskills update code-review
  agentskills update --latest --json`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := opts.eval.checkGiven(cmd); err != nil {
				return err
			}
			return runUpdate(cmd.Context(), opts, args)
		}),
	}
	opts.scope.registerGlobal(cmd)
	cmd.Flags().BoolVarP(&opts.dryRun, "dry-run", "n", false, "show what would change, and change nothing")
	cmd.Flags().BoolVar(&opts.latest, "latest", false, "move a version range to the highest version tag, leaving the range")
	cmd.Flags().BoolVar(&opts.force, "force", false, "replace installed skills that were changed since, moving each to a backup under .agents/backups first")
	cmd.Flags().BoolVar(&opts.lenient, "lenient", false, "update, with a warning, a skill whose new content breaks only the Agent Skills specification (a description over 1,024 characters); the lock file records it")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up a download that receives nothing for this long")
	opts.trust.register(cmd, true)
	opts.scope.registerOutput(cmd)
	opts.scope.registerVerbose(cmd)
	opts.eval.register(cmd, s)
	return cmd
}

// updateOutput is what update --json prints.
type updateOutput struct {
	DryRun  bool                  `json:"dry_run"`
	Skills  []install.SkillUpdate `json:"skills"`
	Changes []install.Change      `json:"changes"`
	// Evals are the verdicts of --eval, one per skill whose content
	// moves.
	Evals []updateVerdict `json:"evals,omitempty"`
}

func runUpdate(ctx context.Context, opts *updateOptions, names []string) error {
	in, err := opts.scope.trustedInstaller(ctx, &opts.trust, opts.timeout)
	if err != nil {
		return err
	}
	req := install.UpdateRequest{Names: names, Latest: opts.latest, DryRun: opts.dryRun, Force: opts.force, Lenient: opts.lenient}
	if opts.eval.on {
		return runUpdateEval(ctx, opts, in, req)
	}
	ups, changes, err := in.Update(ctx, req)
	return updateResult(opts, ups, changes, nil, err)
}

// updateResult prints what update did, or the error that stopped it,
// with the verdicts of --eval.
func updateResult(opts *updateOptions, ups []install.SkillUpdate, changes []install.Change, verdicts []updateVerdict, err error) error {
	err = trustHint(err)
	if errors.Is(err, install.ErrSpecification) {
		err = hinted{err, "--lenient updates a skill that breaks only the specification, with a warning"}
	}
	if opts.scope.json {
		if err != nil && len(changes) == 0 {
			return installErr(err)
		}
		out := updateOutput{DryRun: opts.dryRun, Skills: ups, Changes: changes, Evals: verdicts}
		if out.Skills == nil {
			out.Skills = []install.SkillUpdate{}
		}
		if out.Changes == nil {
			out.Changes = []install.Change{}
		}
		if werr := writeJSON(opts.io, out); werr != nil && err == nil {
			return werr
		}
		return installErr(err)
	}
	if err != nil {
		return printChanges(opts.io, changes, &opts.scope, err)
	}
	if !opts.scope.quiet {
		printUpdates(opts.io, ups, changes, opts.dryRun)
	}
	warnRejected(opts.io, changes, opts.scope.verbose)
	return nil
}

// printUpdates prints what update did, or would do: per skill moved, its
// pin (else content) move and its files; the backups made; and a last
// line when nothing moved or nothing was changed.
func printUpdates(s *streams, ups []install.SkillUpdate, changes []install.Change, dryRun bool) {
	moved := 0
	for _, u := range ups {
		if !u.Updated() {
			continue
		}
		moved++
		if u.Signer != u.PreviousSigner && u.PreviousSigner != "" && u.Signer != "" {
			fmt.Fprintf(s.out, "signer of %s changed from %s to %s (accepted)\n", u.Skill, u.PreviousSigner, u.Signer)
			if u.Pin == u.PreviousPin && u.Digest == u.PreviousDigest && u.PreviousSource == "" {
				continue
			}
		}
		from, to := u.PreviousPin, u.Pin
		if from == "" && to == "" {
			from, to = u.PreviousDigest, u.Digest
		}
		line := fmt.Sprintf("%s: %s -> %s", u.Skill, shortPin(from), shortPin(to))
		if u.Version != "" {
			line += " (" + u.Version + ")"
		}
		if u.Digest == u.PreviousDigest {
			line += ", same content"
		}
		fmt.Fprintln(s.out, line)
		if u.PreviousSource != "" {
			fmt.Fprintf(s.out, "  source   %s -> %s\n", u.PreviousSource, u.Source)
		}
		for _, f := range []struct {
			what  string
			files []string
		}{{"added", u.Added}, {"removed", u.Removed}, {"changed", u.Changed}} {
			for _, p := range f.files {
				fmt.Fprintf(s.out, "  %-8s %s\n", f.what, p)
			}
		}
	}
	for _, c := range changes {
		if c.Backup != "" {
			fmt.Fprintf(s.out, "%s: what was at %s is now in %s\n", c.Skill, shortPath(c.Path), shortPath(c.Backup))
		}
	}
	switch {
	case moved == 0:
		fmt.Fprintln(s.out, "Everything is up to date.")
	case dryRun:
		fmt.Fprintf(s.out, "Dry run: %d %s would be updated; nothing was changed.\n", moved, plural(moved, "skill", "skills"))
	default:
		agents := map[string]bool{}
		for _, c := range changes {
			if c.Agent != "" && c.Action != install.ActionUnchanged {
				agents[c.Agent] = true
			}
		}
		ids := slices.Sorted(maps.Keys(agents))
		fmt.Fprintf(s.out, "Updated %d %s", moved, plural(moved, "skill", "skills"))
		if len(ids) > 0 {
			fmt.Fprintf(s.out, " (for %s)", strings.Join(ids, ", "))
		}
		fmt.Fprintln(s.out, ".")
	}
}

// trustedInstaller returns the installer for the chosen scope that
// enforces the trust flags tf and the policy, with the download timeout.
func (f *scopeFlags) trustedInstaller(ctx context.Context, tf *trustFlags, timeout time.Duration) (*install.Installer, error) {
	trust, err := tf.option(ctx, f.global, timeout)
	if err != nil {
		return nil, err
	}
	return f.installer(install.WithDownloadTimeout(timeout), trust)
}
