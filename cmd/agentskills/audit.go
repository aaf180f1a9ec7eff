package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/skill"
)

// auditOptions are the options of agentskills audit.
type auditOptions struct {
	io     *streams
	json   bool
	format string
	output string
	failOn string
}

func newAuditCmd(s *streams) *cobra.Command {
	opts := &auditOptions{io: s}
	cmd := &cobra.Command{
		Use:   "audit [SOURCE|NAME]...",
		Short: "Check skills for the patterns of malicious skills",
		Long: `Audit reads every file of a skill, locally, and reports what malicious
skills do: hidden or deceptive Unicode, terminal escapes, download and run,
"prerequisite" installs from a URL, credential reads, exfiltration,
instructions to ignore previous instructions or hide things from the user,
programs, links, and oversized files. Each finding has a rule, a severity,
the file and line, and an excerpt with control characters escaped. A rule
reports a line once, and a skill lists at most 100 findings of a rule and
1,000 in all; the rest are counted, as "and N more" (in JSON, "omitted").

With no argument it audits every skill in the folders agents read, in the
project and the user's home. A NAME is an installed skill; a SOURCE is
anything 'agentskills add' takes (a folder, an archive, a URL, github:...,
oci://...), read as add reads it, installing nothing.

A skill that cannot be audited (its SKILL.md is invalid, a file cannot be
read, the tree is over the audit's limits) does not stop the others: it
is reported as not audited, with the reason, on stderr, in JSON and in
SARIF (a notification of an invocation that did not succeed).

--json (or --format json) prints JSON lines: one line per skill,
{"type":"report","skill":...,"source":...,"root":...,"findings":[...]},
with "omitted" when findings are past the caps and "error" for a skill
not audited; a failure then ends the output with the error line every
command prints with --json. --format sarif writes SARIF 2.1.0 for GitHub
code scanning.

It exits 1 when a finding reaches --fail-on (default high) or a skill
could not be audited, 0 otherwise, and 2 for bad usage.`,
		Example: `  agentskills audit
  agentskills audit ./skills/my-skill github:owner/repo
  agentskills audit --format sarif --output audit.sarif --fail-on critical`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if opts.format == "json" && !opts.json {
				// The same output as --json, ended as --json's is.
				if err := cmd.Flags().Set("json", "true"); err != nil {
					return err
				}
			}
			return runAudit(cmd.Context(), opts, args)
		}),
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the reports as JSON lines, one a skill (as --format json)")
	cmd.Flags().StringVar(&opts.format, "format", "table", "output format: table, json or sarif")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write the output to this file instead of stdout")
	cmd.Flags().StringVar(&opts.failOn, "fail-on", "high", "exit 1 when a finding reaches this severity: info, low, medium, high or critical")
	return cmd
}

// auditTarget is one skill folder to audit, or, with a problem, a skill
// of a source that cannot be audited (dir is then its folder when known).
type auditTarget struct {
	name, source, dir string
	problem           string
}

func runAudit(ctx context.Context, opts *auditOptions, args []string) error {
	threshold, err := audit.ParseSeverity(opts.failOn)
	if err != nil {
		return usageErrorf("--fail-on: %v", err)
	}
	format := opts.format
	if opts.json {
		if format != "table" && format != "json" {
			return usageErrorf("--json and --format %s cannot be used together", format)
		}
		format = "json"
	}
	if !slices.Contains([]string{"table", "json", "sarif"}, format) {
		return usageErrorf("--format %q: use table, json or sarif", format)
	}
	tuneAuditGC(os.Getenv)
	targets, err := auditTargets(ctx, args)
	if err != nil {
		return err
	}
	short := shortPaths()
	reports := make([]audit.Report, 0, len(targets))
	for _, t := range targets {
		rep := audit.Report{Skill: t.name, Source: t.source, Error: t.problem}
		if t.dir != "" {
			rep.Root = filepath.ToSlash(short(t.dir))
		}
		if t.problem == "" {
			r, err := auditFolder(t.dir)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			rep.Findings, rep.Omitted = r.Findings, r.Omitted
			if err != nil {
				rep.Error = err.Error()
			}
		}
		if rep.Findings == nil {
			rep.Findings = []audit.Finding{}
		}
		if rep.Error != "" {
			where := ""
			if rep.Root != "" {
				where = " (" + audit.Escape(rep.Root) + ")"
			}
			fmt.Fprintf(opts.io.err, "agentskills audit: %s%s not audited: %s\n", audit.Escape(rep.Skill), where, rep.Error)
		}
		reports = append(reports, rep)
	}
	if err := writeAudit(opts, format, reports); err != nil {
		return err
	}
	return auditVerdict(opts.io, reports, threshold)
}

