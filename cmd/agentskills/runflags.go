package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/copilot"
	"github.com/agentadaptor/agentadaptor/cursor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/opencode"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// agentFlags are run's flags that give the agent its tools and name its
// program, each mapped to a field of the agent's driver Config (see
// agentFlagsHelp).
type agentFlags struct {
	permissionMode  string
	skipPermissions bool
	allowedTools    []string
	disallowedTools []string
	maxTurns        int
	agentArgs       []string
	agentCommand    string
}

// agentFlagsHelp is the part of run's help about agentFlags.
const agentFlagsHelp = `

Headless, the agent cannot ask before it uses a tool, so it uses only
what it is allowed to. Each flag is mapped to the agent's own, and to the
same field of the Go driver's Config:

  --permission-mode MODE  the agent's own mode. claude-code: acceptEdits,
                          auto, bypassPermissions, manual, dontAsk, plan
                          (--permission-mode, Config.PermissionMode);
                          codex: its sandbox, read-only, workspace-write,
                          danger-full-access (--sandbox, Config.Sandbox);
                          gemini-cli: default, auto_edit, yolo, plan and
                          qwen-code: plan, default, auto-edit, auto, yolo
                          (--approval-mode, Config.ApprovalMode);
                          opencode: its agent, build, plan (--agent,
                          Config.Agent); cursor: force (--force,
                          Config.Force); github-copilot has none.
  --skip-permissions      the agent's bypass: it may run any command
                          without asking. claude-code
                          --dangerously-skip-permissions
                          (Config.SkipPermissions); codex
                          --dangerously-bypass-approvals-and-sandbox
                          (Config.BypassApprovalsAndSandbox); gemini-cli
                          and qwen-code --approval-mode=yolo; opencode
                          --auto (Config.Auto); github-copilot
                          --allow-all-tools (Config.AllowAllTools);
                          cursor --force. A bypass, this or a mode that
                          is one, prints a warning.
  --allowed-tools TOOL    a tool that runs without asking (repeatable).
                          claude-code --allowed-tools ("Bash(touch *)");
                          gemini-cli an allow rule of the run's policy
                          (run_shell_command); qwen-code --allowed-tools
                          (Config.AllowedTools), which in its default mode
                          still declines a command that writes files
                          (add --permission-mode auto-edit);
                          github-copilot --allow-tool. Codex, Cursor and
                          OpenCode have none (OpenCode's config's
                          permission says).
  --disallowed-tools TOOL a tool that never runs (repeatable). claude-code
                          --disallowed-tools; gemini-cli a deny rule;
                          qwen-code --exclude-tools
                          (Config.DisallowedTools); github-copilot
                          --deny-tool (Config.DeniedTools). Codex, Cursor
                          and OpenCode have none.
  --max-turns N           end the run after N turns. claude-code
                          --max-turns (Config.MaxTurns); qwen-code
                          --max-session-turns (Config.MaxSessionTurns).
                          The other agents have no such flag.
  --agent-arg ARG         pass any other option of the agent through
                          (repeatable, Config.Args), one --name or
                          --name=value each, as in
                          --agent-arg=--append-system-prompt=Be brief.
                          A short option, "--", a value on its own, a
                          NUL, or an option run sets itself (the output
                          format, the session, the skill mount, the
                          prompt, and the options of the flags above)
                          is refused before the agent starts.
  --agent-command PATH    the agent's program (Config.Command), else
                          $AGENTSKILLS_<AGENT>_COMMAND (the agent's id in
                          capitals, dashes as underscores:
                          $AGENTSKILLS_CLAUDE_CODE_COMMAND,
                          $AGENTSKILLS_GITHUB_COPILOT_COMMAND, ...), else
                          its name on PATH (claude, codex, gemini, qwen,
                          opencode, copilot, agent).

A flag the agent has no counterpart for is refused before it starts
(exit 2), saying what the agent offers instead.`

// register adds the flags to run's command and their help to its own.
func (f *agentFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.permissionMode, "permission-mode", "", "the agent's own permission mode (see below; default: the agent's)")
	fs.BoolVar(&f.skipPermissions, "skip-permissions", false, "let the agent run any command without asking (its bypass mode)")
	fs.StringArrayVar(&f.allowedTools, "allowed-tools", nil, "a tool the agent may use without asking (repeatable)")
	fs.StringArrayVar(&f.disallowedTools, "disallowed-tools", nil, "a tool the agent must never use (repeatable)")
	fs.IntVar(&f.maxTurns, "max-turns", 0, "end the run after this many agent turns (default: no limit)")
	fs.StringArrayVar(&f.agentArgs, "agent-arg", nil, "another option for the agent, --name or --name=value (repeatable)")
	fs.StringVar(&f.agentCommand, "agent-command", "", "the agent's program (default: $AGENTSKILLS_<AGENT>_COMMAND, else its name on PATH)")
	cmd.Long += agentFlagsHelp
}

