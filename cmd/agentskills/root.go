package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // a skill is invalid or cannot be read
	exitUsage  = 2 // bad usage
)

// streams are the standard streams a command uses: what it prints for a
// person to out, diagnostics to err, both with control characters escaped
// (see textWriter); JSON and other output for programs to data, which is
// stdout as it is.
type streams struct {
	in       io.Reader
	out, err io.Writer
	data     io.Writer
	textOut  *textWriter
	textErr  *textWriter
}

// newStreams returns the streams over the standard ones.
func newStreams(stdin io.Reader, stdout, stderr io.Writer) *streams {
	s := &streams{in: stdin, data: stdout, textOut: newTextWriter(stdout), textErr: newTextWriter(stderr)}
	s.out, s.err = s.textOut, s.textErr
	return s
}

// flush writes what the text writers hold back.
func (s *streams) flush() {
	s.textOut.Flush()
	s.textErr.Flush()
}

// subcommands builds the subcommands, each by its name. A new command
// is a file with its options struct, constructor and run function, and
// one line here (TestSubcommandNames checks the names).
var subcommands = []struct {
	name string
	new  func(*streams) *cobra.Command
}{
	{"validate", newValidateCmd},
	{"read-properties", newReadPropertiesCmd},
	{"prompt", newPromptCmd},
	{"add", newAddCmd},
	{"list", newListCmd},
	{"remove", newRemoveCmd},
	{"sync", newSyncCmd},
	{"verify", newVerifyCmd},
	{"outdated", newOutdatedCmd},
	{"update", newUpdateCmd},
	{"agents", newAgentsCmd},
	{"cache", newCacheCmd},
	{"run", newRunCmd},
	{"eval", newEvalCmd},
	{"push", newPushCmd},
	{"index", newIndexCmd},
	{"sign", newSignCmd},
	{"policy", newPolicyCmd},
	{"audit", newAuditCmd},
	{"import", newImportCmd},
	{"find", newFindCmd},
}

// newRootCmd builds the command tree, every subcommand.
func newRootCmd(s *streams) *cobra.Command { return newRoot(s, "") }

// newRootCmdFor builds the command tree that runs the command line args:
// when its first word names a subcommand (its name, not an alias), the
// root with that subcommand alone, as it is in the whole tree, so that
// a command does not pay at each start for building every other one and
// its flags; the whole tree otherwise (help, completion, a flag, an
// alias, a word that names no command, which cobra's suggestions read
// the whole tree for). TestLazyCommands checks that each subcommand so
// built behaves as in the whole tree.
func newRootCmdFor(s *streams, args []string) *cobra.Command {
	if len(args) > 0 {
		for _, sub := range subcommands {
			if sub.name == args[0] {
				return newRoot(s, sub.name)
			}
		}
	}
	return newRootCmd(s)
}

// newRoot builds the root and its subcommands: only the one named only
// when it is not "".
func newRoot(s *streams, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentskills",
		Short: "Check Agent Skills and install them into every agent's folder",
		Long: `agentskills checks Agent Skills, folders holding a SKILL.md, with the rules
and messages of the Agent Skills reference validator (skills-ref), prints
their properties and the catalogue that agents put in their prompt, and
installs them into coding agents' skill folders, reproducibly: one
canonical copy per skill, a link from each agent's folder, and a lock file
with every skill's source and content digest.

Exit codes: 0 success, 1 a check failed (an invalid skill, verify, a frozen
sync that drifted, an agent run that failed), 2 bad usage or input, 124 a
run stopped by its --run-timeout, 130 interrupted.`,
		Example: `  agentskills validate ./skills/*
  agentskills add ./skills --agent claude-code,codex
  agentskills list
  agentskills verify`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
		// Run without a command, it prints its help; a word that names
		// no command is bad usage (commandArgs).
		Args: commandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		// What ran before a command was the program's start (startGC).
		PersistentPreRun: func(*cobra.Command, []string) { commandGC(os.Getenv) },
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, sub := range subcommands {
		if only == "" || sub.name == only {
			root.AddCommand(sub.new(s))
		}
	}
	nameCommands(root)
	completeCommands(root)
	root.InitDefaultCompletionCmd()
	shortenHelp(root)
	return root
}

