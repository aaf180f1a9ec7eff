// Package gemini drives Gemini CLI, Google's coding agent CLI, with a
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
//		"github.com/agentadaptor/agentadaptor/gemini"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		agent := adaptor.New(gemini.Driver(gemini.Config{Model: "gemini-2.5-pro"}), // gemini on PATH, logged in or GEMINI_API_KEY
//			adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text, res.SessionID)
//	}
//
// The runnable example is in example_test.go (ExampleDriver, a run that prints the answer as it is written); go doc does not
// print examples, pkg.go.dev does.
//
// # The run
//
// A run is one `gemini --policy=POLICY --output-format=stream-json
// --skip-trust`, with the prompt on standard input (not a terminal, which
// makes the run headless) and the request's workspace as the working
// folder, plus the flags the [Config] asks for and `--resume=ID` for
// driver.Request.Resume. The environment is the process's, with
// [Config.Env] added, GEMINI_CLI_HOME set to the overlay home below and
// GEMINI_CLI_NO_RELAUNCH=true (Gemini CLI then runs as one process
// instead of re-starting itself as a child). The agent's JSON lines
// become driver events: the streamed assistant text as text deltas and,
// when a message ends, one text event; a successful activate_skill call
// is also a driver.SkillEvent; the final text is the last
// assistant message, the session id that of the init line, and the usage
// the result's stats (every model call of the run, the model router's
// included).
//
// Gemini CLI reports its retries of a failed model API call (a 429 or a
// 5xx; it makes general.maxAttempts attempts, 10 by default, 5 s apart
// doubling to 30 s) on its standard error only, as lines of the form
// "Attempt N failed with status S. Retrying with backoff... ERR". The
// driver reads standard error as it comes and makes each such line a
// driver.RetryEvent (attempt, status, the API's message, and the delay
// when the line gives one; never MaxRetries, which Gemini CLI does not
// say); its other lines are ignored. These events come from another
// stream than the others, so a retry may be reported after an event of
// standard output written later. A 401 or a 400 is not retried. This holds
// on every system.
//
// Gemini CLI stops a headless run in a folder the user has not trusted
// (exit 55). The driver passes --skip-trust, which trusts the workspace
// for this run only (its .gemini settings and skills apply, as they do
// for the user's own runs there); [Config.RespectTrust] leaves it out.
//
// # Offline
//
// Gemini CLI looks up play.googleapis.com (usage statistics) on every run
// unless the user's settings.json holds
// {"privacy":{"usageStatisticsEnabled":false}}; no variable turns it off.
// The driver never changes the user's settings: set it there. To point
// Gemini CLI at another endpoint, set GOOGLE_GEMINI_BASE_URL and
// GEMINI_API_KEY in [Config.Env], with
// {"security":{"auth":{"selectedType":"gemini-api-key"}}} in settings.json
// (without it a headless run refuses the base URL, exit 41).
//
// # The overlay home
//
// Gemini CLI has no flag that adds a skill folder: it reads
// ~/.gemini/skills, ~/.agents/skills and, in a trusted workspace,
// .gemini/skills and .agents/skills there. GEMINI_CLI_HOME moves the home
// folder for all of ~/.gemini and ~/.agents. So each run gets a home
// whose entries link the user's:
//
//  1. One home per skill set and user home, under the cache root:
//     <root>/homes/gemini/<key>, where the key digests the set's
//     fingerprint, the folders it links to and the user's Gemini CLI home
//     (rule 8 of internal/agentdir).
//  2. .agents/skills/<runtime-name> is a link to each resolved skill
//     folder, beside a link to each of the user's ~/.agents/skills. A
//     user skill there in a folder named like one of the run's with other
//     content fails the run with a *driver.ShadowError. Before every run
//     the links are brought up to date with the user's skills; while the
//     folder and the links it should hold stay as a run found them, its
//     links are not read again (a stamp: rule 12 of internal/agentdir).
//  3. .gemini/NAME is a link to each entry of the user's ~/.gemini
//     (settings.json, the login, trusted folders, skills, extensions,
//     policies, tmp, history, ...), made again before every run; with
//     [Config.WithoutUserSkills], all but skills, and .agents/skills
//     holds the run's skills alone (the shadow check then looks at the
//     workspace's folders only). Gemini
//     CLI keeps its sessions in tmp, so they stay the user's: a session
//     started through the overlay resumes in a plain run of Gemini CLI,
//     and the reverse (from the same workspace, as always with Gemini
//     CLI). A file Gemini CLI writes in place of a link (projects.json is
//     written by rename) stays in the overlay; so does a tmp folder it
//     makes while the user has none, and with it the sessions of those
//     runs.
//  4. agentadaptor-policy.toml allows the activate_skill tool, which the
//     headless default policy removes; it is passed with --policy.
//  5. Nothing is written to the user's home or to the workspace by the
//     driver.
//  6. Every folder from the cache root down to the home must be a real
//     folder of the current user that neither its group nor every user
//     may write, and the folders above the root must be safe from other
//     users too; otherwise the run fails before Gemini CLI starts, with an
//     error that names the folder. On Windows ownership and modes are not
//     checked.
//  7. A run holds a lease on its home from before it is prepared until the
//     run is over. skill.Cache.CollectDriverFolders removes homes unused
//     for its age, never one a run holds, and with a home the sessions it
//     holds. The rules are those of internal/agentdir.
//
// # Checks
//
//  1. Before the start: a skill listed under the name of one of the run's
//     (by its front matter's name), with other content, in the
//     workspace's .gemini/skills or .agents/skills or in the user's
//     ~/.gemini/skills or ~/.agents/skills, would be loaded instead of
//     ours or hidden by it: a *driver.ShadowError naming both folders.
//     The folders are Gemini CLI's row of the agents table, and the check
//     is the driver kit's (internal/agents).
//  2. After the start: Gemini CLI's init line lists no skills; it reports
//     on stderr a skill of one folder overriding another's. A run whose
//     stderr says one of the run's mounted skills was overridden fails
//     with a *driver.NotMountedError.
//  3. The result line decides the outcome: a result of status "error" is
//     a *driver.AgentError holding its message (a model API error after
//     the retries: Gemini CLI also exits with the HTTP status modulo 256);
//     no result is driver.ErrNoResult, or a *driver.ProcessError when the
//     process failed. Exit 55 (an untrusted workspace, with RespectTrust)
//     says so. A resume that Gemini CLI refuses (exit 42: unknown
//     session, or one of another workspace) is driver.ErrResumeRejected.
//  4. The first result line is the run's; lines after it are reported as
//     raw events and change nothing. A line that is not JSON is reported
//     as a driver.ErrorEvent and the run goes on.
//  5. Before the start, the provider (errors wrapping
//     driver.ErrProviderSetup): GOOGLE_GEMINI_BASE_URL set while no
//     settings file Gemini CLI reads (the user's, the workspace's, the
//     system's settings and defaults) mentions selectedType is refused
//     with the setting to write in the user's settings.json, since
//     Gemini CLI 0.61.0 would refuse the run ("Invalid auth method
//     selected.", exit 41; an exit 41 is worded the same way); a loopback
//     GOOGLE_GEMINI_BASE_URL where nothing listens is refused naming it.
//
// # Arguments
//
// No value of a request or a Config can become an option of Gemini CLI
// (the rules are those of the driver kit, internal/launch):
//
//  1. driver.Request.Resume must be a UUID, the form of Gemini CLI's
//     session ids (Result.SessionID); anything else is refused before the
//     start with an error wrapping driver.ErrInvalidSessionID and
//     driver.ErrResumeRejected. Gemini CLI would also take "latest" or an
//     index; the driver does not.
//  2. Model, ApprovalMode, the session id and the policy are passed as
//     `--name=value`, one argument each, which Gemini CLI 0.61.0 (yargs)
//     reads as the option's value whatever it starts with. --policy takes
//     a list, split at commas and continued by the arguments after it up
//     to the next option: it comes first (twice when the run has a policy
//     of its tools, see "Tools and turns"), followed by --output-format,
//     and a cache root whose overlay path holds a comma is refused before
//     the start.
//  3. The prompt is on standard input and the workspace is the working
//     folder: neither is an argument.
//  4. [Config.Args] are passed as they are, after the driver's own: they
//     are options by design.
//  5. Arguments from someone else (a command line's user) are checked
//     with [Descriptor]'s CheckArgs before they become Args.
//
// # Tools and turns
//
// [Config.AllowedTools] and [Config.DisallowedTools] become rules of a
// policy file of the run's own (allow at priority 500, deny at 900), in a
// new folder under the temporary folder, passed as a second --policy and
// removed when the run ends; a tool name outside letters, digits, "_",
// "." and "-" is refused before the start. Gemini CLI has no flag for a
// turn limit: it reads model.maxSessionTurns from its settings.json (the
// user's, which the overlay links to), and the driver does not change it.
//
// On Windows, a Command that is a batch file (the gemini.cmd shim npm
// installs) runs through cmd.exe, and an argument holding one of
// " % ! ^ & | < > ( ) or a line break is refused before the start; set
// Command to the node program and Args to the CLI's script to pass such
// values. The overlay's links need the right to make symbolic links on
// Windows (Developer Mode); where links cannot be made the run fails
// with an error naming the link.
//
// Cancelling the context interrupts the agent (SIGINT to its process
// group, SIGKILL after [Config.GracePeriod]), and the error wraps the
// context's. Gemini CLI exits 0 without a result line when interrupted;
// the driver reports the cancellation. On macOS the process group is
// signalled as on Linux; descendants that left the group are found only
// on Linux.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// Config configures the Gemini CLI driver. The zero value runs `gemini`
// from PATH with the user's settings.
type Config struct {
	// Command is the gemini program: a path, or a name looked up on the
	// agent's PATH (Env's, else this process's). Default "gemini".
	Command string
	// Model is passed as --model. Default: the user's settings, else
	// Gemini CLI's "auto", which asks a router model first.
	Model string
	// ApprovalMode is passed as --approval-mode ("default", "auto_edit",
	// "yolo", "plan"). Default: the user's settings. Whatever the mode,
	// the driver's policy offers the activate_skill tool.
	ApprovalMode string
	// AllowedTools are tools that run without asking, such as
	// "run_shell_command": each becomes an allow rule of a policy file of
	// the run's own, passed with --policy (Gemini CLI 0.61.0's
	// --allowed-tools is deprecated for its policy engine). A headless
	// run removes the tools that would ask (run_shell_command,
	// write_file, replace, web_fetch) unless allowed so. Default none.
	AllowedTools []string
	// DisallowedTools are tools that never run, whatever ApprovalMode
	// says ("yolo" included): each becomes a deny rule of the run's
	// policy, which wins over its allow rules. Default none.
	DisallowedTools []string
	// RespectTrust leaves out --skip-trust, so that Gemini CLI's own
	// trust decisions apply: a run in a folder the user has not trusted
	// fails. Default false: the workspace is trusted for the run.
	RespectTrust bool
	// Args are extra arguments, placed after the driver's own and passed
	// as they are: they are options by design (see "Arguments"), so never
	// put a value from anyone else in them; check arguments from someone
	// else with [Descriptor]'s CheckArgs first. Default none.
	Args []string
	// Env is added to the process's environment for the agent (a later
	// entry wins). GEMINI_CLI_HOME in it names the user's home for Gemini
	// CLI. Default none.
	Env []string
	// Home is the user's home for Gemini CLI, the folder holding .gemini
	// and .agents, which the overlay links to. Default: $GEMINI_CLI_HOME,
	// else the home folder.
	Home string
	// WithoutUserSkills leaves the user's skills (~/.agents/skills and
	// ~/.gemini/skills of Home) out of runs: the overlay home links
	// neither, and a skill there is no shadow. The workspace's skills
	// folders are read and checked all the same. Default false: the
	// user's skills are there, as for the user's own Gemini CLI.
	WithoutUserSkills bool
	// CacheRoot is the folder that holds the overlay homes (under
	// homes/gemini) for a request that names none: a request's own
	// [driver.Request.CacheRoot] always wins. Default:
	// skill.NewCache().Root().
	CacheRoot string
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type geminiDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*geminiDriver)(nil)

