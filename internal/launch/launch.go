// Package launch is what every agent-CLI driver does around the process
// runner: check the request, find the program on the agent's PATH, settle
// the workspace, build the command line, run the program on the prompt,
// and turn how it ended and its result line into the run's result or
// error.
//
// # The run
//
// A driver's Run is one call of [Run] with the driver's [Program] (made
// from its driver.Descriptor by [ProgramOf]) and a [Setup], the driver's
// own part: [Prepare] settles the run; the setup builds what the agent is
// given for its skills (a mount, a home), runs the driver's checks and
// builds the command line, handing what must be undone afterwards (a
// lease, a file) to [Launch.Defer]; its [Plan] says the environment, what
// to do with each line of output and how to turn the way the program
// ended into the result. The program runs in the workspace with the
// prompt on standard input (on its command line for an agent that reads
// none there), and what was deferred is undone when the run is over,
// the last first, however it ends. So the skeleton of a run is written
// once, and a driver package is its command line, its event parser and
// its facts (its Descriptor).
// An outcome whose agent lists the skills it loaded checks that list
// with [CheckListed], the driver saying only the name a skill is listed
// under and which skills the agent may leave out.
//
// # Arguments
//
// A driver puts on the agent's command line values that come from a
// request, a driver's Config or the user: a session id, a model, a
// permission mode, a system prompt, folders. None of them may ever be
// read as an option: a session id "--settings={...}" would otherwise give
// whoever chose it the agent's options (Claude Code runs the command of a
// settings' apiKeyHelper). A driver builds its command line with [Args],
// and [Prepare] and [Launch.Args] check what it built:
//
//  1. A session id to resume must have the form of the agent's ids
//     ([Program.SessionIDs]; most agents' are UUIDs, OpenCode's not), else
//     [Prepare] refuses the run before anything starts with an error that
//     says what a valid id looks like. The error wraps both
//     driver.ErrInvalidSessionID (bad input) and driver.ErrResumeRejected
//     (a caller that starts a new session when a resume is rejected does
//     so here too). A program without a form refuses every resume.
//  2. A value goes with its option in one argument, "--name=value"
//     ([Args.Value], [Args.Int], [Args.Each]): commander.js (Claude Code)
//     and clap (Codex) both read everything after the first "=" as the
//     option's value, whatever it starts with, and a variadic option so
//     given takes that one value and nothing after it. An empty value
//     adds nothing. Never "--name value", never a short option with a
//     value.
//  3. Values read by position ([Args.Operands]: a session id for
//     `codex exec resume`, "-" for standard input) come after a single
//     "--", which ends the options; no option may follow them.
//  4. Option and subcommand names are the driver's own words, checked
//     for their form ([Args.Flag], [Args.Command]); a value never becomes
//     a name.
//  5. A value holding a NUL byte is refused: no program receives it
//     whole.
//  6. A driver Config's Args ([Args.Extra]) are passed as they are: they
//     are options by design, for the programmer's own flags, and must
//     never carry a value from anyone else.
//  7. On Windows a program that is a batch file (.cmd, .bat, such as the
//     shims npm installs for claude and codex) runs through cmd.exe,
//     which parses the whole command line again and honours no quoting
//     of " % ! ^ & | < > ( ) or line breaks; [Launch.Args] refuses an
//     argument holding one of them, saying to set the driver's Command
//     to the agent's own executable. On Linux and macOS the arguments
//     reach the program as they are, with no shell in between.
//  8. Arguments passed through for someone else (a command line's user,
//     who asks for an agent option the driver has no field for) are
//     checked with [CheckPassThrough] before anything starts: each is
//     one argument "--name" or "--name=value" (rule 2), the name of
//     lowercase letters, digits and dashes, never a short option, "--"
//     or a value on its own (rule 3 and 4); no NUL (rule 5); and never
//     an option the driver sets itself (the output format, the session
//     id, the mount, the prompt mode) or sets from a Config field, also
//     not as its "--no-" negation. The refusal is a *driver.ArgError
//     naming the field to set instead, if one does. They then go on the
//     line as rule 6 says, before any operand. The check is the same on
//     every system; on Windows rule 7 applies to them too.
//
// The prompt is never an argument: it goes to the program's standard
// input. The workspace is never an argument either: it is the program's
// working folder.
package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// Program describes the agent CLI a driver runs.
type Program struct {
	// Name prefixes the driver's errors ("claude").
	Name string
	// Command is the program: a path, or a name looked up on the agent's
	// PATH.
	Command string
	// Env is added to this process's environment for the agent.
	Env []string
	// Agent names the agent ("Claude Code") and Package is the npm
	// package that installs it, for the error when the program is
	// missing.
	Agent, Package string
	// SessionIDs is the form of the agent's session ids, checked before
	// a resume (rule 1 of "Arguments"). Default: none, and every resume
	// is refused.
	SessionIDs SessionIDs
	// Row is the ID of the agent's row in the agents table
	// (internal/agents, "claude-code"): [Prepare] refuses a workspace
	// that holds, below its top, skills folders the row says the agent
	// loads beside the run's. Every driver's is its descriptor's ID
	// ([ProgramOf]). Default "": no check.
	Row string
}

