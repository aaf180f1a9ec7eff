package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

type validateOptions struct {
	io      *streams
	paths   []string
	json    bool
	lenient bool
}

func newValidateCmd(s *streams) *cobra.Command {
	opts := &validateOptions{io: s}
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check skills against the Agent Skills rules",
		Long: `Validate checks each skill folder (or its SKILL.md) with the rules and
messages of the Agent Skills reference validator: the front matter, the six
allowed fields, the name (1-64 lowercase letters, digits and hyphens, equal
to the folder name) and the lengths of description and compatibility.

For a valid skill it prints "Valid skill: PATH" on stdout. Otherwise it
prints "Validation failed for PATH:" and one "  - problem" line per problem
on stderr, and exits with status 1. With --json it prints the verdicts as a
JSON array on stdout instead.

With --lenient a skill is read the way agents load one: unknown keys are
accepted, a name that differs from the folder or is too long is a warning,
and an unquoted "key: text: more" is read as text.`,
		Example: `  agentskills validate ./skills/review
  agentskills validate ./skills/review/SKILL.md
  agentskills validate --json ./skills/*`,
		Args: pathArgs(1, -1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runValidate(cmd.Context(), opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the verdicts as JSON on stdout")
	cmd.Flags().BoolVar(&opts.lenient, "lenient", false, "read skills the way agents load them")
	return cmd
}

// verdict is the JSON form of one skill's result.
type verdict struct {
	Path     string        `json:"path"`
	Valid    bool          `json:"valid"`
	Problems []problemJSON `json:"problems"`
}

type problemJSON struct {
	Field    string `json:"field"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func runValidate(ctx context.Context, opts *validateOptions) error {
	dirs, err := skillDirs(opts.paths)
	if err != nil {
		return err
	}
	mode := skillmd.Strict
	if opts.lenient {
		mode = skillmd.Lenient
	}
	verdicts := make([]verdict, 0, len(dirs))
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		var problems []skillmd.Problem
		s, err := skillmd.ParseDir(dir, skillmd.WithMode(mode))
		var e *skillmd.Error
		switch {
		case errors.As(err, &e):
			problems = e.Problems
		case err != nil:
			return err
		default:
			problems = s.Problems
		}
		v := verdict{Path: dir, Valid: true, Problems: []problemJSON{}}
		for _, p := range problems {
			severity := "warning"
			if !p.Warning {
				severity, v.Valid = "error", false
			}
			v.Problems = append(v.Problems, problemJSON{Field: p.Field, Severity: severity, Message: p.Message})
		}
		verdicts = append(verdicts, v)
		if !opts.json {
			printVerdict(opts.io, v)
		}
	}
	if opts.json {
		enc := json.NewEncoder(opts.io.out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(verdicts); err != nil {
			return err
		}
	}
	for _, v := range verdicts {
		if !v.Valid {
			return errFailed
		}
	}
	return nil
}

// printVerdict prints a verdict as the reference's CLI does; warnings go
// to stderr under their own heading when the skill is valid.
func printVerdict(s *streams, v verdict) {
	if v.Valid {
		fmt.Fprintf(s.out, "Valid skill: %s\n", v.Path)
		if len(v.Problems) > 0 {
			fmt.Fprintf(s.err, "Warnings for %s:\n", v.Path)
		}
	} else {
		fmt.Fprintf(s.err, "Validation failed for %s:\n", v.Path)
	}
	for _, p := range v.Problems {
		if p.Severity == "warning" {
			fmt.Fprintf(s.err, "  - warning: %s\n", p.Message)
		} else {
			fmt.Fprintf(s.err, "  - %s\n", p.Message)
		}
	}
}
