package skill

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// entry is one file of an archive built by a test.
type entry struct {
	name string
	body string
	mode int64
}

func skillFiles(extra ...entry) []entry {
	return append([]entry{{name: "SKILL.md", body: "---\nname: kit\ndescription: a kit\n---\nbody\n", mode: 0o644}}, extra...)
}

func tarBytes(t testing.TB, gz bool, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, e := range entries {
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: mode, Size: int64(len(e.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func zipBytes(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := fs.FileMode(e.mode)
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readTree returns every file under dir as path -> mode and content.
func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := make(map[string]string)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = fmt.Sprintf("%v %s", info.Mode(), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// published lists the digests of the trees in a cache root, as
// Cache.Entries reports them.
func published(t testing.TB, root string) []string {
	t.Helper()
	entries, err := NewCache(WithSkillCacheRoot(root)).Entries(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Digest)
	}
	return out
}

// staging lists what the cache's staging folder holds.
func staging(t testing.TB, root string) []string {
	t.Helper()
	return cachetest.Staged(t, root)
}

func newTestMaterializer(t testing.TB, opts ...DefaultMaterializerOption) (Materializer, string) {
	root := cachetest.Root(t)
	return NewDefaultSkillMaterializer(append([]DefaultMaterializerOption{WithSkillCacheRoot(root)}, opts...)...), root
}

func TestMaterializeSources(t *testing.T) {
	kit := skillFiles(entry{name: "scripts/run.sh", body: "#!/bin/sh\necho hi\n", mode: 0o755}, entry{name: "references/a.md", body: "ref"})
	want := map[string]string{
		"SKILL.md":        "-r--r--r-- " + kit[0].body,
		"scripts/run.sh":  "-r-xr-xr-x #!/bin/sh\necho hi\n",
		"references/a.md": "-r--r--r-- ref",
	}
	mapFS := fstest.MapFS{
		"skills/kit/SKILL.md":        {Data: []byte(kit[0].body), Mode: 0o644},
		"skills/kit/scripts/run.sh":  {Data: []byte("#!/bin/sh\necho hi\n"), Mode: 0o755},
		"skills/kit/references/a.md": {Data: []byte("ref"), Mode: 0o644},
	}
	tests := []struct {
		name  string
		skill Skill
	}{
		{"fs", FS(mapFS, "skills/kit")},
		{"tar", Archive("kit", ArchiveBytes(tarBytes(t, false, kit)))},
		{"tar.gz", Archive("kit", ArchiveBytes(tarBytes(t, true, kit)))},
		{"zip", Archive("kit", ArchiveBytes(zipBytes(t, kit)))},
		{"pinned", Archive("kit", ArchiveBytes(tarBytes(t, true, kit)), WithFormat(FormatTarGz))},
		{"subpath", Archive("kit", ArchiveBytes(tarBytes(t, true, prefixed("pkg/skills/kit/", kit))), WithSubpath("pkg/skills/kit/"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, root := newTestMaterializer(t)
			dir, err := m.Materialize(t.Context(), tt.skill)
			if err != nil {
				t.Fatalf("Materialize(%s) = %v", tt.name, err)
			}
			if entries, err := NewCache(WithSkillCacheRoot(root)).Entries(t.Context()); err != nil || len(entries) != 1 || entries[0].Dir != dir || entries[0].Name != "kit" {
				t.Errorf("Materialize(%s) = %s; Entries = %+v, %v, want the one tree kit at that folder", tt.name, dir, entries, err)
			}
			if got := readTree(t, dir); !mapsEqual(got, want) {
				t.Errorf("tree = %v, want %v", got, want)
			}
			again, err := m.Materialize(t.Context(), tt.skill)
			if err != nil || again != dir {
				t.Errorf("second Materialize = %s, %v, want %s", again, err, dir)
			}
			if n := len(published(t, root)); n != 1 {
				t.Errorf("published %d trees, want 1", n)
			}
		})
	}
}

// Each Format decodes its own archive when pinned with WithFormat, refuses
// the others' with ErrArchiveFormat, and FormatAuto decodes them all.
func TestWithFormat(t *testing.T) {
	kit := skillFiles(entry{name: "a.txt", body: "a"})
	archives := map[Format][]byte{
		FormatZip:   zipBytes(t, kit),
		FormatTar:   tarBytes(t, false, kit),
		FormatTarGz: tarBytes(t, true, kit),
	}
	for _, pinned := range []Format{FormatAuto, FormatZip, FormatTar, FormatTarGz} {
		for format, data := range archives {
			t.Run(fmt.Sprintf("%q of %s", pinned, format), func(t *testing.T) {
				m, _ := newTestMaterializer(t)
				dir, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(data), WithFormat(pinned)))
				if pinned == FormatAuto || pinned == format {
					if err != nil {
						t.Fatalf("Materialize(WithFormat(%q), %s) = %v, want the skill", pinned, format, err)
					}
					if got := readTree(t, dir)["a.txt"]; got != "-r--r--r-- a" {
						t.Errorf("Materialize(WithFormat(%q), %s): a.txt = %q, want %q", pinned, format, got, "-r--r--r-- a")
					}
					return
				}
				if !errors.Is(err, ErrArchiveFormat) {
					t.Errorf("Materialize(WithFormat(%q), %s) = %q, %v, want %v", pinned, format, dir, err, ErrArchiveFormat)
				}
			})
		}
	}
	// A format the package does not define is refused before the archive
	// is opened.
	opened := false
	open := func(context.Context) (io.ReadCloser, error) {
		opened = true
		return io.NopCloser(bytes.NewReader(archives[FormatZip])), nil
	}
	m, _ := newTestMaterializer(t)
	if _, err := m.Materialize(t.Context(), Archive("kit", open, WithFormat("rar"))); !errors.Is(err, ErrArchiveFormat) || !strings.Contains(err.Error(), `format "rar": unsupported or corrupt archive: unknown`) || opened {
		t.Errorf("Materialize(WithFormat(rar)) = %v (opened: %v), want ErrArchiveFormat naming the format, before opening", err, opened)
	}
}

func prefixed(prefix string, entries []entry) []entry {
	out := []entry{{name: "pkg/README", body: "not part of the skill"}}
	for _, e := range entries {
		e.name = prefix + e.name
		out = append(out, e)
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestMaterializeSameContentSharesTree(t *testing.T) {
	m, root := newTestMaterializer(t)
	kit := skillFiles(entry{name: "a.txt", body: "a"})
	tgz, zp := tarBytes(t, true, kit), zipBytes(t, kit)
	mapFS := fstest.MapFS{"SKILL.md": {Data: []byte(kit[0].body)}, "a.txt": {Data: []byte("a")}}
	var dirs []string
	for _, s := range []Skill{
		Archive("kit", ArchiveBytes(tgz)),
		Archive("kit", ArchiveBytes(zp)),
		Archive("kit", ArchiveBytes(tgz), WithFingerprint("v1")),
		Archive("kit", ArchiveBytes(tgz), WithFingerprint("v2")),
		{Key: "kit", Source: FSSource{FS: mapFS}},
	} {
		dir, err := m.Materialize(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	if len(slices.Compact(slices.Clone(dirs))) != 1 {
		t.Errorf("same content gave folders %v, want one", dirs)
	}
	// The fingerprint is identity only: different bytes, same fingerprint.
	other := tarBytes(t, true, skillFiles(entry{name: "a.txt", body: "b"}))
	dir, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(other), WithFingerprint("v1")))
	if err != nil || dir == dirs[0] {
		t.Errorf("different content with the same fingerprint = %s, %v; want a new folder", dir, err)
	}
	// The runtime name is part of the address.
	s := Archive("kit", ArchiveBytes(tgz))
	s.Metadata = map[string]string{MetadataRuntimeName: "renamed"}
	dir, err = m.Materialize(t.Context(), s)
	if err != nil || filepath.Base(dir) != "renamed" {
		t.Errorf("runtime name override = %s, %v; want .../renamed", dir, err)
	}
	if n := len(published(t, root)); n != 3 {
		t.Errorf("published %d trees, want 3", n)
	}
}

func TestMaterializeInline(t *testing.T) {
	m, _ := newTestMaterializer(t)
	a, err := m.Materialize(t.Context(), Inline("Greet Me", "# hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(a) != "greet-me" {
		t.Errorf("Inline runtime folder = %s, want greet-me", filepath.Base(a))
	}
	if got := readTree(t, a); !mapsEqual(got, map[string]string{"SKILL.md": "-r--r--r-- # hi\n"}) {
		t.Errorf("Inline tree = %v", got)
	}
	b, err := m.Materialize(t.Context(), Inline("Greet Me", "# hello\n"))
	if err != nil || b == a {
		t.Errorf("changed inline content = %s, %v; want a new folder", b, err)
	}
	for _, opt := range []struct {
		name string
		opt  DefaultMaterializerOption
	}{{"WithMaxFileSize", WithMaxFileSize(4)}, {"WithMaxTotalSize", WithMaxTotalSize(4)}} {
		root := t.TempDir()
		_, err = NewDefaultSkillMaterializer(WithSkillCacheRoot(root), opt.opt).Materialize(t.Context(), Inline("x", "12345"))
		if !errors.Is(err, ErrArchiveLimit) || !strings.HasSuffix(err.Error(), "(raise it with "+opt.name+")") {
			t.Errorf("inline over %s = %v, want ErrArchiveLimit naming %[1]s", opt.name, err)
		}
		if _, err := NewDefaultSkillMaterializer(WithSkillCacheRoot(root), opt.opt).Materialize(t.Context(), Inline("x", "1234")); err != nil {
			t.Errorf("inline at %s = %v", opt.name, err)
		}
	}
}

func TestMaterializePathInPlace(t *testing.T) {
	m, root := newTestMaterializer(t)
	dir := filepath.Join(t.TempDir(), "review")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("x"), 0o644)
	t.Chdir(filepath.Dir(dir))
	got, err := m.Materialize(t.Context(), Dir("./review/"))
	if err != nil || got != dir {
		t.Errorf("Materialize(Dir) = %s, %v, want %s", got, err, dir)
	}
	if n := len(published(t, root)); n != 0 {
		t.Errorf("a folder source was copied into the cache")
	}
	empty := t.TempDir()
	os.Mkdir(filepath.Join(empty, "SKILL.md"), 0o755)
	for _, p := range []string{filepath.Join(dir, "missing"), empty} {
		_, err := m.Materialize(t.Context(), Dir(p))
		var me *SkillMaterializationError
		if !errors.As(err, &me) || me.Key != filepath.Base(p) || !strings.Contains(err.Error(), "SKILL.md") {
			t.Errorf("Materialize(Dir(%q)) = %v, want a materialization error about SKILL.md", p, err)
		}
	}
}

type customSource struct{}

func (customSource) SkillSource() {}

func TestMaterializeMissingSource(t *testing.T) {
	m, _ := newTestMaterializer(t)
	tests := []struct {
		name string
		s    Skill
		want error
	}{
		{"nil", Skill{Key: "a"}, ErrSkillSourceMissing},
		{"nil pointer", Skill{Key: "a", Source: (*PathSource)(nil)}, ErrSkillSourceMissing},
		{"nil opener", Archive("a", nil), ErrSkillSourceMissing},
		{"nil fs", FS(nil, "x"), ErrSkillSourceMissing},
		{"empty path", Skill{Key: "a", Source: PathSource{}}, ErrSkillSourceMissing},
		{"blank key", Inline("  ", "x"), ErrSkillKeyMissing},
		{"bad runtime name", Skill{Key: "a", Source: InlineSource{"x"}, Metadata: map[string]string{MetadataRuntimeName: "../up"}}, ErrArchiveUnsafe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Materialize(t.Context(), tt.s)
			var me *SkillMaterializationError
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrSkillMaterializationFailed) || !errors.As(err, &me) {
				t.Errorf("Materialize(%s) = %v, want %v inside a *SkillMaterializationError", tt.name, err, tt.want)
			}
		})
	}
	_, err := m.Materialize(t.Context(), Skill{Key: "c", Source: customSource{}})
	if err == nil || !strings.Contains(err.Error(), "customSource") {
		t.Errorf("Materialize(custom source) = %v, want an error naming the type", err)
	}
}

func TestMaterializeErrorsNameTheSkill(t *testing.T) {
	m, root := newTestMaterializer(t, WithMaxFileSize(10))
	bad := tarBytes(t, true, []entry{{name: "SKILL.md", body: "x"}, {name: "../evil", body: "x"}})
	big := tarBytes(t, true, []entry{{name: "SKILL.md", body: strings.Repeat("x", 11)}})
	noSkill := tarBytes(t, true, []entry{{name: "README.md", body: "x"}})
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"unsafe", bad, ErrArchiveUnsafe},
		{"limit", big, ErrArchiveLimit},
		{"no SKILL.md", noSkill, ErrArchiveFormat},
		{"garbage", []byte("not an archive at all"), ErrArchiveFormat},
		{"empty", nil, ErrArchiveFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Archive("My Kit", ArchiveBytes(tt.data))
			_, err := m.Materialize(t.Context(), s)
			var me *SkillMaterializationError
			if !errors.As(err, &me) || me.Key != "My Kit" || me.RuntimeName != "my-kit" || !errors.Is(err, tt.want) {
				t.Fatalf("Materialize(%s) = %v, want %v for key My Kit / my-kit", tt.name, err, tt.want)
			}
			if !strings.Contains(err.Error(), `"My Kit"`) {
				t.Errorf("error %q does not name the skill", err)
			}
			if p, s := published(t, root), staging(t, root); len(p) != 0 || len(s) != 0 {
				t.Errorf("failed extraction left %v and staging %v", p, s)
			}
		})
	}
	_, err := m.Materialize(t.Context(), Archive("k", func(context.Context) (io.ReadCloser, error) { return nil, errors.New("boom") }))
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("opener failure = %v, want it reported", err)
	}
}

