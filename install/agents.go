package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/editdist"
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

// path returns where f, a folder of the agents table, is in e.
func (e Env) path(f agents.Folder) string {
	if f.Base == agents.Project {
		return filepath.Join(e.Project, filepath.FromSlash(f.Rel))
	}
	return agents.Env{Home: e.Home, Getenv: e.getenv}.Path(f)
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

	row agents.Row // the agent's row of the one agents table
}

// Dir returns the folder skills are installed into for the agent in a
// scope.
func (a Agent) Dir(e Env, s Scope) string {
	if s == Project {
		return filepath.Join(e.Project, filepath.FromSlash(a.ProjectDir))
	}
	u := e.path(a.row.UserInstall)
	if len(a.row.Formerly) == 0 || exists(filepath.Dir(u)) {
		return u
	}
	for _, f := range a.row.Formerly {
		if p := e.path(f); exists(filepath.Dir(p)) {
			return p
		}
	}
	return u
}

// Reads returns every folder the agent reads skills from in a scope, Dir
// first; a skill in any of them is one the agent loads. Folders outside
// the scope ([Agent.System], and for some agents the folders above the
// project) are not among them.
func (a Agent) Reads(e Env, s Scope) []string {
	out := []string{a.Dir(e, s)}
	for _, f := range a.row.Folders {
		var p string
		switch {
		case s == Project && f.Base == agents.Project:
			p = e.path(f)
		case s == User && f.User() && f != a.row.UserInstall && !slices.Contains(a.row.Formerly, f):
			p = e.path(f)
		}
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// System returns the folders outside every scope that the agent reads
// skills from, such as Codex's /etc/codex/skills: no install puts skills
// there, but the agent loads those it finds.
func (a Agent) System() []string {
	var out []string
	for _, f := range a.row.Folders {
		if f.Base == agents.System {
			out = append(out, filepath.FromSlash(f.Rel))
		}
	}
	return out
}

// Detected reports whether the agent seems installed for this user: its
// configuration folder exists (for a few agents, one in the project).
func (a Agent) Detected(e Env) bool {
	return a.DetectedBy(e) != ""
}

// DetectedBy returns the folder that makes the agent detected in e (see
// [Agent.Detected]), or "" when it is not.
func (a Agent) DetectedBy(e Env) string {
	for _, f := range a.row.Detect {
		if p := e.path(f); exists(p) {
			return p
		}
	}
	return ""
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// known is the table of known agents, sorted by ID: the rows of the one
// agents table (internal/agents), every agent of the npm skills tool
// 1.4.9, with the folders its table gives, except where an agent's own
// documentation or its CLI says more (see the package doc).
var known = func() []Agent {
	var out []Agent
	for _, r := range agents.Table() {
		out = append(out, agentOf(r))
	}
	return out
}()

// agentOf is the Agent of a row of the agents table.
func agentOf(r agents.Row) Agent {
	return Agent{ID: r.ID, Name: r.Name, ProjectDir: r.Install, Override: r.UserInstall.Base.Override(), row: r}
}

// Agents returns the known agents, sorted by ID.
func Agents() []Agent { return slices.Clone(known) }

// LookupAgent returns the agent with the given ID.
func LookupAgent(id string) (Agent, bool) {
	r, ok := agents.Lookup(id)
	if !ok {
		return Agent{}, false
	}
	return agentOf(r), true
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
	for _, a := range known {
		d := far
		for _, target := range slices.Concat([]string{a.ID, norm(a.Name)}, strings.Split(a.ID, "-")) {
			if e := editdist.Distance(n, target); e <= min(2, len(target)/3) {
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

// DefaultAgents returns the agents detected in e, or claude-code and codex
// when none is. An Add that names no agents asks [Installer.ChooseAgents],
// which first takes the agents the lock file records.
func DefaultAgents(e Env) []Agent {
	var out []Agent
	for _, a := range known {
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
