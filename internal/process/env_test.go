package process

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestMergeEnv(t *testing.T) {
	got := MergeEnv([]string{"A=1", "B=2", "A=3"}, []string{"A=4", "C=5", "C=6"})
	want := []string{"B=2", "A=4", "C=6"}
	if !slices.Equal(got, want) {
		t.Errorf("MergeEnv = %q, want %q", got, want)
	}
	if v := Getenv(got, "A"); v != "4" {
		t.Errorf("Getenv(A) = %q, want 4", v)
	}
	if v := Getenv([]string{"X=1", "X=2"}, "X"); v != "2" {
		t.Errorf("Getenv(X) = %q, want the last, 2", v)
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "agent")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Found on the environment's PATH, not this process's.
	if got, err := LookPath("agent", []string{"PATH=/nonexistent" + string(os.PathListSeparator) + dir}); err != nil || got != prog {
		t.Errorf("LookPath = %q, %v; want %q", got, err, prog)
	}
	if _, err := LookPath("agent", []string{"PATH=/nonexistent"}); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("LookPath off PATH = %v, want exec.ErrNotFound", err)
	}
	// A relative path is made absolute.
	t.Chdir(dir)
	if got, err := LookPath("./agent", nil); err != nil || got != prog {
		t.Errorf("LookPath(./agent) = %q, %v; want %q", got, err, prog)
	}
}

// TestHomeDir checks that the home folder is read from the agent's
// environment, the last entry winning, and else is this process's.
func TestHomeDir(t *testing.T) {
	name := "HOME"
	if runtime.GOOS == "windows" {
		name = "USERPROFILE"
	}
	if got := HomeDir([]string{name + "=/a", name + "=/b"}); got != "/b" {
		t.Errorf("HomeDir = %q, want /b", got)
	}
	want, _ := os.UserHomeDir()
	if got := HomeDir([]string{"OTHER=/c"}); got != want {
		t.Errorf("HomeDir without %s = %q, want %q", name, got, want)
	}
}
