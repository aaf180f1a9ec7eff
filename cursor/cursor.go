// Package cursor drives Cursor's CLI (the `agent` program, formerly
// cursor-agent) with a run's skills mounted for that run alone.
//
// Cursor's CLI is not on any package registry this project's CI can
// reach and talks only to Cursor's service, so everything this package
// says about it comes from Cursor's documentation (the CLI's parameters,
// output format and skills pages). The driver is checked against a
// stand-in `agent` built from that documentation
// (internal/testkit/cursortest); the tests that run the real CLI
// (real_test.go) run only with AGENTADAPTOR_CURSOR=1 and CURSOR_API_KEY
// set, and skip otherwise.
//
//	agent := adaptor.New(cursor.Driver(cursor.Config{}), // agent on PATH, CURSOR_API_KEY set or logged in
//		adaptor.WithSkills(skill.Dir("./skills/review")))
//	res, err := agent.Run(ctx, "Review the open change")
//
// # The run
//
// A run is one `agent -p --output-format=stream-json
// --workspace=WORKSPACE [--model=M] [--force] [--resume=ID] -- PROMPT`
// in the request's workspace, with [Config.Args] before the "--". Cursor
// documents the prompt as an argument only, so it is the one operand,
// after "--", and standard input is empty. The environment is the
// process's, with [Config.Env] added (CURSOR_API_KEY passes through as
// it is) and HOME set to the overlay home below. Its JSON lines become
// driver events:
//
//  1. system/init is the driver.InitEvent (session id, model, cwd; the
//     skills, when the line lists them in "skills", which Cursor's
//     documentation does not show).
//  2. An assistant line is one whole message (no --stream-partial-output):
//     a driver.TextEvent.
//  3. tool_call started is a driver.ToolCallEvent and completed a
//     driver.ToolResultEvent, named by the key of "tool_call" without
//     its "ToolCall" suffix (readToolCall is "read"); a completed read of
//     a SKILL.md is also a driver.SkillEvent naming the skill's folder.
//  4. The first result line is the run's: its "result" is the answer, its
//     session_id the session; Cursor documents no token usage, so
//     Result.Usage is nil. Later lines are raw events; a line that is not
//     JSON is a driver.ErrorEvent and the run goes on.
//
// # The overlay home
//
// Cursor has no flag or variable that adds a skill folder: it reads
// .agents/skills, .cursor/skills, .claude/skills and .codex/skills of the
// workspace and ~/.agents/skills, ~/.cursor/skills, ~/.claude/skills and
// ~/.codex/skills (its row of the agents table). So the Cursor process
// gets a HOME of its own, under the cache root, whose entries link the
// user's:
//
//  1. One home per skill set and user home: <root>/homes/cursor/<key>,
//     the key digesting the set's fingerprint, its folders and the user's
//     home (rule 8 of internal/agentdir).
//  2. Every entry of the user's home but .cursor is a link to it, made
//     again before every run (a new entry linked, a removed one
//     unlinked); .cursor is a folder whose every entry but skills links
//     to the user's ~/.cursor; .cursor/skills holds a link to each of the
//     run's skills and to each of the user's ~/.cursor/skills.
//  3. What this changes for the Cursor process, and only for it: HOME
//     differs. A program it starts sees the overlay as HOME too. A tool
//     that writes into an existing entry of HOME writes through the link
//     into the user's real file or folder; a new top-level entry of HOME,
//     or of ~/.cursor, lands in the overlay and stays there (so a session
//     store Cursor creates while the user has none stays with the
//     overlay); a file Cursor replaces by rename replaces the link in the
//     overlay, not the user's file. XDG_* variables are not changed.
//  4. Nothing is written to the user's home or to the workspace by the
//     driver.
//  5. The folders from the cache root down are checked, leased and
//     collected as internal/agentdir says (its rules 1 to 7); on Windows
//     ownership and modes are not checked, and links need the right to
//     make symbolic links (Developer Mode), else the run fails naming the
//     link.
//
// Not verified against the real CLI: that Cursor finds its login,
// settings and chats through a linked ~/.cursor entry; where it keeps
// chats (one third-party note says under ~/.cursor); that it follows a
// link under ~/.cursor/skills; which copy wins when two folders hold a
// skill of one name (the shadow check below refuses that case).
//
// # Checks
//
//  1. Before the start: a skill in any folder Cursor reads (above) listed
//     under the name of one of the run's with other content is a
//     *driver.ShadowError naming both folders; the check is the driver
//     kit's (internal/agents).
//  2. When the init line lists skills, each of the run's must be among
//     them, else a *driver.NotMountedError.
//  3. The result line decides: is_error true is a *driver.AgentError. A
//     run that ends without a result line fails: a cancelled run with the
//     context's error; one whose session started (an init line) and whose
//     process failed is a *driver.AgentError holding the end of stderr and
//     the session id, since Cursor writes a failure on stderr; a resume
//     that fails before any init line is driver.ErrResumeRejected; any
//     other failing process a *driver.ProcessError, and exit 0 with no
//     result driver.ErrNoResult.
//
// # Arguments
//
// No value of a request or a Config becomes an option (internal/launch):
//
//  1. driver.Request.Resume must be a UUID, the form of the chat ids in
//     Cursor's documented examples; anything else is refused before the
//     start with driver.ErrInvalidSessionID and driver.ErrResumeRejected.
//  2. Model, the workspace and the chat id go as `--name=value`, one
//     argument each (Cursor's CLI is a commander.js program, which reads
//     everything after "=" as the value: documented form, not run here).
//  3. The prompt is the only operand, after "--"; a prompt over 128 KiB
//     (Linux's limit for one argument) or holding a NUL byte is refused
//     before the start. The prompt is visible in the process list while
//     the run lasts.
//  4. [Config.Args] are passed as they are; arguments from someone else
//     are checked with [Descriptor]'s CheckArgs first.
//
// Cancelling the context interrupts the agent (SIGINT to its process
// group, SIGKILL after [Config.GracePeriod]) and the error wraps the
// context's. On macOS the process group is signalled and the overlay
// built as on Linux; descendants that left the group are found only on
// Linux. On Windows the process is killed, a Command that is a batch file
// runs through cmd.exe, where an argument holding one of " % ! ^ & | < >
// ( ) or a line break (the prompt included) is refused, and the overlay
// sets HOME only: whether Cursor's CLI reads HOME or USERPROFILE there is
// not documented, and none of it has run on Windows or macOS.
package cursor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// Config configures the Cursor CLI driver. The zero value runs `agent`
// from PATH with the user's login or CURSOR_API_KEY.
type Config struct {
	// Command is the Cursor CLI program: a path, or a name looked up on
	// the agent's PATH (Env's, else this process's). Default "agent".
	Command string
	// Model is passed as --model. Default: Cursor's choice.
	Model string
	// Force passes --force, which lets commands run without asking.
	// Default false: in print mode Cursor then proposes changes it does
	// not apply.
	Force bool
	// Args are extra arguments, placed after the driver's options and
	// before the prompt, passed as they are: never put a value from
	// anyone else in them; check those with [Descriptor]'s CheckArgs. Default none.
	Args []string
	// Env is added to the process's environment for the agent (a later
	// entry wins); put CURSOR_API_KEY here or in the environment.
	// Default none.
	Env []string
	// Home is the user's home, which the overlay links to. Default: $HOME
	// of the agent's environment, else the home folder.
	Home string
	// CacheRoot holds the overlay homes (under homes/cursor) for a
	// request that names none; a request's own [driver.Request.CacheRoot]
	// wins. Default: skill.NewCache().Root().
	CacheRoot string
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type cursorDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*cursorDriver)(nil)

