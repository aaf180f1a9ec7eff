// Package codex drives Codex, OpenAI's coding agent CLI, with a run's
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
//		"github.com/agentadaptor/agentadaptor/codex"
//		"github.com/agentadaptor/agentadaptor/skill"
//	)
//
//	func main() {
//		agent := adaptor.New(codex.Driver(codex.Config{Model: "gpt-5-codex"}), // codex on PATH, a provider in ~/.codex/config.toml
//			adaptor.WithSkills(skill.Dir("./skills/review")))
//		res, err := agent.Run(context.Background(), "Review the open change")
//		if err != nil {
//			log.Fatal(err)
//		}
//		fmt.Println(res.Text, res.SessionID)
//	}
//
// The runnable example is in example_test.go (ExampleDriver, a run in a sandbox that may edit the workspace, printing each command Codex runs); go doc does not
// print examples, pkg.go.dev does.
//
// # The run
//
// A run is one `codex exec --json --skip-git-repo-check -- -`, with the
// prompt on standard input ("-") and the request's workspace as the
// working folder, plus the flags the [Config] asks for;
// driver.Request.Resume becomes `codex exec --json ... resume -- ID -`.
// The environment is the process's,
// with [Config.Env] added and CODEX_HOME set to the managed home below.
// The agent's JSON lines become driver events (a command that reads a
// SKILL.md and succeeds is also a driver.SkillEvent, named for the
// SKILL.md's folder, in / or \ paths alike: Codex loads a skill so);
// the final text is the last
// agent message, the session id the thread id, and the usage that of
// turn.completed (for a resumed thread Codex reports the whole thread's
// usage, not this run's).
//
// # The managed Codex home
//
// Codex has no flag that adds a skill folder: it reads $CODEX_HOME/skills
// (and the repository's .agents/skills, ~/.agents/skills and
// /etc/codex/skills). So each run gets a Codex home of its own, managed by
// the driver:
//
//  1. One home per skill set, under the cache root:
//     <root>/homes/codex/<key>, where the key digests the set's fingerprint,
//     the folders it links to, the user's Codex home and whether the user's
//     skills are included (rule 8 of internal/agentdir: the bytes this
//     driver hashed before the kit, so an upgrade finds the homes, and the
//     sessions, of earlier runs). Codex writes its sessions and state
//     there, so a home persists: that is what lets a later run resume a
//     session, and why two runs with different sets never share one.
//  2. skills/<runtime-name> is a link to each resolved skill folder. The
//     user's own skills ($CODEX_HOME/skills of the user, default ~/.codex)
//     are linked beside them, unless [Config.WithoutUserSkills]; a user
//     skill named like one of the run's with other content fails the run
//     with a *driver.ShadowError naming both folders (the same content is
//     fine). Entries Codex keeps there itself (.system) are left alone.
//     Before every run the links are brought up to date with the user's
//     skills.
//  3. config.toml is a copy of the user's (a regular file of at most 1
//     MiB), copied again whenever the user's changes (Codex's own edits to
//     the managed copy last until then), so the user's model, provider and
//     settings apply. AGENTS.md, AGENTS.override.md, prompts/ and rules/
//     are links to the user's. Other files of the user's home are not
//     there: a path in config.toml relative to the Codex home resolves in
//     the managed home, so give such paths absolute.
//  4. auth.json is a link to the user's, so a logged-in user stays logged
//     in. A copy would not do: a token refresh rotates the refresh token,
//     and the copy left behind would hold a spent one. Codex 0.169.0, when
//     it refreshes, follows the link, writes a temporary file beside the
//     link's target and renames it over the target (checked by running it
//     against a stand-in token server): the link survives and the user's
//     file gets the new tokens, for both homes. Should a Codex replace the
//     link itself with a file (a newer login), the driver leaves that file
//     in the managed home and does not link it again; the user's own file
//     is never written by the driver. Credentials kept in the system
//     keyring are stored by Codex under a key derived from the Codex
//     home's path, so a managed home does not see them: use file storage
//     or OPENAI_API_KEY with this driver.
//  5. Codex installs its built-in skills into skills/.system on its first
//     start in a home, and concurrent first starts race and can leave them
//     half installed for good; so while a home has no skills/.system, runs
//     in it take turns (a file lock, waited for as long as the context
//     allows). Later runs share the home freely.
//  6. Nothing is written to the user's Codex home or to the workspace by
//     the driver. Codex itself writes to the user's Codex home only when
//     it saves a login: when it refreshes a ChatGPT login that is due
//     (rule 4), it writes the new tokens to a temporary .auth-XXXXXX
//     beside the user's auth.json, renames it over that file, and leaves
//     an empty auth.json.lock there, the lock it takes on the file the
//     link resolves to: the same two files its runs in the user's own
//     home leave. A run that authenticates with an API key, or whose
//     login is not due, only reads auth.json: nothing in the user's home
//     changes. The lock cannot be kept out while the new tokens are to
//     reach the user's file, since Codex 0.169.0 puts it beside whatever
//     file the link resolves to. Both cases are tested against the real
//     Codex.
//  7. Every folder from the cache root down to the home (the root,
//     homes/, homes/codex/ and the home) must be a real folder of the
//     current user that neither its group nor every user may write, and
//     the folders above the root must be safe from other users too;
//     otherwise the run fails before Codex starts, with an error that
//     names the folder. On Windows ownership and modes are not checked.
//  8. A run holds a lease on its home from before it is prepared until
//     the run is over (a shared lock on <key>.lease beside it, whose time
//     records the last use). skill.Cache.CollectDriverFolders (`agentskills
//     cache gc`) removes homes unused for its age, never one a run holds,
//     and with a home the sessions it holds, which then can no longer be
//     resumed (it reports how many); skill.Cache.GC keeps every skill tree
//     a remaining home links to. The rules are those of internal/agentdir.
//
// # Checks
//
//  1. Before the start: a skill named like one of the run's, with other
//     content, in the workspace's .agents/skills or .codex/skills or those
//     of a folder above it (up to the top of its git repository), in
//     ~/.agents/skills or in /etc/codex/skills, would be listed beside ours
//     (Codex lists both, neither wins): a *driver.ShadowError. The
//     folders are Codex's row of the agents table, and the check is the
//     driver kit's (internal/agents).
//  2. turn.failed is a *driver.AgentError; an output without
//     turn.completed is driver.ErrNoResult, or a *driver.ProcessError when
//     the process failed. A resume of a session Codex does not have is
//     driver.ErrResumeRejected, before Codex starts when the id is not a
//     UUID or has no session file in the managed home (Codex would start a
//     new thread under an odd id and send it the prompt), else when Codex
//     refuses it or reports another thread id (the run is stopped then). Codex does not report which skills it
//     loaded, so there is no check after the start; the InitEvent carries
//     the session id only.
//  3. Before the start: OPENAI_BASE_URL set with no model provider
//     configured is a *[ProviderError] holding the config.toml lines that
//     fix it, since Codex ignores that variable and would retry OpenAI's
//     own host for minutes; a model_provider inside a table, where Codex
//     ignores it, is named by its line. A loopback base_url of the
//     provider config.toml chooses, where nothing listens, is refused
//     naming it (both wrap driver.ErrProviderSetup).
//  4. Codex names the config.toml it read, the managed home's copy, in
//     its errors (a line it cannot parse): the driver puts the user's
//     config.toml, the file to edit, in its place in
//     driver.ProcessError.Stderr.
//
// # Arguments
//
// No value of a request or a Config can become an option of Codex (the
// rules are those of the driver kit, internal/launch):
//
//  1. driver.Request.Resume must be a UUID, the form of Codex's thread
//     ids (Result.SessionID); anything else is refused before the start
//     with an error wrapping driver.ErrInvalidSessionID and
//     driver.ErrResumeRejected. Codex would also take a thread's name;
//     the driver does not.
//  2. Model, Sandbox and each of Overrides are passed as `--model=X`,
//     `--sandbox=X` and `--config=KEY=VALUE`, one argument each, which
//     Codex 0.169.0 (clap) reads as the option's value whatever it starts
//     with.
//  3. The session id and "-" (the prompt is on standard input) follow a
//     single "--", so clap reads them as operands. The workspace is the
//     working folder, never an argument.
//  4. [Config.Args] are passed as they are, before the operands: they are
//     options by design.
//
// On Windows, a Command that is a batch file (the codex.cmd shim npm
// installs) runs through cmd.exe, and an argument holding one of
// " % ! ^ & | < > ( ) or a line break is refused before the start (a
// TOML string override holds quotes); set Command to the codex
// executable to pass such values.
//
// Cancelling the context interrupts the agent as the Claude Code driver
// does (SIGINT to its process group, SIGKILL after [Config.GracePeriod],
// and on Linux every descendant found by its tag or, under
// adaptor.AdoptOrphans, as an orphan), and the error wraps the context's.
// On Linux Codex dies with the host, even one killed with SIGKILL: the
// Node.js launcher by its parent-death signal, the native program it
// starts by the guard in its group.
package codex

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

