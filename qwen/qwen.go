// Package qwen drives Qwen Code, the Qwen team's coding agent CLI, with a
// run's skills mounted for that run alone.
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
//		"github.com/agentadaptor/agentadaptor/qwen"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		agent := adaptor.New(qwen.Driver(qwen.Config{Model: "qwen3-coder-plus"}), // qwen on PATH, OPENAI_* or its settings
//			adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text, res.SessionID)
//	}
//
// The runnable example is in example_test.go (ExampleDriver, a run with a folder of skills mounted); go doc does not
// print examples, pkg.go.dev does.
//
// # The run
//
// A run is one `qwen --output-format=stream-json`, with the prompt on
// standard input and the request's workspace as the working folder, plus
// the flags the [Config] asks for and `--resume=ID` for
// driver.Request.Resume. The environment is the process's, with
// [Config.Env] added, QWEN_CODE_NO_RELAUNCH=true (Qwen Code otherwise
// starts itself again as a child, and a signal to the first process alone
// leaves the child running) and, when there are skills,
// QWEN_CODE_SYSTEM_DEFAULTS_PATH naming the run's system-defaults file.
// The agent's JSON lines become driver events (a successful skill tool
// call is also a driver.SkillEvent); the final text, session id
// and token usage come from its result line. Qwen Code's usage includes
// its background helper calls (its auto-mode classifier, its memory
// extraction).
//
// # Arguments
//
// No value of a request or a Config can become an option of Qwen Code
// (the rules are those of the driver kit, internal/launch):
//
//  1. driver.Request.Resume must be a UUID, the form of Qwen Code's
//     session ids (Result.SessionID); anything else is refused before the
//     start with an error wrapping driver.ErrInvalidSessionID and
//     driver.ErrResumeRejected.
//  2. Model, ApprovalMode, MaxSessionTurns, each of AllowedTools and
//     DisallowedTools, AppendSystemPrompt and the session id are passed
//     as `--name=value`, one argument each, which Qwen Code 0.24.4
//     (yargs) reads as the option's value whatever it starts with.
//  3. The prompt is on standard input and the workspace is the working
//     folder: neither is an argument.
//  4. [Config.Args] are passed as they are, after the driver's own: they
//     are options by design.
//  5. Arguments from someone else (a command line's user) are checked
//     with [Descriptor]'s CheckArgs before they become Args.
//
// On Windows, a Command that is a batch file (the qwen.cmd shim npm
// installs) runs through cmd.exe, and an argument holding one of
// " % ! ^ & | < > ( ) or a line break is refused before the start; set
// Command to a program that is not a batch file to pass such values.
//
// # Mounting skills
//
// Qwen Code reads skills from the workspace's .qwen/skills and
// .agents/skills, the user's $QWEN_HOME/skills (default ~/.qwen/skills)
// and ~/.agents/skills, and then every folder of the setting
// skills.directories, merged over its settings files. The driver adds a
// folder there for the run, and writes nowhere else:
//
//  1. For each skill set it builds a mount under the cache root,
//     <root>/mounts/qwen/<key>/skills/<runtime-name>, one link per skill
//     to its resolved folder (a copy where links cannot be made). The key
//     digests the set's fingerprint and the folders linked to (rule 8 of
//     internal/agentdir), so runs with the same set share a mount. A
//     mount is staged and renamed into place, and never changed after
//     (its skills folder is read-only); one found changed is rebuilt.
//     While its folders stay as a run found them, a run does not read
//     its links again (a stamp: rule 12 of internal/agentdir).
//  2. The run's settings are a system-defaults file named by
//     QWEN_CODE_SYSTEM_DEFAULTS_PATH: the user's system defaults
//     ($QWEN_CODE_SYSTEM_DEFAULTS_PATH, else system-defaults.json beside
//     the system settings file: /etc/qwen-code on Linux,
//     /Library/Application Support/QwenCode on macOS,
//     C:\ProgramData\qwen-code on Windows), with the mount's skills
//     folder added to the end of skills.directories, and
//     memory.enableManagedAutoMemory false with
//     [Config.NoMemoryExtraction]. It lies beside the mount,
//     <root>/mounts/qwen/<key>.system-defaults-<digest>.json, named by a
//     digest of its content: written once, used again by every run with
//     the same content, and removed with the mount (rule 13 of
//     internal/agentdir). A run without skills that turns memory
//     extraction off gets a file of its own in a new folder under the
//     temporary folder instead, removed when the run ends. That file is
//     the lowest layer of Qwen Code's settings, so the user's and the
//     project's settings still apply. The user's file must be plain JSON
//     (no comments) of at most 1 MiB, else the run fails before the start
//     naming it.
//  3. Nothing is written to the workspace, ~/.qwen or $QWEN_HOME by the
//     driver. Qwen Code itself keeps its sessions under ~/.qwen/projects
//     and creates an empty ~/.qwen/skills ($QWEN_HOME/skills) when it
//     starts watching its skill folders.
//  4. Every folder from the cache root down to the mount must be a real
//     folder of the current user that neither its group nor every user
//     may write, and the folders above the root must be safe from other
//     users too; otherwise the run fails before the agent starts, naming
//     the folder. On Windows ownership and modes are not checked.
//  5. A run holds a lease on its mount from before it is built until the
//     run is over. skill.Cache.CollectDriverFolders removes mounts unused
//     for its age, never one a run holds; the rules are those of
//     internal/agentdir. Sessions are not in the mount: Qwen Code keeps
//     them under ~/.qwen/projects (or $QWEN_HOME/projects), per working
//     folder.
//
// # Checks
//
//  1. Before the start: a skill listed under the name of one of the run's
//     (its front matter's name), with other content, in one of the
//     folders Qwen Code reads skills from besides the mount (the
//     workspace's and the user's, as Qwen Code's row of the agents table
//     says, with QWEN_HOME honoured, and every folder in
//     skills.directories of the user's system defaults, of the user's
//     settings, $QWEN_HOME/settings.json (else ~/.qwen/settings.json),
//     and of the project's, .qwen/settings.json of the workspace unless
//     it is the home folder) would be loaded instead of ours, or hidden
//     by it, silently. That fails the run with a *driver.ShadowError
//     naming both folders. Identical content is fine. The folders of
//     skills.directories are resolved as Qwen Code 0.24.4 resolves them:
//     $NAME and ${NAME} are the agent's environment variables, a leading
//     ~ the home folder, and a relative path is taken from the
//     workspace. The settings files are read as JSON with comments, at
//     most 1 MiB each; one that cannot be read fails the run before the
//     start, naming it. The project's settings are read even where Qwen
//     Code would not trust the workspace, which can only refuse more.
//  2. After the agent's system/init line: every mounted skill must be
//     among the names it lists (Qwen Code lists its skills among its
//     slash_commands; InitEvent.Skills holds them all), or the run is
//     stopped and fails with a *driver.NotMountedError.
//  3. The result line decides the outcome: an error result is a
//     *driver.AgentError (its message is the error's, else the last
//     assistant text, where Qwen Code writes an API error); no result at
//     all is driver.ErrNoResult, or a *driver.ProcessError when the
//     process failed. A run asked to resume that fails before the agent
//     starts a session (no system/init line) is driver.ErrResumeRejected:
//     Qwen Code answers a session id it does not have for the working
//     folder that way. Sessions are kept per working folder, so a thread
//     resumes only in the workspace it started in.
//  4. The first result line is the run's; a line that is not JSON is
//     reported as a driver.ErrorEvent and the run goes on.
//  5. Before the start, the provider (errors wrapping
//     driver.ErrProviderSetup): a run with some but not all of
//     OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL set, which Qwen
//     Code 0.24.4 would refuse with "No auth type is selected" (no
//     --auth-type among the Args, no other complete set of the variables
//     it infers an auth type from, no settings file that mentions
//     selectedType, no .env file it could read them from), is refused
//     naming the variables missing; that refusal from Qwen Code itself
//     is worded the same way. A loopback OPENAI_BASE_URL where nothing
//     listens is refused naming it.
//
// # Approvals
//
// The approval mode is [Config.ApprovalMode], "default" unless set, and
// when skills are mounted the driver adds "skill" to the tools it passes
// as --allowed-tools ([Config.AllowedTools]): the skill tool then runs
// without asking, and with no call to a classifier. Other tools that need
// approval are declined in a headless run (Qwen Code cannot ask); allow
// them by name in AllowedTools, choose "auto-edit" or "yolo" to allow
// them all, or
// Qwen Code's own default, "auto", which asks its model's security
// classifier before each such tool call, the skill tool included.
//
// Cancelling the context interrupts the agent (SIGINT to its process
// group, SIGKILL after [Config.GracePeriod]), and the error wraps the
// context's. Qwen Code runs as one process (QWEN_CODE_NO_RELAUNCH), and
// however the run ends no process of it survives: the group is killed,
// and on Linux so is every descendant that left it, found by a tag in its
// environment and, under adaptor.AdoptOrphans, as an orphan; on Linux the
// agent also dies with the host. On macOS only the group is stopped, and
// a killed host leaves the agent running; on Windows the process tree is
// ended as internal/process says. The mount and the system-defaults file
// work the same on every system (a copy replaces a link where links
// cannot be made); the user's system defaults are looked for where Qwen
// Code looks on each (rule 2 of "Mounting skills").
package qwen

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// Config configures the Qwen Code driver. The zero value runs `qwen` from
// PATH with the CLI's own defaults.
type Config struct {
	// Command is the qwen program: a path, or a name looked up on the
	// agent's PATH (Env's, else this process's). Default "qwen".
	Command string
	// Model is passed as --model. Default: the CLI's (OPENAI_MODEL or the
	// user's settings).
	Model string
	// ApprovalMode is passed as --approval-mode ("plan", "default",
	// "auto-edit", "auto", "yolo"). Default "default" (see "Approvals"):
	// Qwen Code's own default, "auto", asks its model's security
	// classifier before every skill call.
	ApprovalMode string
	// MaxSessionTurns is passed as --max-session-turns when positive:
	// Qwen Code ends the run with an error result after that many turns.
	// Default: no limit.
	MaxSessionTurns int
	// AllowedTools are passed as --allowed-tools, one argument each: the
	// tools that run without asking ("run_shell_command", "edit"). With
	// skills mounted, "skill" is added (see "Approvals"). Qwen Code
	// 0.24.4 still declines, in ApprovalMode "default", a shell command
	// that writes files: allow run_shell_command with "auto-edit" for
	// that. Default none.
	AllowedTools []string
	// DisallowedTools are passed as --exclude-tools, one argument each:
	// the tools Qwen Code leaves out of the run, so the model cannot call
	// them. Default none.
	DisallowedTools []string
	// AppendSystemPrompt is passed as --append-system-prompt. Default none.
	AppendSystemPrompt string
	// PartialMessages passes --include-partial-messages, so the answer
	// also arrives as driver.TextDeltaEvent while it is written. Default
	// false.
	PartialMessages bool
	// Args are extra arguments, placed after the driver's own and passed
	// as they are: they are options by design (see "Arguments"), so
	// never put a value from anyone else in them; check arguments from
	// someone else with [Descriptor]'s CheckArgs first. Default none.
	Args []string
	// Env is added to the process's environment for the agent (a later
	// entry wins over an earlier one with the same name). Default none.
	Env []string
	// CacheRoot is the folder that holds skill mounts (under
	// mounts/qwen) for a request that names none: a request's own
	// [driver.Request.CacheRoot], which an Agent sets to its
	// materializer's root, always wins. Default: skill.NewCache().Root();
	// set it when calling the driver directly with skills from a cache
	// with another root.
	CacheRoot string
	// NoMemoryExtraction turns off Qwen Code's managed memory extraction
	// for the run (memory.enableManagedAutoMemory false in the run's
	// system defaults): no extraction call to the model after a turn,
	// and no memory written from the run. The user's and the project's
	// settings.json still win where they set it. Default false: Qwen
	// Code's settings decide, and its own default is on.
	NoMemoryExtraction bool
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type qwenDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*qwenDriver)(nil)

