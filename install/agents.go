package install

import (
	"errors"
	"fmt"
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
	get := e.Getenv
	if get == nil {
		get = os.Getenv
	}
	return strings.TrimSpace(get(k))
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

// base is where a folder of the agent table is rooted.
type base int

const (
	atProject base = iota // the project folder
	atHome                // the user's home
	atConfig              // $XDG_CONFIG_HOME, else ~/.config
	atClaude              // $CLAUDE_CONFIG_DIR, else ~/.claude
	atCodex               // $CODEX_HOME, else ~/.codex
)

// override returns the environment variable that moves b, if any.
func (b base) override() string {
	switch b {
	case atConfig:
		return "XDG_CONFIG_HOME"
	case atClaude:
		return "CLAUDE_CONFIG_DIR"
	case atCodex:
		return "CODEX_HOME"
	}
	return ""
}

// folder is a folder rooted at a base; rel is slash-separated.
type folder struct {
	base base
	rel  string
}

func (e Env) path(f folder) string {
	var root string
	switch f.base {
	case atProject:
		root = e.Project
	case atHome:
		root = e.Home
	case atConfig:
		root = e.configHome()
	case atClaude:
		root = e.getenv("CLAUDE_CONFIG_DIR")
		if root == "" {
			root = filepath.Join(e.Home, ".claude")
		}
	case atCodex:
		root = e.getenv("CODEX_HOME")
		if root == "" {
			root = filepath.Join(e.Home, ".codex")
		}
	}
	return filepath.Join(root, filepath.FromSlash(f.rel))
}

// Agent describes where one coding agent reads skills.
type Agent struct {
	// ID is the name users type, as the npm skills tool spells it.
	ID string
	// Name is the agent's display name.
	Name string
	// ProjectDir is the folder, relative to a project, that skills are
	// installed into for the agent.
	ProjectDir string
	// Override is the environment variable that moves the folder skills
	// are installed into for the agent in the user's scope, if any.
	Override string

	alsoProject []string // other folders it reads, relative to a project
	user        folder   // the user folder skills are installed into
	// formerly are the agent's user folders under its former names: when
	// the parent of user does not exist, the first of these whose parent
	// does is used instead.
	formerly []folder
	alsoUser []folder // other user folders it reads
	detect   []folder // the agent is detected when one of these exists
}

// Dir returns the folder skills are installed into for the agent in a
// scope.
func (a Agent) Dir(e Env, s Scope) string {
	if s == Project {
		return filepath.Join(e.Project, filepath.FromSlash(a.ProjectDir))
	}
	u := e.path(a.user)
	if len(a.formerly) == 0 || exists(filepath.Dir(u)) {
		return u
	}
	for _, f := range a.formerly {
		if p := e.path(f); exists(filepath.Dir(p)) {
			return p
		}
	}
	return u
}

// Reads returns every folder the agent reads skills from in a scope, Dir
// first; a skill in any of them is one the agent loads.
func (a Agent) Reads(e Env, s Scope) []string {
	out := []string{a.Dir(e, s)}
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if s == Project {
		for _, rel := range a.alsoProject {
			add(filepath.Join(e.Project, filepath.FromSlash(rel)))
		}
		return out
	}
	for _, f := range a.alsoUser {
		add(e.path(f))
	}
	return out
}

// Detected reports whether the agent seems installed for this user: its
// configuration folder exists (for a few agents, one in the project).
func (a Agent) Detected(e Env) bool {
	return slices.ContainsFunc(a.detect, func(f folder) bool { return exists(e.path(f)) })
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func home(rel string) folder { return folder{atHome, rel} }

// simple is an agent that reads one project folder and one folder under
// the home folder, and is detected by the folder under home holding its
// configuration.
func simple(id, name, projectDir, userDir, configDir string) Agent {
	return Agent{ID: id, Name: name, ProjectDir: projectDir, user: home(userDir), detect: []folder{home(configDir)}}
}

// agents is the table of known agents, sorted by ID: every agent of the
// npm skills tool 1.4.9, with the folders its table gives, except where
// an agent's own documentation says more (see the package doc).
var agents = []Agent{
	simple("adal", "AdaL", ".adal/skills", ".adal/skills", ".adal"),
	{
		ID: "amp", Name: "Amp", ProjectDir: CanonicalDir, Override: "XDG_CONFIG_HOME",
		user: folder{atConfig, "agents/skills"}, detect: []folder{{atConfig, "amp"}},
	},
	simple("antigravity", "Antigravity", CanonicalDir, ".gemini/antigravity/skills", ".gemini/antigravity"),
	simple("augment", "Augment", ".augment/skills", ".augment/skills", ".augment"),
	simple("bob", "IBM Bob", ".bob/skills", ".bob/skills", ".bob"),
	{
		ID: "claude-code", Name: "Claude Code", ProjectDir: ".claude/skills", Override: "CLAUDE_CONFIG_DIR",
		user: folder{atClaude, "skills"}, detect: []folder{{atClaude, "."}},
	},
	simple("cline", "Cline", CanonicalDir, CanonicalDir, ".cline"),
	{
		ID: "codebuddy", Name: "CodeBuddy", ProjectDir: ".codebuddy/skills",
		user: home(".codebuddy/skills"), detect: []folder{{atProject, ".codebuddy"}, home(".codebuddy")},
	},
	{
		ID: "codex", Name: "Codex", ProjectDir: CanonicalDir,
		user: home(CanonicalDir), alsoUser: []folder{{atCodex, "skills"}}, detect: []folder{{atCodex, "."}},
	},
	simple("command-code", "Command Code", ".commandcode/skills", ".commandcode/skills", ".commandcode"),
	{
		ID: "continue", Name: "Continue", ProjectDir: ".continue/skills",
		user: home(".continue/skills"), detect: []folder{{atProject, ".continue"}, home(".continue")},
	},
	simple("cortex", "Cortex Code", ".cortex/skills", ".snowflake/cortex/skills", ".snowflake/cortex"),
	simple("crush", "Crush", ".crush/skills", ".config/crush/skills", ".config/crush"),
	{
		ID: "cursor", Name: "Cursor", ProjectDir: CanonicalDir, alsoProject: []string{".cursor/skills", ".claude/skills", ".codex/skills"},
		user: home(CanonicalDir), alsoUser: []folder{home(".cursor/skills")}, detect: []folder{home(".cursor")},
	},
	simple("deepagents", "Deep Agents", CanonicalDir, ".deepagents/agent/skills", ".deepagents"),
	simple("droid", "Droid", ".factory/skills", ".factory/skills", ".factory"),
	simple("firebender", "Firebender", CanonicalDir, ".firebender/skills", ".firebender"),
	{
		ID: "gemini-cli", Name: "Gemini CLI", ProjectDir: CanonicalDir, alsoProject: []string{".gemini/skills"},
		user: home(CanonicalDir), alsoUser: []folder{home(".gemini/skills")}, detect: []folder{home(".gemini")},
	},
	{
		ID: "github-copilot", Name: "GitHub Copilot", ProjectDir: CanonicalDir, alsoProject: []string{".github/skills", ".claude/skills"},
		user: home(CanonicalDir), alsoUser: []folder{home(".copilot/skills"), home(".claude/skills")}, detect: []folder{home(".copilot")},
	},
	{
		ID: "goose", Name: "Goose", ProjectDir: CanonicalDir, alsoProject: []string{".goose/skills", ".claude/skills"},
		user: home(CanonicalDir), alsoUser: []folder{{atConfig, "goose/skills"}}, detect: []folder{{atConfig, "goose"}},
	},
	simple("iflow-cli", "iFlow CLI", ".iflow/skills", ".iflow/skills", ".iflow"),
	simple("junie", "Junie", ".junie/skills", ".junie/skills", ".junie"),
	simple("kilo", "Kilo Code", ".kilocode/skills", ".kilocode/skills", ".kilocode"),
	simple("kimi-cli", "Kimi Code CLI", CanonicalDir, ".config/agents/skills", ".kimi"),
	simple("kiro-cli", "Kiro CLI", ".kiro/skills", ".kiro/skills", ".kiro"),
	simple("kode", "Kode", ".kode/skills", ".kode/skills", ".kode"),
	simple("mcpjam", "MCPJam", ".mcpjam/skills", ".mcpjam/skills", ".mcpjam"),
	simple("mistral-vibe", "Mistral Vibe", ".vibe/skills", ".vibe/skills", ".vibe"),
	simple("mux", "Mux", ".mux/skills", ".mux/skills", ".mux"),
	simple("neovate", "Neovate", ".neovate/skills", ".neovate/skills", ".neovate"),
	{
		ID: "openclaw", Name: "OpenClaw", ProjectDir: "skills",
		user:     home(".openclaw/skills"),
		formerly: []folder{home(".clawdbot/skills"), home(".moltbot/skills")},
		detect:   []folder{home(".openclaw"), home(".clawdbot"), home(".moltbot")},
	},
	{
		ID: "opencode", Name: "OpenCode", ProjectDir: CanonicalDir, alsoProject: []string{".opencode/skills", ".claude/skills"},
		user: home(CanonicalDir), alsoUser: []folder{{atConfig, "opencode/skills"}, home(".claude/skills")}, detect: []folder{{atConfig, "opencode"}},
	},
	simple("openhands", "OpenHands", ".openhands/skills", ".openhands/skills", ".openhands"),
	simple("pi", "Pi", ".pi/skills", ".pi/agent/skills", ".pi/agent"),
	simple("pochi", "Pochi", ".pochi/skills", ".pochi/skills", ".pochi"),
	simple("qoder", "Qoder", ".qoder/skills", ".qoder/skills", ".qoder"),
	simple("qwen-code", "Qwen Code", ".qwen/skills", ".qwen/skills", ".qwen"),
	{
		ID: "replit", Name: "Replit", ProjectDir: CanonicalDir, Override: "XDG_CONFIG_HOME",
		user: folder{atConfig, "agents/skills"}, detect: []folder{{atProject, ".replit"}},
	},
	simple("roo", "Roo Code", ".roo/skills", ".roo/skills", ".roo"),
	simple("trae", "Trae", ".trae/skills", ".trae/skills", ".trae"),
	simple("trae-cn", "Trae CN", ".trae/skills", ".trae-cn/skills", ".trae-cn"),
	// universal is the cross-agent folder itself, for agents not listed;
	// it is never detected.
	{ID: "universal", Name: "Universal", ProjectDir: CanonicalDir, user: home(CanonicalDir)},
	simple("warp", "Warp", CanonicalDir, CanonicalDir, ".warp"),
	simple("windsurf", "Windsurf", ".windsurf/skills", ".codeium/windsurf/skills", ".codeium/windsurf"),
	simple("zencoder", "Zencoder", ".zencoder/skills", ".zencoder/skills", ".zencoder"),
}

// Agents returns the known agents, sorted by ID.
func Agents() []Agent { return slices.Clone(agents) }

// LookupAgent returns the agent with the given ID.
func LookupAgent(id string) (Agent, bool) {
	i, ok := slices.BinarySearchFunc(agents, id, func(a Agent, id string) int { return strings.Compare(a.ID, id) })
	if !ok {
		return Agent{}, false
	}
	return agents[i], true
}

// AllAgents is the ID that [LookupAgents] reads as every known agent, as
// the npm skills tool does.
const AllAgents = "*"

// ErrUnknownAgent reports an agent ID that names no known agent.
var ErrUnknownAgent = errors.New("unknown agent")

// LookupAgents returns the agents with the given IDs, in order and each
// once; [AllAgents] among them stands for every known agent. An error
// wrapping [ErrUnknownAgent] names every unknown ID at once, each with the
// nearest known ID when one is close.
func LookupAgents(ids ...string) ([]Agent, error) {
	var out []Agent
	var unknown []string
	all := false
	for _, id := range ids {
		if id == AllAgents {
			all = true
			continue
		}
		a, ok := LookupAgent(id)
		switch {
		case !ok:
			unknown = append(unknown, id)
		case !slices.ContainsFunc(out, func(b Agent) bool { return b.ID == id }):
			out = append(out, a)
		}
	}
	if len(unknown) > 0 {
		return nil, unknownAgentsError(unknown)
	}
	if all {
		return Agents(), nil
	}
	return out, nil
}

// unknownAgentsError lists unknown agent IDs, each with a suggestion when
// one is close: `unknown agent "claud-code"; did you mean claude-code?`.
type unknownAgentsError []string

func (e unknownAgentsError) Error() string {
	if len(e) == 1 {
		if near := nearestAgent(e[0]); near != "" {
			return fmt.Sprintf("unknown agent %q; did you mean %s?", e[0], near)
		}
		return fmt.Sprintf("unknown agent %q", e[0])
	}
	var b strings.Builder
	b.WriteString("unknown agents ")
	for i, id := range e {
		switch {
		case i == len(e)-1:
			b.WriteString(" and ")
		case i > 0:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", id)
		if near := nearestAgent(id); near != "" {
			fmt.Fprintf(&b, " (did you mean %s?)", near)
		}
	}
	return b.String()
}

func (e unknownAgentsError) Unwrap() error { return ErrUnknownAgent }

// nearestAgent returns the known agent ID closest to id, or "" when none
// is, or when several are equally close. It compares id, in lower case
// and with hyphens for spaces and underscores, with each agent's ID, its
// display name ("Kilo Code" for kilo) and each hyphen-separated word of
// its ID ("copilot" for github-copilot), allowing up to two edits
// (insertions, deletions, substitutions, swaps of neighbours), and fewer
// for short targets, where two edits would turn anything into anything.
func nearestAgent(id string) string {
	norm := func(s string) string {
		return strings.NewReplacer(" ", "-", "_", "-").Replace(strings.ToLower(strings.TrimSpace(s)))
	}
	n := norm(id)
	if n == "" {
		return ""
	}
	const far = 3
	best, bestDist, ties := "", far, 0
	for _, a := range agents {
		d := far
		for _, target := range slices.Concat([]string{a.ID, norm(a.Name)}, strings.Split(a.ID, "-")) {
			if e := editDistance(n, target); e <= min(2, len(target)/3) {
				d = min(d, e)
			}
		}
		switch {
		case d < bestDist:
			best, bestDist, ties = a.ID, d, 1
		case d == bestDist && d < far:
			ties++
		}
	}
	if ties != 1 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of adjacent
// bytes that turn a into b.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
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