// Config configures the Codex driver. The zero value runs `codex` from
// PATH with the user's settings.
type Config struct {
	// Command is the codex program: a path, or a name looked up on the
	// agent's PATH (Env's, else this process's). Default "codex".
	Command string
	// Model is passed as --model. Default: the user's configuration.
	Model string
	// Sandbox is passed as --sandbox ("read-only", "workspace-write",
	// "danger-full-access"). Default: the user's configuration.
	Sandbox string
	// BypassApprovalsAndSandbox passes
	// --dangerously-bypass-approvals-and-sandbox, which is Sandbox
	// "danger-full-access". Approvals themselves do not apply: `codex exec`
	// never asks (0.169.0 refuses approval_policy values other than
	// "never"). Default false.
	BypassApprovalsAndSandbox bool
	// Overrides are passed as --config=key=value each, overriding
	// config.toml. Default none.
	Overrides []string
	// Args are extra arguments, placed after the driver's own options and
	// passed as they are: they are options by design (see "Arguments"),
	// so never put a value from anyone else in them; check arguments from
	// someone else with [Descriptor]'s CheckArgs first. Default none.
	Args []string
	// Env is added to the process's environment for the agent (a later
	// entry wins). CODEX_HOME in it names the user's Codex home.
	// Default none.
	Env []string
	// Home is the user's Codex home, whose skills, config.toml, AGENTS.md
	// and auth.json the managed home uses. Default: $CODEX_HOME, else
	// ~/.codex.
	Home string
	// WithoutUserSkills leaves the skills of the user's Codex home
	// ($CODEX_HOME/skills) out of runs. Codex still reads ~/.agents/skills
	// and the repository's, which no setting turns off; a skill there named
	// like one of the run's is refused all the same. Default false: the
	// user's skills are there, as they are for the user's own Codex.
	WithoutUserSkills bool
	// CacheRoot is the folder that holds the managed homes (under
	// homes/codex) for a request that names none: a request's own
	// [driver.Request.CacheRoot], which an Agent sets to its
	// materializer's root, always wins, so the homes sit in the cache
	// that holds the skills. Default: skill.NewCache().Root(); set it
	// when calling the driver directly with skills from a cache with
	// another root.
	CacheRoot string
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type codexDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*codexDriver)(nil)

