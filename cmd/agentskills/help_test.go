package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// wholeHelp returns what `agentskills ARGS... --help` prints and, after
// it, the command's reference, the rest of its text, which its page in
// docs/cli shows: all a user can read of the command.
func wholeHelp(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	if code := run(t.Context(), append(args, "--help"), strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("%s --help = %d, stderr %q", strings.Join(args, " "), code, errs.String())
	}
	cmd, _, err := newRootCmd(newStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})).Find(args)
	if err != nil {
		t.Fatal(err)
	}
	return out.String() + "\n" + reference(cmd)
}

// TestHelpIsShort checks that every command's help, cobra's completion
// commands included, says at most maxHelpLines lines before its usage and
// names where to read more: a guide in docs/ and the command's page,
// which holds the rest of its text.
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
		if cmd.Name() != "help" && (!strings.Contains(before, "every detail in "+page) || !strings.Contains(before, "More in ")) {
			t.Errorf("%s --help does not say where to read more (a guide and %s):\n%s", cmd.CommandPath(), page, before)
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