// runnable is an agent run can drive, with what its CLI offers.
type runnable struct {
	id      string // the install id, "claude-code"
	name    string // "Claude Code"
	program string // the program's name on PATH
	pkg     string // the npm package that installs it
	// modes are its permission modes; bypass is the one that lets it run
	// any command without asking.
	modes  []string
	bypass string
	// tools and turns say whether it has tool lists and a turn limit;
	// instead says what it offers where it has not.
	tools, turns        bool
	noTools, noTurns    string
	checkArgs           func([]string) error
	config              func(f *agentFlags, command, model string) driver.Driver
	skipPermissionsMode bool // --skip-permissions is a mode, not a flag of its own

	// noModes says what it offers where it has no permission modes.
	noModes string
}

// runnables returns the agents run drives, in the order run's help names
// them. The modes are the agents' own, pinned by a test against each
// CLI's --help.
func runnables() []runnable {
	return []runnable{
		{
			id: "claude-code", name: "Claude Code", program: "claude", pkg: "@anthropic-ai/claude-code",
			modes:  []string{"acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"},
			bypass: "bypassPermissions", tools: true, turns: true,
			checkArgs: claude.CheckArgs,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return claude.Driver(claude.Config{Command: command, Model: model, PermissionMode: f.permissionMode,
					SkipPermissions: f.skipPermissions, MaxTurns: f.maxTurns,
					AllowedTools: f.allowedTools, DisallowedTools: f.disallowedTools, Args: f.agentArgs})
			},
		},
		{
			id: "codex", name: "Codex", program: "codex", pkg: "@openai/codex",
			modes: []string{"read-only", "workspace-write", "danger-full-access"}, bypass: "danger-full-access",
			noTools:   "what Codex may do is its sandbox: --permission-mode read-only, workspace-write or danger-full-access, or --skip-permissions",
			noTurns:   "bound the run with --run-timeout instead",
			checkArgs: codex.CheckArgs,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return codex.Driver(codex.Config{Command: command, Model: model, Sandbox: f.permissionMode,
					BypassApprovalsAndSandbox: f.skipPermissions, Args: f.agentArgs})
			},
		},
		{
			id: "gemini-cli", name: "Gemini CLI", program: "gemini", pkg: "@google/gemini-cli",
			modes: []string{"default", "auto_edit", "yolo", "plan"}, bypass: "yolo", tools: true,
			noTurns:             "Gemini CLI has no flag for it: set model.maxSessionTurns in its settings.json",
			checkArgs:           gemini.CheckArgs,
			skipPermissionsMode: true,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return gemini.Driver(gemini.Config{Command: command, Model: model, ApprovalMode: f.mode("yolo"),
					AllowedTools: f.allowedTools, DisallowedTools: f.disallowedTools, Args: f.agentArgs})
			},
		},
		{
			id: "qwen-code", name: "Qwen Code", program: "qwen", pkg: "@qwen-code/qwen-code",
			modes: []string{"plan", "default", "auto-edit", "auto", "yolo"}, bypass: "yolo", tools: true, turns: true,
			checkArgs:           qwen.CheckArgs,
			skipPermissionsMode: true,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return qwen.Driver(qwen.Config{Command: command, Model: model, ApprovalMode: f.mode("yolo"),
					MaxSessionTurns: f.maxTurns, AllowedTools: f.allowedTools, DisallowedTools: f.disallowedTools, Args: f.agentArgs})
			},
		},
		{
			id: "github-copilot", name: "GitHub Copilot CLI", program: "copilot", pkg: "@github/copilot",
			noModes:   "allow tools by name with --allowed-tools, or all of them with --skip-permissions",
			tools:     true,
			noTurns:   "Copilot CLI has no turn limit in its prompt mode",
			checkArgs: copilot.CheckArgs,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return copilot.Driver(copilot.Config{Command: command, Model: model, AllowAllTools: f.skipPermissions,
					AllowedTools: f.allowedTools, DeniedTools: f.disallowedTools, Args: f.agentArgs})
			},
		},
		{
			// Cursor's CLI, from its documentation: its one permission
			// switch is --force (Config.Force).
			id: "cursor", name: "Cursor CLI", program: "agent", pkg: "Cursor's CLI (curl https://cursor.com/install | bash)",
			modes: []string{"force"}, bypass: "force",
			noTools:             "Cursor's CLI has no tool lists: --skip-permissions passes --force, and --agent-arg=--sandbox=enabled keeps commands in its sandbox",
			noTurns:             "Cursor's CLI has no turn limit",
			checkArgs:           cursor.CheckArgs,
			skipPermissionsMode: true,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return cursor.Driver(cursor.Config{Command: command, Model: model, Force: f.mode("force") == "force", Args: f.agentArgs})
			},
		},
		{
			id: "opencode", name: "OpenCode", program: "opencode", pkg: "opencode-ai",
			modes:     []string{"build", "plan"},
			noTools:   "OpenCode takes what its tools may do from the permission of its config (opencode.json), or from --skip-permissions",
			noTurns:   "OpenCode run has no turn limit: set steps for its agent in opencode.json",
			checkArgs: opencode.CheckArgs,
			config: func(f *agentFlags, command, model string) driver.Driver {
				return opencode.Driver(opencode.Config{Command: command, Model: model, Agent: f.permissionMode,
					Auto: f.skipPermissions, Args: f.agentArgs})
			},
		},
	}
}

