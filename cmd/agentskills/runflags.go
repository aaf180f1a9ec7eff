package main

import (
	"cmp"
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

	"github.com/agentadaptor/agentadaptor/driver"
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
	// cmdName names the command in its warnings: "run" when "".
	cmdName string
	// withoutUserSkills asks the drivers to leave the user's own skills
	// out (driver.Settings.WithoutUserSkills): update --eval sets it.
	withoutUserSkills bool
}

// agentFlagsHelp is the part of run's help about agentFlags, made from
// the drivers' descriptors.
func agentFlagsHelp() string {
	item := func(flag, text string) string {
		return wrap(text, fmt.Sprintf("  %-23s ", flag), strings.Repeat(" ", 26), 74) + "\n"
	}
	var programs []string
	for _, a := range runnables() {
		programs = append(programs, a.Program)
	}
	return `

Headless, the agent cannot ask before it uses a tool, so it uses only
what it is allowed to. Each flag is mapped to the agent's own, and to the
same field of the Go driver's Config:

` + item("--permission-mode MODE", "the agent's own mode. "+mapping("--permission-mode")) +
		item("--skip-permissions", "the agent's bypass: it may run any command without asking. "+mapping("--skip-permissions")+
			" A bypass, this or a mode that is one, prints a warning.") +
		item("--allowed-tools TOOL", "a tool that runs without asking (repeatable). "+mapping("--allowed-tools")) +
		item("--disallowed-tools TOOL", "a tool that never runs (repeatable). "+mapping("--disallowed-tools")) +
		item("--max-turns N", "end the run after N turns. "+mapping("--max-turns")) +
		item("--agent-arg ARG", "pass any other option of the agent through (repeatable, Config.Args), one --name or --name=value each, as in --agent-arg=--append-system-prompt=Be brief. "+
			"A short option, \"--\", a value on its own, a NUL, or an option run sets itself (the output format, the session, the skill mount, the prompt, and the options of the flags above) is refused before the agent starts.") +
		item("--agent-command PATH", "the agent's program (Config.Command), else $AGENTSKILLS_<AGENT>_COMMAND (the agent's id in capitals, dashes as underscores: $AGENTSKILLS_CLAUDE_CODE_COMMAND, $AGENTSKILLS_GITHUB_COPILOT_COMMAND, ...), else its name on PATH ("+
			strings.Join(programs, ", ")+").") + `
A flag the agent has no counterpart for is refused before it starts
(exit 2), saying what the agent offers instead.`
}

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
	cmd.Long += agentFlagsHelp()
}

// supporting lists the ids of the agents for which has holds.
func supporting(has func(driver.Descriptor) bool) string {
	var ids []string
	for _, a := range runnables() {
		if has(a) {
			ids = append(ids, a.ID)
		}
	}
	return strings.Join(ids, ", ")
}

// driverFor checks the flags for agent a and returns its driver; stderr
// gets the warning of a bypass. A flag a has no counterpart for is bad
// usage, as is a mode it does not have or an argument it cannot take.
func (f *agentFlags) driverFor(a driver.Descriptor, model string, stderr io.Writer) (driver.Driver, error) {
	s, err := f.settingsFor(a, model, stderr)
	if err != nil {
		return nil, err
	}
	return a.New(s), nil
}

