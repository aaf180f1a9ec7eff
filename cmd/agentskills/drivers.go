package main

import (
	"fmt"
	"strings"

	"github.com/agentadaptor/agentadaptor/claude"
	"github.com/agentadaptor/agentadaptor/codex"
	"github.com/agentadaptor/agentadaptor/copilot"
	"github.com/agentadaptor/agentadaptor/cursor"
	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/gemini"
	"github.com/agentadaptor/agentadaptor/opencode"
	"github.com/agentadaptor/agentadaptor/qwen"
)

// runnables returns the descriptors of the agents run drives, in the
// order its help names them: the one list of the drivers. Everything
// else about an agent (its id and name, its modes, how run's flags map
// to its Config, the form of its session ids) is its driver's
// descriptor.
func runnables() []driver.Descriptor {
	return []driver.Descriptor{
		claude.Descriptor(),
		codex.Descriptor(),
		gemini.Descriptor(),
		qwen.Descriptor(),
		copilot.Descriptor(),
		cursor.Descriptor(),
		opencode.Descriptor(),
	}
}

// runnable returns the descriptor of the agent id run drives.
func runnable(id string) (driver.Descriptor, bool) {
	for _, a := range runnables() {
		if a.ID == id {
			return a, true
		}
	}
	return driver.Descriptor{}, false
}

// runAgents lists the ids of the agents run drives, joined with sep.
func runAgents(sep string) string {
	var ids []string
	for _, a := range runnables() {
		ids = append(ids, a.ID)
	}
	return strings.Join(ids, sep)
}

// commandEnv is the environment variable that names a's program.
func commandEnv(a driver.Descriptor) string {
	return "AGENTSKILLS_" + strings.ToUpper(strings.ReplaceAll(a.ID, "-", "_")) + "_COMMAND"
}

// settingOf returns the setting of a that run's flag sets.
func settingOf(a driver.Descriptor, flag string) driver.Setting {
	switch flag {
	case "--permission-mode":
		return a.Mode
	case "--skip-permissions":
		return a.Skip
	case "--allowed-tools":
		return a.Allowed
	case "--disallowed-tools":
		return a.Denied
	case "--max-turns":
		return a.Turns
	}
	return driver.Setting{}
}

// mapping says, for run's help, how each agent takes flag: "claude-code
// --max-turns (Config.MaxTurns); qwen-code --max-session-turns
// (Config.MaxSessionTurns). The other agents have no such flag."
func mapping(flag string) string {
	var has, not []string
	for _, a := range runnables() {
		s := settingOf(a, flag)
		switch {
		case !s.Has():
			not = append(not, a.ID)
		case flag == "--permission-mode":
			has = append(has, fmt.Sprintf("%s: %s (%s, Config.%s)", a.ID, strings.Join(a.Modes, ", "), s.Option, s.Field))
		default:
			has = append(has, fmt.Sprintf("%s %s (Config.%s)", a.ID, s.Option, s.Field))
		}
		if s.Has() && s.Note != "" {
			has[len(has)-1] += ", " + s.Note
		}
	}
	text := strings.Join(has, "; ") + "."
	switch len(not) {
	case 0:
	case 1:
		text += " " + not[0] + " has none."
	default:
		text += " " + strings.Join(not[:len(not)-1], ", ") + " and " + not[len(not)-1] + " have none."
	}
	return text
}

// sessionForms says, for run's help, the form of each agent's session
// ids: "a UUID for claude-code, codex, ...; ... for opencode".
func sessionForms() string {
	var forms []string
	byForm := map[string][]string{}
	for _, a := range runnables() {
		f, _, _ := strings.Cut(a.SessionIDs.Form, " such as")
		f = strings.TrimSuffix(f, ",")
		if byForm[f] == nil {
			forms = append(forms, f)
		}
		byForm[f] = append(byForm[f], a.ID)
	}
	var parts []string
	for _, f := range forms {
		parts = append(parts, f+" for "+strings.Join(byForm[f], ", "))
	}
	return strings.Join(parts, "; ")
}

// providers says, for run's help, how each agent reaches its model:
// "Claude Code takes ANTHROPIC_API_KEY ...; Codex takes ...".
func providers() string {
	var each []string
	for _, a := range runnables() {
		each = append(each, a.Agent+" "+a.Provider)
	}
	return strings.Join(each, "; ")
}

// cacheFolders says, for cache's help, which folders each agent's driver
// keeps under the cache root and which of them hold sessions: "skill
// mounts for Claude Code (mounts/claude) and ..., and agent homes for
// Codex (homes/codex) and ...; those of Codex and ... also hold the
// sessions started with that set".
func cacheFolders() string {
	var mounts, homes, sessions []string
	for _, a := range runnables() {
		f := a.Folders
		if f.Home() {
			homes = append(homes, fmt.Sprintf("%s (%s)", a.Agent, f.Dir))
		} else {
			mounts = append(mounts, fmt.Sprintf("%s (%s)", a.Agent, f.Dir))
		}
		if f.Sessions != "" {
			sessions = append(sessions, a.Agent)
		}
	}
	text := "skill mounts for " + and(mounts) + ", and agent homes for " + and(homes)
	if len(sessions) > 0 {
		text += "; those of " + and(sessions) + " also hold the sessions started with that set"
	}
	return text
}

// sessionHomes names, for the help of cache gc and clear, the agents
// whose homes hold their sessions: "Codex's, Gemini CLI's".
func sessionHomes() string {
	var names []string
	for _, a := range runnables() {
		if a.Folders.Sessions != "" {
			names = append(names, a.Agent+"'s")
		}
	}
	return strings.Join(names, ", ")
}

// and joins items as a list in words: "a, b and c".
func and(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// wrap fills text into lines of at most width columns, each after
// indent, the first after first instead.
func wrap(text, first, indent string, width int) string {
	var b strings.Builder
	b.Grow(len(first) + len(text) + 16)
	b.WriteString(first)
	n := len(first) // the length of the line being written
	empty := true   // no word on it yet
	for w := range strings.FieldsSeq(text) {
		if !empty && n+1+len(w) > width {
			// The line ends with a word: no space to trim.
			b.WriteString("\n")
			b.WriteString(indent)
			n, empty = len(indent), true
		}
		if !empty {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
		empty = false
	}
	return b.String()
}
