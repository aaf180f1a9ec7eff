package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/skillmd"
)

type promptOptions struct {
	io      *streams
	paths   []string
	lenient bool
}

func newPromptCmd(s *streams) *cobra.Command {
	opts := &promptOptions{io: s}
	cmd := &cobra.Command{
		Use:   "prompt PATH...",
		Short: "Print the <available_skills> block for agent prompts",
		Long: `Prompt prints the <available_skills> block that agents put in their system
prompt, byte for byte as the reference's to-prompt does: for each skill
folder (or SKILL.md), in order, its name, its description (both escaped as
HTML) and the absolute path of its SKILL.md, each tag and value on its own
line.

Each skill needs a name and a description. When one cannot be read it
prints "Error: problem" on stderr and exits with status 1.`,
		Example: `  agentskills prompt ./skills/review ./skills/release-notes
  agentskills prompt ./skills/* > catalogue.xml`,
		Args: pathArgs(1, -1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runPrompt(opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.lenient, "lenient", false, "read skills the way agents load them")
	return cmd
}

func runPrompt(opts *promptOptions) error {
	dirs, err := skillDirs(opts.paths)
	if err != nil {
		return err
	}
	skills := make([]*skillmd.Skill, 0, len(dirs))
	for _, dir := range dirs {
		s, err := parseSkill(dir, opts.lenient)
		if err != nil {
			// The reference names the folder by its absolute path here.
			abs, _ := filepath.Abs(dir)
			return reportError(opts.io, abs, err)
		}
		skills = append(skills, s)
	}
	block, err := skillmd.Prompt(skills)
	if err != nil {
		return reportError(opts.io, "", err)
	}
	_, err = fmt.Fprintf(opts.io.data, "%s\n", block)
	return err
}

// parseSkill reads the skill in dir, strictly or leniently.
func parseSkill(dir string, lenient bool) (*skillmd.Skill, error) {
	mode := skillmd.Strict
	if lenient {
		mode = skillmd.Lenient
	}
	return skillmd.ParseDir(dir, skillmd.WithMode(mode))
}

// reportError prints a skill that cannot be read as the reference's CLI
// does, "Error: problem" (a folder without SKILL.md is "SKILL.md not found
// in DIR"), and returns errFailed; other errors are returned as they are.
func reportError(s *streams, dir string, err error) error {
	var e *skillmd.Error
	if !errors.As(err, &e) {
		return err
	}
	msg := e.Problems[0].Message
	if errors.Is(err, skillmd.ErrNoSkillFile) && errors.Is(err, fs.ErrNotExist) {
		msg = "SKILL.md not found in " + dir
	}
	fmt.Fprintf(s.err, "Error: %s\n", msg)
	return errFailed
}
