package readfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSmall(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Small(file, 5); err != nil || string(b) != "12345" {
		t.Errorf("Small(5 bytes, limit 5) = %q, %v", b, err)
	}
	if _, err := Small(file, 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Errorf("Small(5 bytes, limit 4) = %v, want larger than 4 bytes", err)
	}
	if _, err := Small(dir, 5); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Small(folder) = %v, want not a regular file", err)
	}
	if _, err := Small(filepath.Join(dir, "none"), 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Small(missing) = %v, want fs.ErrNotExist", err)
	}
}
