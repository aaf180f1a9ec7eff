package cosigntest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPathFromEnvironment(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "cosign")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTADAPTOR_COSIGN", bin)
	if got := Path(t); got != bin {
		t.Errorf("Path() = %q, want %q", got, bin)
	}
}

// TestModuleRootFromStartDir: the module is found from the folder the
// test binary started in, whatever the working folder is now.
func TestModuleRootFromStartDir(t *testing.T) {
	want, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	got, err := moduleRoot()
	if err != nil || got != want {
		t.Errorf("moduleRoot() after Chdir = %q, %v, want %q", got, err, want)
	}
	if _, err := os.Stat(filepath.Join(got, ".ci", "install-cosign")); err != nil {
		t.Errorf("the module root %s has no .ci/install-cosign: %v", got, err)
	}
}
