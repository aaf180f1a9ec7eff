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
