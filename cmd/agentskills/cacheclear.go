package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/skill"
)

// cacheClearOptions are the options of cache clear.
type cacheClearOptions struct {
	io  *streams
	yes bool
	// terminal reports whether standard input is a terminal, where clear
	// may ask.
	terminal bool
}

func newCacheClearCmd(s *streams) *cobra.Command {
	opts := &cacheClearOptions{io: s}
	cmd := &cobra.Command{
		Use:   "clear",
		Short: "Remove everything in the cache that no running agent uses",
		Long: `Clear removes every cached skill, skill mount and agent home that no
running agent uses, whatever its age: a run holds a lease on its mount or
home, and those are kept, with the skills they link to.

` + wrap("An agent home ("+sessionHomes()+") holds the sessions started with its skill set: they go with it and can no longer be resumed. "+
			"Clear says how many, per agent, before it asks and once it is done.", "", "", 74) + `

On a terminal it asks first; -y removes without asking. When standard
input is not a terminal it cannot ask, and without -y it refuses (exit 2),
removing nothing.`,
		Example: `  agentskills cache clear
  agentskills cache clear -y`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			f, ok := s.in.(*os.File)
			opts.terminal = ok && readsTerminal(f.Fd())
			return runCacheClear(cmd.Context(), opts, skill.NewCache())
		}),
	}
	cmd.Flags().BoolVarP(&opts.yes, "yes", "y", false, "remove without asking")
	return cmd
}

// runCacheClear removes from c what no running agent uses, asking first
// unless opts.yes.
func runCacheClear(ctx context.Context, opts *cacheClearOptions, c *skill.Cache) error {
	s := opts.io
	entries, err := c.Entries(ctx)
	if err != nil {
		return err
	}
	folders, err := c.DriverFolders(ctx)
	if err != nil {
		return err
	}
	idle := slices.DeleteFunc(slices.Clone(folders), func(f skill.DriverFolder) bool { return f.InUse })
	if len(entries) == 0 && len(idle) == 0 {
		fmt.Fprintf(s.out, "Nothing to remove: %s.\n", inUseNote(len(folders)))
		return nil
	}
	if !opts.yes {
		plan := planText(c.Root(), entries, idle)
		if !opts.terminal {
			return usageErrorf("%s; clear asks before it removes anything, and standard input is not a terminal: pass -y to remove without asking", plan)
		}
		fmt.Fprintf(s.err, "%s.\nRemove? [y/N] ", plan)
		answer, _ := bufio.NewReader(s.in).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(s.err, "Nothing was removed.")
			return errFailed
		}
	}
	removed, ferr := c.CollectDriverFolders(ctx, 0)
	var trees []skill.CacheEntry
	if ferr == nil {
		trees, err = c.GC(ctx, 0)
	}
	reportRemoved(s, trees, removed)
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return err
	}
	kept, err := c.DriverFolders(ctx)
	if err != nil {
		return err
	}
	for _, f := range kept {
		fmt.Fprintf(s.out, "Kept %s %s of %s: %s.\n", f.Kind, escapePath(f.Dir), f.Agent, keptWhy(f))
	}
	return nil
}

// keptWhy says why clear kept a folder.
func keptWhy(f skill.DriverFolder) string {
	if f.InUse {
		return "a running agent uses it"
	}
	return "a run took it while clear worked"
}

// inUseNote says that the cache holds nothing else than n folders that
// running agents use.
func inUseNote(n int) string {
	if n == 0 {
		return "the cache is empty"
	}
	return fmt.Sprintf("the cache holds only %d skill mounts or agent homes that running agents use", n)
}

// planText says what clear is about to remove from the cache at root:
// the idle folders, and of the cached skills those that no folder kept
// links to.
func planText(root string, entries []skill.CacheEntry, idle []skill.DriverFolder) string {
	mounts, homes, size := countFolders(idle)
	text := fmt.Sprintf("clear removes from %s the %d skill mounts and %d agent homes that no running agent uses (%d bytes), and of the %d cached skills (%d bytes) those no kept one links to",
		escapePath(root), mounts, homes, size, len(entries), treeBytes(entries))
	if n, by := sessions(idle); n > 0 {
		text += fmt.Sprintf(", with the %d sessions the homes hold, which can no longer be resumed (%s)", n, by)
	}
	return text
}

// printTotals ends cache list: how much the cache holds in all, and the
// sessions its agent homes hold.
func printTotals(s *streams, entries []skill.CacheEntry, folders []skill.DriverFolder) {
	mounts, homes, size := countFolders(folders)
	fmt.Fprintf(s.out, "\nIn all: %d cached skills, %d skill mounts and %d agent homes (%d bytes).\n", len(entries), mounts, homes, treeBytes(entries)+size)
	if n, by := sessions(folders); n > 0 {
		fmt.Fprintf(s.out, "The agent homes hold %d sessions (%s), which 'cache clear' and 'cache gc' remove with them.\n", n, by)
	}
}

// treeBytes is the size of the cached skills.
func treeBytes(entries []skill.CacheEntry) int64 {
	var size int64
	for _, e := range entries {
		size += e.Size
	}
	return size
}
