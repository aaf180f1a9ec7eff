package testroot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModuleFromStartDir: the module is found from the folder the test
// binary started in, whatever the working folder is now.
func TestModuleFromStartDir(t *testing.T) {
	want, err := Module()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	got, err := Module()
	if err != nil || got != want {
		t.Errorf("Module() after Chdir = %q, %v, want %q", got, err, want)
	}
	if _, err := os.Stat(filepath.Join(got, ".ci", "run")); err != nil {
		t.Errorf("the module root %s has no .ci/run: %v", got, err)
	}
}
