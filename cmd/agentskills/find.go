package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/search"
	"github.com/agentadaptor/agentadaptor/source/github"
)

type findOptions struct {
	io         *streams
	json       bool
	limit      int
	indexes    []string
	registries []string
	noGitHub   bool
	timeout    time.Duration
}

func newFindCmd(s *streams) *cobra.Command {
	opts := &findOptions{io: s}
	cmd := &cobra.Command{
		Use:   "find QUERY",
		Short: "Search web indexes, OCI registries and GitHub for skills",
		Long: `Find searches, in one ranked list, the web indexes and OCI registries listed
in ~/.agents/agentskills.yaml (and those given with --index and
--registry), and GitHub: repositories with the agent-skills topic, and,
with a token (GITHUB_TOKEN or GH_TOKEN), SKILL.md files by code search.
GITHUB_API_URL names another GitHub API (GitHub Enterprise).

Each entry shows the skill's name, its description, where it was found
and the command that installs it. Exact name matches come first, then
names that hold the query, then descriptions; ties keep the order indexes,
registries, GitHub. A place that fails or does not answer within --timeout
is reported on stderr, and the others' entries are still shown; the exit
code is 1 only when every place failed.

The configuration file is YAML:

  indexes:
    - https://skills.example.com
  registries:
    - ghcr.io/acme/review     # one repository
    - registry.example.com    # every repository of its catalog

No telemetry: the query goes to GitHub as a search and nowhere else;
indexes and registries are only read.`,
		Example: `  agentskills find pdf
  agentskills find --no-github --registry localhost:5000 review
  agentskills find --json --limit 50 "code review"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("want a QUERY: what to look for")
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runFind(cmd.Context(), opts, strings.Join(args, " "))
		}),
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the results as JSON")
	cmd.Flags().IntVar(&opts.limit, "limit", search.DefaultLimit, fmt.Sprintf("show at most this many results (at most %d)", search.MaxLimit))
	cmd.Flags().StringArrayVar(&opts.indexes, "index", nil, "also search the web index of this site, https://HOST (repeatable)")
	cmd.Flags().StringArrayVar(&opts.registries, "registry", nil, "also search this OCI registry, HOST, or repository, HOST/REPO (repeatable)")
	cmd.Flags().BoolVar(&opts.noGitHub, "no-github", false, "do not search GitHub")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", search.DefaultTimeout, "give up a place that has not answered in this long")
	return cmd
}

// findJSON is what find --json prints.
type findJSON struct {
	Query    string          `json:"query"`
	Results  []search.Result `json:"results"`
	Warnings []findWarning   `json:"warnings"`
}

type findWarning struct {
	Backend string `json:"backend"`
	Message string `json:"message"`
}

func runFind(ctx context.Context, opts *findOptions, query string) error {
	if err := search.CheckQuery(query); err != nil {
		return usageErrorf("%v", err)
	}
	if opts.limit <= 0 || opts.limit > search.MaxLimit {
		return usageErrorf("--limit %d: give a number from 1 to %d", opts.limit, search.MaxLimit)
	}
	if opts.timeout <= 0 {
		return usageErrorf("--timeout %s: give a positive duration, as 20s", opts.timeout)
	}
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	cfg, err := search.LoadConfig(env.Home)
	if err != nil {
		return inputError{fmt.Errorf("%w (fix the file, or move it away)", err)}
	}
	for _, ix := range opts.indexes {
		if _, err := search.Index(ix); err != nil {
			return usageErrorf("--index: %v", err)
		}
	}
	for _, r := range opts.registries {
		if _, err := search.Registry(r); err != nil {
			return usageErrorf("--registry: %v", err)
		}
	}
	cfg.Indexes = append(cfg.Indexes, opts.indexes...)
	cfg.Registries = append(cfg.Registries, opts.registries...)
	backends, err := cfg.Backends()
	if err != nil {
		return inputError{err}
	}
	s := opts.io
	if !opts.noGitHub {
		gh, err := github.New()
		if err != nil {
			return inputError{err}
		}
		backends = append(backends, search.GitHub(gh))
		if gh.TokenFrom() == "" {
			fmt.Fprintln(s.err, "note: GitHub searches SKILL.md files only with a token: set GITHUB_TOKEN or GH_TOKEN to search them too")
		}
	}
	if len(backends) == 0 {
		return usageErrorf("nothing to search: --no-github, and no index or registry in %s; pass --index or --registry", homePath(search.ConfigPath(env.Home)))
	}
	res, err := search.Search(ctx, query, backends, search.WithLimit(opts.limit), search.WithTimeout(opts.timeout))
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		for line := range strings.SplitSeq(w.Error(), "\n") {
			fmt.Fprintf(s.err, "warning: %s\n", line)
		}
	}
	if opts.json {
		out := findJSON{Query: query, Results: res.Results, Warnings: []findWarning{}}
		if out.Results == nil {
			out.Results = []search.Result{}
		}
		for _, w := range res.Warnings {
			out.Warnings = append(out.Warnings, findWarning{Backend: w.Backend, Message: w.Error()})
		}
		if err := writeJSON(s, out); err != nil {
			return err
		}
	} else {
		printFound(s, query, res.Results)
	}
	if len(res.Warnings) == len(backends) && len(res.Results) == 0 {
		return fmt.Errorf("every place searched failed (%d): see the warnings", len(backends))
	}
	return nil
}

// printFound prints each result as a block: its name and where it was
// found, its description on one line, and the command that installs it.
func printFound(s *streams, query string, results []search.Result) {
	if len(results) == 0 {
		fmt.Fprintf(s.err, "no skills found for %q\n", query)
		return
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(s.out)
		}
		fmt.Fprintf(s.out, "%s  (%s)\n", r.Name, r.From)
		if d := oneLine(r.Description, 100); d != "" {
			fmt.Fprintf(s.out, "  %s\n", d)
		}
		fmt.Fprintf(s.out, "  %s\n", r.Install)
	}
}