// Descriptor returns this driver's facts about Gemini CLI: its id,
// program, session ids and permission modes, and how driver.Settings
// map to [Config] (see driver.Descriptor). Its CheckArgs checks
// arguments given on someone else's behalf (a command line's user)
// before they become [Config.Args], by the rules of driver.Descriptor's
// CheckArgs (a "--no-name" is refused with its name: yargs reads it as
// the negation). The options the driver sets itself are --policy,
// --output-format, --resume, --session-id, --prompt and
// --prompt-interactive; those it sets from a Config field are --model,
// --approval-mode, --yolo, --allowed-tools and --skip-trust.
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "gemini", ID: "gemini-cli", Agent: "Gemini CLI", Program: "gemini",
		Package: "@google/gemini-cli", Install: "npm i -g @google/gemini-cli",
		Folders:    driver.Folders{Dir: "homes/gemini", Sessions: ".gemini/tmp/*/chats/session-*.jsonl"},
		SessionIDs: launch.UUIDs(),
		Provider:   "takes GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL",
		Auth:       "check GEMINI_API_KEY or your login",
		Modes:      []string{"default", "auto_edit", "yolo", "plan"},
		Bypass:     "yolo",
		Mode:       driver.Setting{Option: "--approval-mode", Field: "ApprovalMode"},
		Skip:       driver.Setting{Option: "--approval-mode=yolo", Field: "ApprovalMode"},
		Allowed:    driver.Setting{Option: "an allow rule of the run's policy (run_shell_command)", Field: "AllowedTools"},
		Denied:     driver.Setting{Option: "a deny rule of the run's policy", Field: "DisallowedTools"},
		Turns:      driver.Setting{Instead: "Gemini CLI has no flag for it: set model.maxSessionTurns in its settings.json"},
		CheckArgs:  checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, ApprovalMode: s.Mode("yolo"),
				AllowedTools: s.AllowedTools, DisallowedTools: s.DisallowedTools, Args: s.Args, WithoutUserSkills: s.WithoutUserSkills})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "Gemini CLI overlay home",
		Magic: "agentadaptor gemini home v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs Gemini CLI as c says. It is
