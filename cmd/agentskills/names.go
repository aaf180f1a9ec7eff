package main

import (
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/editdist"
	"github.com/spf13/cobra"
)

// otherName is what a command is called by other package managers (npm,
// pip, Homebrew, Cargo, and the npm skills tool, whose agent ids and
// flags agentskills takes over): aliases run the command, suggestions
// only name it after an unknown command.
type otherName struct {
	command string   // the agentskills command
	aliases []string // names that run it
	suggest []string // names that, typed, suggest it
}

// otherNames is the one table of those names. A name is an alias only
// where every tool that has it means what the command does; where one of
// them means something else, it is a suggestion, since an alias that
// silently does something other than the user expects is worse than a
// second try:
//
//   - install and i add the SOURCEs given, as they do in every one of
//     those tools. npm's install with no package installs what its lock
//     file records, which is sync here; add with no SOURCE fails and says
//     so (addArgs), so the alias never does the other thing silently.
//     Where it installs is said on every line it prints: the project's
//     folders, as npm and the npm skills tool install, or with --global
//     the user's, as Homebrew and Cargo do.
//   - uninstall and rm remove installed packages everywhere; ls lists
//     them; upgrade updates them; search finds them.
//   - check is the npm skills tool's update in 1.7 and its check for
//     updates before; outdated checks without changing anything, so
//     check only suggests it. npm's ci installs exactly what the lock file
//     records, which sync does, but sync --frozen is the check: ci only
//     suggests sync.
var otherNames = []otherName{
	{command: "add", aliases: []string{"install", "i"}},
	{command: "remove", aliases: []string{"uninstall", "rm"}},
	{command: "list", aliases: []string{"ls"}},
	{command: "update", aliases: []string{"upgrade"}},
	{command: "find", aliases: []string{"search"}},
	{command: "outdated", suggest: []string{"check"}},
	{command: "sync", suggest: []string{"ci"}},
}

// nameCommands gives root's subcommands the names of otherNames.
func nameCommands(root *cobra.Command) {
	for _, n := range otherNames {
		for _, cmd := range root.Commands() {
			if cmd.Name() == n.command {
				cmd.Aliases = append(cmd.Aliases, n.aliases...)
				cmd.SuggestFor = append(cmd.SuggestFor, n.suggest...)
			}
		}
	}
}

// commandArgs is root's check of its arguments: a word that names no
// command is bad usage, said on one line with the few commands it may
// be: cobra's suggestions (the start of a command's name, a name
// otherNames suggests it for, or at most two edits from a command's
// name, one for a word of three letters or fewer, whose two edits reach
// most short names), and the commands with an alias it starts (instal:
// add); the closest maxSuggestions of them.
func commandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	word := strings.ToLower(args[0])
	cmd.SuggestionsMinimumDistance = 2
	if len(word) <= 3 {
		cmd.SuggestionsMinimumDistance = 1
	}
	suggestions := cmd.SuggestionsFor(args[0])
	for _, c := range cmd.Commands() {
		for _, alias := range c.Aliases {
			if strings.HasPrefix(alias, word) && !slices.Contains(suggestions, c.Name()) {
				suggestions = append(suggestions, c.Name())
			}
		}
	}
	if len(suggestions) == 0 {
		return usageErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	slices.SortStableFunc(suggestions, func(a, b string) int { return closeness(word, cmd, a) - closeness(word, cmd, b) })
	suggestions = suggestions[:min(len(suggestions), maxSuggestions)]
	return usageErrorf("unknown command %q for %q; did you mean %s?", args[0], cmd.CommandPath(), strings.Join(suggestions, " or "))
}

// maxSuggestions is how many commands an unknown word suggests at most.
const maxSuggestions = 3

// closeness is how far word is from the command named name of root, the
// fewest edits from its name or an alias, 0 when word is one that
// otherNames has suggest it.
func closeness(word string, root *cobra.Command, name string) int {
	for _, c := range root.Commands() {
		if c.Name() != name {
			continue
		}
		if slices.Contains(c.SuggestFor, word) {
			return 0
		}
		d := editdist.Distance(word, name)
		for _, alias := range c.Aliases {
			d = min(d, editdist.Distance(word, alias))
		}
		return d
	}
	return len(word) + len(name)
}

// addArgs is add's check of its arguments: at least one SOURCE. Without
// one, it says which command installs what the lock file records, for
// users of npm, whose install with no package does that.
func addArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usageErrorf("missing SOURCE; 'agentskills sync' installs the skills the lock file records")
	}
	return nil
}