// ProgramOf returns the Program of the driver that d describes, for its
// Config's command (default: d's Program) and env, which it copies, so
// that changes the caller makes later do not reach the driver's runs.
func ProgramOf(d driver.Descriptor, command string, env []string) Program {
	if command == "" {
		command = d.Program
	}
	return Program{
		Name: d.Name, Command: command, Env: slices.Clone(env),
		Agent: d.Agent, Package: d.Package, Row: d.ID, SessionIDs: d.SessionIDs,
	}
}

// CacheRoot is a driver Config's CacheRoot, made absolute (a mount under
// it is passed to an agent that works in another folder): root, else the
// root of the default skill cache, where the default materializer keeps
// skills ([cache.DefaultRoot]: this package does not link package skill).
func CacheRoot(root string) string {
	if root == "" {
		return cache.DefaultRoot()
	}
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

// RunCacheRoot is the cache root of the run req: the root of the cache
// its skills were materialized in ([driver.Request.CacheRoot]) made
// absolute, else configured, the driver's own (see [CacheRoot]).
func RunCacheRoot(req *driver.Request, configured string) string {
	if req.CacheRoot == "" {
		return configured
	}
	return CacheRoot(req.CacheRoot)
}

// Launch is a run ready to start.
type Launch struct {
	// Path is the absolute path of the program.
	Path string
	// Env is the agent's whole environment.
	Env []string
	// Workspace is the absolute folder the agent works in: the request's,
	// else the current one.
	Workspace string
	// StderrLine, if not nil, is given each line of the program's
	// standard error as it arrives ([process.Command.StderrLine]), for a
	// driver whose agent reports on standard error what it reports
	// nowhere else. Default nil.
	StderrLine func(line string)

	name     string
	deferred []func() // see [Launch.Defer]
}

// Prepare refuses a nil request, a context already done (wrapping both
// the context's error and its cause) and a session id to resume that
// does not have the form of the program's ids (rule 1 of "Arguments"),
// finds the program on the PATH of the agent's environment, and settles
// the workspace. A missing program is a *driver.ProcessError holding a
// *driver.ProgramNotFoundError, which says how to install it and which
// Config field names another. A workspace holding skills folders below
// its top that the program's row ([Program.Row]) says the agent loads
// is refused with a *driver.NestedSkillsError naming each
// (agents.Row.CheckNested): a run shows the agent its own skills only.
func Prepare(ctx context.Context, req *driver.Request, p Program) (*Launch, error) {
	if req == nil {
		return nil, fmt.Errorf("%s: nil request", p.Name)
	}
	if err := ctx.Err(); err != nil {
		if cause := context.Cause(ctx); cause != err {
			return nil, fmt.Errorf("%s: %w: %w", p.Name, err, cause)
		}
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	if req.Resume != "" {
		if err := checkSessionID(p, req.Resume); err != nil {
			return nil, err
		}
	}
	l := &Launch{Env: process.MergeEnv(os.Environ(), p.Env), Workspace: req.Workspace, name: p.Name}
	var err error
	if l.Path, err = process.LookPath(p.Command, l.Env); err != nil {
		return nil, &driver.ProcessError{Command: p.Command, ExitCode: -1, Err: &driver.ProgramNotFoundError{
			Command: p.Command, Agent: p.Agent, Package: p.Package, Field: p.Name + ".Config.Command", Err: err}}
	}
	if l.Workspace == "" {
		if l.Workspace, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	if p.Row != "" {
		row, ok := agents.Lookup(p.Row)
		if !ok {
			return nil, fmt.Errorf("%s: no row %q in the agents table", p.Name, p.Row)
		}
		if err := row.CheckNested(ctx, l.Workspace, l.Env, agents.Mounted(req.Skills, "")); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Args returns the command line a built for the program, or the error
// of its building; on Windows it also refuses what cmd.exe would read as
// syntax when the program is a batch file (rule 7 of "Arguments").
func (l *Launch) Args(a *Args) ([]string, error) {
	args, err := a.List()
	if err == nil {
		err = checkBatch(runtime.GOOS, l.Path, args)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.name, err)
	}
	return args, nil
}

// Ended is how a run's process ended.
type Ended struct {
	// Name prefixes the driver's errors ("claude").
	Name string
	// Path is the program that ran.
	Path string
	// Exit is how the process exited.
	Exit process.Exit
	// Err is the error of [process.Run]: the run was cancelled, or its
	// output could not be read.
	Err error
}

// ProcessError describes the process, for a run that failed as a process.
func (e Ended) ProcessError() *driver.ProcessError {
	return &driver.ProcessError{Command: e.Path, ExitCode: e.Exit.Code, Signal: e.Exit.Signal, Stderr: e.Exit.Stderr, Err: e.Err}
}

// Result turns how the process ended and the run's result line (nil: none
// came) into the run's result. A run stopped (Err) is a process error,
// whatever it said; one without a result line is a process error when the
// process failed, else [NoResult]; an error result is a
// *driver.AgentError holding the result; a result with a non-zero exit is
// a process error. The result's session is the result line's, else
// sessionID.
func (e Ended) Result(ev *driver.ResultEvent, sessionID string) (*driver.Result, error) {
	if e.Err != nil {
		return nil, e.ProcessError()
	}
	if ev == nil {
		if e.Exit.Code != 0 || e.Exit.Signal != "" {
			return nil, e.ProcessError()
		}
		return nil, NoResult(e.Name, e.Exit.Stderr)
	}
	res := &driver.Result{Text: ev.Text, SessionID: ev.SessionID, Usage: ev.Usage, CostUSD: ev.CostUSD, ExitCode: e.Exit.Code}
	if res.SessionID == "" {
		res.SessionID = sessionID
	}
	if ev.IsError {
		return nil, &driver.AgentError{Subtype: ev.Subtype, Message: ev.Text, Result: res}
	}
	if e.Exit.Code != 0 {
		return nil, e.ProcessError()
	}
	return res, nil
}

// NoResult is the error of a run whose output ended without a result
// although the program exited 0: it wraps driver.ErrNoResult (and is not a
// process failure) and shows the end of the program's stderr.
func NoResult(name, stderr string) error {
	msg := name + ": " + driver.ErrNoResult.Error()
	if tail := strings.TrimSpace(stderr); tail != "" {
		msg += "; stderr: " + tail
	}
	return &noResultError{msg}
}

type noResultError struct{ msg string }

func (e *noResultError) Error() string { return e.msg }
func (e *noResultError) Unwrap() error { return driver.ErrNoResult }

// Plan is a driver's part of one run, which [Run] carries out.
type Plan struct {
	// Args is the command line, as [Launch.Args] returned it.
	Args []string
	// Env is the agent's whole environment. Default: the Launch's.
	Env []string
	// PromptInArgs says that the prompt is on the command line, for an
	// agent that reads none on standard input, which is then empty.
	// Default false: the prompt is on standard input.
	PromptInArgs bool
	// Line, if not nil, is given each line of the agent's output; an
	// error stops the agent ([process.Run]). Default nil: lines are
	// read and dropped.
	Line func(line []byte) error
	// Outcome turns how the agent ended, and what Line made of its
	// output, into the run's result or error.
	Outcome func(e Ended) (*driver.Result, error)
}

// Setup readies one run once [Prepare] has settled it: the run's skills
// folder and its checks, the files the agent is given, the command line.
// What must be undone when the run is over it hands to [Launch.Defer].
type Setup func(ctx context.Context, l *Launch) (*Plan, error)

// Run is the run every driver makes of a request: [Prepare] for the
// program p, then setup (the driver's own part), then the program on
// the prompt in the workspace, with grace between SIGINT and SIGKILL
// when it is stopped, and the Plan's Outcome. What setup deferred is
// undone when Run returns, the last first, however it returns.
func Run(ctx context.Context, req *driver.Request, p Program, grace time.Duration, setup Setup) (*driver.Result, error) {
	l, err := Prepare(ctx, req, p)
	if err != nil {
		return nil, err
	}
	defer l.undo()
	plan, err := setup(ctx, l)
	if err != nil {
		return nil, err
	}
	env, stdin, line := plan.Env, req.Prompt, plan.Line
	if env == nil {
		env = l.Env
	}
	if plan.PromptInArgs {
		stdin = ""
	}
	if line == nil {
		line = func([]byte) error { return nil }
	}
	exit, runErr := process.Run(ctx, process.Command{
		Path: l.Path, Args: plan.Args, Dir: l.Workspace, Env: env, Stdin: stdin, Grace: grace,
		StderrLine: l.StderrLine,
	}, line)
	return plan.Outcome(Ended{Name: l.name, Path: l.Path, Exit: exit, Err: runErr})
}

// Defer hands f to [Run], which calls it when the run is over: a lease
// to release, a file to remove.
func (l *Launch) Defer(f func()) { l.deferred = append(l.deferred, f) }

// undo calls what was deferred, the last first.
func (l *Launch) undo() {
	for i := len(l.deferred) - 1; i >= 0; i-- {
		l.deferred[i]()
	}
}