// safe for concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Args = slices.Clone(c.Args)
	c.AllowedTools = slices.Clone(c.AllowedTools)
	c.DisallowedTools = slices.Clone(c.DisallowedTools)
	return &geminiDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// Exit codes of Gemini CLI 0.61.0.
const (
	exitBadInput  = 42 // bad input, a session it cannot resume
	exitUntrusted = 55 // the workspace is not trusted
)

// Run runs Gemini CLI once for req.
func (d *geminiDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	return launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		userHome, err := d.userHome(l.Env)
		if err != nil {
			return nil, err
		}
		if err := checkAuth(l.Env, userHome, l.Workspace); err != nil {
			return nil, err
		}
		if err := launch.CheckBaseURL(ctx, "gemini", l.Env, "GOOGLE_GEMINI_BASE_URL"); err != nil {
			return nil, err
		}
		dirs := otherSkillsDirs(l.Workspace, userHome)
		if d.c.WithoutUserSkills {
			dirs = otherSkillsDirs(l.Workspace, "") // the user's are not there
		}
		if err := checkShadows(ctx, req.Skills, dirs); err != nil {
			return nil, err
		}
		overlay, release, err := home(ctx, launch.RunCacheRoot(req, d.c.CacheRoot), req.Skills, userHome, !d.c.WithoutUserSkills)
		if err != nil {
			var shadow *driver.ShadowError
			if errors.As(err, &shadow) || ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("gemini: %w", err)
		}
		l.Defer(release) // the run's lease on its home
		policy := filepath.Join(overlay, policyFile)
		if strings.Contains(policy, ",") {
			// Gemini CLI splits --policy's value at commas.
			return nil, fmt.Errorf("gemini: the overlay home %s holds a comma, which Gemini CLI reads as a list of policies; use a cache root without one", overlay)
		}
		tools, removeTools, err := d.c.writeToolPolicy()
		if err != nil {
			return nil, err
		}
		l.Defer(removeTools)
		args, err := l.Args(d.args(req, policy, tools))
		if err != nil {
			return nil, err
		}
		emit := serial(req.Events)
		p := &parser{emit: emit}
		if emit != nil {
			l.StderrLine = stderrParser{emit: emit}.line
		}
		return &launch.Plan{
			Args: args,
			Env:  process.MergeEnv(l.Env, []string{"GEMINI_CLI_HOME=" + overlay, "GEMINI_CLI_NO_RELAUNCH=true"}),
			Line: func(b []byte) error {
				p.parse(b)
				return nil
			},
			Outcome: func(e launch.Ended) (*driver.Result, error) {
				return outcome(e.Path, req, overlay, userHome, p, e.Exit, e.Err)
			},
		}, nil
	})
}

