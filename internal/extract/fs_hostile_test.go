package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// listingFS serves a MapFS but lists extra, hostile names in its root.
type listingFS struct {
	fstest.MapFS
	names []fs.DirEntry
}

func (l listingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := l.MapFS.ReadDir(name)
	if name == "skill" {
		entries = append(entries, l.names...)
	}
	return entries, err
}

type fakeEntry struct {
	name string
	dir  bool
}

func (e fakeEntry) Name() string { return e.name }
func (e fakeEntry) IsDir() bool  { return e.dir }
func (e fakeEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e fakeEntry) Info() (fs.FileInfo, error) { return nil, errors.New("no info") }

func TestFSHostileListings(t *testing.T) {
	base := fstest.MapFS{"skill/SKILL.md": {Data: []byte("x")}, "skill/a/b": {Data: []byte("y")}}
	for _, e := range []fakeEntry{
		{name: "../b"}, {name: ".."}, {name: "."}, {name: ""}, {name: "", dir: true},
		{name: "a/b"}, {name: `a\b`}, {name: "../../escape", dir: true},
	} {
		t.Run(e.name, func(t *testing.T) {
			fsys := listingFS{MapFS: base, names: []fs.DirEntry{e}}
			_, err := FS(t.Context(), fsys, "skill", nil, testOptions())
			if !errors.Is(err, ErrUnsafe) {
				t.Errorf("FS with a listed name %q = %v, want ErrUnsafe", e.name, err)
			}
		})
	}
}

// swappingFS opens another file than the one its listing describes.
type swappingFS struct {
	fs.FS
	from, to string
}

func (s swappingFS) Open(name string) (fs.File, error) {
	if name == s.from {
		return os.Open(s.to)
	}
	return s.FS.Open(name)
}

func (s swappingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.FS, name) }

func TestFSFileSwappedAfterTheWalk(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes"), 0o644)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("outside"), 0o644)
	fsys := swappingFS{FS: os.DirFS(dir), from: "notes.txt", to: secret}
	_, err := FS(t.Context(), fsys, ".", nil, testOptions())
	if !errors.Is(err, ErrUnsafe) {
		t.Errorf("FS whose file changed identity after the walk = %v, want ErrUnsafe", err)
	}
	if _, err := FS(t.Context(), os.DirFS(dir), ".", nil, testOptions()); err != nil {
		t.Errorf("FS of the same folder unchanged = %v", err)
	}
}
