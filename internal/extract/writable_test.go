//go:build unix

package extract

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestWritable(t *testing.T) {
	fsys := fstest.MapFS{
		"SKILL.md":      {Data: []byte("---\nname: x\n---\n"), Mode: 0o644},
		"scripts/run":   {Data: []byte("#!/bin/sh\n"), Mode: 0o700},
		"refs/notes.md": {Data: []byte("notes"), Mode: 0o600},
	}
	opts := Options{MaxFileSize: 1 << 20, MaxTotalSize: 1 << 20, MaxArchiveEntries: 100}
	for _, tt := range []struct {
		writable      bool
		file, program os.FileMode
	}{
		{false, 0o444, 0o555},
		{true, 0o644, 0o755},
	} {
		dir := t.TempDir()
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		opts.Writable = tt.writable
		if _, err := FS(t.Context(), fsys, ".", root, opts); err != nil {
			t.Fatal(err)
		}
		root.Close()
		for name, want := range map[string]os.FileMode{"SKILL.md": tt.file, "refs/notes.md": tt.file, "scripts/run": tt.program} {
			fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			// The umask may only take bits away.
			if got := fi.Mode().Perm(); got&^want != 0 || got&0o400 == 0 || (want&0o200 != 0) != (got&0o200 != 0) {
				t.Errorf("Writable=%v: %s has mode %v, want %v", tt.writable, name, got, want)
			}
		}
	}
}