// Descriptor returns this driver's facts about Qwen Code: its id,
// program, session ids and permission modes, and how driver.Settings
// map to [Config] (see driver.Descriptor). Its CheckArgs checks
// arguments given on someone else's behalf (a command line's user)
// before they become [Config.Args], by the rules of driver.Descriptor's
// CheckArgs (a "--no-name" is refused with its name: yargs reads it as
// the negation). The options the driver sets itself are
// --output-format, --input-format, --resume, --continue, --session-id,
// --prompt and --prompt-interactive; those it sets from a Config field
// are --model, --approval-mode, --yolo, --allowed-tools,
// --exclude-tools, --max-session-turns and --include-partial-messages.
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "qwen", ID: "qwen-code", Agent: "Qwen Code", Program: "qwen",
		Package: "@qwen-code/qwen-code", Install: "npm i -g @qwen-code/qwen-code",
		Folders:    driver.Folders{Dir: "mounts/qwen"},
		SessionIDs: launch.UUIDs(),
		Provider:   "takes OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL",
		Auth:       "check OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL, or your Qwen Code settings",
		Modes:      []string{"plan", "default", "auto-edit", "auto", "yolo"},
		Bypass:     "yolo",
		Mode:       driver.Setting{Option: "--approval-mode", Field: "ApprovalMode"},
		Skip:       driver.Setting{Option: "--approval-mode=yolo", Field: "ApprovalMode"},
		Allowed: driver.Setting{Option: "--allowed-tools", Field: "AllowedTools",
			Note: "which in its default mode still declines a command that writes files (add --permission-mode auto-edit)"},
		Denied:    driver.Setting{Option: "--exclude-tools", Field: "DisallowedTools"},
		Turns:     driver.Setting{Option: "--max-session-turns", Field: "MaxSessionTurns"},
		CheckArgs: checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, ApprovalMode: s.Mode("yolo"),
				MaxSessionTurns: s.MaxTurns, AllowedTools: s.AllowedTools, DisallowedTools: s.DisallowedTools, Args: s.Args})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "Qwen Code skill mount",
		Magic: "agentadaptor qwen mount v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs Qwen Code as c says. It is
