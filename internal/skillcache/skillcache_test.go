package skillcache_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
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

// entry is one entry of a test archive: a regular file (mode 0644 when
// zero), or a link when link is set.
type entry struct {
	name, body, link string
	mode             int64
}

// tarBytes returns a tar, gzipped when gz, of entries in their order.
func tarBytes(t testing.TB, gz bool, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	zw := gzip.NewWriter(&buf)
	if gz {
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if gz {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// writeFile writes data to a new file and returns its path.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// files lists the regular files under dir, slash-separated, in order.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func newCache(t *testing.T, opts ...skill.DefaultMaterializerOption) *skill.Cache {
	return skill.NewCache(append([]skill.DefaultMaterializerOption{skill.WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache"))}, opts...)...)
}

const md = "---\nname: kit\ndescription: d\n---\n"

func TestArchiveSkills(t *testing.T) {
	file := writeFile(t, "kit.tgz", tarBytes(t, true,
		entry{name: "SKILL.md", body: md},
		entry{name: "a/SKILL.md", body: md},
		entry{name: "a/b/SKILL.md", body: md},
		entry{name: "a/b/c/SKILL.md", body: md},
		entry{name: "z/notes.md", body: "not a skill"},
		entry{name: "z/skill.md", body: "lower case is not the marker"},
	))
	c := newCache(t)
	for depth, want := range [][]string{{""}, {"", "a"}, {"", "a", "a/b"}, {"", "a", "a/b", "a/b/c"}} {
		got, err := skillcache.ArchiveSkills(t.Context(), c, file, depth)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ArchiveSkills(depth %d) = %q, %v, want %q", depth, got, err, want)
		}
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ArchiveSkills wrote to the cache root: Stat = %v", err)
	}
	bad := writeFile(t, "bad.tgz", tarBytes(t, true, entry{name: "../SKILL.md", body: md}))
	if got, err := skillcache.ArchiveSkills(t.Context(), c, bad, 1); !errors.Is(err, skill.ErrArchiveUnsafe) {
		t.Errorf("ArchiveSkills(an entry named ../SKILL.md) = %q, %v, want ErrArchiveUnsafe", got, err)
	}
	if _, err := skillcache.ArchiveSkills(t.Context(), c, filepath.Join(t.TempDir(), "missing.tgz"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ArchiveSkills(a missing file) = %v, want ErrNotExist", err)
	}
}

// TestArchiveSkillsLimits: listing an archive's skills applies the
// cache's limits as materializing it does, with errors that name no Go
// option.
func TestArchiveSkillsLimits(t *testing.T) {
	data := tarBytes(t, false, entry{name: "SKILL.md", body: md},
		entry{name: "a.txt", body: strings.Repeat("a", 100)}, entry{name: "b.txt", body: strings.Repeat("b", 100)})
	total := int64(len(data))
	file := writeFile(t, "kit.tar", data)
	tests := []struct {
		name string
		opt  skill.DefaultMaterializerOption
		ok   bool
	}{
		{"archive size at cap", skill.WithMaxArchiveSize(total), true},
		{"archive size over cap", skill.WithMaxArchiveSize(total - 1), false},
		{"file size at cap", skill.WithMaxFileSize(100), true},
		{"file size over cap", skill.WithMaxFileSize(99), false},
		{"entries at cap", skill.WithMaxArchiveEntries(3), true},
		{"entries over cap", skill.WithMaxArchiveEntries(2), false},
		{"total over cap", skill.WithMaxTotalSize(1024), false},
		{"total at cap", skill.WithMaxTotalSize(total), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t, tt.opt)
			_, merr := c.Materialize(t.Context(), skill.Archive("kit", skill.ArchiveBytes(data)))
			got, err := skillcache.ArchiveSkills(t.Context(), c, file, 0)
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, skill.ErrArchiveLimit)) || (tt.ok && !slices.Equal(got, []string{""})) {
				t.Fatalf("ArchiveSkills with %s = %q, %v, want [\"\"] if ok=%v, else ErrArchiveLimit", tt.name, got, err, tt.ok)
			}
			if (merr == nil) != (err == nil) {
				t.Errorf("with %s: Materialize = %v but ArchiveSkills = %v", tt.name, merr, err)
			}
			if err != nil && strings.Contains(err.Error(), "raise it") {
				t.Errorf("ArchiveSkills with %s = %v: a tool's error names no Go option", tt.name, err)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	c := skill.NewCache(skill.WithSkillCacheRoot(root))
	dir, digest, err := c.MaterializeContent(t.Context(), skill.Inline("tone", "---\nname: tone\ndescription: d\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Another Cache on the same root finds the tree by its digest.
	other := skill.NewCache(skill.WithSkillCacheRoot(root))
	if got, ok := skillcache.Lookup(t.Context(), other, digest, "tone"); !ok || got != dir {
		t.Errorf("Lookup(digest, tone) = %s, %v, want %s, true", got, ok, dir)
	}
	if got, ok := skillcache.Lookup(t.Context(), other, digest, "other"); ok {
		t.Errorf("Lookup(digest, other) = %s, true, want false: the name is part of the tree", got)
	}
	if got, ok := skillcache.Lookup(t.Context(), other, strings.Repeat("0", 64), "tone"); ok {
		t.Errorf("Lookup(unknown digest) = %s, true", got)
	}
	if got, ok := skillcache.Lookup(t.Context(), other, "../../etc", "tone"); ok {
		t.Errorf("Lookup(../../etc) = %s, true", got)
	}
	// A done context finds nothing; the same lookup live finds the tree.
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if got, ok := skillcache.Lookup(done, c, digest, "tone"); ok {
		t.Errorf("Lookup(done context) = %s, true, want nothing found", got)
	}
	if got, ok := skillcache.Lookup(t.Context(), c, digest, "tone"); !ok || got != dir {
		t.Errorf("Lookup(live context) = %s, %v, want %s, true", got, ok, dir)
	}
	// A damaged tree is not handed out.
	os.Chmod(dir, 0o755)
	if err := os.Remove(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if got, ok := skillcache.Lookup(t.Context(), other, digest, "tone"); ok {
		t.Errorf("Lookup of a tree whose SKILL.md was removed = %s, true", got)
	}
	// A root that does not exist finds nothing and stays absent.
	absent := filepath.Join(t.TempDir(), "absent")
	if got, ok := skillcache.Lookup(t.Context(), skill.NewCache(skill.WithSkillCacheRoot(absent)), digest, "tone"); ok {
		t.Errorf("Lookup under a missing root = %s, true", got)
	}
	if _, err := os.Stat(absent); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lookup created the missing root: Stat = %v", err)
	}
	// A root that cannot be a cache finds nothing.
	if got, ok := skillcache.Lookup(t.Context(), skill.NewCache(skill.WithSkillCacheRoot("/dev/null/cache")), digest, "tone"); ok {
		t.Errorf("Lookup under /dev/null = %s, true", got)
	}
}

func TestCheckFS(t *testing.T) {
	c := newCache(t)
	fsys := treeFS()
	got, err := skillcache.CheckFS(t.Context(), c, fsys)
	if err != nil {
		t.Fatalf("CheckFS = %v", err)
	}
	slices.SortFunc(got, func(a, b skillcache.File) int { return strings.Compare(a.Path, b.Path) })
	var want []skillcache.File
	for _, p := range []string{"SKILL.md", "scripts/run.sh"} {
		data := fsys[p].Data
		want = append(want, skillcache.File{Path: p, Exec: fsys[p].Mode&0o111 != 0, Size: int64(len(data)), Sum: sha256.Sum256(data)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("CheckFS = %+v, want %+v", got, want)
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckFS wrote to the cache root: Stat = %v", err)
	}
	noSkill := fstest.MapFS{"notes.md": {Data: []byte("x")}}
	if _, err := skillcache.CheckFS(t.Context(), c, noSkill); !errors.Is(err, skill.ErrArchiveFormat) {
		t.Errorf("CheckFS(a tree without SKILL.md) = %v, want ErrArchiveFormat", err)
	}
}

func TestCopyFS(t *testing.T) {
	c := newCache(t)
	dst := filepath.Join(t.TempDir(), "kit")
	digest, size, err := skillcache.CopyFS(t.Context(), c, treeFS(), dst)
	if err != nil {
		t.Fatalf("CopyFS = %v", err)
	}
	if want := int64(len(treeFS()["SKILL.md"].Data) + len(treeFS()["scripts/run.sh"].Data)); size != want {
		t.Errorf("CopyFS copied %d bytes, want %d: its files', .git left out", size, want)
	}
	if want, err := skill.ContentDigest(t.Context(), dst); err != nil || digest != want {
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
	if _, _, err := skillcache.CopyFS(t.Context(), c, treeFS(), dst); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CopyFS into a folder that exists = %v, want ErrExist", err)
	}
}

// TestFilesDigest checks that FilesDigest of what CheckFS returns is the
// ContentDigest of a copy of the same tree, and that it depends on the
// name.
func TestFilesDigest(t *testing.T) {
	c := newCache(t)
	files, err := skillcache.CheckFS(t.Context(), c, treeFS())
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "kit")
	copied, _, err := skillcache.CopyFS(t.Context(), c, treeFS(), dst)
	if err != nil {
		t.Fatal(err)
	}
	content, err := skill.ContentDigest(t.Context(), dst)
	if err != nil {
		t.Fatal(err)
	}
	if got := skillcache.FilesDigest("kit", files); got != copied || got != content {
		t.Errorf("FilesDigest = %s, want CopyFS's %s and ContentDigest's %s", got, copied, content)
	}
	if skillcache.FilesDigest("other", files) == copied {
		t.Error("FilesDigest does not depend on the name")
	}
}

// TestExtractRepository checks that ExtractRepository writes every skill
// of an archive, at any depth, with no SKILL.md at its root and
// version-control metadata left out, into a folder the caller can remove;
// that it leaves out the links no skill could hold and returns them,
// while ArchiveSkills and materializing a single skill still refuse such
// an archive; and that any other rule still fails the whole archive.
func TestExtractRepository(t *testing.T) {
	c := newCache(t)
	data := tarBytes(t, true,
		entry{name: "a/SKILL.md", body: md},
		entry{name: "b/scripts/run.sh", body: "#!/bin/sh\n", mode: 0o755},
		entry{name: "b/SKILL.md", body: md},
		entry{name: ".git/config", body: "[core]\n"},
	)
	dst := t.TempDir()
	if dropped, err := skillcache.ExtractRepository(t.Context(), c, bytes.NewReader(data), int64(len(data)), dst); err != nil || len(dropped) != 0 {
		t.Fatalf("ExtractRepository(an archive of two skills, no SKILL.md at its root) = %v, %v", dropped, err)
	}
	if got, want := files(t, dst), []string{"a/SKILL.md", "b/SKILL.md", "b/scripts/run.sh"}; !slices.Equal(got, want) {
		t.Errorf("ExtractRepository wrote %q, want %q", got, want)
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ExtractRepository wrote to the cache root: Stat = %v", err)
	}
	if err := os.RemoveAll(dst); err != nil {
		t.Errorf("RemoveAll of what ExtractRepository wrote = %v", err)
	}

	// ExtractRepositoryShown shows each file written, with its bytes,
	// and returns the files as CheckFS describes them.
	dst = t.TempDir()
	var mu sync.Mutex
	shown := map[string]*bytes.Buffer{}
	written, _, err := skillcache.ExtractRepositoryShown(t.Context(), c, bytes.NewReader(data), int64(len(data)), dst, func(rel string, exec bool, size int64) io.WriteCloser {
		mu.Lock()
		defer mu.Unlock()
		shown[rel] = new(bytes.Buffer)
		return nopCloser{shown[rel]}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range written {
		if b := shown[f.Path]; b == nil || sha256.Sum256(b.Bytes()) != f.Sum {
			t.Errorf("ExtractRepositoryShown wrote %s, and did not show its bytes", f.Path)
		}
	}
	root, _ := os.OpenRoot(filepath.Join(dst, "b"))
	defer root.Close()
	checked, err := skillcache.CheckFS(t.Context(), c, root.FS())
	var inB []skillcache.File
	for _, f := range written {
		if rel, ok := strings.CutPrefix(f.Path, "b/"); ok {
			f.Path = rel
			inB = append(inB, f)
		}
	}
	if err != nil || skillcache.FilesDigest("b", checked) != skillcache.FilesDigest("b", inB) || len(shown) != 3 {
		t.Errorf("ExtractRepositoryShown: files %v (shown %d), CheckFS of b: %v, %v; want the same digest of b, 3 shown", written, len(shown), checked, err)
	}

	links := tarBytes(t, false,
		entry{name: "a/SKILL.md", body: md},
		entry{name: "b/SKILL.md", body: md},
		entry{name: "b/out.md", link: "../../outside.md"},
		entry{name: "docs/folder", link: "../a"},
		entry{name: "SKILL.md", body: md},
	)
	dst = t.TempDir()
	dropped, err := skillcache.ExtractRepository(t.Context(), c, bytes.NewReader(links), int64(len(links)), dst)
	if err != nil {
		t.Fatalf("ExtractRepository(an archive with links out and to a folder) = %v", err)
	}
	want := []skillcache.DroppedLink{
		{Name: "b/out.md", Target: "../../outside.md", Problem: skillcache.LinkOut},
		{Name: "docs/folder", Target: "../a", Problem: skillcache.LinkToFolder},
	}
	if diff := cmp.Diff(want, dropped); diff != "" {
		t.Errorf("ExtractRepository dropped (-want +got):\n%s", diff)
	}
	if got := files(t, dst); len(got) != 3 {
		t.Errorf("ExtractRepository wrote %q, want the three SKILL.md files only", got)
	}
	if _, err := c.Materialize(t.Context(), skill.Archive("kit", skill.ArchiveBytes(links))); !errors.Is(err, skill.ErrArchiveUnsafe) {
		t.Errorf("Materialize(an archive with a link out) = %v, want ErrArchiveUnsafe", err)
	}
	if _, err := skillcache.ArchiveSkills(t.Context(), c, writeFile(t, "kit.tar", links), 1); !errors.Is(err, skill.ErrArchiveUnsafe) {
		t.Errorf("ArchiveSkills(an archive with a link out) = %v, want ErrArchiveUnsafe", err)
	}

	bad := tarBytes(t, true, entry{name: "../SKILL.md", body: md})
	if _, err := skillcache.ExtractRepository(t.Context(), c, bytes.NewReader(bad), int64(len(bad)), t.TempDir()); !errors.Is(err, skill.ErrArchiveUnsafe) {
		t.Errorf("ExtractRepository(an entry named ../SKILL.md) = %v, want ErrArchiveUnsafe", err)
	}
}

// TestTreeLimits checks that the tree operations hold content to the
// cache's limits, each refusal a *skill.LimitError naming the limit as
// skill.Limits does.
func TestTreeLimits(t *testing.T) {
	big := strings.Repeat("x", 100)
	entries := []entry{{name: "SKILL.md", body: md}, {name: "big.txt", body: big}}
	data := tarBytes(t, false, entries...)
	fsys := fstest.MapFS{}
	for _, e := range entries {
		fsys[e.name] = &fstest.MapFile{Data: []byte(e.body), Mode: 0o644}
	}
	tests := []struct {
		name    string
		opt     skill.DefaultMaterializerOption
		limit   string
		max     int64
		archive bool // crossed only by an archive
	}{
		{"file size", skill.WithMaxFileSize(99), skill.LimitFileSize, 99, false},
		{"total size", skill.WithMaxTotalSize(100), skill.LimitTotalSize, 100, false},
		{"entries", skill.WithMaxArchiveEntries(1), skill.LimitArchiveEntries, 1, false},
		{"archive size", skill.WithMaxArchiveSize(int64(len(data)) - 1), skill.LimitArchiveSize, int64(len(data)) - 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCache(t, tt.opt)
			check := func(call string, err error) {
				t.Helper()
				var over *skill.LimitError
				if !errors.Is(err, skill.ErrArchiveLimit) || !errors.As(err, &over) || string(over.Limit) != tt.limit || over.Max != tt.max {
					t.Errorf("%s with %s over = %v, want a *LimitError of %s = %d", call, tt.name, err, tt.limit, tt.max)
				}
			}
			_, err := skillcache.ExtractRepository(t.Context(), c, bytes.NewReader(data), int64(len(data)), t.TempDir())
			check("ExtractRepository", err)
			if tt.archive {
				return
			}
			_, err = skillcache.CheckFS(t.Context(), c, fsys)
			check("CheckFS", err)
			_, _, err = skillcache.CopyFS(t.Context(), c, fsys, filepath.Join(t.TempDir(), "kit"))
			check("CopyFS", err)
		})
	}
}

// TestZeroCache: every function refuses a Cache not made by NewCache and
// writes nothing.
func TestZeroCache(t *testing.T) {
	t.Chdir(t.TempDir())
	var c skill.Cache
	if _, err := skillcache.CheckFS(t.Context(), &c, treeFS()); err == nil {
		t.Error("zero Cache: CheckFS succeeded")
	}
	if _, _, err := skillcache.CopyFS(t.Context(), &c, treeFS(), "kit"); err == nil {
		t.Error("zero Cache: CopyFS succeeded")
	}
	if _, err := skillcache.ExtractRepository(t.Context(), &c, bytes.NewReader(nil), 0, "."); err == nil {
		t.Error("zero Cache: ExtractRepository succeeded")
	}
	if _, err := skillcache.ArchiveSkills(t.Context(), &c, "kit.tgz", 1); err == nil {
		t.Error("zero Cache: ArchiveSkills succeeded")
	}
	if dir, ok := skillcache.Lookup(t.Context(), &c, strings.Repeat("0", 64), "tone"); ok {
		t.Errorf("zero Cache: Lookup = %s, true", dir)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("a zero Cache wrote to the working folder: %v", entries)
	}
}

func TestLeftOut(t *testing.T) {
	for name, want := range map[string]bool{".git": true, ".GIT": true, ".hg": true, "_darcs": true, "git": false, ".github": false, "scripts": false} {
		if got := skillcache.LeftOut(name); got != want {
			t.Errorf("LeftOut(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestNewLimitError(t *testing.T) {
	err := error(skillcache.NewLimitError(skill.LimitArchiveSize, 10, "download is over %d bytes", 10))
	var over *skill.LimitError
	if !errors.Is(err, skill.ErrArchiveLimit) || !errors.As(err, &over) || over.Limit != skill.LimitArchiveSize || over.Max != 10 {
		t.Fatalf("NewLimitError = %#v, want a *LimitError of MaxArchiveSize = 10 that is ErrArchiveLimit", err)
	}
	if got, want := err.Error(), "archive exceeds a limit: download is over 10 bytes"; got != want {
		t.Errorf("NewLimitError(...).Error() = %q, want %q", got, want)
	}
	// The materializer's own refusals are the same type.
	c := newCache(t, skill.WithMaxFileSize(3))
	_, err = c.Materialize(t.Context(), skill.Inline("tone", "---\nname: tone\n---\n"))
	if !errors.As(err, &over) || over.Limit != skill.LimitFileSize || over.Max != 3 {
		t.Errorf("Materialize over MaxFileSize = %v, want a *LimitError of MaxFileSize = 3", err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestRepository extracts a repository into the cache's staging area and
// publishes a skill of it by moving its folder: the tree published is
// the one materializing the folder gives, the folder leaves the
// extraction, a second publish of the same content finds the tree, and
// Close leaves no staging behind.
func TestRepository(t *testing.T) {
	c := newCache(t)
	data := tarBytes(t, false,
		entry{name: "README.md", body: "# skills\n"},
		entry{name: "skills/a/SKILL.md", body: md},
		entry{name: "skills/a/scripts/run.sh", body: "#!/bin/sh\n", mode: 0o755},
		entry{name: "skills/b/SKILL.md", body: md},
		entry{name: "skills/c/SKILL.md", body: md},
	)
	r, err := skillcache.StageRepository(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Dir(), c.Root()+string(filepath.Separator)) {
		t.Errorf("Dir() = %s, want a folder under the cache root %s", r.Dir(), c.Root())
	}
	written, _, err := r.Extract(t.Context(), bytes.NewReader(data), int64(len(data)), nil, nil)
	if err != nil || len(written) != 5 {
		t.Fatalf("Extract = %v, %v; want the 5 files", written, err)
	}
	// What materializing the extracted folder gives, in another cache.
	other := newCache(t)
	wantDir, wantDigest, err := other.MaterializeContent(t.Context(), skill.Skill{Key: "a", Source: skill.FS(os.DirFS(filepath.Join(r.Dir(), "skills", "a")), ".").Source})
	if err != nil {
		t.Fatal(err)
	}
	dir, digest, err := r.Publish("skills/a", "a")
	if err != nil || digest != wantDigest || filepath.Base(dir) != "a" {
		t.Fatalf("Publish(skills/a) = %s, %s, %v; want a tree named a of digest %s", dir, digest, err, wantDigest)
	}
	if diff := cmp.Diff(files(t, wantDir), files(t, dir)); diff != "" {
		t.Errorf("Publish(skills/a) published (-materialized +published):\n%s", diff)
	}
	if got, ok := skillcache.Lookup(t.Context(), c, digest, "a"); !ok || got != dir {
		t.Errorf("Lookup of the published tree = %s, %v; want %s, true", got, ok, dir)
	}
	if _, err := os.Lstat(filepath.Join(r.Dir(), "skills", "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the published folder is still in the extraction: Lstat = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(r.Dir(), "skills", "b", "SKILL.md")); err != nil {
		t.Errorf("publishing skills/a took skills/b: %v", err)
	}
	// The same content again: the cache has it, and the folder stays.
	bDir, bDigest, err := r.Publish("skills/b", "b")
	if err != nil {
		t.Fatal(err)
	}
	if got, d, err := r.Publish("skills/c", "b"); err != nil || d != bDigest || got != bDir {
		t.Errorf("Publish(skills/c, the content of skills/b) = %s, %s, %v; want the tree published already, %s", got, d, err, bDir)
	}
	if _, err := os.Lstat(filepath.Join(r.Dir(), "skills", "c", "SKILL.md")); err != nil {
		t.Errorf("publishing content the cache holds moved its folder: %v", err)
	}
	if _, _, err := r.Publish("skills/none", "none"); err == nil {
		t.Errorf("Publish(a folder with no file) = nil error")
	}
	extracted := r.Dir()
	if err := r.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if _, err := os.Lstat(extracted); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close left the extraction: Lstat = %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(c.Root(), ".tmp")); len(entries) != 0 {
		t.Errorf("staging left after Close: %d entries", len(entries))
	}
}

// TestRepositoryPublishChecksTheTree refuses to publish a moved folder
// that holds a file the extraction did not write, and puts the folder
// back in the repository, writable, for the caller to read the skill
// from.
func TestRepositoryPublishChecksTheTree(t *testing.T) {
	c := newCache(t)
	data := tarBytes(t, false, entry{name: "a/SKILL.md", body: md})
	r, err := skillcache.StageRepository(c)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, err := r.Extract(t.Context(), bytes.NewReader(data), int64(len(data)), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir(), "a", "added.md"), []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	if dir, _, err := r.Publish("a", "a"); err == nil {
		t.Errorf("Publish(a folder with a file added after extraction) = %s, nil error", dir)
	}
	if entries, _ := os.ReadDir(c.Root()); slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return len(e.Name()) == 64 }) {
		t.Errorf("a tree was published from a folder that does not hold its manifest's files")
	}
	if got := files(t, r.Dir()); !slices.Equal(got, []string{"a/SKILL.md", "a/added.md"}) {
		t.Errorf("after a failed Publish the repository holds %q, want the folder back as it was", got)
	}
	if err := os.WriteFile(filepath.Join(r.Dir(), "a", "more.md"), []byte("x"), 0o644); err != nil {
		t.Errorf("after a failed Publish the folder is not writable again: %v", err)
	}
}

// TestRepositoryExtractsWhatSkillsNeed extracts a tar of a repository
// with a function of also: the skills' folders, the root's entries (its
// folders at least empty), what also names and the files links of
// those point to are written, and nothing else; the same archive as a
// tar.gz, which is not listed first, is written whole.
func TestRepositoryExtractsWhatSkillsNeed(t *testing.T) {
	entries := []entry{
		{name: "README.md", body: "# skills\n"},
		{name: "docs/guide.md", body: "a guide\n"},
		{name: "docs/shared.md", body: "shared notes\n"},
		{name: "skills/a/SKILL.md", body: md},
		{name: "skills/a/notes.md", link: "../../docs/shared.md"},
		{name: "skills/a/scripts/run.sh", body: "#!/bin/sh\n", mode: 0o755},
		{name: "tools/build.sh", body: "#!/bin/sh\n", mode: 0o755},
		{name: "plugins/p/.claude-plugin/plugin.json", body: "{}"},
		{name: "plugins/p/src/main.go", body: "package main\n"},
	}
	manifests := func(rel string) bool { return strings.Contains(rel, ".claude-plugin/") }
	for _, tc := range []struct {
		gz   bool
		want []string
	}{
		{false, []string{"README.md", "docs/shared.md", "plugins/p/.claude-plugin/plugin.json", "skills/a/SKILL.md", "skills/a/notes.md", "skills/a/scripts/run.sh"}},
		{true, []string{"README.md", "docs/guide.md", "docs/shared.md", "plugins/p/.claude-plugin/plugin.json", "plugins/p/src/main.go", "skills/a/SKILL.md", "skills/a/notes.md", "skills/a/scripts/run.sh", "tools/build.sh"}},
	} {
		c := newCache(t)
		data := tarBytes(t, tc.gz, entries...)
		r, err := skillcache.StageRepository(c)
		if err != nil {
			t.Fatal(err)
		}
		written, _, err := r.Extract(t.Context(), bytes.NewReader(data), int64(len(data)), nil, manifests)
		if err != nil {
			t.Fatalf("Extract(gz %v) = %v", tc.gz, err)
		}
		if got := files(t, r.Dir()); !slices.Equal(got, tc.want) {
			t.Errorf("Extract(gz %v) wrote %q, want %q", tc.gz, got, tc.want)
		}
		if len(written) != len(tc.want) {
			t.Errorf("Extract(gz %v) returned %d files, want the %d written", tc.gz, len(written), len(tc.want))
		}
		for _, dir := range []string{"docs", "plugins", "skills", "tools"} {
			if fi, err := os.Stat(filepath.Join(r.Dir(), dir)); err != nil || !fi.IsDir() {
				t.Errorf("Extract(gz %v): the root's folder %s is missing: %v", tc.gz, dir, err)
			}
		}
		r.Close()
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestRepositoryListingHoldsTheLimits: listing the entries of an archive
// to extract only what skills need costs no more than the limits allow
// the extraction: an archive over the size limit is not read, a tar's
// listing stops past the entry limit, and a zip's central directory is
// counted before it is read; the extraction then refuses the archive as
// it does without listing.
func TestRepositoryListingHoldsTheLimits(t *testing.T) {
	const n, limit = 20_000, 100
	var tarBuf, zipBuf bytes.Buffer
	tw, zw := tar.NewWriter(&tarBuf), zip.NewWriter(&zipBuf)
	for i := range n {
		name := fmt.Sprintf("d%07d/", i)
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
			t.Fatal(err)
		}
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		opt  skill.DefaultMaterializerOption
		max  int64 // bytes the extraction may read
	}{
		{"tar over the entry limit", tarBuf.Bytes(), skill.WithMaxArchiveEntries(limit), int64(tarBuf.Len()) / 8},
		{"zip over the entry limit", zipBuf.Bytes(), skill.WithMaxArchiveEntries(limit), int64(zipBuf.Len()) / 8},
		{"tar over the size limit", tarBuf.Bytes(), skill.WithMaxArchiveSize(int64(tarBuf.Len()) - 1), 0},
		{"zip over the size limit", zipBuf.Bytes(), skill.WithMaxArchiveSize(int64(zipBuf.Len()) - 1), 0},
	} {
		for _, also := range []func(string) bool{nil, func(string) bool { return false }} {
			r, err := skillcache.StageRepository(newCache(t, tc.opt))
			if err != nil {
				t.Fatal(err)
			}
			a := &countingReaderAt{r: bytes.NewReader(tc.data)}
			_, _, err = r.Extract(t.Context(), a, int64(len(tc.data)), nil, also)
			if !errors.Is(err, skill.ErrArchiveLimit) {
				t.Errorf("Extract(%s, also %v) = %v, want ErrArchiveLimit", tc.name, also != nil, err)
			}
			if got := a.n.Load(); got > tc.max {
				t.Errorf("Extract(%s, also %v) read %d bytes of %d, want at most %d", tc.name, also != nil, got, len(tc.data), tc.max)
			}
			r.Close()
		}
	}
}