func TestMaterializeLimitsFromOptions(t *testing.T) {
	kit := skillFiles(entry{name: "a.txt", body: strings.Repeat("a", 100)}, entry{name: "b.txt", body: strings.Repeat("b", 100)})
	data := tarBytes(t, false, kit)
	total := int64(len(data))
	tests := []struct {
		name string
		opt  DefaultMaterializerOption
		ok   bool
		hint string // the option a refusal names
	}{
		{"archive size at cap", WithMaxArchiveSize(total), true, ""},
		{"archive size over cap", WithMaxArchiveSize(total - 1), false, "WithMaxArchiveSize"},
		{"file size at cap", WithMaxFileSize(100), true, ""},
		{"file size over cap", WithMaxFileSize(99), false, "WithMaxFileSize"},
		{"entries at cap", WithMaxArchiveEntries(3), true, ""},
		{"entries over cap", WithMaxArchiveEntries(2), false, "WithMaxArchiveEntries"},
		{"total over cap", WithMaxTotalSize(1024), false, "WithMaxTotalSize"},
		{"total at cap", WithMaxTotalSize(total), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, root := newTestMaterializer(t, tt.opt)
			_, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(data)))
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrArchiveLimit)) {
				t.Fatalf("Materialize with %s = %v, want ok=%v or ErrArchiveLimit", tt.name, err, tt.ok)
			}
			if !tt.ok && len(published(t, root))+len(staging(t, root)) != 0 {
				t.Errorf("a refused archive left files in the cache")
			}
			if !tt.ok && !strings.HasSuffix(err.Error(), "(raise it with "+tt.hint+")") {
				t.Errorf("Materialize with %s = %v, want the error to end naming %s", tt.name, err, tt.hint)
			}
		})
	}
}

