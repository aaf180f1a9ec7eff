//go:build unix

package cache

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecordFIFORefused checks that a named pipe in a record's place is
// refused at once, as any file that is not regular is, rather than
// waiting for a writer that never comes.
func TestRecordFIFORefused(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		suffix string
		read   func(string) []byte
	}{
		{folderSuffix, s.FolderRecord},
		{setSuffix, s.SkillSet},
	} {
		if err := syscall.Mkfifo(filepath.Join(root, memoDir, key+tt.suffix), 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan []byte, 1)
		go func() { done <- tt.read(key) }()
		select {
		case b := <-done:
			if b != nil {
				t.Errorf("the record of a FIFO (%s) = %q, want nil", tt.suffix, b)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("reading a FIFO at a record (%s) waits for a writer", tt.suffix)
		}
	}
}
