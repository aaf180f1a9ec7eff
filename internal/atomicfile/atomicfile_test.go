package atomicfile_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestWrite covers rules 1, 2 and 6: the file holds the new bytes, with
// the permission asked for whatever the umask, and no temporary file is
// left, flushed or not.
func TestWrite(t *testing.T) {
	strictUmask(t)
	tests := []struct {
		name  string
		old   string // "" for no file before
		data  string
		perm  fs.FileMode
		under string // folder under the root, for WriteIn
	}{
		{name: "new file", data: "one\n", perm: 0o644},
		{name: "replace", old: "old bytes, longer than the new\n", data: "new\n", perm: 0o600},
		{name: "read-only", old: "x", data: "record\n", perm: 0o444},
		{name: "empty", old: "x", data: "", perm: 0o640},
		{name: "in a folder", data: "memo\n", perm: 0o600, under: "memo"},
	}
	for _, tt := range tests {
		for _, via := range []string{"Write", "WriteIn", "WriteUnflushed"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				root := t.TempDir()
				dir := filepath.Join(root, tt.under)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(dir, "file")
				if tt.old != "" {
					if err := os.WriteFile(file, []byte(tt.old), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				var err error
				switch via {
				case "Write":
					err = atomicfile.Write(file, []byte(tt.data), tt.perm)
				case "WriteUnflushed":
					err = atomicfile.WriteUnflushed(file, []byte(tt.data), tt.perm)
				default:
					r, rerr := os.OpenRoot(root)
					if rerr != nil {
						t.Fatal(rerr)
					}
					defer r.Close()
					err = atomicfile.WriteIn(r, filepath.ToSlash(filepath.Join(tt.under, "file")), []byte(tt.data), tt.perm)
				}
				if err != nil {
					t.Fatalf("%s(%q) = %v", via, file, err)
				}
				got, err := os.ReadFile(file)
				if err != nil || string(got) != tt.data {
					t.Errorf("ReadFile(%q) = %q, %v, want %q", file, got, err, tt.data)
				}
				info, err := os.Stat(file)
				if err != nil {
					t.Fatal(err)
				}
				want := tt.perm
				if runtime.GOOS == "windows" {
					want = info.Mode().Perm() // only the read-only bit is kept there
				}
				if info.Mode().Perm() != want {
					t.Errorf("mode of %q = %v, want %v", file, info.Mode().Perm(), want)
				}
				if got := names(t, dir); len(got) != 1 || got[0] != "file" {
					t.Errorf("folder holds %q, want only file", got)
				}
			})
		}
	}
}

// TestWriteFails covers rule 3: a write that fails leaves what was there
// and no temporary file.
func TestWriteFails(t *testing.T) {
	t.Run("rename over a folder", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "file")
		if err := os.MkdirAll(filepath.Join(file, "kept"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Write(file, []byte("new"), 0o644); err == nil {
			t.Fatalf("Write(%q) over a folder = nil, want an error", file)
		}
		if got := names(t, file); len(got) != 1 || got[0] != "kept" {
			t.Errorf("folder %q holds %q after a failed write, want kept", file, got)
		}
		if got := names(t, dir); len(got) != 1 || got[0] != "file" {
			t.Errorf("folder holds %q after a failed write, want only file", got)
		}
	})
	t.Run("missing folder", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "absent", "file")
		err := atomicfile.Write(file, []byte("new"), 0o644)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(file)) {
			t.Errorf("Write(%q) = %v, want an error naming the file", file, err)
		}
	})
	t.Run("name outside the root", func(t *testing.T) {
		// Rule 5: a name that escapes the root is refused, not written.
		dir := t.TempDir()
		r, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := atomicfile.WriteIn(r, "../file", []byte("new"), 0o644); err == nil {
			t.Errorf("WriteIn(root, %q) = nil, want an error", "../file")
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "file")); err == nil {
			t.Errorf("WriteIn(root, %q) wrote outside the root", "../file")
		}
	})
}

// TestWriteConcurrent covers rule 4: writers of one file do not mix.
func TestWriteConcurrent(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			data := bytes.Repeat([]byte(fmt.Sprint(i)), 4096)
			errs[i] = atomicfile.Write(file, data, 0o644)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4096 || !bytes.Equal(got, bytes.Repeat(got[:1], 4096)) {
		t.Errorf("file holds %d bytes starting %q, want one writer's 4096", len(got), got[:min(len(got), 8)])
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("folder holds %q, want only file", got)
	}
}
