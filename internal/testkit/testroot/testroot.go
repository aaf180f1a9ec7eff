// Package testroot finds the top of the module for test helpers that look
// for tools installed there (.agent-clis, .tools): from the folder the test
// binary started in, its package's folder, read once before any test can
// change the working folder (t.Chdir), never from the working folder of
// the moment. [Missing] is what those helpers do when a tool is not
// there.
package testroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Missing ends t for a tool that is not installed: it fails t with the
// message required when AGENTADAPTOR_REQUIRE_CLIS=1 (as CI sets it, so a
// missing tool cannot pass unnoticed), and skips t with the message
// skipped otherwise.
func Missing(t testing.TB, required, skipped string) {
	t.Helper()
	if os.Getenv("AGENTADAPTOR_REQUIRE_CLIS") == "1" {
		t.Fatalf("%s", required)
	}
	t.Skipf("%s", skipped)
}

// startDir is the working folder the test binary started in.
var startDir, startDirErr = os.Getwd()

// Module returns the nearest folder at or above the folder the test binary
// started in that holds a go.mod.
func Module() (string, error) {
	if startDirErr != nil {
		return "", startDirErr
	}
	dir := startDir
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above " + startDir)
		}
		dir = parent
	}
}