// Descriptor returns this driver's facts about Cursor's CLI, from its
// documentation: its id, program, session ids and permission modes (its
// one permission switch is --force), and how driver.Settings map to
// [Config] (see driver.Descriptor). Its CheckArgs checks arguments
// given on someone else's behalf (a command line's user) before they
// become [Config.Args], by the rules of driver.Descriptor's CheckArgs.
// The options the driver sets itself are --print, --output-format,
// --stream-partial-output, --workspace, --resume and --continue; those
// it sets from a Config field are --model, --force and --yolo
// (--api-key belongs in Env as CURSOR_API_KEY).
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "cursor", ID: "cursor", Agent: "Cursor CLI", Program: "agent",
		Install:    install,
		Folders:    driver.Folders{Dir: "homes/cursor"},
		SessionIDs: launch.UUIDs(),
		Provider:   "takes CURSOR_API_KEY (or agent login): Cursor's service only",
		Modes:      []string{"force"},
		Bypass:     "force",
		Mode:       driver.Setting{Option: "--force", Field: "Force"},
		Skip:       driver.Setting{Option: "--force", Field: "Force"},
		Allowed:    driver.Setting{Instead: "Cursor's CLI has no tool lists: --skip-permissions passes --force, and --agent-arg=--sandbox=enabled keeps commands in its sandbox"},
		Turns:      driver.Setting{Instead: "Cursor's CLI has no turn limit"},
		CheckArgs:  checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, Force: s.Mode("force") == "force", Args: s.Args})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "Cursor CLI overlay home",
		Magic: "agentadaptor cursor home v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs Cursor's CLI as c says. It is
// safe for concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Args = slices.Clone(c.Args)
	return &cursorDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// maxPrompt is the longest prompt passed as one argument: Linux's
// MAX_ARG_STRLEN.
const maxPrompt = 128 << 10

