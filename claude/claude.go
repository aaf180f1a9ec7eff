// Package claude drives Claude Code, Anthropic's coding agent CLI, with a
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
//		"github.com/agentadaptor/agentadaptor/claude"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		agent := adaptor.New(claude.Driver(claude.Config{Model: "sonnet"}), // claude on PATH, logged in
//			adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text, res.SessionID)
//	}
//
// The runnable examples are in example_test.go (ExampleDriver, a run that prints the answer as it is written;
// ExampleDescriptor, the driver's facts and a driver built from the
// settings every driver takes); go doc does not print examples,
// pkg.go.dev does.
//
// # The run
//
// A run is one `claude -p --output-format stream-json --verbose`, with the
// prompt on standard input and the request's workspace as the working
// folder, plus the flags the [Config] asks for, `--resume=ID` for
// driver.Request.Resume, and `--add-dir=MOUNT` when there are skills. The
// environment is the process's, with [Config.Env] added. The agent's JSON
// lines become driver events (the body that follows a successful Skill
// call is a driver.SkillEvent); the final text, session id, token usage
// and cost come from its result line. Usage and Result.CostUSD are the
// run's own, also when it resumes a session (Claude Code 2.1.328 reports a
// resumed run's usage alone); Claude Code's total_cost_usd, the session's
// running total, is Result.SessionCostUSD. The run's cost is the sum of
// the result's model_usage_since_last_result; a resumed run whose result
// lacks it (other versions of Claude Code) has no CostUSD.
//
// # Arguments
//
// No value of a request or a Config can become an option of Claude Code
// (the rules are those of the driver kit, internal/launch):
//
//  1. driver.Request.Resume must be a UUID, the form of Claude Code's
//     session ids (Result.SessionID); anything else is refused before
//     the start with an error wrapping driver.ErrInvalidSessionID and
//     driver.ErrResumeRejected. Claude Code would also take a session's
//     title; the driver does not.
//  2. Model, PermissionMode, MaxTurns, each of AllowedTools and
//     DisallowedTools, AppendSystemPrompt, the session id and the mount
//     are passed as `--name=value`, one argument each, which Claude Code
//     2.1.328 reads as the option's value whatever it starts with (a
//     model "--settings=..." is a model name to it; a variadic option so
//     given takes that one value).
//  3. The prompt is on standard input and the workspace is the working
//     folder: neither is an argument.
//  4. [Config.Args] are passed as they are, after the driver's own: they
//     are options by design.
//  5. Arguments from someone else (a command line's user) are checked
//     with [Descriptor]'s CheckArgs before they become Args: one
//     `--name` or `--name=value` each, and not an option the driver sets
//     (see [Descriptor]).
//
// On Windows, a Command that is a batch file (the claude.cmd shim npm
// installs) runs through cmd.exe, and an argument holding one of
// " % ! ^ & | < > ( ) or a line break is refused before the start; set
// Command to the claude executable to pass such values.
//
// # Mounting skills
//
// Claude Code reads skills from the user's folder (~/.claude/skills, or
// $CLAUDE_CONFIG_DIR/skills), the project's .claude/skills, and, since
// 2.1.32, DIR/.claude/skills for every folder given with --add-dir. The
// driver uses only the last:
//
//  1. For each skill set it builds a mount under the cache root,
//     <root>/mounts/claude/<key>/.claude/skills/<runtime-name>, one link
//     per skill to its resolved folder (a copy where links cannot be
//     made). The key digests the set's fingerprint and the folders linked
//     to (rule 8 of internal/agentdir), so runs with the same set share a
//     mount and runs with different sets never see each other's skills.
//  2. A mount is staged beside its place and renamed into it, so it is
//     complete or absent; it is never changed afterwards (its skills
//     folder is read-only). One found changed is rebuilt.
//  3. Nothing is written to the workspace, the user's ~/.claude or
//     $CLAUDE_CONFIG_DIR. The config folder is not moved for a run either:
//     it also holds the user's login and sessions.
//  4. Every folder from the cache root down to the mount (the root,
//     mounts/, mounts/claude/ and the mount) must be a real folder of the
//     current user that neither its group nor every user may write, and
//     the folders above the root must be safe from other users too;
//     otherwise the run fails before the agent starts, with an error that
//     names the folder. On Windows ownership and modes are not checked.
//  5. A run holds a lease on its mount from before it is built until the
//     run is over (a shared lock on <key>.lease beside it, whose time
//     records the last use). skill.Cache.CollectDriverFolders (`agentskills
//     cache gc`) removes mounts unused for its age and never one a run
//     holds, and skill.Cache.GC keeps every skill tree a remaining mount
//     links to. The rules are those of internal/agentdir.
//
// # Checks
//
//  1. Before the start: a skill folder named like one of the run's in the
//     user's skills folder, or in .claude/skills of the workspace or any
//     folder above it (up to the top of its git repository), with other
//     content, would be loaded instead of ours. That fails the run with a
//     *driver.ShadowError naming both folders. Identical content is fine.
//     With [Config.WithoutUserSkills] Claude Code does not read the
//     user's folder, and the check skips it.
//     The folders are Claude Code's row of the agents table, and the
//     check is the driver kit's (internal/agents).
//  2. Before the start: a skill in .claude/skills of a folder below the
//     workspace's top (pkg/.claude/skills/x), which Claude Code loads
//     beside the run's skills as soon as it reads a file in that folder
//     (unless git ignores the folder), fails the run with a
//     *driver.NestedSkillsError naming every such folder. Move or rename
//     them, or git-ignore the folders holding them. The search is the
//     driver kit's (internal/agents, "Nested skills folders"); a
//     workspace too large for its bounds is refused too.
//  3. After the agent's system/init line: every mounted runtime name must
//     be among the skills it reports, or the run is stopped and fails with
//     a *driver.NotMountedError.
//  4. The result line decides the outcome: an error result is a
//     *driver.AgentError (holding the session and usage); no result at all
//     is driver.ErrNoResult, or a *driver.ProcessError when the process
//     failed. A run asked to resume that fails before the agent starts a
//     session (no system/init line) is driver.ErrResumeRejected: Claude
//     Code answers an unknown session id that way.
//  5. The first result line is the run's; lines after it are still
//     reported as events but change nothing. A line that is not JSON is
//     reported as a driver.ErrorEvent and the run goes on.
//  6. Before the start: a loopback ANTHROPIC_BASE_URL where nothing
//     listens is refused (an error wrapping driver.ErrProviderSetup,
//     naming it): Claude Code would retry its call ten times, reporting
//     no cause. A retry it reports without an HTTP status (its error
//     "unknown") is a driver.RetryEvent whose Message names the API:
//     "no HTTP answer from URL" (ANTHROPIC_BASE_URL, else
//     https://api.anthropic.com).
//
// Cancelling the context interrupts the agent (SIGINT to its process
// group, SIGKILL after [Config.GracePeriod]), and the error wraps the
// context's. However the run ends, no process of it survives: the agent's
// group is killed, and on Linux so is every descendant that left it (Claude
// Code runs its Bash tool's commands in groups of their own), found by a
// tag in its environment and, when the host called adaptor.AdoptOrphans
// (agentskills does), as an orphan reparented to the host, whatever its
// environment. On Linux the agent and its group also die with the host,
// even one killed with SIGKILL. On macOS only the group is stopped, and a
// killed host leaves the agent running; see internal/process for Windows.
package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// Config configures the Claude Code driver. The zero value runs `claude`
// from PATH with the CLI's own defaults.
type Config struct {
	// Command is the claude program: a path, or a name looked up on the
	// agent's PATH (Env's, else this process's). Default "claude".
	Command string
	// Model is passed as --model. Default: the CLI's.
	Model string
	// PermissionMode is passed as --permission-mode ("default",
	// "acceptEdits", "plan", "bypassPermissions", ...). Default: the CLI's.
	PermissionMode string
	// SkipPermissions passes --dangerously-skip-permissions. When the
	// process runs as root it also sets IS_SANDBOX=1, without which Claude
	// Code refuses that flag (and PermissionMode "bypassPermissions").
	// Default false.
	SkipPermissions bool
	// MaxTurns is passed as --max-turns when positive: the run ends with
	// an error result (subtype "error_max_turns") after that many turns.
	// Default: no limit.
	MaxTurns int
	// AllowedTools are passed as --allowed-tools, one argument each: the
	// tools (or tool patterns, "Bash(git *)") that run without asking.
	// Default none: the permission mode decides.
	AllowedTools []string
	// DisallowedTools are passed as --disallowed-tools, one argument
	// each: the tools (or patterns) that never run, whatever the mode.
	// Default none.
	DisallowedTools []string
	// AppendSystemPrompt is passed as --append-system-prompt. Default none.
	AppendSystemPrompt string
	// WithoutUserSkills leaves the user's skills folder
	// ($CLAUDE_CONFIG_DIR/skills, else ~/.claude/skills) out of runs: it
	// passes --setting-sources project,local, with which Claude Code
	// lists no skill of that folder, and reads no user settings file
	// (~/.claude/settings.json: its model, permissions and env) either;
	// the login stays. The shadow check then skips that folder, and
	// still checks the workspace's. An Args --setting-sources given too
	// would win over it: give none. Default false: the user's skills and
	// settings are there, as for the user's own Claude Code.
	WithoutUserSkills bool
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
	// mounts/claude) for a request that names none: a request's own
	// [driver.Request.CacheRoot], which an Agent sets to its
	// materializer's root, always wins, so the mounts sit in the cache
	// that holds the skills. Default: skill.NewCache().Root(), where the
	// default materializer keeps skills; set it when calling the driver
	// directly with skills from a cache with another root.
	CacheRoot string
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type claudeDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*claudeDriver)(nil)

