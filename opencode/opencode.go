// Package opencode drives OpenCode (the opencode-ai CLI) with a run's
// skills mounted for that run alone.
//
// A complete program:
//
//	package main
//
//	import (
//		"context"
//		"fmt"
//		"log"
//
//		adaptor "github.com/agentadaptor/agentadaptor"
//		"github.com/agentadaptor/agentadaptor/opencode"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		agent := adaptor.New(opencode.Driver(opencode.Config{Model: "anthropic/claude-sonnet-4-5"}),
//			adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text, res.SessionID)
//	}
//
// The runnable example is in example_test.go (ExampleDriver).
//
// # The run
//
// A run is one `opencode run --format=json --dir=WORKSPACE`, with the
// prompt on standard input (OpenCode 1.18.33 wraps prompt words given as
// arguments in quotes), the request's workspace as the working folder and
// as --dir, --title (so OpenCode makes no title request) for a new
// session, --session=ID for driver.Request.Resume, and the flags the
// [Config] asks for. The environment is the process's, with [Config.Env]
// added and, when there are skills, OPENCODE_CONFIG_DIR naming the run's
// mount. OpenCode's JSON lines become driver events (a successful call of
// its skill tool is also a driver.SkillEvent); it prints no result line,
// so the driver builds the result: the text of the last step that wrote
// text, the session id of the lines, and the tokens and cost summed over
// every step_finish line.
//
// # Arguments
//
// No value of a request or a Config can become an option of OpenCode (the
// rules are those of the driver kit, internal/launch):
//
//  1. driver.Request.Resume must have the form of OpenCode's session ids,
//     "ses_" and 26 letters or digits (Result.SessionID); anything else is
//     refused before the start with an error wrapping
//     driver.ErrInvalidSessionID and driver.ErrResumeRejected.
//  2. Model, Agent, Title, the workspace (--dir) and the session id are
//     passed as `--name=value`, one argument each, which OpenCode (yargs)
//     reads as the option's value whatever it starts with.
//  3. The prompt is on standard input: never an argument.
//  4. [Config.Args] are passed as they are, after the driver's own: they
//     are options by design.
//  5. Arguments from someone else (a command line's user) are checked
//     with [Descriptor]'s CheckArgs before they become Args.
//
// # Mounting skills
//
// OpenCode reads skills from every config folder's skills/ (the user's
// ~/.config/opencode, a project's .opencode, and the folder named by
// OPENCODE_CONFIG_DIR), from .claude/skills and .agents/skills of the
// workspace and each folder above it up to the git worktree's top and of
// the home folder, and from the config's skills.paths. The driver adds a
// config folder for the run, and writes nowhere else:
//
//  1. For each skill set it builds a mount under the cache root,
//     <root>/mounts/opencode/<key>, passed as OPENCODE_CONFIG_DIR: its
//     skills/<runtime-name> is one link per skill to its resolved folder
//     (a copy where links cannot be made), read-only; an empty
//     node_modules/ and a package-lock.json that lists @opencode-ai/plugin
//     are there so that OpenCode does not run `npm install` into it. The
//     key digests the set's fingerprint and the folders linked to (rule 8
//     of internal/agentdir), so runs with the same set share a mount. A
//     mount is staged and renamed into place and never changed by the
//     driver; OpenCode writes a .gitignore into it, which is allowed; a
//     mount found holding anything else is rebuilt.
//  2. OPENCODE_CONFIG_DIR adds to the user's config: the user's own
//     config folder, skills, credentials and sessions (in OpenCode's data
//     folder) stay as they are. A run with skills whose environment
//     already sets OPENCODE_CONFIG_DIR is refused before the start, since
//     the mount would hide that folder.
//  3. A run holds a lease on its mount from before it is built until the
//     run is over; skill.Cache.CollectDriverFolders removes mounts unused
//     for its age, never one a run holds (the rules of internal/agentdir).
//     Every folder from the cache root down must be a real folder of the
//     current user that others may not write.
//
// # Checks
//
//  1. Before the start: a skill listed under the name of one of the run's
//     (its front matter's name), with other content, in one of the
//     folders OpenCode reads besides the mount (OpenCode's row of the
//     agents table, with XDG_CONFIG_HOME honoured) fails the run with a
//     *driver.ShadowError naming both folders. OpenCode decides such a
//     clash by a race and says so only in a log line, so it is refused
//     whichever would win. Identical content is fine. Folders named by
//     the config's skills.paths are not read.
//  2. Before the start of a run with skills: ripgrep must be there, as
//     `rg` on the agent's PATH or OpenCode's own copy,
//     $XDG_CACHE_HOME/opencode/bin/rg (else ~/.cache/opencode/bin/rg):
//     OpenCode's skill tool needs it, and without it OpenCode downloads
//     one from github.com, or fails to load skills offline. Its absence
//     is an error wrapping driver.ErrProgramNotFound that says how to
//     install it.
//  3. Before the start of a resumed run: the session must be one of the
//     workspace's, as `opencode session list --format json` run there
//     lists them. OpenCode resumed from another folder calls the model
//     and never exits, so such a run is refused with
//     driver.ErrResumeRejected. An id OpenCode does not know is refused
//     the same way.
//  4. The outcome: an error line makes the run a *driver.AgentError
//     holding the usage so far (OpenCode retries a failing model API
//     for about 70 s first, without saying so on its output); no step
//     finished and no error is driver.ErrNoResult, or a
//     *driver.ProcessError when the process failed.
//  5. First runs take turns: while OpenCode's data folder
//     ($XDG_DATA_HOME/opencode, else ~/.local/share/opencode) has no
//     opencode.db, which OpenCode sets up on its first run (two at once
//     can fail), a run holds a file lock under the cache root,
//     mounts/opencode/first-run-<digest>.lock, for as long as it runs,
//     waiting for it as long as its context allows.
//  6. OpenCode does not list the skills it loaded on its output (its
//     first line is a step_start; InitEvent.Skills is nil), so unlike the
//     drivers of Claude Code and Qwen Code this one cannot check after
//     the start that the agent saw every mounted skill; the real-CLI
//     tests check that OpenCode 1.18.33 lists and loads the mount's.
//  7. The provider: a [Config.Model] without a provider ("provider/model")
//     is refused before the start (an error wrapping
//     driver.ErrProviderSetup); OpenCode would answer it, after a quarter
//     of a minute, with "Unexpected server error", as it does a model or
//     provider its configuration does not have: that error comes with
//     what to check.
//
// Cancelling the context interrupts the agent (SIGINT to its process
// group, SIGKILL after [Config.GracePeriod]); OpenCode dies at once on
// SIGINT. The error wraps the context's. On macOS everything holds as on
// Linux, except that only the process group is stopped. On Windows the
// mount is the same (a copy where links cannot be made), ripgrep is
// rg.exe, the process tree is ended as internal/process says, and the
// first-run lock is a LockFileEx lock; none of it has run on Windows.
package opencode

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// Config configures the OpenCode driver. The zero value runs `opencode`
// from PATH with the CLI's own defaults.
type Config struct {
	// Command is the opencode program: a path, or a name looked up on the
	// agent's PATH (Env's, else this process's). Default "opencode".
	Command string
	// Model is passed as --model, "provider/model". Default: OpenCode's
	// (the config's "model").
	Model string
	// Agent is passed as --agent: the OpenCode agent to run ("build",
	// "plan", or one of the config's). Default: OpenCode's ("build").
	Agent string
	// Title is passed as --title for a new session, so that OpenCode
	// does not ask the model for one. Default "agentadaptor run".
	Title string
	// Auto passes --auto: OpenCode approves every permission ask that
	// the config does not deny (dangerous). Default false: asks are
	// rejected, as `opencode run` rejects them.
	Auto bool
	// Args are extra arguments, placed after the driver's own and passed
	// as they are: they are options by design (see "Arguments"), so
	// never put a value from anyone else in them; check arguments from
	// someone else with [Descriptor]'s CheckArgs first. Default none.
	Args []string
	// Env is added to the process's environment for the agent (a later
	// entry wins over an earlier one with the same name). Default none.
	Env []string
	// CacheRoot is the folder that holds skill mounts (under
	// mounts/opencode) for a request that names none: a request's own
	// [driver.Request.CacheRoot] always wins. Default:
	// skill.NewCache().Root().
	CacheRoot string
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type openCodeDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*openCodeDriver)(nil)

