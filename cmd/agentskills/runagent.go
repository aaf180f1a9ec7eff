package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/skill"
)

// exitInterrupted is the exit code after Ctrl-C, as shells report SIGINT.
const exitInterrupted = 130

// exitTimedOut is the exit code of a run stopped by --run-timeout, as
// timeout(1) reports a command it stopped.
const exitTimedOut = 124

// errInterrupted is a run stopped by Ctrl-C or SIGTERM.
var errInterrupted = errors.New("interrupted")

// errRunTimedOut is the cause of the context of a run whose --run-timeout
// passed.
var errRunTimedOut = errors.New("run timed out")

type runOptions struct {
	io         *streams
	agent      string
	skills     []string
	workspace  string
	json       bool
	resume     string
	model      string
	timeout    time.Duration
	runTimeout time.Duration
	quiet      bool
	agentFlags
	trust     trustFlags
	emitFlags emitFlags
}

func newRunCmd(s *streams) *cobra.Command {
	opts := &runOptions{io: s}
	cmd := &cobra.Command{
		Use:   "run --agent " + runAgents("|") + " [--skill SOURCE]... [--] PROMPT",
		Short: "Run an agent once with exactly the given skills",
		Long: wrap("Run runs a coding agent once, headless, with exactly the skills of each --skill SOURCE mounted for this run "+
			"(SOURCE as for add: a skill folder, a folder of skills, an archive or its URL). "+
			"Nothing is installed: the agent's own folders and the workspace are left as they are. "+
			"The environment passes through to the agent (its login, its model settings): "+providers()+"; see \"Pointing an agent at a model provider\" in docs/agents.md.", "", "", 74) + `

PROMPT is the arguments joined with spaces; "-" reads it from standard
input. An empty prompt is bad usage.

While the agent works, run prints on stderr its start (version, session
id, the skills it reports, the command that resumes the session), each
retry of a failed model call and each error the agent reports, and one
line per tool call; --quiet turns that off, as --json does. A run stopped
by Ctrl-C or --run-timeout prints its session and how to resume it.

The final answer goes to stdout, with control characters other than line
feeds and tabs shown escaped (\x1b), as in all output meant for a person.
With --json, every event goes to stdout as a JSON line instead (the
schema is at the end).

` + wrap("--resume continues an earlier session. The id must have the form of the agent's session ids, as session_id of --json gives ("+sessionForms()+"); any other is bad input, refused before the agent starts. "+
			"A session this tool started is resumed only with the skills and workspace it started with; anything else is refused before the agent starts. "+
			"The sessions are recorded under the user's state folder.", "", "", 74) + `

Gemini CLI is run with --skip-trust: the workspace is trusted for the run
(its own .gemini settings and skills apply).

Some agents also load skills from folders below the workspace's top:
Claude Code loads pkg/.claude/skills beside the run's skills as soon as
it reads a file in pkg/ (not when git ignores pkg/). Such a folder
holding a skill refuses the run before the agent starts, naming each
folder (exit 1): move or rename them, git-ignore the folders that hold
them, or pass --workspace a folder without them. No flag lets them in: a
run gives the agent exactly the skills of --skill. The search reads at
most 500000 entries and goes 64 folders deep (git-ignored folders are
skipped where the agent skips them); a larger workspace is refused too.

--timeout gives up fetching a skill source that receives nothing for that
long, as for add. --run-timeout bounds the whole run, fetching the skills
included: when it passes, the agent and its children are stopped as on
Ctrl-C and the run exits 124. By default a run has no time limit.

Exit codes: 0 success, 1 the agent, a check or a download failed, 2 bad
usage or input (a missing skill source, a session id of the wrong form),
124 --run-timeout passed, 130 interrupted (the agent and its children are
stopped either way).

` + runTrustHelp + `

` + emitHelp + `

` + runSchemaHelp(),
		Example: `  agentskills run --agent claude-code --skill ./skills/review "Review the last commit"
  agentskills run --agent codex --skill ./skills/review "Review the last commit"
  agentskills run --agent gemini-cli --skill ./skills/review "Review the last commit"
  agentskills run --agent claude-code --skill ./kit.tgz --json -- "Release notes for v2"
  agentskills run --agent claude-code --skill ./skills/review --resume 4f1c... "And the tests?"`,
		Args: requireArgs("PROMPT"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if err := opts.emitFlags.check(); err != nil {
				return err
			}
			prompt, err := readRunPrompt(opts.io.in, args)
			if err != nil {
				return err
			}
			if opts.emitFlags.emit != "" {
				return emitRun(cmd.Context(), opts, prompt)
			}
			return runAgent(cmd.Context(), opts, prompt)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.agent, "agent", "a", "", "the agent to run: "+runAgents(", ")+" (required)")
	f.StringArrayVarP(&opts.skills, "skill", "s", nil, "a skill source to mount (repeatable)")
	f.StringVarP(&opts.workspace, "workspace", "w", "", "the folder the agent works in (default: the current folder)")
	f.BoolVar(&opts.json, "json", false, "print every event as a JSON line")
	f.StringVar(&opts.resume, "resume", "", "continue the agent's session with this id")
	f.StringVarP(&opts.model, "model", "m", "", "the model to use (default: the agent's)")
	f.DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up fetching a skill source that receives nothing for this long")
	f.DurationVar(&opts.runTimeout, "run-timeout", 0, "stop the whole run, the agent included, after this long (default: no limit)")
	f.BoolVarP(&opts.quiet, "quiet", "q", false, "print no progress on stderr, only the answer and errors")
	opts.agentFlags.register(cmd)
	registerRunTrust(cmd, &opts.trust)
	opts.emitFlags.register(cmd, "kubernetes (a Job) or agent-sandbox (a SandboxTemplate and SandboxClaim)")
	return cmd
}

// runAgent runs the command within --run-timeout.
func runAgent(ctx context.Context, opts *runOptions, prompt string) error {
	if opts.runTimeout < 0 {
		return usageErrorf("--run-timeout %s is negative: give a duration such as 10m, or 0 for no limit", opts.runTimeout)
	}
	if opts.runTimeout == 0 {
		return runAgentIn(ctx, opts, prompt)
	}
	runCtx, cancel := context.WithTimeoutCause(ctx, opts.runTimeout, errRunTimedOut)
	defer cancel()
	err := runAgentIn(runCtx, opts, prompt)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errRunTimedOut) {
		return &runTimedOutError{after: opts.runTimeout, err: err}
	}
	return err
}