func TestDefaultLimits(t *testing.T) {
	c := NewCache(WithMaxArchiveSize(0), WithMaxFileSize(-1), WithMaxTotalSize(0), WithMaxArchiveEntries(-5), WithSkillCacheRoot("x"))
	want := Limits{MaxArchiveSize: 256 << 20, MaxFileSize: 64 << 20, MaxTotalSize: 1 << 30, MaxArchiveEntries: 10000}
	abs, _ := filepath.Abs("x")
	if got := c.Limits(); got != want || c.Root() != abs {
		t.Errorf("NewCache with values <= 0: Limits() = %+v, Root() = %s, want %+v, %s", got, c.Root(), want, abs)
	}
	set := NewCache(WithMaxArchiveSize(1), WithMaxFileSize(2), WithMaxTotalSize(3), WithMaxArchiveEntries(4))
	if got := set.Limits(); got != (Limits{MaxArchiveSize: 1, MaxFileSize: 2, MaxTotalSize: 3, MaxArchiveEntries: 4}) {
		t.Errorf("NewCache with limits 1, 2, 3, 4: Limits() = %+v", got)
	}
}

func TestCacheRootResolution(t *testing.T) {
	t.Setenv(SkillCacheRootEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	if got := NewCache().Root(); got != "/xdg/agent-adaptor/skill-cache" {
		t.Errorf("default root = %s, want /xdg/agent-adaptor/skill-cache", got)
	}
	// The variable's name is what users set: spelled out, not the constant.
	t.Setenv("AGENT_ADAPTOR_SKILL_CACHE_ROOT", "/env/root")
	if got := NewCache().Root(); got != "/env/root" {
		t.Errorf("root with %s = %s, want /env/root", SkillCacheRootEnv, got)
	}
	if got := NewCache(WithSkillCacheRoot("/opt")).Root(); got != "/opt" {
		t.Errorf("root with WithSkillCacheRoot = %s, want /opt", got)
	}
	if got := NewCache(WithSkillCacheRoot("")).Root(); got != "/env/root" {
		t.Errorf("root with WithSkillCacheRoot(\"\") = %s, want the env root", got)
	}
	t.Setenv(SkillCacheRootEnv, "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := NewCache().Root(); got != filepath.Join(os.TempDir(), fmt.Sprintf("agent-adaptor-%d", os.Getuid()), "skill-cache") {
		t.Errorf("root without a user cache dir = %s, want under the temp dir", got)
	}
}

// countingFile is a seekable archive stream that counts the bytes read
// from it. It offers only Read, Seek and Close, so every byte the
// materializer takes goes through Read.
type countingFile struct {
	r *bytes.Reader
	n *int64
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	*f.n += int64(n)
	return n, err
}

func (f countingFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f countingFile) Close() error                              { return nil }

// countingOpener opens data as a [countingFile] adding to *n.
func countingOpener(data []byte, n *int64) Opener {
	return func(context.Context) (io.ReadCloser, error) {
		return countingFile{bytes.NewReader(data), n}, nil
	}
}

// A seekable archive is hashed where it is, in one pass; extracting it
// takes a second pass over a private copy. A warm archive, served from
// the memo, is read exactly once.
func TestMaterializeWarmArchiveDoesNotExtract(t *testing.T) {
	m, root := newTestMaterializer(t)
	data := tarBytes(t, true, skillFiles(entry{name: "a.txt", body: "a"}))
	size := int64(len(data))
	materialize := func(m Materializer) (string, int64) {
		t.Helper()
		var n int64
		dir, err := m.Materialize(t.Context(), Archive("kit", countingOpener(data, &n)))
		if err != nil {
			t.Fatal(err)
		}
		return dir, n
	}
	first, n := materialize(m)
	if n != 2*size {
		t.Fatalf("cold Materialize read %d bytes, want %d (hash, then extract)", n, 2*size)
	}
	if again, n := materialize(m); again != first || n != size {
		t.Errorf("warm Materialize = %s after reading %d bytes, want %s after %d (hash only)", again, n, first, size)
	}
	// Other limits are another memo key: the first call extracts (and
	// shares the one tree, the content being equal), the next is warm.
	m2 := NewDefaultSkillMaterializer(WithSkillCacheRoot(root), WithMaxFileSize(1<<20))
	if dir, n := materialize(m2); dir != first || n != 2*size {
		t.Errorf("Materialize with other limits = %s after reading %d bytes, want %s after %d (extracted)", dir, n, first, 2*size)
	}
	if dir, n := materialize(m2); dir != first || n != size {
		t.Errorf("warm Materialize with other limits = %s after reading %d bytes, want %s after %d", dir, n, first, size)
	}
	if dir, n := materialize(m); dir != first || n != size {
		t.Errorf("warm Materialize after other limits = %s after reading %d bytes, want %s after %d", dir, n, first, size)
	}
}

func TestMaterializeRepairsDamagedTree(t *testing.T) {
	m, _ := newTestMaterializer(t)
	s := Archive("kit", ArchiveBytes(tarBytes(t, true, skillFiles(entry{name: "a/b.txt", body: "b"}))))
	dir, err := m.Materialize(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := readTree(t, dir)
	// Folders of a tree are read-only: damage takes a chmod first.
	writable := func() {
		os.Chmod(dir, 0o755)
		os.Chmod(filepath.Join(dir, "a"), 0o755)
	}
	for _, damage := range []func(){
		func() { writable(); os.Remove(filepath.Join(dir, "a", "b.txt")) },
		func() {
			os.Chmod(filepath.Join(dir, "SKILL.md"), 0o644)
			os.WriteFile(filepath.Join(dir, "SKILL.md"), nil, 0o444)
		},
		func() {
			writable()
			os.RemoveAll(filepath.Join(dir, "a"))
			os.WriteFile(filepath.Join(dir, "a"), nil, 0o444)
		},
	} {
		damage()
		got, err := m.Materialize(t.Context(), s)
		if err != nil || got != dir {
			t.Fatalf("Materialize after damage = %s, %v, want %s", got, err, dir)
		}
		if tree := readTree(t, got); !mapsEqual(tree, want) {
			t.Errorf("repaired tree = %v, want %v", tree, want)
		}
	}
}

func TestMaterializeCancelled(t *testing.T) {
	m, root := newTestMaterializer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, s := range []Skill{
		Inline("a", "x"),
		Archive("b", ArchiveBytes(tarBytes(t, true, skillFiles()))),
		FS(fstest.MapFS{"SKILL.md": {Data: []byte("x")}}, ""),
	} {
		_, err := m.Materialize(ctx, s)
		var me *SkillMaterializationError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &me) || me.Key != s.Key {
			t.Errorf("Materialize(%s) with a cancelled context = %v, want context.Canceled", s.Key, err)
		}
	}
	// Cancelled while the opener streams.
	ctx, cancel = context.WithCancel(t.Context())
	open := func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(&cancelAfter{r: bytes.NewReader(make([]byte, 8<<20)), cancel: cancel}), nil
	}
	if _, err := m.Materialize(ctx, Archive("c", open)); !errors.Is(err, context.Canceled) {
		t.Errorf("Materialize cancelled mid-stream = %v, want context.Canceled", err)
	}
	if p, s := published(t, root), staging(t, root); len(p) != 0 || len(s) != 0 {
		t.Errorf("cancelled materialization left %v and staging %v", p, s)
	}
}