// auditGCPercent is the garbage collector's target (GOGC) while audit
// runs: a short command whose heap is mostly the text it reads, which a
// collection cannot free, and the program's start (startGC), which it
// need not. At Go's default (100) the audit of 4 MiB of text ran two
// collections, 8% of the command's CPU; at 400 it runs none (the first
// comes past 16 MiB of heap).
const auditGCPercent = 400

// tuneAuditGC sets the garbage collector's target to auditGCPercent
// unless GOGC (read by getenv) sets one, and bounds the heap as add's is
// (boundMemory): past the soft limit the collector runs as often as it
// must.
func tuneAuditGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(auditGCPercent)
	}
	boundMemory(getenv)
}

// writeAudit writes the reports in format to --output or stdout.
func writeAudit(opts *auditOptions, format string, reports []audit.Report) (err error) {
	var w io.Writer = opts.io.data
	if format == "table" {
		w = opts.io.out
	}
	if opts.output != "" {
		f, err := os.Create(opts.output)
		if err != nil {
			return inputError{fmt.Errorf("--output: %w", err)}
		}
		defer func() {
			if cerr := f.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("writing %s: %w", opts.output, cerr)
			}
		}()
		w = f
		if format == "table" {
			w = newTextWriter(f)
			defer w.(*textWriter).Flush()
		}
	}
	switch format {
	case "sarif":
		return audit.WriteSARIF(w, reports, audit.WithToolVersion(version()))
	case "json":
		return auditJSONLines(w, reports)
	}
	return auditTable(w, reports)
}

// auditReportLine is a line of --json: a report, typed as every line of
// JSON the commands print is.
type auditReportLine struct {
	Type string `json:"type"` // "report"
	audit.Report
}

// auditJSONLines writes each report as one line of JSON.
func auditJSONLines(w io.Writer, reports []audit.Report) error {
	enc := json.NewEncoder(w)
	for _, r := range reports {
		if err := enc.Encode(auditReportLine{Type: "report", Report: r}); err != nil {
			return err
		}
	}
	return nil
}

// auditTable prints one row per finding, and a row per rule with
// findings past the audit's caps, which counts them ("and 31,204 more").
func auditTable(w io.Writer, reports []audit.Report) error {
	n, skipped := 0, 0
	for _, r := range reports {
		n += len(r.Findings)
		if r.Error != "" {
			skipped++
		}
	}
	if n == 0 {
		if skipped > 0 {
			_, err := fmt.Fprintf(w, "No findings in %d skills; %d not audited.\n", len(reports)-skipped, skipped)
			return err
		}
		_, err := fmt.Fprintf(w, "No findings in %d skills.\n", len(reports))
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tRULE\tSKILL\tFILE:LINE\tEXCERPT")
	for _, r := range reports {
		for _, f := range r.Findings {
			where := audit.Escape(f.File)
			if f.Line > 0 {
				where = fmt.Sprintf("%s:%d", audit.Escape(f.File), f.Line)
			}
			excerpt := f.Excerpt
			if excerpt == "" {
				excerpt = f.Message
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Severity, f.Rule, audit.Escape(r.Skill), where, excerpt)
		}
		for _, rule := range slices.Sorted(maps.Keys(r.Omitted)) {
			rl, _ := audit.LookupRule(rule)
			more := audit.Omitted{rule: r.Omitted[rule]}.String()
			more, _, _ = strings.Cut(more, " (")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", rl.Severity, rule, audit.Escape(r.Skill), "...", more+" of this rule, not listed")
		}
	}
	return tw.Flush()
}

// auditVerdict says on stderr what reached the threshold, and fails the
// command when anything did or a skill was not audited.
func auditVerdict(s *streams, reports []audit.Report, threshold audit.Severity) error {
	var over, skipped []string
	count := 0
	for _, r := range reports {
		if r.Error != "" {
			skipped = append(skipped, r.Skill)
		}
		r = r.Filter(func(f audit.Finding) bool { return f.Severity >= threshold })
		if n := len(r.Findings) + r.Omitted.Total(); n > 0 {
			count += n
			over = append(over, r.Skill)
		}
	}
	var msgs []string
	if count > 0 {
		noun := "findings"
		if count == 1 {
			noun = "finding"
		}
		msg := fmt.Sprintf("%d %s at %s or above in %s", count, noun, threshold, strings.Join(over, ", "))
		fmt.Fprintf(s.err, "agentskills audit: %s; read each before you install or run the skill, and remove a skill you do not trust ('agentskills remove NAME')\n", msg)
		msgs = append(msgs, msg)
	}
	if len(skipped) > 0 {
		noun := "skills"
		if len(skipped) == 1 {
			noun = "skill"
		}
		msg := fmt.Sprintf("%d %s not audited: %s", len(skipped), noun, strings.Join(skipped, ", "))
		fmt.Fprintf(s.err, "agentskills audit: %s; the others were audited\n", msg)
		msgs = append(msgs, msg)
	}
	if len(msgs) == 0 {
		return nil
	}
	return reported(strings.Join(msgs, "; "))
}

// auditTargets resolves the arguments to skill folders: none, every skill
// in the folders agents read (project and user); a NAME, the installed
// skill of that name; any other argument, a source as add reads it (an
// archive's skills are read from their copies in the skill cache).
func auditTargets(ctx context.Context, args []string) ([]auditTarget, error) {
	env, err := install.CurrentEnv()
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return installedSkills(ctx, env)
	}
	in := install.New(env, install.WithSettingNames(settingFlags))
	var out, installed []auditTarget
	listed := false
	for _, arg := range args {
		if _, statErr := os.Stat(arg); statErr != nil {
			// Not a path: an installed skill's name, or a published
			// source.
			if !listed {
				if installed, err = installedSkills(ctx, env); err != nil {
					return nil, err
				}
				listed = true
			}
			var named []auditTarget
			for _, t := range installed {
				if t.name == arg {
					named = append(named, t)
				}
			}
			if len(named) > 0 {
				out = append(out, named...)
				continue
			}
		}
		found, unread, err := findAuditable(ctx, in, arg)
		if err != nil {
			if errors.Is(err, install.ErrInvalidSource) {
				return nil, inputError{fmt.Errorf("%s is neither an installed skill nor a source: %w", arg, err)}
			}
			return nil, installErr(err)
		}
		out = append(out, unread...)
		for _, sk := range found {
			p, ok := sk.Source.(skill.PathSource)
			if !ok {
				return nil, fmt.Errorf("%s: skill %s has no folder to audit", arg, sk.Key)
			}
			out = append(out, auditTarget{name: sk.Key, source: arg, dir: p.Path})
		}
	}
	return out, nil
}