// runTimedOutError is a run stopped by --run-timeout: exit code
// exitTimedOut.
type runTimedOutError struct {
	after time.Duration
	err   error
}

func (e *runTimedOutError) Error() string {
	return fmt.Sprintf("%v after %s, and everything it started was stopped; give it longer with --run-timeout", errRunTimedOut, e.after)
}

func (e *runTimedOutError) Unwrap() []error { return []error{errRunTimedOut, e.err} }

func runAgentIn(ctx context.Context, opts *runOptions, prompt string) error {
	drv, err := runDriver(opts)
	if err != nil {
		return err
	}
	workspace, err := runWorkspace(opts.workspace)
	if err != nil {
		return err
	}
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	trust, err := loadRunTrust(ctx, &opts.trust, opts.skills, env, workspace, opts.timeout)
	if err != nil {
		return err
	}
	refs, err := trust.findSkills(ctx, install.New(env, install.WithDownloadTimeout(opts.timeout), install.WithSettingNames(settingFlags)), opts.skills)
	if err != nil {
		// A source that is not a skill is bad input; one that could not
		// be fetched is a failure, as for add.
		return interrupted(ctx, findErr(err))
	}
	return newAgentRun(opts, drv, refs, workspace, env, trust.agentOption()).run(ctx, prompt)
}

// findErr classifies an error of finding the skills of the sources as
// installErr does, except that a run stopped while it fetched is
// reported as interrupted by interrupted.
func findErr(err error) error {
	if errors.Is(err, install.ErrInterrupted) {
		return err
	}
	return installErr(err)
}

// findSkills finds the skills of each source.
func findSkills(ctx context.Context, finder *install.Installer, sources []string) ([]skill.Ref, error) {
	var refs []skill.Ref
	for _, src := range sources {
		found, err := finder.Find(ctx, install.FindRequest{Source: src})
		if err != nil {
			return nil, err
		}
		refs = append(refs, skill.SkillsAsRefs(found)...)
	}
	return refs, nil
}

// agentRun is one run of the run command: the agent with its skills and
// workspace, where its sessions are recorded, and where its events go.
type agentRun struct {
	opts      *runOptions
	agent     *adaptor.Agent
	sessions  adaptor.ThreadStore
	workspace string
	out       *eventWriter // nil: print the answer only
	progress  *runProgress
}

func newAgentRun(opts *runOptions, drv driver.Driver, refs []skill.Ref, workspace string, env install.Env, extra ...adaptor.Option) *agentRun {
	r := &agentRun{opts: opts, workspace: workspace, progress: newRunProgress(opts)}
	agentOpts := append([]adaptor.Option{adaptor.WithSkills(refs...), adaptor.WithWorkspace(workspace), adaptor.WithEvents(r.progress.event)}, extra...)
	if opts.json {
		r.out = &eventWriter{w: opts.io.data}
		agentOpts = append(agentOpts, adaptor.WithEvents(r.out.event))
	}
	r.agent = adaptor.New(drv, agentOpts...)
	r.sessions = adaptor.NewFileThreadStore(sessionsDir(env))
	return r
}

