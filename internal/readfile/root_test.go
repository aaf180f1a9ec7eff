package readfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestInRoot(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "f"), "12345")
	write(filepath.Join(outside, "g"), "secret")
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "g"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	for _, name := range []string{"f", "in"} {
		if b, err := InRoot(root, name, 5); err != nil || string(b) != "12345" {
			t.Errorf("InRoot(%q, 5) = %q, %v, want 12345", name, b, err)
		}
	}
	if _, err := InRoot(root, "f", 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("InRoot(f, 4) = %v, want ErrTooLarge", err)
	}
	if _, err := InRoot(root, "d", 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("InRoot(d) = %v, want ErrNotRegular", err)
	}
	if _, err := InRoot(root, "missing", 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("InRoot(missing) = %v, want fs.ErrNotExist", err)
	}
	for _, name := range []string{"out", "../" + filepath.Base(outside) + "/g"} {
		if b, err := InRoot(root, name, 100); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("InRoot(%q) = %q, %v, want an error of a name out of the root", name, b, err)
		}
	}
}

func TestInRootNoLink(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	for p, text := range map[string]string{filepath.Join(dir, "f"): "12345", filepath.Join(outside, "g"): "secret"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "g"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if b, err := InRootNoLink(root, "f", 5); err != nil || string(b) != "12345" {
		t.Errorf("InRootNoLink(f, 5) = %q, %v, want 12345", b, err)
	}
	f, fi, err := OpenNoLink(root, "f")
	if err != nil || fi.Size() != 5 {
		t.Errorf("OpenNoLink(f) = %v, %v", fi, err)
	} else {
		f.Close()
	}
	if _, err := InRootNoLink(root, "f", 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("InRootNoLink(f, 4) = %v, want ErrTooLarge", err)
	}
	for _, name := range []string{"in", "out", "d"} {
		if b, err := InRootNoLink(root, name, 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("InRootNoLink(%q) = %q, %v, want ErrNotRegular: a link is not followed", name, b, err)
		}
	}
	if _, err := InRootNoLink(root, "in", 100); err == nil || err.Error() != "not a regular file (a link)" {
		t.Errorf("InRootNoLink(link) = %v, want it to say a link", err)
	}
	if _, err := InRootNoLink(root, "missing", 5); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("InRootNoLink(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestOpenNoLinkFolders checks that OpenNoLink follows no link on the
// way to the file either: a link to a folder as the first element, in
// the middle or as the last folder of the name is refused, as a link at
// the last element is, while the same file reached through folders is
// read; and that a name leading out of the root is refused.
func TestOpenNoLinkFolders(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"real/sub", "a/b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "real", "sub", "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"l": "real", "a/l": "../../real", "a/b/l": "../../real/sub", "real/sub/lf": "f"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"real/sub/f", "real/./sub/f", "a/../real/sub/f"} {
		if b, err := InRootNoLink(root, filepath.FromSlash(name), 10); err != nil || string(b) != "x" {
			t.Errorf("InRootNoLink(%q) = %q, %v; want x", name, b, err)
		}
	}
	for name, says := range map[string]string{
		"real/sub/lf": "not a regular file (a link)",
		"l/sub/f":     "not a regular file (l is a link)",
		"a/l/sub/f":   "not a regular file (l is a link)",
		"a/b/l/f":     "not a regular file (l is a link)",
	} {
		b, err := InRootNoLink(root, filepath.FromSlash(name), 10)
		if !errors.Is(err, ErrNotRegular) || err.Error() != says {
			t.Errorf("InRootNoLink(%q) = %q, %v; want %q: no link is followed", name, b, err, says)
		}
		if f, _, err := OpenNoLink(root, filepath.FromSlash(name)); !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenNoLink(%q) = %v, %v; want ErrNotRegular", name, f, err)
			f.Close()
		}
	}
	if _, err := InRootNoLink(root, filepath.FromSlash("real/sub/f/g"), 10); err == nil || err.Error() != "f: not a folder (a file)" {
		t.Errorf("InRootNoLink(a file as a folder) = %v; want it to say f is not a folder", err)
	}
	if _, err := InRootNoLink(root, filepath.FromSlash("real/missing/f"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("InRootNoLink(real/missing/f) = %v; want fs.ErrNotExist", err)
	}
	for _, name := range []string{"../x", "a/../../x", "/etc/passwd"} {
		if b, err := InRootNoLink(root, filepath.FromSlash(name), 10); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("InRootNoLink(%q) = %q, %v; want refused as out of the root", name, b, err)
		}
	}
}
