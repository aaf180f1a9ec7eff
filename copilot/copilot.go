package copilot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/launch"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// Config configures the Copilot CLI driver. The zero value runs the
// native program of the `copilot` on PATH with the CLI's own defaults.
type Config struct {
	// Command is the copilot program: a path, or a name looked up on the
	// agent's PATH (Env's, else this process's). When it is the npm
	// launcher, the native program beside it runs instead (see "The
	// run"). Default "copilot".
	Command string
	// Model is passed as --model. Default: the CLI's (COPILOT_MODEL or
	// the user's settings).
	Model string
	// AllowedTools are passed as --allow-tool, one argument each: tools
	// that run without asking ("shell(git:*)", "write"). The skill tool
	// is always allowed. Default none.
	AllowedTools []string
	// DeniedTools are passed as --deny-tool, one argument each: tools
	// that never run, whatever else allows them. Default none.
	DeniedTools []string
	// AllowAllTools passes --allow-all-tools: every tool runs without
	// asking. Default false.
	AllowAllTools bool
	// Args are extra arguments, placed after the driver's own and passed
	// as they are: they are options by design (see "Arguments"), so
	// never put a value from anyone else in them; check arguments from
	// someone else with [Descriptor]'s CheckArgs first. Default none.
	Args []string
	// Env is added to the process's environment for the agent (a later
	// entry wins over an earlier one with the same name). Default none.
	Env []string
	// CacheRoot is the folder that holds skill mounts (under
	// mounts/copilot) for a request that names none: a request's own
	// [driver.Request.CacheRoot] always wins. Default:
	// skill.NewCache().Root().
	CacheRoot string
	// GracePeriod is how long a cancelled run has between SIGINT and
	// SIGKILL. Default 5s.
	GracePeriod time.Duration
}

type copilotDriver struct {
	c    Config
	prog launch.Program
}

var _ driver.Driver = (*copilotDriver)(nil)

// Descriptor returns this driver's facts about GitHub Copilot CLI: its
// id, program, session ids and permission modes, and how
// driver.Settings map to [Config] (see driver.Descriptor). Its
// CheckArgs checks arguments given on someone else's behalf (a command
// line's user) before they become [Config.Args], by the rules of
// driver.Descriptor's CheckArgs. The options the driver sets itself are
// --output-format, --resume, --continue, --session-id, --prompt,
// --interactive, --add-dir, --no-auto-update, --acp and --connect;
// those it sets from a Config field are --model, --allow-tool,
// --deny-tool, --allow-all-tools, --allow-all and --yolo.
func Descriptor() driver.Descriptor {
	return driver.Descriptor{
		Name: "copilot", ID: "github-copilot", Agent: "GitHub Copilot CLI", Program: "copilot",
		Package: "@github/copilot", Install: "npm i -g @github/copilot",
		Folders:    driver.Folders{Dir: "mounts/copilot"},
		SessionIDs: launch.UUIDs(),
		Provider:   "takes a GitHub login (copilot login, or GH_TOKEN), or COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_API_KEY and COPILOT_MODEL",
		Mode:       driver.Setting{Instead: "allow tools by name with --allowed-tools, or all of them with --skip-permissions"},
		Skip:       driver.Setting{Option: "--allow-all-tools", Field: "AllowAllTools"},
		Allowed:    driver.Setting{Option: "--allow-tool", Field: "AllowedTools"},
		Denied:     driver.Setting{Option: "--deny-tool", Field: "DeniedTools"},
		Turns:      driver.Setting{Instead: "Copilot CLI has no turn limit in its prompt mode"},
		CheckArgs:  checkArgs,
		New: func(s driver.Settings) driver.Driver {
			return Driver(Config{Command: s.Command, Model: s.Model, AllowAllTools: s.SkipPermissions,
				AllowedTools: s.AllowedTools, DeniedTools: s.DisallowedTools, Args: s.Args})
		},
	}
}

// folders is the kind of the folders the driver keeps under the cache
// root for its runs (internal/agentdir).
func folders() agentdir.Kind {
	d := Descriptor()
	return agentdir.Kind{Dir: d.Folders.Dir, Agent: d.ID, Name: "GitHub Copilot CLI skill mount",
		Magic: "agentadaptor copilot mount v1", Sessions: d.Folders.Sessions}
}

// Driver returns a driver.Driver that runs Copilot CLI as c says. It is
// safe for concurrent use; concurrent runs are separate processes.
func Driver(c Config) driver.Driver {
	c.CacheRoot = launch.CacheRoot(c.CacheRoot)
	c.Args = slices.Clone(c.Args)
	c.AllowedTools = slices.Clone(c.AllowedTools)
	c.DeniedTools = slices.Clone(c.DeniedTools)
	return &copilotDriver{c: c, prog: launch.ProgramOf(Descriptor(), c.Command, c.Env)}
}