// userHome is the user's home for Gemini CLI: Config.Home, else
// $GEMINI_CLI_HOME of the agent's environment, else $HOME, else the home
// folder.
func (d *geminiDriver) userHome(env []string) (string, error) {
	h := d.c.Home
	if h == "" {
		h = process.Getenv(env, "GEMINI_CLI_HOME")
	}
	if h == "" {
		h = process.Getenv(env, "HOME")
	}
	if h == "" {
		var err error
		if h, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("gemini: find the user's home: %w (set gemini.Config.Home)", err)
		}
	}
	return filepath.Abs(h)
}

// args builds the command line (see "Arguments"); tools is the run's
// policy of AllowedTools and DisallowedTools, "" when it has none.
func (d *geminiDriver) args(req *driver.Request, policy, tools string) *launch.Args {
	// --policy takes a list: yargs reads the arguments after it as more
	// policies up to the next option, so it comes first, followed by one
	// the driver always passes. The prompt is on standard input, which is
	// not a terminal: that makes the run headless.
	a := launch.NewArgs().Value("--policy", policy).Value("--policy", tools)
	a.Value("--output-format", "stream-json")
	a.Value("--model", d.c.Model)
	a.Value("--approval-mode", d.c.ApprovalMode)
	if !d.c.RespectTrust {
		a.Flag("--skip-trust")
	}
	a.Value("--resume", req.Resume)
	return a.Extra(d.c.Args)
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--policy": "", "--output-format": "", "--resume": "", "--session-id": "",
		"--prompt": "", "--prompt-interactive": "",
		"--model":         "Model",
		"--approval-mode": "ApprovalMode",
		"--yolo":          "ApprovalMode",
		"--allowed-tools": "AllowedTools",
		"--skip-trust":    "RespectTrust",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("gemini", args, owned())
}

