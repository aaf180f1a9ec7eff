package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// completeCommands adds to the shell completion of root's commands, which
// cobra gives for command names and flags, the values it cannot know:
//
//   - --agent: the agent ids (install's agents table; run's agents for
//     run, eval and update, whose --agent is --eval's), after the ids a
//     comma-separated list already holds;
//   - --judge: run's agents and none; --baseline: none, lock and files;
//   - the NAME arguments of remove, update and audit: the skills this
//     tool installed in the scope --global chooses (audit also takes a
//     SOURCE, so files are offered too);
//   - --allow-risk: the audit's rule ids, which the policy's audit.accept
//     entries name too, each with its summary;
//   - audit's --fail-on: the severities; import's --from: the installers
//     it reads; push's --format: the formats; run's and eval's --emit:
//     what they print.
func completeCommands(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		switch {
		case cmd.Name() == "run":
			_ = cmd.RegisterFlagCompletionFunc("agent", cobra.FixedCompletions(strings.Split(runAgents(","), ","), cobra.ShellCompDirectiveNoFileComp))
		case cmd.Name() == "eval" || cmd.Name() == "update":
			_ = cmd.RegisterFlagCompletionFunc("agent", completeList(strings.Split(runAgents(","), ",")))
		case cmd.Flags().Lookup("agent") != nil:
			_ = cmd.RegisterFlagCompletionFunc("agent", completeList(installAgentIDs()))
		}
		if cmd.Flags().Lookup("judge") != nil {
			_ = cmd.RegisterFlagCompletionFunc("judge", cobra.FixedCompletions(append(strings.Split(runAgents(","), ","), "none"), cobra.ShellCompDirectiveNoFileComp))
		}
		if cmd.Flags().Lookup("baseline") != nil {
			// none, lock, or the folder of the earlier skill.
			_ = cmd.RegisterFlagCompletionFunc("baseline", func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				var out []cobra.Completion
				for _, v := range []string{"none", "lock"} {
					if strings.HasPrefix(v, toComplete) {
						out = append(out, v)
					}
				}
				return out, cobra.ShellCompDirectiveDefault
			})
		}
		if cmd.Flags().Lookup("allow-risk") != nil {
			_ = cmd.RegisterFlagCompletionFunc("allow-risk", completeRules)
		}
		if cmd.Flags().Lookup("fail-on") != nil {
			var severities []string
			for s := audit.Info; s <= audit.Critical; s++ {
				severities = append(severities, s.String())
			}
			_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions(severities, cobra.ShellCompDirectiveNoFileComp))
		}
		if cmd.Name() == "push" {
			formats := []string{string(oci.FormatImage), string(oci.FormatArtifact)}
			_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
		}
		if cmd.Flags().Lookup("emit") != nil {
			emits := []string{emitKubernetes, emitAgentSandbox}
			if cmd.Name() == "eval" {
				emits = emits[:1] // an evaluation is many pods: no sandbox
			}
			_ = cmd.RegisterFlagCompletionFunc("emit", cobra.FixedCompletions(emits, cobra.ShellCompDirectiveNoFileComp))
		}
		if cmd.Name() == "import" {
			from := []string{string(install.ImportAuto), string(install.ImportNPM), string(install.ImportGH)}
			_ = cmd.RegisterFlagCompletionFunc("from", cobra.FixedCompletions(from, cobra.ShellCompDirectiveNoFileComp))
		}
		switch cmd.Name() {
		case "remove", "update":
			cmd.ValidArgsFunction = completeInstalled(cobra.ShellCompDirectiveNoFileComp)
		case "audit":
			cmd.ValidArgsFunction = completeInstalled(cobra.ShellCompDirectiveDefault)
		}
	}
}

// installAgentIDs are the ids --agent takes for the install commands.
func installAgentIDs() []string {
	var ids []string
	for _, a := range install.Agents() {
		ids = append(ids, a.ID)
	}
	return ids
}

// completeList completes a comma-separated list of ids: the ids not yet
// in it that start as its last element does, each after the part before.
func completeList(ids []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		before, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			before, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := strings.Split(before, ",")
		var out []cobra.Completion
		for _, id := range ids {
			if strings.HasPrefix(id, last) && !slices.Contains(given, id) {
				out = append(out, before+id)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// completeRules completes an audit rule id, with its summary.
func completeRules(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, r := range audit.Rules() {
		if strings.HasPrefix(r.ID, toComplete) {
			out = append(out, cobra.CompletionWithDesc(r.ID, r.Summary))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeInstalled completes the name of a skill this tool installed in
// the scope the command's --global chooses, leaving out names already
// given; then dir says whether files are offered too.
func completeInstalled(dir cobra.ShellCompDirective) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		global, _ := cmd.Flags().GetBool("global")
		f := scopeFlags{global: global, quiet: true}
		in, err := f.installer()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		// The lock file's names alone: a TAB reads no skill and writes
		// nothing (List would hash every installed tree).
		names, err := in.Installed(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, name := range names {
			if strings.HasPrefix(name, toComplete) && !slices.Contains(args, name) {
				out = append(out, name)
			}
		}
		return out, dir
	}
}