// usageError is bad usage: exit code 2 and one line on stderr.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// errFailed reports a failure that the command has already printed.
var errFailed = errors.New("failed")

// failure is an error of a running command, as opposed to bad usage.
type failure struct{ err error }

func (e failure) Error() string { return e.err.Error() }
func (e failure) Unwrap() error { return e.err }

// runE wraps a command's run function so that its errors count as
// failures, except the usage errors it returns itself.
func runE(f func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var usage usageError
		var input inputError
		if err == nil || errors.Is(err, errFailed) || errors.As(err, &usage) || errors.As(err, &input) {
			return err
		}
		return failure{err}
	}
}

// exitCode prints err, if any, and returns the exit code for it: errors
// of a running command are failures, and every other error (from parsing
// the command line) is bad usage.
func (s *streams) exitCode(cmd *cobra.Command, err error) int {
	name := "agentskills"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	var fail failure
	var input inputError
	var timedOut *runTimedOutError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFailed):
		return exitFailed
	case errors.As(err, &timedOut):
		fmt.Fprintf(s.err, "%s: %v\n", name, timedOut)
		return exitTimedOut
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		// Only Ctrl-C or SIGTERM cancels a command's context.
		fmt.Fprintf(s.err, "%s: %v\n", name, err)
		return exitInterrupted
	case errors.As(err, &input):
		fmt.Fprintf(s.err, "%s: %v\n", name, input.err)
		s.note(name, err)
		return exitUsage
	case errors.As(err, &fail):
		fmt.Fprintf(s.err, "%s: %v\n", name, fail.err)
		s.note(name, err)
		return exitFailed
	default:
		fmt.Fprintf(s.err, "%s: %v (see '%s --help')\n", name, err, name)
		return exitUsage
	}
}

// note adds to an error what a user of agentskills can do about it,
// where the packages below cannot say: a source over one of the skill
// cache's limits (agentskills keeps the defaults) must be smaller; a
// stalled download may be given longer with --timeout; and what flagHint
// says.
func (s *streams) note(name string, err error) {
	var over *skill.LimitError
	switch {
	case errors.As(err, &over):
		fmt.Fprintf(s.err, "%s: the limit is %s = %d, which agentskills does not change; use a smaller source\n", name, over.Limit, over.Max)
	case errors.Is(err, source.ErrStalled):
		fmt.Fprintf(s.err, "%s: give the download longer with --timeout (the default is %s)\n", name, install.DefaultDownloadTimeout)
	}
	if hint := flagHint(err); hint != "" {
		fmt.Fprintf(s.err, "%s: %s\n", name, hint)
	}
}

// pathArgs accepts at least min and at most max (-1: any number) paths.
func pathArgs(min, max int) cobra.PositionalArgs { return countArgs("PATH", min, max) }

// requireArgs accepts one or more arguments, each a what ("SOURCE").
func requireArgs(what string) cobra.PositionalArgs { return countArgs(what, 1, -1) }

// countArgs accepts at least min and at most max (-1: any number)
// arguments, each a what, and names what is missing.
func countArgs(what string, min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < min:
			return usageErrorf("missing %s", what)
		case max >= 0 && len(args) > max:
			return usageErrorf("too many arguments: want %d %s, got %d", max, what, len(args))
		}
		return nil
	}
}

// skillDirs maps the paths given on the command line to skill folders: a
// path to a file named SKILL.md or skill.md (in any case) stands for its
// folder, as it does for the reference's CLI. A path that does not exist
// is bad usage.
func skillDirs(paths []string) ([]string, error) {
	dirs := make([]string, 0, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErrorf("path %s does not exist", p)
		}
		if err != nil {
			return nil, err
		}
		p = filepath.Clean(p)
		if fi.Mode().IsRegular() && strings.EqualFold(filepath.Base(p), "skill.md") {
			p = filepath.Dir(p)
		}
		dirs = append(dirs, p)
	}
	return dirs, nil
}
