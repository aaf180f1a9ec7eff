package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

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
JSON array on stdout instead, followed, when a skill is invalid, by the
error line that ends the output of every command that fails with --json.

With --lenient a skill is read the way agents load one, and what agents
accept is a warning ("  - warning: problem" on stderr) instead of an error:
unknown keys (which agents ignore), a name that differs from the folder or
is too long, a missing name (the folder's is used), and an unquoted
"key: text: more" (read as text).

A PATH that does not exist is bad usage: one line on stderr, status 2.`,
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
	// Skills are read concurrently, one per processor, and printed in
	// order once all are read.
	verdicts := make([]verdict, len(dirs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, dir := range dirs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			v, err := check(dir, mode)
			verdicts[i] = v
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(opts.io.data)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(verdicts); err != nil {
			return err
		}
	} else {
		var out, errs bytes.Buffer
		for _, v := range verdicts {
			printVerdict(&out, &errs, v)
		}
		if _, err := opts.io.out.Write(out.Bytes()); err != nil {
			return err
		}
		if _, err := opts.io.err.Write(errs.Bytes()); err != nil {
			return err
		}
	}
	invalid := 0
	for _, v := range verdicts {
		if !v.Valid {
			invalid++
		}
	}
	if invalid > 0 {
		return reported(fmt.Sprintf("%d of %d skills are invalid", invalid, len(verdicts)))
	}
	return nil
}

// check reads the skill in dir and returns its verdict; an error of the
// file system other than a missing or unreadable skill is returned.
func check(dir string, mode skillmd.Mode) (verdict, error) {
	var problems []skillmd.Problem
	s, err := skillmd.ParseDir(dir, skillmd.WithMode(mode))
	var e *skillmd.Error
	switch {
	case errors.As(err, &e):
		problems = e.Problems
	case err != nil:
		return verdict{}, err
	default:
		problems = s.Problems
		if mode == skillmd.Lenient && len(s.Extra) > 0 {
			// Lenient rule 5 keeps unknown keys without a problem; agents
			// ignore them, and a user is told.
			problems = append([]skillmd.Problem{unknownKeys(s.Extra)}, problems...)
		}
	}
	v := verdict{Path: dir, Valid: true, Problems: make([]problemJSON, 0, len(problems))}
	for _, p := range problems {
		severity := "warning"
		if !p.Warning {
			severity, v.Valid = "error", false
		}
		v.Problems = append(v.Problems, problemJSON{Field: p.Field, Severity: severity, Message: p.Message})
	}
	return v, nil
}

// printVerdict prints a verdict as the reference's CLI does; warnings go
// to stderr under their own heading when the skill is valid.
func printVerdict(out, errs io.Writer, v verdict) {
	if v.Valid {
		fmt.Fprintf(out, "Valid skill: %s\n", v.Path)
		if len(v.Problems) > 0 {
			fmt.Fprintf(errs, "Warnings for %s:\n", v.Path)
		}
	} else {
		fmt.Fprintf(errs, "Validation failed for %s:\n", v.Path)
	}
	for _, p := range v.Problems {
		if p.Severity == "warning" {
			fmt.Fprintf(errs, "  - warning: %s\n", p.Message)
		} else {
			fmt.Fprintf(errs, "  - %s\n", p.Message)
		}
	}
}

// unknownKeys is the warning for the keys of a leniently read skill that
// are not among the allowed ones, sorted.
func unknownKeys(extra map[string]any) skillmd.Problem {
	keys := slices.Sorted(maps.Keys(extra))
	return skillmd.Problem{Warning: true, Message: fmt.Sprintf("Unexpected fields in frontmatter: %s; agents ignore them, and validate without --lenient refuses them", strings.Join(keys, ", "))}
}
