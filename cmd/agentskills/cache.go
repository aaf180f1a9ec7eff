package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/skill"
)

func newCacheCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Show and clean the skill cache",
		Long: `The skill cache holds every skill taken from an archive, under a folder
named after its content digest. Its root is $AGENT_ADAPTOR_SKILL_CACHE_ROOT,
else the user's cache folder.

` + wrap("Beside the skills, run keeps what each agent needs to see a run's skills, one per skill set: "+cacheFolders()+". "+
			"list shows them with their sizes and the sessions they hold; gc removes those no run has used for the given age, clear all of them, never one a running agent uses, "+
			"and both keep every skill a remaining mount or home links to and say how many sessions went, per agent.", "", "", 74),
		Example: `  agentskills cache dir
  agentskills cache list
  agentskills cache gc --older-than 720h
  agentskills cache clear -y`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("missing subcommand: dir, list, gc or clear")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "dir",
		Short: "Print the cache root",
		Args:  cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(s.out, skill.NewCache().Root())
			return nil
		}),
	})
	cmd.AddCommand(newCacheListCmd(s), newCacheGCCmd(s), newCacheClearCmd(s))
	return cmd
}

func newCacheListCmd(s *streams) *cobra.Command {
	var asJSON bool
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the skills, skill mounts and agent homes in the cache",
		Example: "  agentskills cache list --json",
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			c := skill.NewCache()
			entries, err := c.Entries(cmd.Context())
			if err != nil {
				return err
			}
			folders, err := c.DriverFolders(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeCacheJSON(s, entries, folders)
			}
			w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tFILES\tBYTES\tLAST USE\tDIGEST")
			for _, e := range entries {
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\n", e.Name, e.Files, e.Size, e.LastUse.Format(time.DateTime), e.Digest[:12])
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if len(folders) == 0 {
				printTotals(s, entries, folders)
				return nil
			}
			fmt.Fprintln(s.out)
			w = tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "AGENT\tKIND\tFILES\tBYTES\tSESSIONS\tLAST USE\tIN USE\tDIR")
			for _, f := range folders {
				inUse := "no"
				if f.InUse {
					inUse = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", f.Agent, f.Kind, f.Files, f.Size, f.Sessions, f.LastUse.Format(time.DateTime), inUse, escapePath(f.Dir))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			printTotals(s, entries, folders)
			return nil
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the cached skills, skill mounts and agent homes as JSON")
	return list
}

// escapePath shows a path with its control characters escaped, for a
// terminal.
func escapePath(p string) string {
	q := strconv.Quote(p)
	if q[1:len(q)-1] == p {
		return p
	}
	return q
}

// writeCacheJSON prints the cache's entries as a JSON array: the skills
// ("kind": "skill"), then the drivers' folders ("kind": "mount" or
// "home").
func writeCacheJSON(s *streams, entries []skill.CacheEntry, folders []skill.DriverFolder) error {
	type row struct {
		Kind    string    `json:"kind"`
		Name    string    `json:"name"`
		Digest  string    `json:"digest"`
		Dir     string    `json:"dir"`
		Files   int       `json:"files"`
		Bytes   int64     `json:"bytes"`
		LastUse time.Time `json:"last_use"`
	}
	type folderRow struct {
		Kind     string    `json:"kind"`
		Agent    string    `json:"agent"`
		Dir      string    `json:"dir"`
		Files    int       `json:"files"`
		Bytes    int64     `json:"bytes"`
		Sessions int       `json:"sessions"`
		LastUse  time.Time `json:"last_use"`
		InUse    bool      `json:"in_use"`
	}
	rows := []any{}
	for _, e := range entries {
		rows = append(rows, row{"skill", e.Name, e.Digest, e.Dir, e.Files, e.Size, e.LastUse.UTC()})
	}
	for _, f := range folders {
		rows = append(rows, folderRow{f.Kind, f.Agent, f.Dir, f.Files, f.Size, f.Sessions, f.LastUse.UTC(), f.InUse})
	}
	return writeJSON(s, rows)
}

func newCacheGCCmd(s *streams) *cobra.Command {
	var olderThan time.Duration
	gc := &cobra.Command{
		Use:   "gc",
		Short: "Remove cached skills, skill mounts and agent homes not used for a while",
		Long: `gc removes the skill mounts and agent homes that no run has used for
--older-than, never one a running agent uses, then the cached skills not
used for as long that no remaining mount or home links to, and the
audit reports kept by content that were written as long ago (a report
lost costs one audit of that content again).

` + wrap("An agent home ("+sessionHomes()+") holds the sessions of its skill set: removing it removes them, and they can no longer be resumed. "+
			"gc says how many it removed, per agent. 'cache clear' removes everything no running agent uses, whatever its age.", "", "", 74),
		Example: `  agentskills cache gc --older-than 720h`,
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if olderThan <= 0 {
				return usageErrorf("--older-than must be a positive duration such as 720h; 'agentskills cache clear' removes everything no running agent uses")
			}
			c := skill.NewCache()
			folders, ferr := c.CollectDriverFolders(cmd.Context(), olderThan)
			var removed []skill.CacheEntry
			var err error
			if ferr == nil {
				removed, err = c.GC(cmd.Context(), olderThan)
			}
			reportRemoved(s, removed, folders)
			return errors.Join(ferr, err)
		}),
	}
	gc.Flags().DurationVar(&olderThan, "older-than", 30*24*time.Hour, "remove what was not used for this long")
	return gc
}

// reportRemoved says what gc or clear removed: the cached skills, the
// drivers' folders, and the sessions that went with the homes, per
// agent.
func reportRemoved(s *streams, trees []skill.CacheEntry, folders []skill.DriverFolder) {
	fmt.Fprintf(s.out, "Removed %d cached skills (%d bytes).\n", len(trees), treeBytes(trees))
	mounts, homes, size := countFolders(folders)
	fmt.Fprintf(s.out, "Removed %d skill mounts and %d agent homes (%d bytes).\n", mounts, homes, size)
	if n, by := sessions(folders); n > 0 {
		fmt.Fprintf(s.out, "The agent homes removed held %d sessions, which can no longer be resumed: %s.\n", n, by)
	}
}

// countFolders counts the skill mounts and the agent homes among
// folders, and their bytes.
func countFolders(folders []skill.DriverFolder) (mounts, homes int, size int64) {
	for _, f := range folders {
		size += f.Size
		if f.Kind == "home" {
			homes++
		} else {
			mounts++
		}
	}
	return mounts, homes, size
}

// sessions counts the agent sessions that folders hold, and says how
// many per agent ("codex 2, gemini-cli 1").
func sessions(folders []skill.DriverFolder) (int, string) {
	total, by := 0, map[string]int{}
	for _, f := range folders {
		total += f.Sessions
		if f.Sessions > 0 {
			by[f.Agent] += f.Sessions
		}
	}
	var parts []string
	for _, agent := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, fmt.Sprintf("%s %d", agent, by[agent]))
	}
	return total, strings.Join(parts, ", ")
}