// sessionID is the form of OpenCode's session ids.
var sessionID = regexp.MustCompile(`^ses_[0-9A-Za-z]{26}$`)

// sessionIDs is the form of OpenCode's session ids: "ses_" and 26
// letters or digits.
func sessionIDs() launch.SessionIDs {
	return launch.SessionIDs{Form: `"ses_" and 26 letters or digits, such as ses_1f0e2d3c4b5aAbCdEfGhIjKlMn`, Valid: sessionID.MatchString}
}

// Descriptor returns this driver's facts about OpenCode: its id,
// program, session ids and permission modes, and how driver.Settings
// map to [Config] (see driver.Descriptor). Its CheckArgs checks
// arguments given on someone else's behalf (a command line's user)
// before they become [Config.Args], by the rules of driver.Descriptor's
// CheckArgs (a "--no-name" is refused with its name: yargs reads it as
// the negation). The options the driver sets itself are --format,
// --dir, --session, --continue, --fork, --interactive, --attach,
// --command and --file; those it sets from a Config field are --model,
// --agent, --title, and --auto with its aliases --yolo and
// --dangerously-skip-permissions.
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "opencode", ID: "opencode", Agent: "OpenCode", Program: "opencode",
		Package: "opencode-ai", Install: "npm i -g opencode-ai",
		Folders:    driver.Folders{Dir: "mounts/opencode"},
		SessionIDs: sessionIDs(),
		Provider:   "takes the providers of its opencode.json (--model provider/model)",
		Auth:       "check the provider in your opencode.json, or `opencode auth login`",
		Modes:      []string{"build", "plan"},
		Mode:       driver.Setting{Option: "--agent", Field: "Agent"},
		Skip:       driver.Setting{Option: "--auto", Field: "Auto"},
		Allowed:    driver.Setting{Instead: "OpenCode takes what its tools may do from the permission of its config (opencode.json), or from --skip-permissions"},
		Turns:      driver.Setting{Instead: "OpenCode run has no turn limit: set steps for its agent in opencode.json"},
		CheckArgs:  checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, Agent: s.PermissionMode, Auto: s.SkipPermissions, Args: s.Args})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "OpenCode skill mount",
		Magic: "agentadaptor opencode mount v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs OpenCode as c says. It is safe