// Descriptor returns this driver's facts about Codex: its id, program,
// session ids and permission modes, and how driver.Settings map to
// [Config] (see driver.Descriptor). Its CheckArgs checks arguments
// given on someone else's behalf (a command line's user) before they
// become [Config.Args], by the rules of driver.Descriptor's CheckArgs
// (so never a subcommand or an operand). The options the driver sets
// itself are --json, --skip-git-repo-check and --cd (the workspace is
// the working folder); those it sets from a Config field are --model,
// --sandbox and --dangerously-bypass-approvals-and-sandbox.
// --config=KEY=VALUE is accepted, as [Config.Overrides] are.
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "codex", ID: "codex", Agent: "Codex", Program: "codex",
		Package: "@openai/codex", Install: "npm i -g @openai/codex",
		Folders:    driver.Folders{Dir: "homes/codex", Sessions: "sessions/*/*/*/rollout-*.jsonl"},
		SessionIDs: launch.UUIDs(),
		Provider:   "takes the provider of ~/.codex/config.toml (OPENAI_BASE_URL alone is refused before the start, with the lines to write there)",
		Auth:       "check OPENAI_API_KEY, the model provider in ~/.codex/config.toml, or your login",
		Modes:      []string{"read-only", "workspace-write", "danger-full-access"},
		Bypass:     "danger-full-access",
		Mode:       driver.Setting{Option: "--sandbox", Field: "Sandbox"},
		Skip:       driver.Setting{Option: "--dangerously-bypass-approvals-and-sandbox", Field: "BypassApprovalsAndSandbox"},
		Allowed:    driver.Setting{Instead: "what Codex may do is its sandbox: --permission-mode read-only, workspace-write or danger-full-access, or --skip-permissions"},
		Turns:      driver.Setting{Instead: "bound the run with --run-timeout instead"},
		CheckArgs:  checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, Sandbox: s.PermissionMode,
				BypassApprovalsAndSandbox: s.SkipPermissions, Args: s.Args, WithoutUserSkills: s.WithoutUserSkills})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "managed Codex home",
		Magic: "agentadaptor codex home v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs Codex as c says. It is safe for
// concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Overrides = slices.Clone(c.Overrides)
	c.Args = slices.Clone(c.Args)
	return &codexDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// Run runs Codex once for req.
func (d *codexDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	return launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		args, err := l.Args(d.args(req))
		if err != nil {
			return nil, err
		}
		managed, userConfig, release, err := d.managedHome(ctx, req, l)
		if err != nil {
			return nil, err
		}
		l.Defer(release) // the run's lease on its home
		unlock, err := firstRun(ctx, managed)
		if err != nil {
			return nil, fmt.Errorf("codex: %w", err)
		}
		l.Defer(unlock)
		p := &parser{emit: req.Events}
		var mismatch error
		return &launch.Plan{
			Args: args,
			Env:  process.MergeEnv(l.Env, []string{"CODEX_HOME=" + managed}),
			Line: func(b []byte) error {
				started := p.started
				p.parse(b)
				if !started && p.started && req.Resume != "" && !strings.EqualFold(p.threadID, req.Resume) {
					// Codex starts a new thread for an id that is not one
					// of its own instead of failing: stop it before it
					// answers.
					mismatch = fmt.Errorf("session %s: %w: codex started thread %s instead", req.Resume, driver.ErrResumeRejected, p.threadID)
					return mismatch
				}
				return nil
			},
			Outcome: func(e launch.Ended) (*driver.Result, error) {
				// Codex names the config.toml it read, the managed copy:
				// the user's is the one to edit.
				e.Exit.Stderr = strings.ReplaceAll(e.Exit.Stderr, filepath.Join(managed, "config.toml"), userConfig)
				if mismatch != nil {
					return nil, mismatch
				}
				return outcome(e.Path, req, p, e.Exit, e.Err)
			},
		}, nil
	})
}

