package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

type indexOptions struct {
	io      *streams
	dir     string
	baseURL string
	out     string
}

func newIndexCmd(s *streams) *cobra.Command {
	opts := &indexOptions{io: s}
	cmd := &cobra.Command{
		Use:   "index DIR -o OUT",
		Short: "Write a web index of skills, to publish them from any static host",
		Long: `Index writes OUT/.well-known/agent-skills/index.json, the Agent Skills
discovery index (v0.2.0), and the files it names, for the skills in DIR
(found as add finds them): a skill that is its SKILL.md alone as
NAME/SKILL.md, any other as NAME.tar.gz, each with its SHA-256. Serve OUT
from a website and "agentskills add https://SITE" installs from it,
checking every download against its digest.

Every skill must pass validate (strict); any that does not, or two of one
name, stop the command before anything is written. The same skills give
the same bytes. An existing OUT/.well-known/agent-skills is replaced only
when it holds nothing but an index this command wrote and its files.

The index's URLs are relative to it unless --base-url gives the URL at
which OUT is served; then they are absolute.

It prints one line per skill: its name, type and URL.`,
		Example: `  agentskills index ./skills -o public
  agentskills index ./skills --base-url https://example.com -o public`,
		Args: countArgs("DIR", 1, 1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			if opts.out == "" {
				return usageErrorf("missing -o OUT, the folder to write .well-known/agent-skills into")
			}
			return runIndex(cmd.Context(), opts)
		}),
	}
	cmd.Flags().StringVar(&opts.baseURL, "base-url", "", "the http(s) URL at which OUT is served (default: URLs relative to the index)")
	cmd.Flags().StringVarP(&opts.out, "output", "o", "", "the folder to write .well-known/agent-skills into (required)")
	return cmd
}

func runIndex(ctx context.Context, opts *indexOptions) error {
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(opts.dir)
	if err != nil {
		return err
	}
	found, err := install.New(env, install.WithSettingNames(settingFlags)).Contents(ctx, install.FindRequest{Source: dir})
	if err != nil {
		return installErr(err)
	}
	var dirs, problems []string
	for _, s := range found {
		if s.Problem != "" {
			problems = append(problems, fmt.Sprintf("%s (%s): %s", s.Name, s.Path, s.Problem))
			continue
		}
		dirs = append(dirs, filepath.Join(dir, filepath.FromSlash(s.Path)))
	}
	if len(problems) > 0 {
		return inputError{fmt.Errorf("%s holds skills that cannot be published; nothing was written:\n  %s", opts.dir, strings.Join(problems, "\n  "))}
	}
	ix, err := webindex.Write(ctx, opts.out, dirs, webindex.WithBaseURL(opts.baseURL))
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(opts.io.out, 0, 4, 2, ' ', 0)
	for _, s := range ix.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Type, s.URL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(opts.io.err, "wrote %s with %d skills\n", filepath.Join(opts.out, filepath.FromSlash(webindex.Dir), "index.json"), len(ix.Skills))
	return err
}