// for concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Args = slices.Clone(c.Args)
	if c.Title == "" {
		c.Title = "agentadaptor run"
	}
	return &openCodeDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// Run runs OpenCode once for req.
func (d *openCodeDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	return launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		args, err := l.Args(d.args(req, l.Workspace))
		if err != nil {
			return nil, err
		}
		if err := checkModel(d.c.Model); err != nil {
			return nil, err
		}
		root := launch.RunCacheRoot(req, d.c.CacheRoot)
		env, release, err := prepare(ctx, root, req.Skills, l.Env, l.Workspace)
		if err != nil {
			return nil, err
		}
		l.Defer(release) // the run's lease on its mount
		if req.Resume != "" {
			if err := checkSession(ctx, l.Path, env, l.Workspace, req.Resume); err != nil {
				return nil, err
			}
		}
		unlock, err := firstRun(ctx, root, env)
		if err != nil {
			return nil, err
		}
		l.Defer(unlock)
		p := &parser{emit: req.Events}
		return &launch.Plan{
			Args: args,
			Env:  env,
			Line: func(b []byte) error {
				p.parse(b)
				return nil
			},
			Outcome: func(e launch.Ended) (*driver.Result, error) {
				res, err := outcome(e.Path, req, p, e.Exit, e.Err)
				return res, explain(d.c.Model, err)
			},
		}, nil
	})
}

// args builds the command line (see "Arguments").
func (d *openCodeDriver) args(req *driver.Request, workspace string) *launch.Args {
	a := launch.NewArgs("run").Value("--format", "json").Value("--dir", workspace)
	if req.Resume != "" {
		a.Value("--session", req.Resume)
	} else {
		a.Value("--title", d.c.Title)
	}
	a.Value("--model", d.c.Model)
	a.Value("--agent", d.c.Agent)
	if d.c.Auto {
		a.Flag("--auto")
	}
	// The prompt is on standard input.
	return a.Extra(d.c.Args)
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--format": "", "--dir": "", "--session": "", "--continue": "", "--fork": "",
		"--title": "Title", "--interactive": "", "--attach": "", "--command": "", "--file": "",
		"--model":                        "Model",
		"--agent":                        "Agent",
		"--auto":                         "Auto",
		"--yolo":                         "Auto",
		"--dangerously-skip-permissions": "Auto",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("opencode", args, owned())
}

// outcome turns how the process ended and what it said into the result
// (rule 4 of "Checks").
func outcome(prog string, req *driver.Request, p *parser, exit process.Exit, runErr error) (*driver.Result, error) {
	ended := launch.Ended{Name: "opencode", Path: prog, Exit: exit, Err: runErr}
	if runErr == nil && req.Resume != "" && p.init == nil && strings.Contains(exit.Stderr, "Session not found") {
		return nil, fmt.Errorf("opencode: %w: session %s: %w", driver.ErrResumeRejected, req.Resume, ended.ProcessError())
	}
	ev := p.result()
	if ev != nil {
		p.emit.Send(ev)
	}
	return ended.Result(ev, p.sessionID)
}