// Descriptor returns this driver's facts about Claude Code: its id,
// program, session ids and permission modes, and how driver.Settings
// map to [Config] (see driver.Descriptor). Its CheckArgs checks
// arguments given on someone else's behalf (a command line's user)
// before they become [Config.Args], by the rules of driver.Descriptor's
// CheckArgs. The options the driver sets itself are --print,
// --output-format, --input-format, --verbose, --resume, --continue,
// --session-id, --fork-session and --add-dir; those it sets from a
// Config field are --model, --permission-mode,
// --dangerously-skip-permissions, --max-turns, --allowed-tools,
// --disallowed-tools and --include-partial-messages.
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "claude", ID: "claude-code", Agent: "Claude Code", Program: "claude",
		Package: "@anthropic-ai/claude-code", Install: "npm i -g @anthropic-ai/claude-code",
		Folders:    driver.Folders{Dir: "mounts/claude"},
		SessionIDs: launch.UUIDs(),
		Provider:   "takes ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL",
		Auth:       "check ANTHROPIC_API_KEY or your login",
		Modes:      []string{"acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"},
		Bypass:     "bypassPermissions",
		Mode:       driver.Setting{Option: "--permission-mode", Field: "PermissionMode"},
		Skip:       driver.Setting{Option: "--dangerously-skip-permissions", Field: "SkipPermissions"},
		Allowed:    driver.Setting{Option: "--allowed-tools", Field: "AllowedTools"},
		Denied:     driver.Setting{Option: "--disallowed-tools", Field: "DisallowedTools"},
		Turns:      driver.Setting{Option: "--max-turns", Field: "MaxTurns"},
		CheckArgs:  checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, PermissionMode: s.PermissionMode,
				SkipPermissions: s.SkipPermissions, MaxTurns: s.MaxTurns,
				AllowedTools: s.AllowedTools, DisallowedTools: s.DisallowedTools, Args: s.Args,
				WithoutUserSkills: s.WithoutUserSkills})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "Claude Code skill mount",
		Magic: "agentadaptor claude mount v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs Claude Code as c says. It is
