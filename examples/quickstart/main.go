// Command quickstart materializes a few example skills, one of each kind of
// source, into a cache under the temp folder, and prints where each landed.
//
//	go run ./examples/quickstart
//
// It needs no network and no setup; run it from the repository root (or
// pass -skills with the path of examples/skills).
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"text/tabwriter"

	"github.com/agentadaptor/agentadaptor/skill"
)

//go:embed embedded
var embedded embed.FS

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	flags.SetOutput(stderr)
	skillsDir := flags.String("skills", filepath.Join("examples", "skills"), "folder of example skills")
	cacheRoot := flags.String("cache", filepath.Join(os.TempDir(), "agentadaptor-quickstart"), "cache root")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if _, err := os.Stat(*skillsDir); err != nil {
		fmt.Fprintf(stderr, "quickstart: %v (run from the repository root, or pass -skills)\n", err)
		return 2
	}

	// An archive built from a folder, as a host would download one.
	kit, err := tarGz(filepath.Join(*skillsDir, "release-notes"))
	if err != nil {
		fmt.Fprintln(stderr, "quickstart:", err)
		return 1
	}
	skills := []skill.Skill{
		skill.Dir(filepath.Join(*skillsDir, "code-review")),
		skill.FS(embedded, "embedded/greet"),
		skill.Inline("Plain Words", "---\nname: plain-words\ndescription: Write in short, plain sentences. Use for every answer.\n---\n# Plain words\n\nPrefer short words and the active voice.\n"),
		skill.Archive("release-notes", skill.ArchiveBytes(kit)),
	}

	m := skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(*cacheRoot))
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tRUNTIME NAME\tFOLDER")
	for _, s := range skills {
		name, err := skill.RuntimeName(s)
		if err != nil {
			fmt.Fprintln(stderr, "quickstart:", err)
			return 1
		}
		dir, err := m.Materialize(ctx, s)
		if err != nil {
			fmt.Fprintln(stderr, "quickstart:", err)
			return 1
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", s.Key, name, dir)
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// tarGz packs the folder dir as a gzip-compressed tar with the skill at
// its root.
func tarGz(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.AddFS(os.DirFS(dir)); err != nil {
		return nil, fmt.Errorf("pack %s: %w", dir, err)
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
