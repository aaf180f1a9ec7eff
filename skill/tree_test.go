package skill

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// treeFS is a skill tree with an executable script and a .git folder,
// which every tree operation leaves out.
func treeFS() fstest.MapFS {
	return fstest.MapFS{
		"SKILL.md":       {Data: []byte("---\nname: kit\ndescription: d\n---\n"), Mode: 0o644},
		"scripts/run.sh": {Data: []byte("#!/bin/sh\necho hi\n"), Mode: 0o755},
		".git/config":    {Data: []byte("[core]\n\tfsmonitor = evil\n"), Mode: 0o644},
	}
}

func TestCacheCheckFS(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	fsys := treeFS()
	got, err := c.CheckFS(t.Context(), fsys)
	if err != nil {
		t.Fatalf("CheckFS = %v", err)
	}
	slices.SortFunc(got, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var want []File
	for _, p := range []string{"SKILL.md", "scripts/run.sh"} {
		data := fsys[p].Data
		want = append(want, File{Path: p, Exec: fsys[p].Mode&0o111 != 0, Size: int64(len(data)), Sum: sha256.Sum256(data)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("CheckFS = %+v, want %+v", got, want)
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckFS wrote to the cache root: Stat = %v", err)
	}
	noSkill := fstest.MapFS{"notes.md": {Data: []byte("x")}}
	if _, err := c.CheckFS(t.Context(), noSkill); !errors.Is(err, ErrArchiveFormat) {
		t.Errorf("CheckFS(a tree without SKILL.md) = %v, want ErrArchiveFormat", err)
	}
}

func TestCacheCopyFS(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	dst := filepath.Join(t.TempDir(), "kit")
	digest, err := c.CopyFS(t.Context(), treeFS(), dst)
	if err != nil {
		t.Fatalf("CopyFS = %v", err)
	}
	if want, err := ContentDigest(t.Context(), dst); err != nil || digest != want {
		t.Errorf("CopyFS = %s, want the copy's ContentDigest %s (%v)", digest, want, err)
	}
	if _, err := os.Stat(filepath.Join(dst, ".git")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CopyFS copied .git: Stat = %v", err)
	}
	if runtime.GOOS != "windows" { // no permission bits there
		for name, want := range map[string]fs.FileMode{"SKILL.md": 0o644, "scripts/run.sh": 0o755, "scripts": 0o755} {
			fi, err := os.Stat(filepath.Join(dst, filepath.FromSlash(name)))
			if err != nil || fi.Mode().Perm() != want {
				t.Errorf("CopyFS: %s has mode %v (%v), want %v: the copy is the caller's to edit", name, fi.Mode().Perm(), err, want)
			}
		}
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CopyFS wrote to the cache root: Stat = %v", err)
	}
	if _, err := c.CopyFS(t.Context(), treeFS(), dst); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CopyFS into a folder that exists = %v, want ErrExist", err)
	}
}

func TestCacheExtractArchive(t *testing.T) {
	md := "---\nname: x\ndescription: d\n---\n"
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	data := tarBytes(t, true, []entry{
		{name: "a/SKILL.md", body: md},
		{name: "b/scripts/run.sh", body: "#!/bin/sh\n", mode: 0o755},
		{name: "b/SKILL.md", body: md},
		{name: ".git/config", body: "[core]\n"},
	})
	dst := t.TempDir()
	if err := c.ExtractArchive(t.Context(), bytes.NewReader(data), int64(len(data)), dst); err != nil {
		t.Fatalf("ExtractArchive(an archive of two skills, no SKILL.md at its root) = %v", err)
	}
	var got []string
	fs.WalkDir(os.DirFS(dst), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
		}
		return err
	})
	if want := []string{"a/SKILL.md", "b/SKILL.md", "b/scripts/run.sh"}; !slices.Equal(got, want) {
		t.Errorf("ExtractArchive wrote %q, want %q", got, want)
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ExtractArchive wrote to the cache root: Stat = %v", err)
	}
	if err := os.RemoveAll(dst); err != nil {
		t.Errorf("RemoveAll of what ExtractArchive wrote = %v", err)
	}
	bad := tarBytes(t, true, []entry{{name: "../SKILL.md", body: md}})
	if err := c.ExtractArchive(t.Context(), bytes.NewReader(bad), int64(len(bad)), t.TempDir()); !errors.Is(err, ErrArchiveUnsafe) {
		t.Errorf("ExtractArchive(an entry named ../SKILL.md) = %v, want ErrArchiveUnsafe", err)
	}
}