// safe for concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Args = slices.Clone(c.Args)
	c.AllowedTools = slices.Clone(c.AllowedTools)
	c.DisallowedTools = slices.Clone(c.DisallowedTools)
	return &claudeDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// Run runs Claude Code once for req.
func (d *claudeDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	return launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		env := l.Env
		if err := launch.CheckBaseURL(ctx, "claude", env, "ANTHROPIC_BASE_URL"); err != nil {
			return nil, err
		}
		var mountDir string
		if len(req.Skills.Entries) > 0 {
			var release func()
			var err error
			if mountDir, release, err = mount(ctx, launch.RunCacheRoot(req, d.c.CacheRoot), req.Skills); err != nil {
				return nil, fmt.Errorf("claude: %w", err)
			}
			l.Defer(release) // the run's lease on its mount
			user := userSkillsDir(env)
			if d.c.WithoutUserSkills {
				user = "" // not read: see Config.WithoutUserSkills
			}
			if err := checkShadows(ctx, req.Skills, mountDir, l.Workspace, user); err != nil {
				return nil, err
			}
		}
		if (d.c.SkipPermissions || d.c.PermissionMode == "bypassPermissions") && os.Geteuid() == 0 {
			env = process.MergeEnv(env, []string{"IS_SANDBOX=1"})
		}
		args, err := l.Args(d.args(req, mountDir))
		if err != nil {
			return nil, err
		}
		p := newParser(unanswered(req.Events, apiURL(env)))
		line, checked := p.CheckInit(func(listed []string) error { return checkMounted(listed, req.Skills) })
		return &launch.Plan{
			Args: args,
			Env:  env,
			Line: line,
			Outcome: func(e launch.Ended) (*driver.Result, error) {
				return outcome(e.Path, req, p, e.Exit, e.Err, checked())
			},
		}, nil
	})
}

