package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
)

type importOptions struct {
	io      *streams
	scope   scopeFlags
	from    string
	dryRun  bool
	timeout time.Duration
	trust   trustFlags
}

const importLong = `Import carries over the skills another installer recorded, so that a project
(or, with --global, your home) moves to agentskills with one command. It
reads the npm skills tool's skills-lock.json (with --global its
~/.agents/.skill-lock.json, or $XDG_STATE_HOME/skills/.skill-lock.json) and
the metadata 'gh skill install' writes into the SKILL.md files it installs
(github-repo, github-ref, github-path, github-pinned, local-path).

Each skill is added as 'agentskills add' adds it, from the source the record
names (GitHub OWNER/REPO with the skill's folder and ref, a git URL, a local
folder, a web index), for the agents whose folders already hold it (in a
project, a local folder only from inside the project, links followed: one a
record names outside it is left out, naming it): the ref
is resolved to a commit, the content hashed, and both recorded in
.agents/agentskills.lock. A folder already there is taken over only when it
holds exactly that content, or when it is the other tool's copy and differs
from the source by nothing but what that tool changes (gh rewrites SKILL.md;
the npm tool leaves out metadata.json and __pycache__): that copy is first
moved to .agents/backups. Anything else is never overwritten. What cannot
be carried over (an unknown source type, content that differs from the
source at the resolved commit, a source that is gone) is listed with why,
and the command then exits 1. The other tools' lock files are left as they
are. With --dry-run it resolves every ref and shows the plan, changing
nothing. The trust checks of add apply (the policy, before any source is
asked; the audit; the trust flags): a skill they refuse is left out with
why.`

func newImportCmd(s *streams) *cobra.Command {
	opts := &importOptions{io: s}
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Carry over the skills the npm skills tool or gh skill installed",
		Long:  importLong,
		Example: `  agentskills import --dry-run
  agentskills import
  agentskills import --from gh --global`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runImport(cmd.Context(), opts)
		}),
	}
	opts.scope.registerGlobal(cmd)
	cmd.Flags().StringVar(&opts.from, "from", "auto", "the installer whose records to read: npm, gh or auto (both)")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "resolve every ref and show the plan; change nothing")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up a download that receives nothing for this long")
	cmd.Flags().BoolVar(&opts.scope.json, "json", false, "print the report as JSON")
	opts.trust.register(cmd, true)
	return cmd
}

func runImport(ctx context.Context, opts *importOptions) error {
	from := install.ImportFrom(opts.from)
	switch from {
	case install.ImportAuto, install.ImportNPM, install.ImportGH:
	default:
		return usageErrorf("--from is %q; want npm, gh or auto", opts.from)
	}
	in, err := opts.scope.trustedInstaller(ctx, &opts.trust, opts.timeout)
	if err != nil {
		return err
	}
	report, err := in.Import(ctx, install.ImportRequest{From: from, DryRun: opts.dryRun})
	if report == nil {
		return installErr(err)
	}
	if opts.scope.json {
		if werr := writeJSON(opts.io, report); werr != nil && err == nil {
			return werr
		}
	} else {
		printImport(opts.io, report, opts.dryRun)
	}
	if err != nil {
		return installErr(err)
	}
	if len(report.Left) > 0 {
		return reported(fmt.Sprintf("%d skill(s) could not be carried over", len(report.Left)))
	}
	return nil
}

// printImport prints the report for a person: each skill carried over
// (or, dry, to be), then each left out with why.
func printImport(s *streams, r *install.ImportReport, dry bool) {
	verb := "imported"
	if dry {
		verb = "would import"
	}
	for _, it := range r.Imported {
		pin := ""
		if it.Pin != "" {
			pin = " at " + shortPin(it.Pin)
		}
		agents := ""
		if len(it.Agents) > 0 {
			agents = " for " + strings.Join(it.Agents, ",")
		}
		backups := ""
		if len(it.Backups) > 0 {
			var short []string
			for _, b := range it.Backups {
				short = append(short, shortPath(b))
			}
			backups = " (the other tool's copy is now in " + strings.Join(short, ", ") + ")"
		}
		fmt.Fprintf(s.out, "%s %s from %s%s%s%s\n", verb, it.Skill, it.Source, pin, agents, backups)
	}
	for _, it := range r.Left {
		fmt.Fprintf(s.out, "left out %s (%s in %s): %s\n", it.Skill, it.Origin, shortPath(it.Record), it.Reason)
	}
	if len(r.Imported) == 0 && len(r.Left) == 0 {
		fmt.Fprintln(s.out, "Nothing to import.")
	}
}
