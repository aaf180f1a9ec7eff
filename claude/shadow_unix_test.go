//go:build unix

package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestShadowComparison(t *testing.T) {
	root := t.TempDir()
	ours := skillFolder(t, t.TempDir(), "review", "ours")
	os.WriteFile(filepath.Join(ours, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	rs := resolved(t, ours)
	m, err := mount(root, rs)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(theirs string)
		same   bool
	}{
		{"identical", func(string) {}, true},
		{"executable bit", func(d string) { os.Chmod(filepath.Join(d, "run.sh"), 0o644) }, false},
		{"extra file", func(d string) { os.WriteFile(filepath.Join(d, "x"), nil, 0o644) }, false},
		{"same size, other bytes", func(d string) { os.WriteFile(filepath.Join(d, "run.sh"), []byte("#!/bin/bash"), 0o755) }, false},
		{"a FIFO is not opened", func(d string) { syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644) }, false},
		{"past the size limit", func(d string) {
			f, _ := os.Create(filepath.Join(d, "huge"))
			f.Truncate(shadowMaxBytes + 1) // sparse: costs nothing
			f.Close()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := filepath.Join(t.TempDir(), "skills")
			theirs := filepath.Join(user, "review")
			if err := os.CopyFS(theirs, os.DirFS(ours)); err != nil {
				t.Fatal(err)
			}
			os.Chmod(filepath.Join(theirs, "run.sh"), 0o755)
			tt.change(theirs)
			err := checkShadows(t.Context(), rs, m, t.TempDir(), user)
			if tt.same && err != nil || !tt.same && !errors.Is(err, driver.ErrSkillShadowed) {
				t.Errorf("checkShadows = %v, want same=%v", err, tt.same)
			}
		})
	}
	// A cancelled check stops.
	user := filepath.Join(t.TempDir(), "skills")
	os.CopyFS(filepath.Join(user, "review"), os.DirFS(ours))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := checkShadows(ctx, rs, m, t.TempDir(), user); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled checkShadows = %v, want context.Canceled", err)
	}
}
