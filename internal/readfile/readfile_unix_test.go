//go:build unix

package readfile

import (
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