// run runs the agent on prompt, resuming the session asked for, and
// prints the result.
func (r *agentRun) run(ctx context.Context, prompt string) error {
	var callOpts []adaptor.CallOption
	if r.opts.resume != "" {
		recorded, err := checkResume(ctx, r.opts, r.agent, r.sessions, r.workspace)
		if err != nil {
			return r.withSession(interrupted(ctx, err), err)
		}
		callOpts = append(callOpts, adaptor.WithResume(r.opts.resume))
		if !recorded {
			// Said once the agent has started, that is once the driver
			// has taken the id.
			noted := false
			callOpts = append(callOpts, adaptor.WithEvents(func(driver.Event) {
				if !noted {
					noted = true
					fmt.Fprintf(r.opts.io.err, "agentskills run: session %s was not started by agentskills run here; its skills cannot be checked\n", r.opts.resume)
				}
			}))
		}
	}
	res, err := r.agent.Run(ctx, prompt, callOpts...)
	if err != nil {
		return r.failed(ctx, runError(err, r.opts.agent))
	}
	recordSession(ctx, r.opts, r.sessions, res)
	if r.out != nil {
		return r.out.result(res)
	}
	text := res.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err = io.WriteString(r.opts.io.out, text)
	return err
}

// failed classifies the error of a failed run, records the session of a
// run the agent ended with an error, and ends the --json output.
func (r *agentRun) failed(ctx context.Context, err error) error {
	var conflict *skill.SkillKeyConflictError
	if errors.As(err, &conflict) || errors.Is(err, skill.ErrRuntimeNameConflict) || errors.Is(err, driver.ErrInvalidSessionID) {
		return r.withSession(inputError{err}, err)
	}
	// A run the agent ended with an error, or one stopped after the
	// agent reported its session, still has its session.
	var agentErr *driver.AgentError
	session := r.progress.sessionID()
	if errors.As(err, &agentErr) && agentErr.Result != nil {
		session = agentErr.Result.SessionID
	}
	if session != "" && !errors.Is(err, driver.ErrResumeRejected) {
		// Not with the context of the run, which may be done.
		if report, rerr := r.agent.Inspect(context.WithoutCancel(ctx)); rerr == nil {
			failed := &adaptor.Result{Skills: report.Selected, Workspace: r.workspace, SessionID: session}
			recordSession(context.WithoutCancel(ctx), r.opts, r.sessions, failed)
		}
	}
	if ctx.Err() != nil {
		// Ctrl-C or --run-timeout: the agent was stopped, and how to
		// resume is said. What was stopped is cancelled contexts all the
		// way down: Ctrl-C says interrupted, once, and nothing more.
		r.progress.stopped()
		if errors.Is(ctx.Err(), context.Canceled) {
			return r.withSession(errInterrupted, err)
		}
		return r.withSession(err, err)
	}
	if agentErr != nil && !errors.Is(err, driver.ErrResumeRejected) {
		return r.withSession(r.progress.failure(agentErr), err)
	}
	return r.withSession(err, err)
}

// recordSession remembers which skills and workspace res's session
// started with, for a later --resume.
func recordSession(ctx context.Context, opts *runOptions, sessions adaptor.ThreadStore, res *adaptor.Result) {
	if res.SessionID == "" {
		return
	}
	if err := sessions.Save(ctx, res.SessionID, res.ThreadState()); err != nil {
		fmt.Fprintf(opts.io.err, "agentskills run: session %s not recorded: %v\n", res.SessionID, err)
	}
}

// checkResume refuses to resume a recorded session with other skills or
// in another workspace; it reports whether the session is recorded.
func checkResume(ctx context.Context, opts *runOptions, agent *adaptor.Agent, sessions adaptor.ThreadStore, workspace string) (recorded bool, err error) {
	st, err := sessions.Load(ctx, opts.resume)
	if err != nil || st == nil {
		return false, err
	}
	report, err := agent.Inspect(ctx)
	if err != nil {
		return true, err
	}
	return true, st.Check(report.Selected, workspace)
}

// interrupted turns an error of a run stopped by Ctrl-C into errInterrupted.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %w", errInterrupted, err)
	}
	return err
}

func runWorkspace(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", inputError{fmt.Errorf("workspace: %w", err)}
	}
	if !fi.IsDir() {
		return "", inputError{fmt.Errorf("workspace %s is not a folder", dir)}
	}
	return abs, nil
}

// sessionsDir is where run records its sessions:
// $XDG_STATE_HOME/agentskills/sessions, else
// ~/.local/state/agentskills/sessions.
func sessionsDir(env install.Env) string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentskills", "sessions")
	}
	return filepath.Join(env.Home, ".local", "state", "agentskills", "sessions")
}
