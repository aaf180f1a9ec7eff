//go:build unix

package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOpensNoFIFO checks the open that follows Small's Stat: a path
// that became a FIFO after the Stat is refused without waiting for a
// writer (an open that waited would hang the test).
func TestReadOpensNoFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := read(fifo, 5); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("read(FIFO) = %v, want not a regular file", err)
	}
}

// TestInRootRefusesFIFO checks that InRoot refuses a FIFO without
// waiting for a writer.
func TestInRootRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "f"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := InRoot(root, "f", 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("InRoot(FIFO) = %v, want ErrNotRegular", err)
	}
}

// TestOpenNoLinkRefusesFIFO checks that OpenNoLink refuses a FIFO
// without waiting for a writer.
func TestOpenNoLinkRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "f"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, _, err := OpenNoLink(root, "f"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("OpenNoLink(FIFO) = %v, want ErrNotRegular", err)
	}
}