// Run runs Cursor's CLI once for req.
func (d *cursorDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	if req != nil && len(req.Prompt) > maxPrompt {
		return nil, fmt.Errorf("cursor: the prompt is %d bytes; Cursor's CLI takes it as one argument, at most %d bytes: shorten it or put the long part in a file the prompt names", len(req.Prompt), maxPrompt)
	}
	res, err := launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		userHome, err := d.userHome(l.Env)
		if err != nil {
			return nil, err
		}
		if err := checkShadows(ctx, req.Skills, l.Workspace, userHome); err != nil {
			return nil, err
		}
		overlay, release, err := home(ctx, launch.RunCacheRoot(req, d.c.CacheRoot), req.Skills, userHome)
		if err != nil {
			var shadow *driver.ShadowError
			if errors.As(err, &shadow) || ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("cursor: %w", err)
		}
		l.Defer(release) // the run's lease on its home
		args, err := l.Args(d.args(req, l.Workspace))
		if err != nil {
			return nil, err
		}
		p := &parser{emit: req.Events}
		return &launch.Plan{
			Args:         args,
			Env:          process.MergeEnv(l.Env, []string{"HOME=" + overlay}),
			PromptInArgs: true,
			Line: func(b []byte) error {
				p.parse(b)
				return nil
			},
			Outcome: func(e launch.Ended) (*driver.Result, error) { return outcome(e.Path, req, p, e.Exit, e.Err) },
		}, nil
	})
	return res, installHint(err)
}

// userHome is the user's home: Config.Home, else $HOME of the agent's
// environment, else the home folder.
func (d *cursorDriver) userHome(env []string) (string, error) {
	h := d.c.Home
	if h == "" {
		h = process.Getenv(env, "HOME")
	}
	if h == "" {
		var err error
		if h, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("cursor: find the user's home: %w (set cursor.Config.Home)", err)
		}
	}
	return filepath.Abs(h)
}

// args builds the command line (see "Arguments").
func (d *cursorDriver) args(req *driver.Request, workspace string) *launch.Args {
	a := launch.NewArgs().Flag("-p").Value("--output-format", "stream-json")
	a.Value("--workspace", workspace)
	a.Value("--model", d.c.Model)
	if d.c.Force {
		a.Flag("--force")
	}
	a.Value("--resume", req.Resume)
	return a.Extra(d.c.Args).Operands(req.Prompt)
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--print": "", "--output-format": "", "--stream-partial-output": "", "--workspace": "",
		"--resume": "", "--continue": "", "--api-key": "Env",
		"--model": "Model",
		"--force": "Force", "--yolo": "Force",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("cursor", args, owned())
}

// outcome turns how the process ended and what it said into the result
// (see "Checks").
func outcome(prog string, req *driver.Request, p *parser, exit process.Exit, runErr error) (*driver.Result, error) {
	end := launch.Ended{Name: "cursor", Path: prog, Exit: exit, Err: runErr}
	var sessionID string
	if p.init != nil {
		sessionID = p.init.SessionID
	}
	if runErr == nil && p.result == nil && (exit.Code != 0 || exit.Signal != "") {
		switch {
		case p.init != nil:
			return nil, &driver.AgentError{Message: lastLine(exit.Stderr), Result: &driver.Result{SessionID: sessionID, ExitCode: exit.Code}}
		case req.Resume != "":
			return nil, fmt.Errorf("chat %s: %w: %w", req.Resume, driver.ErrResumeRejected, end.ProcessError())
		}
	}
	if runErr == nil && p.init != nil && p.init.Skills != nil {
		if err := launch.CheckListed(p.init.Skills, req.Skills, nil, nil); err != nil {
			return nil, err
		}
	}
	return end.Result(p.result, sessionID)
}

// install says how to install Cursor's CLI, which is not an npm package.
const install = "curl https://cursor.com/install | bash"

// installHint rewrites the error of a missing program to say how Cursor's
// CLI is installed; other errors are returned as they are. The
// *driver.ProgramNotFoundError stays in the chain, so that a caller with
// its own name for Config.Command (its Field) words the error itself.
func installHint(err error) error {
	var pe *driver.ProcessError
	var nf *driver.ProgramNotFoundError
	if !errors.As(err, &pe) || !errors.As(err, &nf) {
		return err
	}
	return &driver.ProcessError{Command: pe.Command, ExitCode: pe.ExitCode, Err: notFound{nf}}
}

// notFound is Cursor's CLI not found, said with how it is installed,
// which is not an npm package.
type notFound struct{ *driver.ProgramNotFoundError }

func (e notFound) Error() string {
	return fmt.Sprintf("%v: %v (install Cursor's CLI with `%s`, or set %s)", driver.ErrProgramNotFound, e.Err, install, e.Field)
}

func (e notFound) Unwrap() error { return e.ProgramNotFoundError }

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