// safe for concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Args = slices.Clone(c.Args)
	c.AllowedTools = slices.Clone(c.AllowedTools)
	c.DisallowedTools = slices.Clone(c.DisallowedTools)
	return &qwenDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// Run runs Qwen Code once for req.
func (d *qwenDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	return launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		args, err := l.Args(d.args(req))
		if err != nil {
			return nil, err
		}
		if err := d.checkAuth(l.Env, l.Workspace); err != nil {
			return nil, err
		}
		if err := launch.CheckBaseURL(ctx, "qwen", l.Env, "OPENAI_BASE_URL"); err != nil {
			return nil, err
		}
		env, done, err := d.prepare(ctx, req, process.MergeEnv(l.Env, []string{"QWEN_CODE_NO_RELAUNCH=true"}), l.Workspace)
		if err != nil {
			return nil, err
		}
		l.Defer(done) // the run's lease on its mount, or its own system defaults
		p := newParser(req.Events)
		line, checked := p.CheckInit(func(listed []string) error { return checkMounted(listed, req.Skills) })
		return &launch.Plan{
			Args: args,
			Env:  env,
			Line: line,
			Outcome: func(e launch.Ended) (*driver.Result, error) {
				res, err := outcome(e.Path, req, p, e.Exit, e.Err, checked())
				var agentErr *driver.AgentError
				if errors.As(err, &agentErr) && strings.Contains(agentErr.Message, noAuthType) {
					return nil, authRefused(l.Env, l.Workspace, err)
				}
				return res, err
			},
		}, nil
	})
}

