package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadsTerminal checks that the null device, a pipe and a file are
// not terminals, though the null device is a character device: clear
// run from a script with </dev/null must refuse, not ask.
func TestReadsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, f := range []*os.File{null, r, file} {
		if readsTerminal(f.Fd()) {
			t.Errorf("readsTerminal(%s) = true, want false", f.Name())
		}
	}
}