// TestCacheTreeLimits checks that the tree operations hold content to the
// cache's limits, each refusal a *LimitError naming the limit as Limits
// does.
func TestCacheTreeLimits(t *testing.T) {
	big := strings.Repeat("x", 100)
	files := []entry{{name: "SKILL.md", body: "---\nname: kit\ndescription: d\n---\n"}, {name: "big.txt", body: big}}
	data := tarBytes(t, false, files)
	fsys := fstest.MapFS{}
	for _, e := range files {
		fsys[e.name] = &fstest.MapFile{Data: []byte(e.body), Mode: 0o644}
	}
	tests := []struct {
		name    string
		opt     DefaultMaterializerOption
		limit   string
		max     int64
		archive bool // crossed only by an archive
	}{
		{"file size", WithMaxFileSize(99), "MaxFileSize", 99, false},
		{"total size", WithMaxTotalSize(100), "MaxTotalSize", 100, false},
		{"entries", WithMaxArchiveEntries(1), "MaxArchiveEntries", 1, false},
		{"archive size", WithMaxArchiveSize(int64(len(data)) - 1), "MaxArchiveSize", int64(len(data)) - 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")), tt.opt)
			check := func(call string, err error) {
				t.Helper()
				var over *LimitError
				if !errors.Is(err, ErrArchiveLimit) || !errors.As(err, &over) || string(over.Limit) != tt.limit || over.Max != tt.max {
					t.Errorf("%s with %s over = %v, want a *LimitError of %s = %d", call, tt.name, err, tt.limit, tt.max)
				}
			}
			check("ExtractArchive", c.ExtractArchive(t.Context(), bytes.NewReader(data), int64(len(data)), t.TempDir()))
			if tt.archive {
				return
			}
			_, err := c.CheckFS(t.Context(), fsys)
			check("CheckFS", err)
			_, err = c.CopyFS(t.Context(), fsys, filepath.Join(t.TempDir(), "kit"))
			check("CopyFS", err)
		})
	}
}

func TestZeroCacheTreeOperations(t *testing.T) {
	var c Cache
	if _, err := c.CheckFS(t.Context(), treeFS()); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: CheckFS = %v, want %v", err, errZeroCache)
	}
	dst := filepath.Join(t.TempDir(), "kit")
	if _, err := c.CopyFS(t.Context(), treeFS(), dst); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: CopyFS = %v, want %v", err, errZeroCache)
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("zero Cache: CopyFS created %s (%v)", dst, err)
	}
	if err := c.ExtractArchive(t.Context(), bytes.NewReader(nil), 0, t.TempDir()); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: ExtractArchive = %v, want %v", err, errZeroCache)
	}
}

func TestLeftOut(t *testing.T) {
	for name, want := range map[string]bool{".git": true, ".GIT": true, ".hg": true, "_darcs": true, "git": false, ".github": false, "scripts": false} {
		if got := LeftOut(name); got != want {
			t.Errorf("LeftOut(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestNewLimitError(t *testing.T) {
	err := error(NewLimitError("MaxArchiveSize", 10, "download is over %d bytes", 10))
	var over *LimitError
	if !errors.Is(err, ErrArchiveLimit) || !errors.As(err, &over) || over.Limit != "MaxArchiveSize" || over.Max != 10 {
		t.Fatalf("NewLimitError = %#v, want a *LimitError of MaxArchiveSize = 10 that is ErrArchiveLimit", err)
	}
	if got, want := err.Error(), "archive exceeds a limit: download is over 10 bytes"; got != want {
		t.Errorf("NewLimitError(...).Error() = %q, want %q", got, want)
	}
	// The materializer's own refusals are the same type.
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")), WithMaxFileSize(3))
	_, err = c.Materialize(t.Context(), Inline("tone", "---\nname: tone\n---\n"))
	if !errors.As(err, &over) || over.Limit != "MaxFileSize" || over.Max != 3 {
		t.Errorf("Materialize over MaxFileSize = %v, want a *LimitError of MaxFileSize = 3", err)
	}
}

// TestCacheExtractRepository checks that ExtractRepository leaves out the
// links no skill could hold and returns them, writing the rest, while
// ExtractArchive, ArchiveSkills and materializing a single skill still
// refuse such an archive.
func TestCacheExtractRepository(t *testing.T) {
	md := "---\nname: kit\ndescription: d\n---\n"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Name: "a/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(md))},
		{Name: "b/SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(md))},
		{Name: "b/out.md", Typeflag: tar.TypeSymlink, Linkname: "../../outside.md"},
		{Name: "docs/folder", Typeflag: tar.TypeSymlink, Linkname: "../a"},
		{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(md))},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			io.WriteString(tw, md)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	dst := t.TempDir()
	dropped, err := c.ExtractRepository(t.Context(), bytes.NewReader(data), int64(len(data)), dst)
	if err != nil {
		t.Fatalf("ExtractRepository(an archive with links out and to a folder) = %v", err)
	}
	want := []DroppedLink{{Name: "b/out.md", Target: "../../outside.md", Problem: LinkOut}, {Name: "docs/folder", Target: "../a", Problem: LinkToFolder}}
	if diff := cmp.Diff(want, dropped); diff != "" {
		t.Errorf("ExtractRepository dropped (-want +got):\n%s", diff)
	}
	if got := readTree(t, dst); len(got) != 3 {
		t.Errorf("ExtractRepository wrote %q, want the three SKILL.md files only", slices.Sorted(maps.Keys(got)))
	}
	if err := c.ExtractArchive(t.Context(), bytes.NewReader(data), int64(len(data)), t.TempDir()); !errors.Is(err, ErrArchiveUnsafe) {
		t.Errorf("ExtractArchive(an archive with a link out) = %v, want ErrArchiveUnsafe", err)
	}
	if _, err := c.Materialize(t.Context(), Archive("kit", ArchiveBytes(data))); !errors.Is(err, ErrArchiveUnsafe) {
		t.Errorf("Materialize(an archive with a link out) = %v, want ErrArchiveUnsafe", err)
	}
	file := filepath.Join(t.TempDir(), "kit.tar")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ArchiveSkills(t.Context(), file, 1); !errors.Is(err, ErrArchiveUnsafe) {
		t.Errorf("ArchiveSkills(an archive with a link out) = %v, want ErrArchiveUnsafe", err)
	}
}
