package main

import (
	"fmt"
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
else the user's cache folder.`,
		Example: `  agentskills cache dir
  agentskills cache list
  agentskills cache gc --older-than 720h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("missing subcommand: dir, list or gc")
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
	cmd.AddCommand(newCacheListCmd(s), newCacheGCCmd(s))
	return cmd
}

func newCacheListCmd(s *streams) *cobra.Command {
	var asJSON bool
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the skills in the cache",
		Example: "  agentskills cache list --json",
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			entries, err := skill.NewCache().Entries()
			if err != nil {
				return err
			}
			if asJSON {
				return writeCacheJSON(s, entries)
			}
			w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tFILES\tBYTES\tLAST USE\tDIGEST")
			for _, e := range entries {
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\n", e.Name, e.Files, e.Size, e.LastUse.Format(time.DateTime), e.Digest[:12])
			}
			return w.Flush()
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the cached skills as JSON")
	return list
}

// writeCacheJSON prints the cache's entries as a JSON array.
func writeCacheJSON(s *streams, entries []skill.CacheEntry) error {
	type row struct {
		Name    string    `json:"name"`
		Digest  string    `json:"digest"`
		Dir     string    `json:"dir"`
		Files   int       `json:"files"`
		Bytes   int64     `json:"bytes"`
		LastUse time.Time `json:"last_use"`
	}
	rows := []row{}
	for _, e := range entries {
		rows = append(rows, row{e.Name, e.Digest, e.Dir, e.Files, e.Size, e.LastUse.UTC()})
	}
	return writeJSON(s, rows)
}

func newCacheGCCmd(s *streams) *cobra.Command {
	var olderThan time.Duration
	gc := &cobra.Command{
		Use:     "gc",
		Short:   "Remove cached skills not used for a while",
		Example: `  agentskills cache gc --older-than 720h`,
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if olderThan <= 0 {
				return usageErrorf("--older-than must be a positive duration such as 720h")
			}
			removed, err := skill.NewCache().GC(olderThan)
			if err != nil {
				return err
			}
			var size int64
			for _, e := range removed {
				size += e.Size
			}
			fmt.Fprintf(s.out, "Removed %d cached skills (%d bytes).\n", len(removed), size)
			return nil
		}),
	}
	gc.Flags().DurationVar(&olderThan, "older-than", 30*24*time.Hour, "remove what was not used for this long")
	return gc
}
