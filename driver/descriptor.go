package driver

import "strings"

// Descriptor is what a driver package says about the agent it runs, in
// one place: each of the module's driver packages returns its own from
// its Descriptor function. A host that offers several agents (the
// agentskills command line does) reads from it the agent's id and name,
// its program and how to install it, the folders its driver keeps in
// the cache and whether they hold its sessions, the form of its session
// ids, its permission modes, and how the settings every driver takes ([Settings])
// map to the agent's own options and to its Config; Descriptor.New builds
// the driver from them. Where the agent reads skills is its row of the
// agents table that install.Agents lists, named by ID.
type Descriptor struct {
	// Name is the driver's name, its package's ("claude"): it prefixes
	// the driver's errors and names its Config ("claude.Config").
	Name string
	// ID is the agent's id, as users type it and as install.Agents
	// spells it ("claude-code").
	ID string
	// Agent is the agent's display name ("Claude Code"), as
	// install.Agents spells it.
	Agent string
	// Program is the agent's program, looked up on PATH when the
	// Config names none ("claude").
	Program string
	// Package is the npm package that installs the program, "" when
	// none does.
	Package string
	// Install is the command that installs the program ("npm i -g
	// @anthropic-ai/claude-code").
	Install string
	// SessionIDs is the form of the agent's session ids, which
	// Request.Resume must have.
	SessionIDs SessionIDs
	// Folders are where the driver keeps, under its cache root, what the
	// agent needs to see a run's skills, one folder per skill set.
	Folders Folders
	// Provider says how the agent reaches its model, after its name
	// ("takes ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL"); Auth what to
	// check when the model's API refuses its credentials, "" when
	// nothing more is known.
	Provider, Auth string

	// Modes are the agent's permission modes, in its own words; Bypass
	// is the one that lets it run any command without asking, "" when
	// none does.
	Modes  []string
	Bypass string
	// Mode, Skip, Allowed, Denied and Turns say how the agent takes each
	// of [Settings]: its permission mode, its bypass, tools it may use
	// without asking, tools it must never use, a limit on its turns.
	// Skip is one of the modes when its Field is Mode's.
	Mode, Skip, Allowed, Denied, Turns Setting

	// CheckArgs reports whether arguments given on someone else's behalf
	// (a command line's user) may be passed through as the Config's Args
	// (each driver's Descriptor function names the driver's options;
	// the descriptor is the one way to reach the check): each
	// must be one argument, "--name" or "--name=value", the name in
	// lowercase letters, digits and dashes (never a short option, "--",
	// a subcommand or a value on its own), the value without a NUL byte,
	// and the name, also as "--no-name", not an option the driver sets
	// itself or from a Config field. A refused argument is an
	// *[ArgError], whose Field names the Config field to set instead.
	CheckArgs func(args []string) error
	// New returns the driver configured with s, each setting in the
	// Config field its [Setting] names; a setting the agent does not
	// take is ignored.
	New func(s Settings) Driver
}

// SkipIsMode reports whether the agent's bypass is one of its permission
// modes (Gemini CLI's yolo) rather than an option of its own.
func (d Descriptor) SkipIsMode() bool { return d.Skip.Has() && d.Skip.Field == d.Mode.Field }

// SessionIDs is the form of an agent's session ids, a fact about the
// agent that its driver's tests pin against the real CLI.
type SessionIDs struct {
	// Form says what a valid id looks like, for the error that refuses
	// another: "a UUID such as ...".
	Form string
	// Valid reports whether id has the form.
	Valid func(id string) bool
}

// Folders says where a driver keeps, under its cache root, what its
// agent needs to see a run's skills (one folder per skill set), and
// whether those folders hold the agent's sessions: facts a host needs to
// say what its cache holds and what removing a folder loses.
type Folders struct {
	// Dir is where the folders live under the cache root,
	// slash-separated: "mounts/NAME" for skill mounts, which the agent
	// only reads, or "homes/NAME" for agent homes, which it runs in and
	// writes to.
	Dir string
	// Sessions is the glob, slash-separated and relative to one folder,
	// that matches each agent session the folder holds; "" when it holds
	// none. Removing the folder removes those sessions, and they can no
	// longer be resumed.
	Sessions string
}

// Home reports whether the folders are agent homes rather than skill
// mounts.
func (f Folders) Home() bool { return strings.HasPrefix(f.Dir, "homes/") }

// Setting says how an agent takes one of [Settings].
type Setting struct {
	// Option is the agent's own option for it, or words for what stands
	// in for it ("--max-turns", "an allow rule of the run's policy");
	// "" when the agent has none.
	Option string
	// Field is the field of the driver's Config that carries it
	// ("MaxTurns"); "" when the agent has none.
	Field string
	// Instead says what the agent offers where it has none, as advice
	// to its user ("bound the run with --run-timeout instead").
	Instead string
	// Note says what else to know of the agent's option, where it has
	// one. Default "": nothing.
	Note string
}

// Has reports whether the agent takes the setting.
func (s Setting) Has() bool { return s.Field != "" }

// Settings are the settings that [Descriptor.New] maps to any driver's
// Config. The zero value of each is the agent's own default.
type Settings struct {
	// Command is the agent's program. Default: [Descriptor.Program] on
	// PATH.
	Command string
	// Model is the model. Default: the agent's.
	Model string
	// PermissionMode is one of the agent's Modes. Default "": the
	// agent's default mode.
	PermissionMode string
	// SkipPermissions asks for the agent's bypass. Default false.
	SkipPermissions bool
	// AllowedTools are tools the agent may use without asking; default
	// none. DisallowedTools are tools it must never use; default none.
	AllowedTools, DisallowedTools []string
	// MaxTurns ends the run after that many turns. Default 0: no limit.
	MaxTurns int
	// Args are passed through to the agent as they are (see the
	// drivers' Config.Args). Default none.
	Args []string
	// WithoutUserSkills leaves the skills of the user's own skills
	// folder out of the run, where the driver can (the WithoutUserSkills
	// of Claude Code, Gemini CLI and Codex, whose Config says what each
	// leaves out); other drivers ignore it. An
	// evaluation of an installed skill's new content sets it, so the
	// user's copy of the old content neither shadows nor joins the run.
	// Default false.
	WithoutUserSkills bool
}

// Mode returns the permission mode s asks for: bypass when it asks to
// skip permissions, for an agent whose bypass is one of its modes.
func (s Settings) Mode(bypass string) string {
	if s.SkipPermissions {
		return bypass
	}
	return s.PermissionMode
}