type cancelAfter struct {
	r      io.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	c.n++
	if c.n == 3 {
		c.cancel()
	}
	return c.r.Read(p[:min(len(p), 64<<10)])
}

func TestMaterializeStreamsAndFiles(t *testing.T) {
	// Over 4 MiB, a non-seekable stream is spooled to a file in staging;
	// a file is hashed where it is.
	big := strings.Repeat("0123456789abcdef", 5<<16) // 5 MiB
	data := tarBytes(t, false, skillFiles(entry{name: "big.txt", body: big}))
	path := filepath.Join(t.TempDir(), "kit.tar")
	os.WriteFile(path, data, 0o644)
	stream := func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	m, root := newTestMaterializer(t)
	var dirs []string
	for _, open := range []Opener{stream, ArchiveFile(path), stream, ArchiveFile(path)} {
		dir, err := m.Materialize(t.Context(), Archive("kit", open))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	if len(slices.Compact(dirs)) != 1 {
		t.Errorf("stream and file gave %v, want one folder", dirs)
	}
	if s := staging(t, root); len(s) != 0 {
		t.Errorf("spool left behind: %v", s)
	}
	m2, _ := newTestMaterializer(t, WithMaxArchiveSize(int64(len(data)-1)))
	for _, open := range []Opener{stream, ArchiveFile(path)} {
		if _, err := m2.Materialize(t.Context(), Archive("kit", open)); !errors.Is(err, ErrArchiveLimit) {
			t.Errorf("oversized archive = %v, want ErrArchiveLimit", err)
		}
	}
}

func TestMaterializeConcurrent(t *testing.T) {
	m, root := newTestMaterializer(t)
	data := tarBytes(t, true, skillFiles(entry{name: "a.txt", body: strings.Repeat("a", 1<<16)}))
	const n = 16
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Separate materializers share only the root, as processes do.
			mm := m
			if i%2 == 1 {
				mm = NewDefaultSkillMaterializer(WithSkillCacheRoot(root))
			}
			dirs[i], errs[i] = mm.Materialize(t.Context(), Archive("kit", ArchiveBytes(data)))
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Errorf("goroutine %d: %s, %v, want %s", i, dirs[i], errs[i], dirs[0])
		}
	}
	if p := published(t, root); len(p) != 1 {
		t.Errorf("published %v, want one tree", p)
	}
	if s := staging(t, root); len(s) != 0 {
		t.Errorf("staging left behind: %v", s)
	}
}