// mode is the permission mode asked for, bypass when --skip-permissions.
func (f *agentFlags) mode(bypass string) string {
	if f.skipPermissions {
		return bypass
	}
	return f.permissionMode
}

// commandEnv is the environment variable that names a's program.
func (a *runnable) commandEnv() string {
	return "AGENTSKILLS_" + strings.ToUpper(strings.ReplaceAll(a.id, "-", "_")) + "_COMMAND"
}

// supporting lists the ids of the agents for which has holds.
func supporting(has func(runnable) bool) string {
	var ids []string
	for _, a := range runnables() {
		if has(a) {
			ids = append(ids, a.id)
		}
	}
	return strings.Join(ids, ", ")
}

// driverFor checks the flags for agent a and returns its driver; stderr
// gets the warning of a bypass. A flag a has no counterpart for is bad
// usage, as is a mode it does not have or an argument it cannot take.
func (f *agentFlags) driverFor(a *runnable, model string, stderr io.Writer) (driver.Driver, error) {
	switch {
	case f.permissionMode != "" && len(a.modes) == 0:
		return nil, usageErrorf("--permission-mode %q: %s has no permission modes; %s", f.permissionMode, a.name, a.noModes)
	case f.permissionMode != "" && !slices.Contains(a.modes, f.permissionMode):
		return nil, usageErrorf("--permission-mode %q: %s's modes are %s", f.permissionMode, a.name, strings.Join(a.modes, ", "))
	case f.skipPermissions && a.skipPermissionsMode && f.permissionMode != "" && f.permissionMode != a.bypass:
		return nil, usageErrorf("--skip-permissions is --permission-mode %s for %s: give one of them, not --permission-mode %s too", a.bypass, a.name, f.permissionMode)
	case !a.tools && (len(f.allowedTools) > 0 || len(f.disallowedTools) > 0):
		which := "--allowed-tools"
		if len(f.allowedTools) == 0 {
			which = "--disallowed-tools"
		}
		return nil, usageErrorf("%s: %s has no tool lists (--allowed-tools and --disallowed-tools are for %s); %s",
			which, a.name, supporting(func(r runnable) bool { return r.tools }), a.noTools)
	case f.maxTurns < 0:
		return nil, usageErrorf("--max-turns %d is negative: give the number of turns, or 0 for no limit", f.maxTurns)
	case f.maxTurns > 0 && !a.turns:
		return nil, usageErrorf("--max-turns: %s has no turn limit (--max-turns is for %s); %s",
			a.name, supporting(func(r runnable) bool { return r.turns }), a.noTurns)
	}
	if err := a.checkArgs(f.agentArgs); err != nil {
		return nil, usageError{agentArgError(err)}
	}
	command, err := f.command(a)
	if err != nil {
		return nil, err
	}
	if f.skipPermissions || (f.permissionMode != "" && f.permissionMode == a.bypass) {
		fmt.Fprintf(stderr, "agentskills run: warning: %s may now run any command without asking (%s)\n", a.name, f.bypassFlag(a))
	}
	return a.config(f, command, model), nil
}

