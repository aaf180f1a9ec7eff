package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestFoldersPastTheHeldOnes extracts a tar.gz of more folders than a
// writer holds open: files in the first maxOpenDirs folders are created
// through the held folders, the others through the root, and either way
// each file has its bytes and mode, a late violation removes them all,
// and a file already in place is never replaced.
func TestFoldersPastTheHeldOnes(t *testing.T) {
	entries := []tarEntry{tReg("SKILL.md", "# s\n"), tExec("run.sh", "#!/bin/sh\n")}
	dirs := 2*maxOpenDirs + 3
	for i := range dirs {
		entries = append(entries, tReg(fmt.Sprintf("d%03d/e/f.md", i), fmt.Sprintf("file %d\n", i)))
	}
	want := map[string]string{"SKILL.md": "# s\n", "run.sh": "#!/bin/sh\n"}
	for i := range dirs {
		want[fmt.Sprintf("d%03d/e/f.md", i)] = fmt.Sprintf("file %d\n", i)
	}
	opts := concurrentOptions()

	t.Run("written", func(t *testing.T) {
		data := gz(t, tarBytes(t, entries...))
		root, dir := openRoot(t)
		files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(want) {
			t.Fatalf("%d files, want %d", len(files), len(want))
		}
		for name, body := range want {
			p := filepath.Join(dir, filepath.FromSlash(name))
			b, err := os.ReadFile(p)
			if err != nil || string(b) != body {
				t.Errorf("%s = %q (%v), want %q", name, b, err, body)
			}
			info, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			mode := fs.FileMode(0o444)
			if name == "run.sh" {
				mode = 0o555
			}
			if info.Mode() != mode {
				t.Errorf("%s: mode %v, want %v", name, info.Mode(), mode)
			}
		}
	})

	t.Run("late violation", func(t *testing.T) {
		data := gz(t, tarBytes(t, append(entries, tReg("../out", "x"))...))
		root, dir := openRoot(t)
		_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts)
		if !errors.Is(err, ErrUnsafe) {
			t.Fatalf("err = %v, want ErrUnsafe", err)
		}
		checkRootEmpty(t, dir)
	})

	for _, taken := range []string{"run.sh", "d000/e/f.md", fmt.Sprintf("d%03d/e/f.md", dirs-1)} {
		t.Run("taken "+taken, func(t *testing.T) {
			data := gz(t, tarBytes(t, entries...))
			root, dir := openRoot(t)
			p := filepath.Join(dir, filepath.FromSlash(taken))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("the owner's"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts)
			if !errors.Is(err, fs.ErrExist) {
				t.Fatalf("err = %v, want fs.ErrExist", err)
			}
			if b, _ := os.ReadFile(p); string(b) != "the owner's" {
				t.Errorf("%s = %q, want the owner's file", taken, b)
			}
		})
	}
}