// args builds the command line (see "Arguments").
func (d *qwenDriver) args(req *driver.Request) *launch.Args {
	a := launch.NewArgs().Value("--output-format", "stream-json")
	if d.c.PartialMessages {
		a.Flag("--include-partial-messages")
	}
	a.Value("--resume", req.Resume)
	a.Value("--model", d.c.Model)
	mode := d.c.ApprovalMode
	if mode == "" {
		mode = "default"
	}
	a.Value("--approval-mode", mode)
	allowed := d.c.AllowedTools
	if len(req.Skills.Entries) > 0 && !slices.Contains(allowed, "skill") {
		allowed = append(slices.Clip(allowed), "skill")
	}
	a.Each("--allowed-tools", allowed)
	a.Each("--exclude-tools", d.c.DisallowedTools)
	if d.c.MaxSessionTurns > 0 {
		a.Int("--max-session-turns", d.c.MaxSessionTurns)
	}
	a.Value("--append-system-prompt", d.c.AppendSystemPrompt)
	// The prompt is on standard input.
	return a.Extra(d.c.Args)
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--output-format": "", "--input-format": "", "--resume": "", "--continue": "",
		"--session-id": "", "--prompt": "", "--prompt-interactive": "",
		"--include-partial-messages": "PartialMessages",
		"--model":                    "Model",
		"--approval-mode":            "ApprovalMode",
		"--yolo":                     "ApprovalMode",
		"--allowed-tools":            "AllowedTools",
		"--exclude-tools":            "DisallowedTools",
		"--max-session-turns":        "MaxSessionTurns",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("qwen", args, owned())
}

// outcome turns how the process ended and what it said into the result.
// check is the error of the check of the skills the agent reported.
func outcome(prog string, req *driver.Request, p *parser, exit process.Exit, runErr, check error) (*driver.Result, error) {
	if check != nil {
		return nil, check
	}
	ended := launch.Ended{Name: "qwen", Path: prog, Exit: exit, Err: runErr}
	return p.Outcome(ended, req, func(error) bool {
		// Qwen Code refuses an unknown session with "No saved session
		// found ...", exit 1, and no init line.
		return runErr == nil
	}, func(reported []string) error {
		return checkMounted(reported, req.Skills)
	})
}

// checkMounted reports the mounted skills the agent does not list, by the
// names Qwen Code lists them under (their front matter's).
func checkMounted(reported []string, rs driver.ResolvedSkills) error {
	r := qwenCode()
	return launch.CheckListed(reported, rs, func(e driver.ResolvedSkill) string { return r.ListedName(e.Path) }, nil)
}
