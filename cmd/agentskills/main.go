// Command agentskills installs Agent Skills (folders holding a SKILL.md)
// into coding agents, checks them, prints what agents read of them, runs
// an agent with skills and manages the skill cache. It is a thin shell
// over the public packages (skill, skillmd, install, adaptor and the
// drivers); run "agentskills --help" for its commands.
//
// Exit codes, the same for every command: 0 success, 1 an operation or a
// check failed, 2 bad usage or input only, 124 a run stopped by its
// --run-timeout, 130 interrupted.
//
// A command that asks before it removes something (cache clear) asks only
// when standard input is a terminal: on Linux, macOS and the BSDs one that
// answers as a terminal does (not /dev/null, a file or a pipe), on Windows
// a console; elsewhere it asks nothing and needs -y.
//
// With --json, one rule for every command: a command that fails ends its
// stdout with exactly one line, {"type":"error","code":...,"message":...,
// "exit_code":...}, after what it printed of what it did before failing
// (nothing when it changed nothing). The codes are usage, input, check,
// policy, integrity, agent, failed, timeout and interrupted; a run adds "session_id" when a
// session is known. The JSON output is the same on Linux, macOS and
// Windows.
//
// add, sync and audit run under a soft memory limit of 64 MiB (Go's
// debug.SetMemoryLimit) unless GOMEMLIMIT sets one: past it the garbage
// collector runs more often, never failing an install that needs more.
// The program starts, and audit, a short command, runs, at a garbage
// collection target of 400 (GOGC) unless GOGC sets one; every other
// command runs at Go's default, 100.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	adaptor "github.com/agentadaptor/agentadaptor"
)

func main() {
	// On Linux, orphans of an agent come back to this process, which
	// stops them when the run ends, whatever their environment
	// (adaptor.AdoptOrphans). Elsewhere, or should it fail, the runner's
	// other rules still hold.
	_ = adaptor.AdoptOrphans()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runTree(ctx, newRootCmdFor, args, stdin, stdout, stderr)
}

// runTree is run in the command tree newTree builds for args.
func runTree(ctx context.Context, newTree func(*streams, []string) *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	startGC(os.Getenv)
	s := newStreams(stdin, stdout, stderr)
	defer s.flush()
	root := newTree(s, args)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	code := s.exitCode(cmd, err)
	s.jsonError(cmd, err, code)
	return code
}

// startGCPercent is the garbage collector's target (GOGC) while the
// program starts: the packages' initialisation and the commands' tree
// leave about 3 MB that lives until the program ends, past the runtime's
// first goal of 4 MB with what a command allocates next, so that a
// collection at Go's default (100) would free nothing.
const startGCPercent = 400

// startGC sets the garbage collector's target to startGCPercent unless
// GOGC (read by getenv) sets one. A command sets its own as it starts
// (commandGC).
func startGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(startGCPercent)
	}
}

// commandGC sets the garbage collector's target of a command, Go's
// default (100), unless GOGC (read by getenv) sets one. audit sets its
// own after it (tuneAuditGC).
func commandGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}