// outcome turns how the process ended and what it said into the result.
func outcome(prog string, req *driver.Request, overlay, userHome string, p *parser, exit process.Exit, runErr error) (*driver.Result, error) {
	end := launch.Ended{Name: "gemini", Path: prog, Exit: exit, Err: runErr}
	if runErr == nil {
		switch {
		case req.Resume != "" && exit.Code == exitBadInput && p.init == nil:
			return nil, fmt.Errorf("session %s: %w: %w", req.Resume, driver.ErrResumeRejected, end.ProcessError())
		case exit.Code == exitAuth && p.init == nil:
			return nil, authRefused(userHome, end.ProcessError())
		case exit.Code == exitUntrusted:
			return nil, fmt.Errorf("gemini: the workspace %s is not a trusted folder; trust it in Gemini CLI or leave gemini.Config.RespectTrust unset: %w", req.Workspace, end.ProcessError())
		}
		if missing := overridden(exit.Stderr, overlay, req.Skills); len(missing) > 0 {
			return nil, &driver.NotMountedError{Missing: missing}
		}
	}
	var sessionID string
	if p.init != nil {
		sessionID = p.init.SessionID
	}
	return end.Result(p.result, sessionID)
}

// conflictLine is Gemini CLI's warning that one skill overrides another
// of the same name: `Skill conflict detected: "N" from "NEW" is
// overriding the same skill from "OLD".`
var conflictLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Skill conflict detected: "([^"]*)" from "[^"]*" is overriding the same skill from "([^"]*)"`)
})

// overridden returns the runtime names of the run's skills whose mounted
// copy stderr says was overridden.
func overridden(stderr, overlay string, rs driver.ResolvedSkills) []string {
	mounted := filepath.Join(overlay, ".agents", "skills") + string(filepath.Separator)
	var out []string
	for _, m := range conflictLine().FindAllStringSubmatch(stderr, -1) {
		rest, ok := strings.CutPrefix(m[2], mounted)
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, string(filepath.Separator))
		if slices.ContainsFunc(rs.Entries, func(e driver.ResolvedSkill) bool { return e.RuntimeName == name }) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
