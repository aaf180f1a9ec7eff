package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

type readPropertiesOptions struct {
	io      *streams
	path    string
	lenient bool
}

func newReadPropertiesCmd(s *streams) *cobra.Command {
	opts := &readPropertiesOptions{io: s}
	cmd := &cobra.Command{
		Use:   "read-properties PATH",
		Short: "Print a skill's front matter as JSON",
		Long: `Read-properties prints the front matter of a skill folder (or its SKILL.md)
as indented JSON, byte for byte as the reference's read-properties does:
name and description, then license, compatibility and allowed-tools when
set, then metadata when it is not empty.

It needs only a name and a description; use validate for the other rules.
When the skill cannot be read it prints "Error: problem" on stderr and
exits with status 1. A PATH that does not exist is bad usage: one line on
stderr, status 2, as the reference's CLI does.`,
		Example: `  agentskills read-properties ./skills/review
  agentskills read-properties ./skills/review/SKILL.md | jq -r .description`,
		Args: pathArgs(1, 1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.path = args[0]
			return runReadProperties(opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.lenient, "lenient", false, "read the skill the way agents load it")
	return cmd
}

func runReadProperties(opts *readPropertiesOptions) error {
	dirs, err := skillDirs([]string{opts.path})
	if err != nil {
		return err
	}
	s, err := parseSkill(dirs[0], opts.lenient)
	if err != nil {
		return reportError(opts.io, dirs[0], err)
	}
	js, err := s.PropertiesJSON()
	if err != nil {
		return reportError(opts.io, dirs[0], err)
	}
	_, err = fmt.Fprintf(opts.io.data, "%s\n", js)
	return err
}