// The helper process: materializes archives into the root named by the
// environment and prints each folder.
const helperEnv = "SKILL_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "once":
		helperOnce()
	case "halt":
		helperHalt()
	case "abandon":
		helperAbandon()
	default:
		os.Exit(testroot.Main(m))
	}
}

func helperArchive(seed, files int) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name, body string) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		io.WriteString(tw, body)
	}
	add("SKILL.md", fmt.Sprintf("---\nname: kit\ndescription: seed %d\n---\n", seed))
	chunk := strings.Repeat(strconv.Itoa(seed), 16<<10)
	for i := range files {
		add(fmt.Sprintf("refs/%03d/f%d.txt", i%100, i), chunk[:16<<10])
	}
	tw.Close()
	return buf.Bytes()
}

func helperOnce() {
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(os.Getenv("SKILL_TEST_ROOT")))
	dir, err := m.Materialize(context.Background(), Archive("kit", ArchiveBytes(helperArchive(1, 300))))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(dir)
	os.Exit(0)
}

// helperHalt materializes one tree, then halts three quarters of the way
// through reading the next one's archive, in its second (writing) pass:
// it writes "halted" to stdout and waits for stdin to close (see
// [haltingContext]).
func helperHalt() {
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(os.Getenv("SKILL_TEST_ROOT")))
	ctx := &haltingContext{Context: context.Background()}
	for seed := range 2 {
		if seed == 1 {
			n := ctx.checks.Load()
			ctx.at = n + n*3/4
		}
		if _, err := m.Materialize(ctx, Archive("kit", ArchiveBytes(helperArchive(seed, 600)))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Fprintln(os.Stderr, "the second tree was written whole")
	os.Exit(1)
}

// haltingContext counts the checks of its error: extraction checks it
// at every read of an archive, in both passes, so an archive of the same
// shape is checked as many times. From check number at on (when at is
// not zero) it writes "halted" to stdout, once, and blocks until stdin
// closes, then ends the process.
type haltingContext struct {
	context.Context
	at     int64
	checks atomic.Int64
	once   sync.Once
}

func (c *haltingContext) Err() error {
	if n := c.checks.Add(1); c.at != 0 && n >= c.at {
		c.once.Do(func() { fmt.Println("halted") })
		io.Copy(io.Discard, os.Stdin)
		os.Exit(1)
	}
	return c.Context.Err()
}

func helperCmd(t *testing.T, mode, root string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "SKILL_TEST_ROOT="+root)
	return cmd
}

