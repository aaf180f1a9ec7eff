package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestSubcommandNames checks that each subcommand is built under the
// name subcommands gives it, which newRootCmdFor knows it by.
func TestSubcommandNames(t *testing.T) {
	s := newStreams(strings.NewReader(""), io.Discard, io.Discard)
	for _, sub := range subcommands {
		if got := sub.new(s).Name(); got != sub.name {
			t.Errorf("the subcommand listed as %q is named %q", sub.name, got)
		}
	}
}

// describeTree writes what a person or a program sees of cmd and the
// commands below it: their names, texts, arguments' check, and flags,
// their own and those they inherit.
func describeTree(cmd *cobra.Command) string {
	var b strings.Builder
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		fmt.Fprintf(&b, "command %q use %q short %q long %q example %q aliases %q suggest %q annotations %v hidden %t args %t runnable %t\n",
			c.CommandPath(), c.Use, c.Short, c.Long, c.Example, c.Aliases, c.SuggestFor, c.Annotations, c.Hidden, c.Args != nil, c.Runnable())
		flag := func(kind string) func(*pflag.Flag) {
			return func(f *pflag.Flag) {
				fmt.Fprintf(&b, "  %s --%s -%s %s default %q noopt %q usage %q hidden %t deprecated %q annotations %v\n",
					kind, f.Name, f.Shorthand, f.Value.Type(), f.DefValue, f.NoOptDefVal, f.Usage, f.Hidden, f.Deprecated, f.Annotations)
			}
		}
		c.LocalFlags().VisitAll(flag("local"))
		c.InheritedFlags().VisitAll(flag("inherited"))
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cmd)
	return b.String()
}

// TestLazyCommands checks that a subcommand that the command line names
// is built alone (newRootCmdFor) and is then as it is in the whole tree:
// the same commands below it, texts and flags, and the same output and
// exit code for their --help, for a flag they do not have and for the
// command line with nothing more. help, completion, a flag, an alias and
// a word that names no command get the whole tree.
func TestLazyCommands(t *testing.T) {
	s := newStreams(strings.NewReader(""), io.Discard, io.Discard)
	full := newRootCmd(s)
	wholeTree := func(s *streams, _ []string) *cobra.Command { return newRootCmd(s) }
	for _, sub := range subcommands {
		lazy := newRootCmdFor(s, []string{sub.name})
		var names []string
		for _, c := range lazy.Commands() {
			names = append(names, c.Name())
		}
		slices.Sort(names)
		want := []string{sub.name, "completion", "help"}
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("newRootCmdFor(%q) has the commands %q, want %s, help and completion", sub.name, names, sub.name)
		}
		lc, _, err := lazy.Find([]string{sub.name})
		if err != nil {
			t.Fatal(err)
		}
		fc, _, err := full.Find([]string{sub.name})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := describeTree(lc), describeTree(fc); got != want {
			t.Errorf("%s built alone differs from the whole tree's:\n%s\nwant:\n%s", sub.name, got, want)
		}
		var walk func(*cobra.Command)
		walk = func(c *cobra.Command) {
			path := strings.Fields(c.CommandPath())[1:]
			for _, extra := range [][]string{{"--help"}, {"--no-such-flag"}, {"--json", "--no-such-flag"}, nil} {
				if c.Runnable() && extra == nil && c.Args == nil {
					continue // a command that takes no arguments would run
				}
				if c.Runnable() && extra == nil && c.Args(c, nil) == nil {
					continue // a command that runs with no arguments
				}
				args := append(slices.Clone(path), extra...)
				var lout, lerr, fout, ferr bytes.Buffer
				lcode := runTree(t.Context(), newRootCmdFor, args, strings.NewReader(""), &lout, &lerr)
				fcode := runTree(t.Context(), wholeTree, args, strings.NewReader(""), &fout, &ferr)
				if lcode != fcode || lout.String() != fout.String() || lerr.String() != ferr.String() {
					t.Errorf("agentskills %s = %d, stdout %q, stderr %q built alone; %d, %q, %q in the whole tree",
						strings.Join(args, " "), lcode, lout.String(), lerr.String(), fcode, fout.String(), ferr.String())
				}
			}
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(fc)
	}
	all := len(full.Commands())
	for _, args := range [][]string{nil, {"help"}, {"help", "audit"}, {"completion"}, {"__complete", "au"}, {"--version"}, {"--json", "audit"}, {"install"}, {"ls"}, {"nope"}, {"Audit"}} {
		if n := len(newRootCmdFor(s, args).Commands()); n != all {
			t.Errorf("newRootCmdFor(%q) has %d commands, want the whole tree's %d", args, n, all)
		}
	}
}
