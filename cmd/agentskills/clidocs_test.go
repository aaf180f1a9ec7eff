package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

var (
	updateCLIDocs = flag.Bool("update-cli-docs", false, "write docs/cli/*.md from the commands")
	manDir        = flag.String("man", "", "write the manual pages of the commands (section 1) into this folder")
)

// cliDocs is the folder of the command reference, from this package.
var cliDocs = filepath.Join("..", "..", "docs", "cli")

// regenerate is the command that writes the command reference anew.
const regenerate = "go generate ./cmd/agentskills"

// docCommand returns the command tree as a user sees it, with cobra's
// completion command and help and version flags, each command's whole
// text (its reference, which its help leaves out), and no generation
// date in the pages.
func docCommand() *cobra.Command {
	root := newRootCmd(newStreams(strings.NewReader(""), io.Discard, io.Discard))
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		c.Long = reference(c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return root
}

// markdownPages returns the command reference as cobra's doc generator
// writes it: file name to contents.
func markdownPages(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := doc.GenMarkdownTree(docCommand(), dir); err != nil {
		t.Fatal(err)
	}
	return readPages(t, dir, ".md")
}

// readPages returns the files of dir whose names end in ext.
func readPages(t *testing.T, dir, ext string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	pages := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ext) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = data
	}
	return pages
}

// TestCLIReference checks that the command reference in docs/cli is the
// one the commands give now, page for page, and that the manual pages
// can be generated. With -update-cli-docs it writes the reference
// instead (go generate runs it so); with -man=DIR it also writes the
// manual pages into DIR.
func TestCLIReference(t *testing.T) {
	want := markdownPages(t)
	if again := markdownPages(t); !equalPages(want, again) {
		t.Fatal("two generations of the command reference differ: the pages depend on something besides the commands")
	}
	if *updateCLIDocs {
		writeCLIDocs(t, want)
	}
	got := readPages(t, cliDocs, ".md")
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("docs/cli/%s is missing: run %s", name, regenerate)
		} else if !bytes.Equal(got[name], want[name]) {
			t.Errorf("docs/cli/%s is stale (the command's help changed): run %s", name, regenerate)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/cli/%s is no command's page: run %s, which removes it", name, regenerate)
		}
	}

	dir := *manDir
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := doc.GenManTree(docCommand(), &doc.GenManHeader{Title: "AGENTSKILLS", Section: "1", Source: "agentskills " + version()}, dir); err != nil {
		t.Fatal(err)
	}
	man := readPages(t, dir, ".1")
	for name := range want {
		page := strings.ReplaceAll(strings.TrimSuffix(name, ".md"), "_", "-") + ".1" // cobra names them so
		if len(man[page]) == 0 {
			t.Errorf("the manual pages have no %s, for docs/cli/%s", page, name)
		}
	}
}

// writeCLIDocs replaces the command reference with pages.
func writeCLIDocs(t *testing.T, pages map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(cliDocs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name := range readPages(t, cliDocs, ".md") {
		if _, ok := pages[name]; !ok {
			if err := os.Remove(filepath.Join(cliDocs, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, data := range pages {
		if err := os.WriteFile(filepath.Join(cliDocs, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// equalPages reports whether a and b hold the same pages.
func equalPages(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for name, data := range a {
		if !bytes.Equal(b[name], data) {
			return false
		}
	}
	return true
}
