package agents

import (
	"path/filepath"
	"slices"
	"strings"
)

// Base is where a [Folder] is rooted (rule 3 of the package doc).
type Base int

const (
	// Project is the working folder: the project.
	Project Base = iota
	// Home is the user's home folder.
	Home
	// ConfigHome is $XDG_CONFIG_HOME, else ~/.config.
	ConfigHome
	// ClaudeConfig is $CLAUDE_CONFIG_DIR, else ~/.claude.
	ClaudeConfig
	// CodexHome is $CODEX_HOME, else ~/.codex.
	CodexHome
	// System is the root of the file system: the folder's path is
	// absolute.
	System
)

// Override returns the environment variable that moves b, or "".
func (b Base) Override() string {
	switch b {
	case ConfigHome:
		return "XDG_CONFIG_HOME"
	case ClaudeConfig:
		return "CLAUDE_CONFIG_DIR"
	case CodexHome:
		return "CODEX_HOME"
	}
	return ""
}

// fallback is where b is when its variable is not set, relative to the
// home folder.
func (b Base) fallback() string {
	switch b {
	case ConfigHome:
		return ".config"
	case ClaudeConfig:
		return ".claude"
	case CodexHome:
		return ".codex"
	}
	return "."
}

// Folder is a folder rooted at a Base; Rel is slash-separated (absolute
// for [System]).
type Folder struct {
	Base Base
	Rel  string
}

// User reports whether f is one of the user's folders: neither in the
// project nor a system folder.
func (f Folder) User() bool { return f.Base != Project && f.Base != System }

// Env is what a folder's path depends on.
type Env struct {
	// Home is the user's home folder; "" leaves out the folders under it.
	Home string
	// Getenv reads an environment variable; nil reads none.
	Getenv func(string) string
}

// Path returns where f is in e, or "" when it depends on a home folder e
// does not have. A [Project] folder is returned relative to the project.
func (e Env) Path(f Folder) string {
	rel := filepath.FromSlash(f.Rel)
	switch f.Base {
	case Project, System:
		return rel
	}
	if v := f.Base.Override(); v != "" && e.Getenv != nil {
		if root := strings.TrimSpace(e.Getenv(v)); root != "" {
			return filepath.Join(root, rel)
		}
	}
	if e.Home == "" {
		return ""
	}
	return filepath.Join(e.Home, f.Base.fallback(), rel)
}

// Naming is how an agent names the skills it lists (rule 6).
type Naming int

const (
	// FolderName lists a skill by its folder's name.
	FolderName Naming = iota
	// FrontMatterName lists a skill by the name in its SKILL.md's front
	// matter, else by its folder's name.
	FrontMatterName
)

// Facts says where a row's folders come from (rule 8).
type Facts int

const (
	// NPMTable rows follow the npm skills tool's table.
	NPMTable Facts = iota
	// Documented rows follow the agent's own documentation.
	Documented
	// Recorded rows follow runs of the agent's CLI recorded in the
	// project's reference notes, not repeated in CI.
	Recorded
	// Checked rows are pinned by a test against the real CLI in CI.
	Checked
)

// String names the source of the facts.
func (f Facts) String() string {
	switch f {
	case Documented:
		return "documentation"
	case Recorded:
		return "recorded runs"
	case Checked:
		return "checked against the CLI"
	}
	return "npm skills table"
}

// Row is one agent of the table; the package doc says what each column
// means.
type Row struct {
	ID, Name string
	Program  string
	Folders  []Folder

	Ancestors    bool
	Depth        int
	FollowsLinks bool
	ListedBy     Naming

	Nested          []string
	NestedGitignore bool

	Install     string
	UserInstall Folder
	Formerly    []Folder
	Detect      []Folder

	Facts Facts
}

// canonical is the cross-agent project folder, and the user's
// ~/.agents/skills.
const canonical = ".agents/skills"

func project(rel string) Folder { return Folder{Project, rel} }
func home(rel string) Folder    { return Folder{Home, rel} }