// managedHome brings the managed Codex home of req's skills up to date,
// after the check for a model provider (checkProvider) and those for
// skills Codex would list beside the run's and, for
// a resume, for the session in that home. It returns the home's folder,
// the user's config.toml and the release of the run's lease on the home.
func (d *codexDriver) managedHome(ctx context.Context, req *driver.Request, l *launch.Launch) (managed, userConfig string, release func(), err error) {
	userHome, err := d.userHome(l.Env)
	if err != nil {
		return "", "", nil, err
	}
	if err := d.checkProvider(l.Env, userHome); err != nil {
		return "", "", nil, err
	}
	if err := d.checkProviderURL(ctx, userHome); err != nil {
		return "", "", nil, err
	}
	managed, release, err = home(ctx, launch.RunCacheRoot(req, d.c.CacheRoot), req.Skills, userHome, !d.c.WithoutUserSkills)
	if err != nil {
		var shadow *driver.ShadowError
		if errors.As(err, &shadow) || ctx.Err() != nil {
			return "", "", nil, err
		}
		return "", "", nil, fmt.Errorf("codex: %w", err)
	}
	if err := checkShadowsOf(ctx, req.Skills, otherSkillsDirs(l.Workspace, process.Getenv(l.Env, "HOME"))); err != nil {
		release()
		return "", "", nil, err
	}
	if req.Resume != "" {
		if err := checkResume(managed, req.Resume); err != nil {
			release()
			return "", "", nil, err
		}
	}
	return managed, filepath.Join(userHome, "config.toml"), release, nil
}

// userHome is the user's Codex home: Config.Home, else $CODEX_HOME of the
// agent's environment, else ~/.codex.
func (d *codexDriver) userHome(env []string) (string, error) {
	h := d.c.Home
	if h == "" {
		h = process.Getenv(env, "CODEX_HOME")
	}
	if h == "" {
		home := process.Getenv(env, "HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("codex: find the user's Codex home: %w (set codex.Config.Home)", err)
			}
		}
		h = filepath.Join(home, ".codex")
	}
	return filepath.Abs(h)
}

// args builds the command line (see "Arguments").
func (d *codexDriver) args(req *driver.Request) *launch.Args {
	a := launch.NewArgs("exec").Flag("--json").Flag("--skip-git-repo-check")
	a.Value("--model", d.c.Model)
	a.Value("--sandbox", d.c.Sandbox)
	if d.c.BypassApprovalsAndSandbox {
		a.Flag("--dangerously-bypass-approvals-and-sandbox")
	}
	a.Each("--config", d.c.Overrides)
	a.Extra(d.c.Args)
	if req.Resume != "" {
		a.Command("resume").Operands(req.Resume)
	}
	// The prompt is on standard input.
	return a.Operands("-")
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--json": "", "--skip-git-repo-check": "", "--cd": "",
		"--model":   "Model",
		"--sandbox": "Sandbox",
		"--dangerously-bypass-approvals-and-sandbox": "BypassApprovalsAndSandbox",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("codex", args, owned())
}

// outcome turns how the process ended and what it said into the result.
func outcome(prog string, req *driver.Request, p *parser, exit process.Exit, runErr error) (*driver.Result, error) {
	end := launch.Ended{Name: "codex", Path: prog, Exit: exit, Err: runErr}
	if runErr == nil && req.Resume != "" && !p.started && resumeRefused(exit.Stderr) {
		return nil, fmt.Errorf("session %s: %w: %w", req.Resume, driver.ErrResumeRejected, end.ProcessError())
	}
	return end.Result(p.result, p.threadID)
}

// checkResume refuses, before Codex starts, an id that has no session in
// the managed home, where Codex keeps them (Codex would start a new
// thread under it and send the prompt). launch.Prepare has checked that
// it is a UUID.
func checkResume(home, id string) error {
	pattern := filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+strings.ToLower(id)+".jsonl")
	if m, _ := filepath.Glob(pattern); len(m) == 0 {
		return fmt.Errorf("session %s: %w: it is not in %s; a session resumes only with the skill set it started with", id, driver.ErrResumeRejected, home)
	}
	return nil
}

// resumeRefused reports whether Codex's error output says it has no
// session of the id to resume.
func resumeRefused(stderr string) bool {
	s := strings.ToLower(stderr)
	return strings.Contains(s, "no rollout found") || strings.Contains(s, "no session found") ||
		strings.Contains(s, "thread not found")
}
