package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Scope says whose skills an install changes.
type Scope int

const (
	// Project installs into the project folder (the current folder).
	Project Scope = iota
	// User installs into the user's home folder.
	User
)

func (s Scope) String() string {
	if s == User {
		return "user"
	}
	return "project"
}

// CanonicalDir is where the canonical copy of every skill lives, relative
// to the scope's root: the cross-agent convention.
const CanonicalDir = ".agents/skills"

// Env is the environment an install works in: the scope roots and the
// environment variables that move agents' folders. Tests point it at
// temporary folders.
type Env struct {
	// Home is the user's home folder.
	Home string
	// Project is the project folder.
	Project string
	// Getenv reads an environment variable; nil means os.Getenv.
	Getenv func(string) string
}

// CurrentEnv returns the environment of this process: $HOME and the
// current folder.
func CurrentEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	return Env{Home: home, Project: wd, Getenv: os.Getenv}, nil
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return strings.TrimSpace(e.Getenv(k))
}

// Root returns the folder a scope is rooted at.
func (e Env) Root(s Scope) string {
	if s == User {
		return e.Home
	}
	return e.Project
}

func (e Env) configHome() string {
	if x := e.getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	return filepath.Join(e.Home, ".config")
}

// Agent describes where one coding agent reads skills.
type Agent struct {
	// ID is the name users type, as the npm skills tool spells it.
	ID string
	// Name is the agent's display name.
	Name string
	// ProjectDir is the agent's skills folder relative to a project.
	ProjectDir string
	// Override is the environment variable that moves the agent's user
	// folder, if any.
	Override string

	userDir func(Env) string
	detect  func(Env) bool
}

// Dir returns the agent's skills folder in a scope.
func (a Agent) Dir(e Env, s Scope) string {
	if s == User {
		return a.userDir(e)
	}
	return filepath.Join(e.Project, filepath.FromSlash(a.ProjectDir))
}

// Detected reports whether the agent seems installed for this user: its
// configuration folder exists.
func (a Agent) Detected(e Env) bool { return a.detect(e) }

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func homeDir(rel string) func(Env) string {
	return func(e Env) string { return filepath.Join(e.Home, filepath.FromSlash(rel)) }
}

func homeExists(rel string) func(Env) bool {
	return func(e Env) bool { return exists(filepath.Join(e.Home, filepath.FromSlash(rel))) }
}

func claudeHome(e Env) string {
	if d := e.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(e.Home, ".claude")
}

// agents is the table of known agents, sorted by ID. The folders are those
// each agent documents; see the package doc.
var agents = []Agent{
	{
		ID: "claude-code", Name: "Claude Code", ProjectDir: ".claude/skills", Override: "CLAUDE_CONFIG_DIR",
		userDir: func(e Env) string { return filepath.Join(claudeHome(e), "skills") },
		detect:  func(e Env) bool { return exists(claudeHome(e)) },
	},
	{
		ID: "codex", Name: "Codex", ProjectDir: ".agents/skills", Override: "CODEX_HOME",
		userDir: func(e Env) string {
			if d := e.getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "skills")
			}
			return filepath.Join(e.Home, ".agents", "skills")
		},
		detect: func(e Env) bool {
			if d := e.getenv("CODEX_HOME"); d != "" {
				return exists(d)
			}
			return exists(filepath.Join(e.Home, ".codex"))
		},
	},
	{
		ID: "cursor", Name: "Cursor", ProjectDir: ".agents/skills",
		userDir: homeDir(".cursor/skills"), detect: homeExists(".cursor"),
	},
	{
		ID: "gemini-cli", Name: "Gemini CLI", ProjectDir: ".agents/skills",
		userDir: homeDir(".gemini/skills"), detect: homeExists(".gemini"),
	},
	{
		ID: "github-copilot", Name: "GitHub Copilot", ProjectDir: ".agents/skills",
		userDir: homeDir(".copilot/skills"), detect: homeExists(".copilot"),
	},
	{
		ID: "goose", Name: "Goose", ProjectDir: ".agents/skills", Override: "XDG_CONFIG_HOME",
		userDir: func(e Env) string { return filepath.Join(e.configHome(), "goose", "skills") },
		detect:  func(e Env) bool { return exists(filepath.Join(e.configHome(), "goose")) },
	},
	{
		ID: "opencode", Name: "OpenCode", ProjectDir: ".agents/skills", Override: "XDG_CONFIG_HOME",
		userDir: func(e Env) string { return filepath.Join(e.configHome(), "opencode", "skills") },
		detect:  func(e Env) bool { return exists(filepath.Join(e.configHome(), "opencode")) },
	},
	{
		ID: "windsurf", Name: "Windsurf", ProjectDir: ".windsurf/skills",
		userDir: homeDir(".codeium/windsurf/skills"), detect: homeExists(".codeium/windsurf"),
	},
}

// Agents returns the known agents, sorted by ID.
func Agents() []Agent { return slices.Clone(agents) }

// LookupAgent returns the agent with the given ID.
func LookupAgent(id string) (Agent, bool) {
	for _, a := range agents {
		if a.ID == id {
			return a, true
		}
	}
	return Agent{}, false
}

// DefaultAgents returns the agents detected in e, or claude-code and codex
// when none is.
func DefaultAgents(e Env) []Agent {
	var out []Agent
	for _, a := range agents {
		if a.Detected(e) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		c, _ := LookupAgent("claude-code")
		x, _ := LookupAgent("codex")
		out = []Agent{c, x}
	}
	return out
}