// findAuditable finds the skills of the source arg as Find does. When a
// skill of it cannot be read or installed (Find fails for the whole
// source), it finds the others, and returns that skill with its problem.
func findAuditable(ctx context.Context, in *install.Installer, arg string) ([]skill.Skill, []auditTarget, error) {
	found, err := in.Find(ctx, install.FindRequest{Source: arg})
	if err == nil || !errors.Is(err, install.ErrInvalidSource) {
		return found, nil, err
	}
	list, lerr := in.Contents(ctx, install.FindRequest{Source: arg})
	if lerr != nil {
		return nil, nil, err
	}
	var unread []auditTarget
	var paths []string
	dir := ""
	if fi, serr := os.Stat(arg); serr == nil && fi.IsDir() {
		dir = arg
	}
	for _, s := range list {
		switch {
		case s.Within != "":
			// Find leaves a skill inside another's folder out.
		case s.Problem != "":
			t := auditTarget{name: s.Name, source: arg, problem: s.Problem}
			if dir != "" {
				t.dir = filepath.Join(dir, filepath.FromSlash(s.Path))
			}
			unread = append(unread, t)
		default:
			paths = append(paths, s.Path)
		}
	}
	if len(unread) == 0 {
		return nil, nil, err // not a skill's problem: the source's
	}
	if len(paths) == 0 {
		return nil, unread, nil
	}
	found, err = in.Find(ctx, install.FindRequest{Source: arg, Skills: paths})
	return found, unread, err
}

// installedSkills lists every skill folder agents read, in the project
// and the user's home, each once (a link and the folder it leads to are
// one skill).
func installedSkills(ctx context.Context, env install.Env) ([]auditTarget, error) {
	var out []auditTarget
	seen := map[string]bool{}
	for _, scope := range []install.Scope{install.Project, install.User} {
		st, err := install.New(env, install.WithScope(scope), install.WithSettingNames(settingFlags)).List(ctx, install.ListRequest{})
		if err != nil {
			return nil, installErr(err)
		}
		for _, x := range st {
			if x.State == install.StateMissing {
				continue
			}
			real, err := filepath.EvalSymlinks(x.Path)
			if err != nil || seen[real] {
				continue
			}
			seen[real] = true
			out = append(out, auditTarget{name: x.Skill, source: scope.String(), dir: real})
		}
	}
	return out, nil
}
