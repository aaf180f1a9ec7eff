//go:build unix

package treecmp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestEqual(t *testing.T) {
	base := t.TempDir()
	a := filepath.Join(base, "a")
	os.MkdirAll(filepath.Join(a, "scripts"), 0o755)
	os.WriteFile(filepath.Join(a, "SKILL.md"), []byte("---\nname: a\n---\n"), 0o644)
	os.WriteFile(filepath.Join(a, "scripts", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink("SKILL.md", filepath.Join(a, "alias.md"))
	tests := []struct {
		name   string
		change func(b string)
		equal  bool
	}{
		{"identical", func(string) {}, true},
		{"executable bit", func(b string) { os.Chmod(filepath.Join(b, "scripts", "run.sh"), 0o644) }, false},
		{"extra file", func(b string) { os.WriteFile(filepath.Join(b, "x"), nil, 0o644) }, false},
		{"extra folder", func(b string) { os.Mkdir(filepath.Join(b, "x"), 0o755) }, false},
		{"file missing", func(b string) { os.Remove(filepath.Join(b, "scripts", "run.sh")) }, false},
		{"same size, other bytes", func(b string) { os.WriteFile(filepath.Join(b, "scripts", "run.sh"), []byte("#!/bin/bash"), 0o755) }, false},
		{"link retargeted", func(b string) {
			os.Remove(filepath.Join(b, "alias.md"))
			os.Symlink("other.md", filepath.Join(b, "alias.md"))
		}, false},
		{"a FIFO is not opened", func(b string) { syscall.Mkfifo(filepath.Join(b, "pipe"), 0o644) }, false},
		{"past the size limit", func(b string) {
			f, _ := os.Create(filepath.Join(b, "huge"))
			f.Truncate(MaxBytes + 1) // sparse: costs nothing
			f.Close()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := filepath.Join(t.TempDir(), "b")
			copyTree(t, a, b)
			tt.change(b)
			got, err := Equal(t.Context(), a, b)
			if err != nil || got != tt.equal {
				t.Errorf("Equal = %v, %v; want %v", got, err, tt.equal)
			}
			// Through a link to the folder, the same answer.
			link := filepath.Join(t.TempDir(), "link")
			os.Symlink(b, link)
			if got, err := Equal(t.Context(), a, link); err != nil || got != tt.equal {
				t.Errorf("Equal through a link = %v, %v; want %v", got, err, tt.equal)
			}
		})
	}
}

func TestEqualLimitsAndContext(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for i := range MaxEntries + 1 {
		name := fmt.Sprintf("f%05d", i)
		os.WriteFile(filepath.Join(a, name), nil, 0o644)
		os.WriteFile(filepath.Join(b, name), nil, 0o644)
	}
	if got, err := Equal(t.Context(), a, b); got || err != nil {
		t.Errorf("Equal past the entry limit = %v, %v; want false, nil", got, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Equal(ctx, a, b); !errors.Is(err, context.Canceled) {
		t.Errorf("Equal with a cancelled context = %v, want context.Canceled", err)
	}
	if _, err := Equal(t.Context(), t.TempDir(), filepath.Join(b, "missing")); err == nil {
		t.Error("Equal with a missing folder gave no error")
	}
}

// copyTree copies a folder with its modes and links.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(to, "scripts", "run.sh"), 0o755)
}