// simple is an agent of the npm table that reads one project folder and
// one folder under the home folder, and is detected by the folder under
// home holding its configuration.
func simple(id, name, projectDir, userDir, configDir string) Row {
	return Row{
		ID: id, Name: name, Folders: []Folder{project(projectDir), home(userDir)},
		Depth: 1, FollowsLinks: true,
		Install: projectDir, UserInstall: home(userDir), Detect: []Folder{home(configDir)},
	}
}

// AnyDepth is the Depth of an agent that finds a SKILL.md at any depth
// below its folders.
const AnyDepth = -1

// full fills in the columns every row of the table shares: links are
// followed, and Depth is 1 unless set.
func full(r Row) Row {
	if r.Depth == 0 {
		r.Depth = 1
	}
	r.FollowsLinks = true
	return r
}

// table is every agent, sorted by ID: the npm skills tool's 45.
var table = []Row{
	simple("adal", "AdaL", ".adal/skills", ".adal/skills", ".adal"),
	full(Row{
		ID: "amp", Name: "Amp", Folders: []Folder{project(canonical), {ConfigHome, "agents/skills"}},
		Install: canonical, UserInstall: Folder{ConfigHome, "agents/skills"}, Detect: []Folder{{ConfigHome, "amp"}},
	}),
	simple("antigravity", "Antigravity", canonical, ".gemini/antigravity/skills", ".gemini/antigravity"),
	simple("augment", "Augment", ".augment/skills", ".augment/skills", ".augment"),
	simple("bob", "IBM Bob", ".bob/skills", ".bob/skills", ".bob"),
	{
		// Checked by agents_real_test.go against Claude Code 2.1.328,
		// the nested folders too: a file read in pkg/ makes it load
		// pkg/.claude/skills, unless git ignores pkg/ (it asks `git
		// check-ignore`).
		ID: "claude-code", Name: "Claude Code", Program: "claude",
		Folders:   []Folder{{ClaudeConfig, "skills"}, project(".claude/skills")},
		Ancestors: true, Depth: 1, FollowsLinks: true, ListedBy: FolderName,
		Nested: []string{".claude/skills"}, NestedGitignore: true,
		Install: ".claude/skills", UserInstall: Folder{ClaudeConfig, "skills"}, Detect: []Folder{{ClaudeConfig, "."}},
		Facts: Checked,
	},
	simple("cline", "Cline", canonical, canonical, ".cline"),
	full(Row{
		ID: "codebuddy", Name: "CodeBuddy", Folders: []Folder{project(".codebuddy/skills"), home(".codebuddy/skills")},
		Install: ".codebuddy/skills", UserInstall: home(".codebuddy/skills"), Detect: []Folder{project(".codebuddy"), home(".codebuddy")},
	}),
	{
		// Checked by agents_real_test.go against Codex 0.169.0; the
		// system folder is from its documentation. No nested folders:
		// it reads skills for the working folder and those above it
		// only, also after reading a file below (agents_real_test.go).
		ID: "codex", Name: "Codex", Program: "codex",
		Folders: []Folder{
			project(canonical), project(".codex/skills"),
			home(canonical), {CodexHome, "skills"}, {System, "/etc/codex/skills"},
		},
		Ancestors: true, Depth: 6, FollowsLinks: true, ListedBy: FrontMatterName,
		Install: canonical, UserInstall: home(canonical), Detect: []Folder{{CodexHome, "."}},
		Facts: Checked,
	},
	simple("command-code", "Command Code", ".commandcode/skills", ".commandcode/skills", ".commandcode"),
	full(Row{
		ID: "continue", Name: "Continue", Folders: []Folder{project(".continue/skills"), home(".continue/skills")},
		Install: ".continue/skills", UserInstall: home(".continue/skills"), Detect: []Folder{project(".continue"), home(".continue")},
	}),
	simple("cortex", "Cortex Code", ".cortex/skills", ".snowflake/cortex/skills", ".snowflake/cortex"),
	simple("crush", "Crush", ".crush/skills", ".config/crush/skills", ".config/crush"),
	full(Row{
		// No nested folders: its documentation lists the folders it
		// reads when it starts, none below the working folder.
		ID: "cursor", Name: "Cursor CLI", Program: "agent",
		Folders: []Folder{
			project(canonical), project(".cursor/skills"), project(".claude/skills"), project(".codex/skills"),
			home(canonical), home(".cursor/skills"), home(".claude/skills"), home(".codex/skills"),
		},
		Install: canonical, UserInstall: home(canonical), Detect: []Folder{home(".cursor")},
		Facts: Documented,
	}),
	simple("deepagents", "Deep Agents", canonical, ".deepagents/agent/skills", ".deepagents"),
	simple("droid", "Droid", ".factory/skills", ".factory/skills", ".factory"),
	simple("firebender", "Firebender", canonical, ".firebender/skills", ".firebender"),
	full(Row{
		// Gemini CLI 0.61.0: <folder>/SKILL.md or <folder>/*/SKILL.md.
		// No nested folders: its skill manager reads the project
		// folders of the working folder only (read in its bundle,
		// discoverSkills).
		ID: "gemini-cli", Name: "Gemini CLI", Program: "gemini",
		Folders: []Folder{project(canonical), project(".gemini/skills"), home(canonical), home(".gemini/skills")},
		Depth:   1, ListedBy: FrontMatterName,
		Install: canonical, UserInstall: home(canonical), Detect: []Folder{home(".gemini")},
		Facts: Recorded,
	}),
	full(Row{
		// From its documentation. Runs of Copilot CLI 1.0.102 recorded
		// in the reference notes did not load ~/.claude/skills; the row
		// keeps it until a test against the CLI pins the row. No nested
		// folders: Copilot CLI 1.0.102 shows none of a folder below the
		// working folder, also after viewing a file there
		// (agents_real_test.go).
		ID: "github-copilot", Name: "GitHub Copilot CLI", Program: "copilot",
		Folders: []Folder{
			project(canonical), project(".github/skills"), project(".claude/skills"),
			home(canonical), home(".copilot/skills"), home(".claude/skills"),
		},
		ListedBy: FrontMatterName,
		Install:  canonical, UserInstall: home(canonical), Detect: []Folder{home(".copilot")},
		Facts: Documented,
	}),
	full(Row{
		ID: "goose", Name: "Goose",
		Folders: []Folder{
			project(canonical), project(".goose/skills"), project(".claude/skills"),
			home(canonical), {ConfigHome, "goose/skills"},
		},
		Install: canonical, UserInstall: home(canonical), Detect: []Folder{{ConfigHome, "goose"}},
		Facts: Documented,
	}),
	simple("iflow-cli", "iFlow CLI", ".iflow/skills", ".iflow/skills", ".iflow"),
	simple("junie", "Junie", ".junie/skills", ".junie/skills", ".junie"),
	simple("kilo", "Kilo Code", ".kilocode/skills", ".kilocode/skills", ".kilocode"),
	simple("kimi-cli", "Kimi Code CLI", canonical, ".config/agents/skills", ".kimi"),
	simple("kiro-cli", "Kiro CLI", ".kiro/skills", ".kiro/skills", ".kiro"),
	simple("kode", "Kode", ".kode/skills", ".kode/skills", ".kode"),
	simple("mcpjam", "MCPJam", ".mcpjam/skills", ".mcpjam/skills", ".mcpjam"),
	simple("mistral-vibe", "Mistral Vibe", ".vibe/skills", ".vibe/skills", ".vibe"),
	simple("mux", "Mux", ".mux/skills", ".mux/skills", ".mux"),
	simple("neovate", "Neovate", ".neovate/skills", ".neovate/skills", ".neovate"),
	full(Row{
		ID: "openclaw", Name: "OpenClaw", Folders: []Folder{project("skills"), home(".openclaw/skills")},
		Install: "skills", UserInstall: home(".openclaw/skills"),
		Formerly: []Folder{home(".clawdbot/skills"), home(".moltbot/skills")},
		Detect:   []Folder{home(".openclaw"), home(".clawdbot"), home(".moltbot")},
	}),
	full(Row{
		// OpenCode 1.18.33: skills/**/SKILL.md, in the working folder
		// and each one above it up to the git worktree's top. No nested
		// folders: it lists skills once per instance, from those folders
		// only (read in its bundle).
		ID: "opencode", Name: "OpenCode", Program: "opencode", Ancestors: true,
		Folders: []Folder{
			project(canonical), project(".opencode/skills"), project(".claude/skills"),
			home(canonical), {ConfigHome, "opencode/skills"}, home(".claude/skills"),
		},
		Depth: AnyDepth, ListedBy: FrontMatterName,
		Install: canonical, UserInstall: home(canonical), Detect: []Folder{{ConfigHome, "opencode"}},
		Facts: Recorded,
	}),
	simple("openhands", "OpenHands", ".openhands/skills", ".openhands/skills", ".openhands"),
	simple("pi", "Pi", ".pi/skills", ".pi/agent/skills", ".pi/agent"),
	simple("pochi", "Pochi", ".pochi/skills", ".pochi/skills", ".pochi"),
	simple("qoder", "Qoder", ".qoder/skills", ".qoder/skills", ".qoder"),
	func() Row {
		// Qwen Code 0.24.4, in runs recorded in the reference notes and
		// by the qwen driver's tests: .qwen/skills and .agents/skills of
		// the working folder (not those above it), ~/.qwen/skills ($QWEN_HOME/skills
		// when set; the qwen driver resolves that) and ~/.agents/skills,
		// <folder>/<name>/SKILL.md, links followed. Install keeps the npm
		// table's .qwen/skills. No nested folders: its skill manager
		// reads the project root's folders only (read in its bundle,
		// getSkillsBaseDirs).
		r := simple("qwen-code", "Qwen Code", ".qwen/skills", ".qwen/skills", ".qwen")
		r.Folders = []Folder{project(".qwen/skills"), project(canonical), home(".qwen/skills"), home(canonical)}
		r.Facts = Recorded
		r.Program, r.ListedBy = "qwen", FrontMatterName
		return r
	}(),
	full(Row{
		ID: "replit", Name: "Replit", Folders: []Folder{project(canonical), {ConfigHome, "agents/skills"}},
		Install: canonical, UserInstall: Folder{ConfigHome, "agents/skills"}, Detect: []Folder{project(".replit")},
	}),
	simple("roo", "Roo Code", ".roo/skills", ".roo/skills", ".roo"),
	simple("trae", "Trae", ".trae/skills", ".trae/skills", ".trae"),
	simple("trae-cn", "Trae CN", ".trae/skills", ".trae-cn/skills", ".trae-cn"),
	// universal is the cross-agent folder itself, for agents not listed;
	// it is never detected.
	full(Row{
		ID: "universal", Name: "Universal", Folders: []Folder{project(canonical), home(canonical)},
		Install: canonical, UserInstall: home(canonical),
	}),
	simple("warp", "Warp", canonical, canonical, ".warp"),
	func() Row {
		r := simple("windsurf", "Windsurf", ".windsurf/skills", ".codeium/windsurf/skills", ".codeium/windsurf")
		r.Facts = Documented
		return r
	}(),
	simple("zencoder", "Zencoder", ".zencoder/skills", ".zencoder/skills", ".zencoder"),
}

// Table returns every row, sorted by ID.
func Table() []Row { return slices.Clone(table) }

// Lookup returns the row of the agent with the given ID.
func Lookup(id string) (Row, bool) {
	i, ok := slices.BinarySearchFunc(table, id, func(r Row, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return Row{}, false
	}
	return table[i], true
}
