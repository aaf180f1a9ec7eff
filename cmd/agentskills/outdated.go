package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/trust"
)

// outdatedOptions are the options of outdated.
type outdatedOptions struct {
	io      *streams
	scope   scopeFlags
	timeout time.Duration
}

const outdatedLong = `Outdated checks every skill the lock file records against its source, and
changes nothing: for a GitHub, git or OCI source, what its branch, tag or
version range names now (one lookup per source, however many skills it
holds; the content is read only when the pin moved, into the skill cache,
where update then finds it); for a URL, whether the server says it
changed since the download (with the ETag and Last-Modified the lock file
records: an answer 304 is current, with no download); a URL pinned with
#sha256= never changes; a folder is read again.

The table shows, per skill: the pin the lock file records, what the
reference names now (for a version range, with the tag it picks), whether
the content is the same or changed, and the source. CONTENT is "same"
when only the pin moved, "unavailable" when the source could not be read
now (the reason follows on stderr; the other skills are still checked),
"refused" when the trust policy no longer allows the source, and
"unknown" for a kind of source this version cannot check.

Exit codes: 0 every skill is current; 1 something is outdated (as npm
outdated), or a source could not be checked (the error says which); 2 bad
usage or an invalid lock file. With --json, the list, then on exit 1 the
error line (code "check" when something is outdated, "failed" when a
source could not be read, "policy" when the trust policy refuses one).`

func newOutdatedCmd(s *streams) *cobra.Command {
	opts := &outdatedOptions{io: s}
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "List the installed skills whose sources moved on",
		Long:  outdatedLong,
		Example: `  agentskills outdated
  agentskills outdated --global --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runOutdated(cmd.Context(), opts)
		}),
	}
	opts.scope.registerGlobal(cmd)
	cmd.Flags().DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up a download that receives nothing for this long")
	cmd.Flags().BoolVar(&opts.scope.json, "json", false, "print the list as JSON")
	return cmd
}

func runOutdated(ctx context.Context, opts *outdatedOptions) error {
	opts.scope.quiet = true // no progress lines: outdated prints a table
	// The policy only: a source it refuses is not read.
	in, err := opts.scope.trustedInstaller(ctx, &trustFlags{readOnly: true}, opts.timeout)
	if err != nil {
		return err
	}
	rows, err := in.Outdated(ctx)
	if err != nil {
		return installErr(err)
	}
	if opts.scope.json {
		if rows == nil {
			rows = []install.Outdated{}
		}
		if err := writeJSON(opts.io, rows); err != nil {
			return err
		}
	} else if err := printOutdated(opts.io, rows); err != nil {
		return err
	}
	return outdatedResult(opts.io, rows, opts.scope.json)
}

// printOutdated prints the table of outdated.
func printOutdated(s *streams, rows []install.Outdated) error {
	if len(rows) == 0 {
		fmt.Fprintln(s.out, "No skills are recorded.")
		return nil
	}
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tPIN\tNOW\tCONTENT\tSOURCE")
	for _, r := range rows {
		pin, now := "-", "-"
		if r.Pin != "" {
			pin = shortPin(r.Pin)
		}
		if r.Now != "" {
			now = shortPin(r.Now)
		}
		if r.Version != "" {
			now += " (" + r.Version + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Skill, pin, now, contentWord(r.State), sourceLabel(r.Source, r.Subpath))
	}
	return w.Flush()
}

// contentWord is the CONTENT column of a state.
func contentWord(st install.OutdatedState) string {
	switch st {
	case install.OutdatedCurrent, install.OutdatedMoved:
		return "same"
	}
	return string(st)
}

// outdatedResult is how outdated ends: nil when every skill is current;
// a failure giving the reason of each skill that could not be checked;
// else a reported check that something is outdated.
func outdatedResult(s *streams, rows []install.Outdated, asJSON bool) error {
	var unchecked []error
	outdated := 0
	for _, r := range rows {
		switch {
		case r.IsOutdated():
			outdated++
		case r.State == install.OutdatedRefused:
			unchecked = append(unchecked, refusedRow(r.Skill+": "+r.Reason))
		case r.State != install.OutdatedCurrent:
			unchecked = append(unchecked, fmt.Errorf("%s: %s", r.Skill, r.Reason))
		}
	}
	if len(unchecked) > 0 {
		return fmt.Errorf("%d skills could not be checked (the others are listed):\n%w", len(unchecked), errors.Join(unchecked...))
	}
	if outdated > 0 {
		if !asJSON {
			fmt.Fprintf(s.err, "%d %s outdated; 'agentskills update' moves them (--dry-run shows what changes)\n", outdated, plural(outdated, "skill is", "skills are"))
		}
		return reported(fmt.Sprintf("%d skills are outdated", outdated))
	}
	return nil
}

// refusedRow is the reason of a skill outdated did not check as the
// trust policy refuses its source: a policy refusal (code "policy"), as
// add's and sync's are.
type refusedRow string

func (e refusedRow) Error() string { return string(e) }
func (e refusedRow) Is(target error) bool {
	return target == trust.ErrRefused || target == policy.ErrDenied
}