// Run runs Copilot CLI once for req.
func (d *copilotDriver) Run(ctx context.Context, req *driver.Request) (*driver.Result, error) {
	return launch.Run(ctx, req, d.prog, d.c.GracePeriod, func(ctx context.Context, l *launch.Launch) (*launch.Plan, error) {
		var err error
		if l.Path, err = native(l.Path, runtime.GOOS, runtime.GOARCH); err != nil {
			return nil, err
		}
		if err := d.checkProvider(l.Env); err != nil {
			return nil, err
		}
		if err := launch.CheckBaseURL(ctx, "copilot", l.Env, "COPILOT_PROVIDER_BASE_URL"); err != nil {
			return nil, err
		}
		mountDir := ""
		if len(req.Skills.Entries) > 0 {
			if err := checkShadows(ctx, req.Skills, otherSkillsDirs(l.Workspace, process.HomeDir(l.Env))); err != nil {
				return nil, err
			}
			dir, release, err := mount(ctx, launch.RunCacheRoot(req, d.c.CacheRoot), req.Skills)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				return nil, fmt.Errorf("copilot: %w", err)
			}
			l.Defer(release) // the run's lease on its mount
			mountDir = dir
		}
		session := req.Resume
		if session == "" {
			session = newSessionID()
		}
		args, err := l.Args(d.args(req, mountDir, session))
		if err != nil {
			return nil, err
		}
		p := &parser{emit: req.Events, session: session}
		return &launch.Plan{
			Args: args,
			Line: func(b []byte) error {
				p.parse(b)
				return nil
			},
			Outcome: func(e launch.Ended) (*driver.Result, error) { return outcome(l, req, p, e.Exit, e.Err) },
		}, nil
	})
}

// args builds the command line (see "Arguments"); mountDir is the run's
// mount, "" without skills, and session the run's session: req.Resume,
// else a new id, passed as --session-id.
func (d *copilotDriver) args(req *driver.Request, mountDir, session string) *launch.Args {
	a := launch.NewArgs().Value("--output-format", "json").Flag("--no-auto-update")
	a.Value("--add-dir", mountDir)
	a.Value("--allow-tool", skillTool)
	a.Each("--allow-tool", d.c.AllowedTools)
	a.Each("--deny-tool", d.c.DeniedTools)
	if d.c.AllowAllTools {
		a.Flag("--allow-all-tools")
	}
	a.Value("--model", d.c.Model)
	if req.Resume != "" {
		a.Value("--resume", req.Resume)
	} else {
		a.Value("--session-id", session)
	}
	// The prompt is on standard input.
	return a.Extra(d.c.Args)
}

// owned returns the options the driver sets: itself ("") or from a
// Config field.
func owned() launch.Owned {
	return launch.Owned{
		"--output-format": "", "--resume": "", "--continue": "", "--session-id": "",
		"--prompt": "", "--interactive": "", "--add-dir": "", "--no-auto-update": "",
		"--acp": "", "--connect": "",
		"--model":           "Model",
		"--allow-tool":      "AllowedTools",
		"--deny-tool":       "DeniedTools",
		"--allow-all-tools": "AllowAllTools",
		"--allow-all":       "AllowAllTools",
		"--yolo":            "AllowAllTools",
	}
}

// checkArgs is [Descriptor]'s CheckArgs.
func checkArgs(args []string) error {
	return launch.CheckPassThrough("copilot", args, owned())
}

// noSession is how Copilot CLI 1.0.102 refuses a session it does not
// have, on its standard error, with exit status 1.
const noSession = "No session, task, or name matched"

// outcome turns how the process ended and what it said into the result,
// with the run's usage read from the session's events.
func outcome(l *launch.Launch, req *driver.Request, p *parser, exit process.Exit, runErr error) (*driver.Result, error) {
	end := launch.Ended{Name: "copilot", Path: l.Path, Exit: exit, Err: runErr}
	if runErr == nil && req.Resume != "" && p.result == nil && strings.Contains(exit.Stderr, noSession) {
		return nil, fmt.Errorf("session %s: %w: %w", req.Resume, driver.ErrResumeRejected, end.ProcessError())
	}
	if p.result != nil && p.result.SessionID != "" && launch.IsUUID(p.result.SessionID) {
		if u, err := sessionUsage(filepath.Join(copilotHome(l.Env), "session-state", p.result.SessionID, "events.jsonl")); err == nil {
			p.result.Usage = u
		} else {
			p.emit.Send(&driver.ErrorEvent{Message: "copilot: read the session's usage: " + err.Error()})
		}
	}
	if p.result != nil {
		p.emit.Send(p.result)
	}
	return end.Result(p.result, "")
}

// newSessionID returns a new random (version 4) UUID for a new session:
// Copilot CLI 1.0.102 starts a session with the id --session-id gives
// when it has none of that id, so the run knows its session before the
// agent's first line.
func newSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// copilotHome is Copilot CLI's folder of settings and sessions in env:
// $COPILOT_HOME, else ~/.copilot.
func copilotHome(env []string) string {
	if h := process.Getenv(env, "COPILOT_HOME"); h != "" {
		return h
	}
	return filepath.Join(process.HomeDir(env), ".copilot")
}