// args builds the command line (see "Arguments").
func (d *claudeDriver) args(req *driver.Request, mountDir string) *launch.Args {
	a := launch.NewArgs().Flag("-p").Value("--output-format", "stream-json").Flag("--verbose")
	if d.c.PartialMessages {
		a.Flag("--include-partial-messages")
	}
	a.Value("--resume", req.Resume)
	a.Value("--model", d.c.Model)
	a.Value("--permission-mode", d.c.PermissionMode)
	if d.c.SkipPermissions {
		a.Flag("--dangerously-skip-permissions")
	}
	if d.c.MaxTurns > 0 {
		a.Int("--max-turns", d.c.MaxTurns)
	}
	a.Each("--allowed-tools", d.c.AllowedTools)
	a.Each("--disallowed-tools", d.c.DisallowedTools)
	a.Value("--append-system-prompt", d.c.AppendSystemPrompt)
	if d.c.WithoutUserSkills {
		a.Value("--setting-sources", "project,local")
	}
	a.Extra(d.c.Args)
	// --add-dir takes several values; given as --add-dir=MOUNT it takes
	// that one. The prompt is on standard input.
	return a.Value("--add-dir", mountDir)
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--print": "", "--output-format": "", "--input-format": "", "--verbose": "",
		"--resume": "", "--continue": "", "--session-id": "", "--fork-session": "", "--add-dir": "",
		"--include-partial-messages":     "PartialMessages",
		"--model":                        "Model",
		"--permission-mode":              "PermissionMode",
		"--dangerously-skip-permissions": "SkipPermissions",
		"--max-turns":                    "MaxTurns",
		"--allowed-tools":                "AllowedTools",
		"--disallowed-tools":             "DisallowedTools",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("claude", args, owned())
}

// outcome turns how the process ended and what it said into the result.
// check is the error of the check of the skills the agent reported.
func outcome(prog string, req *driver.Request, p *parser, exit process.Exit, runErr, check error) (*driver.Result, error) {
	if check != nil {
		return nil, check
	}
	ended := launch.Ended{Name: "claude", Path: prog, Exit: exit, Err: runErr}
	res, err := p.Outcome(ended, req, func(err error) bool {
		// Claude Code answers an unknown session id with an error result
		// and no init line.
		var agentErr *driver.AgentError
		return errors.As(err, &agentErr)
	}, func(reported []string) error {
		return checkMounted(reported, req.Skills)
	})
	splitCost(req, p.Result, res, err)
	return res, err
}

// checkMounted reports the mounted skills the agent does not list. Claude
// Code leaves out of its list the skills whose front matter says
// user-invocable: false (it still loads them for the model), so those are
// not required to be there.
func checkMounted(reported []string, rs driver.ResolvedSkills) error {
	return launch.CheckListed(reported, rs, nil, func(e driver.ResolvedSkill) bool { return !userInvocable(e.Path) })
}

// userInvocable reports whether the skill in dir may be listed for the
// user: true unless its front matter says user-invocable: false.
func userInvocable(dir string) bool {
	s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		return true
	}
	v, ok := s.Extra["user-invocable"]
	return !ok || !strings.EqualFold(strings.TrimSpace(fmt.Sprint(v)), "false")
}
