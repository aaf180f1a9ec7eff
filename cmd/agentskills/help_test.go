package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// wholeHelp returns what `agentskills help ARGS...` prints: all of a
// command's help, which its --help shortens and its page in docs/cli
// shows.
func wholeHelp(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	if code := run(t.Context(), append([]string{"help"}, args...), strings.NewReader(""), &out, &errs); code != 0 || errs.Len() > 0 {
		t.Fatalf("help %s = %d, stderr %q", strings.Join(args, " "), code, errs.String())
	}
	return out.String()
}

// TestHelpIsShort checks that every command's help, cobra's completion
// commands included, says at most maxHelpLines lines before its usage and
// names where to read more: a guide in docs/, and "agentskills help CMD"
// and the command's page, which hold all of its text.
func TestHelpIsShort(t *testing.T) {
	root := docCommand()
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		args := strings.Fields(strings.TrimPrefix(cmd.CommandPath(), root.Name()))
		var out, errs bytes.Buffer
		if code := run(t.Context(), append(args, "--help"), strings.NewReader(""), &out, &errs); code != 0 {
			t.Fatalf("%s --help = %d, stderr %q", cmd.CommandPath(), code, errs.String())
		}
		before, _, ok := strings.Cut(out.String(), "\nUsage:")
		if n := strings.Count(before, "\n") + 1; !ok || n > maxHelpLines {
			t.Errorf("%s --help says %d lines before its usage, want at most %d:\n%s", cmd.CommandPath(), n, maxHelpLines, before)
		}
		page := "docs/cli/" + strings.ReplaceAll(cmd.CommandPath(), " ", "_") + ".md"
		whole := "'" + strings.Join(append([]string{root.Name(), "help"}, args...), " ") + "'\nand " + page + "."
		if cmd.Name() != "help" && (!strings.Contains(before, "; all of it in "+whole) || !strings.Contains(before, "More in docs/") && cmd != root) {
			t.Errorf("%s --help does not say where to read more (a guide, %s):\n%s", cmd.CommandPath(), whole, before)
		}
		if cmd.Name() != "help" && !strings.HasPrefix(wholeHelp(t, args...), reference(cmd)) {
			t.Errorf("help %s does not print all of the command's help", strings.Join(args, " "))
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for path, topic := range helpTopics {
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(topic.guide))); err != nil {
			t.Errorf("the guide of %q: %v", path, err)
		}
	}
}