// bypassFlag names the flag that asked for the bypass.
func (f *agentFlags) bypassFlag(a *runnable) string {
	if f.skipPermissions {
		return "--skip-permissions"
	}
	return "--permission-mode " + a.bypass
}

// command is a's program: --agent-command, else its environment variable,
// else "" (the driver looks for its name on PATH). A path is made
// absolute, since the agent runs in the workspace.
func (f *agentFlags) command(a *runnable) (string, error) {
	c, from := f.agentCommand, "--agent-command"
	if c == "" {
		c, from = os.Getenv(a.commandEnv()), a.commandEnv()
	}
	if c == "" || !strings.ContainsRune(c, filepath.Separator) && !strings.ContainsRune(c, '/') {
		return c, nil
	}
	abs, err := filepath.Abs(c)
	if err != nil {
		return "", usageErrorf("%s %q: %w", from, c, err)
	}
	return abs, nil
}

// flagOf is run's flag that sets a driver Config field, "" for none.
func flagOf(field string) string {
	switch field {
	case "Model":
		return "--model"
	case "PermissionMode", "Sandbox", "ApprovalMode":
		return "--permission-mode"
	case "SkipPermissions", "BypassApprovalsAndSandbox", "AllowAllTools", "Force":
		return "--skip-permissions"
	case "MaxTurns", "MaxSessionTurns":
		return "--max-turns"
	case "Agent":
		return "--permission-mode"
	case "Auto":
		return "--skip-permissions"
	case "AllowedTools":
		return "--allowed-tools"
	case "DisallowedTools", "DeniedTools":
		return "--disallowed-tools"
	}
	return ""
}

// agentArgError says in run's words why an --agent-arg is refused.
func agentArgError(err error) error {
	var argErr *driver.ArgError
	if !errors.As(err, &argErr) {
		return err
	}
	switch flag := flagOf(argErr.Field); {
	case flag != "":
		return fmt.Errorf("--agent-arg %q: %s is what %s sets; use %s", argErr.Arg, argErr.Option, flag, flag)
	case argErr.Option != "":
		return fmt.Errorf("--agent-arg %q: agentskills run controls %s itself, and the run needs it as it is", argErr.Arg, argErr.Option)
	}
	return fmt.Errorf("--agent-arg %q: %s", argErr.Arg, argErr.Reason)
}

// runError says an error of a run of agent in a run user's words where
// the driver's speaks of the SDK: how to name the agent's program, what
// to do about a shadowed skill or skills folders nested in the
// workspace. The error still wraps err.
func runError(err error, agent string) error {
	var missing *driver.ProgramNotFoundError
	var shadow *driver.ShadowError
	var nested *driver.NestedSkillsError
	switch {
	case errors.As(err, &missing):
		for _, a := range runnables() {
			if a.id == agent {
				return &cliError{err: err, msg: fmt.Sprintf("%s: the program %q was not found (%v): install it (npm i -g %s) or pass --agent-command PATH or set %s",
					agent, missing.Command, missing.Err, a.pkg, a.commandEnv())}
			}
		}
	case errors.As(err, &shadow):
		return &cliError{err: err, msg: fmt.Sprintf("skill %q in %s has other content than the run's skill in %s, and the agent would load that one instead; rename one of them (its folder and the name: in its SKILL.md), or remove %s",
			shadow.Name, shadow.Theirs, shadow.Ours, shadow.Theirs)}
	case errors.As(err, &nested):
		var b strings.Builder
		fmt.Fprintf(&b, "the workspace %s holds skills folders below its top that %s loads, beside the run's skills, as soon as it reads a file near them:\n", nested.Workspace, nested.Agent)
		for _, f := range nested.Folders {
			rel, rerr := filepath.Rel(nested.Workspace, f)
			if rerr != nil {
				rel = f
			}
			if strings.ContainsFunc(rel, unicode.IsControl) {
				rel = strconv.Quote(rel) // one line per folder, whatever its name
			}
			fmt.Fprintf(&b, "  %s\n", rel)
		}
		b.WriteString("run gives the agent exactly the skills of --skill, so it does not start: move or rename those folders, git-ignore the folders that hold them (the agent skips what git ignores), or pass --workspace a folder without them")
		return &cliError{err: err, msg: b.String()}
	}
	return err
}

// cliError is an error said in the command line's words.
type cliError struct {
	err error
	msg string
}

func (e *cliError) Error() string { return e.msg }
func (e *cliError) Unwrap() error { return e.err }