// settingsFor checks the flags for agent a as driverFor does and returns
// the settings its driver is built with.
func (f *agentFlags) settingsFor(a driver.Descriptor, model string, stderr io.Writer) (driver.Settings, error) {
	switch {
	case f.permissionMode != "" && len(a.Modes) == 0:
		return driver.Settings{}, usageErrorf("--permission-mode %q: %s has no permission modes; %s", f.permissionMode, a.Agent, a.Mode.Instead)
	case f.permissionMode != "" && !slices.Contains(a.Modes, f.permissionMode):
		return driver.Settings{}, usageErrorf("--permission-mode %q: %s's modes are %s", f.permissionMode, a.Agent, strings.Join(a.Modes, ", "))
	case f.skipPermissions && a.SkipIsMode() && f.permissionMode != "" && f.permissionMode != a.Bypass:
		return driver.Settings{}, usageErrorf("--skip-permissions is --permission-mode %s for %s: give one of them, not --permission-mode %s too", a.Bypass, a.Agent, f.permissionMode)
	case !a.Allowed.Has() && (len(f.allowedTools) > 0 || len(f.disallowedTools) > 0):
		which := "--allowed-tools"
		if len(f.allowedTools) == 0 {
			which = "--disallowed-tools"
		}
		return driver.Settings{}, usageErrorf("%s: %s has no tool lists (--allowed-tools and --disallowed-tools are for %s); %s",
			which, a.Agent, supporting(func(r driver.Descriptor) bool { return r.Allowed.Has() }), a.Allowed.Instead)
	case f.maxTurns < 0:
		return driver.Settings{}, usageErrorf("--max-turns %d is negative: give the number of turns, or 0 for no limit", f.maxTurns)
	case f.maxTurns > 0 && !a.Turns.Has():
		return driver.Settings{}, usageErrorf("--max-turns: %s has no turn limit (--max-turns is for %s); %s",
			a.Agent, supporting(func(r driver.Descriptor) bool { return r.Turns.Has() }), a.Turns.Instead)
	}
	if err := a.CheckArgs(f.agentArgs); err != nil {
		return driver.Settings{}, usageError{agentArgError(cmp.Or(f.cmdName, "run"), err)}
	}
	command, err := f.command(a)
	if err != nil {
		return driver.Settings{}, err
	}
	if f.skipPermissions || (f.permissionMode != "" && f.permissionMode == a.Bypass) {
		fmt.Fprintf(stderr, "agentskills %s: warning: %s may now run any command without asking (%s)\n", cmp.Or(f.cmdName, "run"), a.Agent, f.bypassFlag(a))
	}
	return driver.Settings{Command: command, Model: model, PermissionMode: f.permissionMode,
		SkipPermissions: f.skipPermissions, AllowedTools: f.allowedTools, DisallowedTools: f.disallowedTools,
		MaxTurns: f.maxTurns, Args: f.agentArgs, WithoutUserSkills: f.withoutUserSkills}, nil
}

// bypassFlag names the flag that asked for the bypass.
func (f *agentFlags) bypassFlag(a driver.Descriptor) string {
	if f.skipPermissions {
		return "--skip-permissions"
	}
	return "--permission-mode " + a.Bypass
}

// command is a's program: --agent-command, else its environment variable,
// else "" (the driver looks for its name on PATH). A path is made
// absolute, since the agent runs in the workspace.
func (f *agentFlags) command(a driver.Descriptor) (string, error) {
	c, from := f.agentCommand, "--agent-command"
	if c == "" {
		c, from = os.Getenv(commandEnv(a)), commandEnv(a)
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

// flagOf is run's flag that sets a driver Config field, "" for none:
// --model for Model, else the flag of the setting of a driver whose
// Config field it is; of an agent whose one mode is its bypass (Cursor's
// --force), --skip-permissions.
func flagOf(field string) string {
	if field == "Model" {
		return "--model"
	}
	for _, a := range runnables() {
		for _, flag := range []string{"--permission-mode", "--skip-permissions", "--allowed-tools", "--disallowed-tools", "--max-turns"} {
			if flag == "--permission-mode" && slices.Equal(a.Modes, []string{a.Bypass}) {
				continue
			}
			if s := settingOf(a, flag); s.Has() && s.Field == field {
				return flag
			}
		}
	}
	return ""
}

// agentArgError says in the words of the command cmd (run, eval,
// update) why an --agent-arg is refused.
func agentArgError(cmd string, err error) error {
	var argErr *driver.ArgError
	if !errors.As(err, &argErr) {
		return err
	}
	switch flag := flagOf(argErr.Field); {
	case flag != "":
		return fmt.Errorf("--agent-arg %q: %s is what %s sets; use %s", argErr.Arg, argErr.Option, flag, flag)
	case argErr.Option != "":
		return fmt.Errorf("--agent-arg %q: agentskills %s controls %s itself, and the run needs it as it is", argErr.Arg, cmd, argErr.Option)
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
	case errors.As(err, &missing) && strings.HasSuffix(missing.Field, ".Config.Env"):
		// A program the agent needs beside its own (OpenCode's ripgrep),
		// which the environment agentskills passes on must hold.
		return &cliError{err: err, msg: fmt.Sprintf("%s: %v: install %s (%s), or put it on the PATH agentskills runs with", agent, missing.Err, missing.Agent, missing.Command)}
	case errors.As(err, &missing):
		if a, ok := runnable(agent); ok {
			return &cliError{err: err, msg: fmt.Sprintf("%s: the program %q was not found (%v): install it (%s) or pass --agent-command PATH or set %s",
				agent, missing.Command, missing.Err, a.Install, commandEnv(a))}
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