func TestMaterializeConcurrentProcesses(t *testing.T) {
	root := t.TempDir()
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		cmds[i] = helperCmd(t, "once", root)
		outs[i] = new(bytes.Buffer)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if err := cmds[i].Wait(); err != nil {
			t.Fatalf("process %d: %v: %s", i, err, outs[i])
		}
	}
	for i := range n {
		if outs[i].String() != outs[0].String() {
			t.Errorf("process %d got %q, process 0 got %q", i, outs[i], outs[0])
		}
	}
	if p := published(t, root); len(p) != 1 {
		t.Errorf("published %v, want one tree", p)
	}
	dir := strings.TrimSpace(outs[0].String())
	if got := len(readTree(t, dir)); got != 301 {
		t.Errorf("tree has %d files, want 301", got)
	}
}

func TestMaterializeCrashMidWrite(t *testing.T) {
	root := t.TempDir()
	cmd := helperCmd(t, "halt", root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The writer publishes a tree and halts while writing the next one
	// (see helperHalt); kill it there. (A half-written tree with
	// read-only folders is planted in TestLeftoversSweptWithoutAMiss.)
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "halted\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the writer never halted in its second tree (%q, %v): %s", line, err, stderr.String())
	}
	if n := len(published(t, root)); n != 1 {
		t.Errorf("the halted writer published %d trees, want 1", n)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if len(staging(t, root)) == 0 {
		t.Fatal("the killed writer left no staging; the test did not catch it mid-write")
	}
	// Every visible tree is complete.
	store, err := cache.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, digest := range published(t, root) {
		if _, ok := store.Lookup(digest, "kit"); !ok {
			t.Errorf("published tree %s is incomplete after a crash", digest)
		}
	}
	// The next call recovers: it materializes and sweeps the leftovers.
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(root))
	var last string
	for seed := range len(published(t, root)) + 2 {
		data := helperArchive(seed, 600)
		dir, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(data)))
		if err != nil {
			t.Fatalf("Materialize after crash: %v", err)
		}
		if n := len(readTree(t, dir)); n != 601 {
			t.Errorf("seed %d: tree has %d files, want 601", seed, n)
		}
		last = dir
	}
	if s := staging(t, root); len(s) != 0 {
		t.Errorf("leftover staging not swept: %v (last %s)", s, last)
	}
}

func TestSweepKeepsLiveStaging(t *testing.T) {
	root := cachetest.Root(t)
	store, err := cache.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	live, err := store.Stage("kit") // held by this (live) owner
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	want := staging(t, root) // the live staging folder and its lock
	orphan := plantLeftovers(t, root)
	m := NewDefaultSkillMaterializer(WithSkillCacheRoot(root))
	if _, err := m.Materialize(t.Context(), Inline("kit", "x")); err != nil {
		t.Fatal(err)
	}
	if got := staging(t, root); !slices.Equal(got, want) {
		t.Errorf("staging = %v, want only the live area %v (abandoned: %v)", got, want, orphan)
	}
}

func TestRuntimeNameAvoidsDeviceNames(t *testing.T) {
	for key, want := range map[string]string{"CON": "con-skill", "nul": "nul-skill", "Com1": "com1-skill", "console": "console"} {
		if got, err := RuntimeName(Skill{Key: key}); err != nil || got != want {
			t.Errorf("RuntimeName(%q) = %q, %v, want %q", key, got, err, want)
		}
	}
}
