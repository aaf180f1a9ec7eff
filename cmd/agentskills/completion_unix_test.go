//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCompletionReadsNoSkill checks that completing an installed skill's
// name reads the lock file alone: it writes nothing (no record of the
// installed trees' stamps), and opens no file of a skill (a FIFO in one
// would block it).
func TestCompletionReadsNoSkill(t *testing.T) {
	home, cache, project := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", cache)
	src := t.TempDir()
	writeSkill(t, src, "review", "---\nname: review\ndescription: Reviews.\n---\n")
	t.Chdir(project)
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"add", src, "-a", "codex", "-q"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("add = %d, stderr %q", code, stderr.String())
	}
	// A changed skill, whose stamps a List would hash again and record,
	// with a FIFO that blocks whoever opens it.
	skill := filepath.Join(project, ".agents", "skills", "review")
	if err := os.WriteFile(filepath.Join(skill, "notes.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(skill, "pipe"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	before := snapshot(t, home, cache, project)
	done := make(chan []string, 1)
	go func() {
		got, _ := complete(t, "remove", "")
		done <- got
	}()
	select {
	case got := <-done:
		if !slices.Equal(got, []string{"review"}) {
			t.Errorf("complete(remove) = %q, want [review]", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("complete(remove) did not return: it opened a file of a skill")
	}
	if after := snapshot(t, home, cache, project); !maps.Equal(before, after) {
		t.Errorf("completion wrote files:\nbefore %v\nafter  %v", before, after)
	}
}

// snapshot is every file and folder under roots, with its size and
// modification time.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			out[p] = fmt.Sprint(fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
