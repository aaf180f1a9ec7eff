package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// shownFiles collects what Options.Content shows: each file's bytes and
// executable bit once its writer is closed, and the files whose writer
// was left open.
type shownFiles struct {
	mu     sync.Mutex
	closed map[string]string // path: "x " or "- " and the bytes
	open   map[string]bool
}

func newShown() *shownFiles {
	return &shownFiles{closed: map[string]string{}, open: map[string]bool{}}
}

func (s *shownFiles) content(rel string, exec bool, size int64) io.WriteCloser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[rel] || s.closed[rel] != "" {
		panic("shown twice: " + rel)
	}
	s.open[rel] = true
	mark := "- "
	if exec {
		mark = "x "
	}
	return &shownFile{s: s, rel: rel, b: *bytes.NewBufferString(mark)}
}

type shownFile struct {
	s   *shownFiles
	rel string
	b   bytes.Buffer
}

func (f *shownFile) Write(p []byte) (int, error) { return f.b.Write(p) }

func (f *shownFile) Close() error {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	delete(f.s.open, f.rel)
	f.s.closed[f.rel] = f.b.String()
	return nil
}

// writtenFiles reads back the regular files under dir as shownFiles
// describes them.
func writtenFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			return err
		}
		mark := "- "
		if info.Mode()&0o111 != 0 {
			mark = "x "
		}
		out[name] = mark + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestContentShowsWhatIsWritten checks Options.Content: every file
// written, a link's copy included, is shown once with the bytes and
// executable bit written, whatever the format and however large, and
// nothing left out (outside the subpath, version-control metadata) is.
func TestContentShowsWhatIsWritten(t *testing.T) {
	large := strings.Repeat("large file line\n", (bufSize*3)/16) // streamed, not buffered
	entries := []tarEntry{
		tReg("kit/SKILL.md", skillMD),
		tExec("kit/run.sh", "#!/bin/sh\necho hi\n"),
		tReg("kit/big.md", large),
		tReg("kit/empty.md", ""),
		tSymlink("kit/again.md", "big.md"),
		tLink("kit/hard.sh", "kit/run.sh"),
		tReg("kit/.git/config", "[core]\n"),
		tReg("other/SKILL.md", skillMD),
	}
	zipEntries := []zipEntry{
		zFile("kit/SKILL.md", skillMD),
		zMode("kit/run.sh", "#!/bin/sh\necho hi\n", 0o755),
		zFile("kit/big.md", large),
		zFile("kit/empty.md", ""),
		zSymlink("kit/again.md", "big.md"),
		zFile("kit/.git/config", "[core]\n"),
		zFile("other/SKILL.md", skillMD),
	}
	many := manyEntries(300)
	for name, tc := range map[string]struct {
		data    []byte
		subpath string
		scratch bool
	}{
		"tar":               {data: tarBytes(t, entries...), subpath: "kit"},
		"tar.gz":            {data: gz(t, tarBytes(t, entries...))},
		"tar.gz, scratch":   {data: gz(t, tarBytes(t, entries...)), scratch: true},
		"zip":               {data: zipBytes(t, zipEntries...), subpath: "kit"},
		"zip, whole":        {data: zipBytes(t, zipEntries...)},
		"tar.gz, 300 files": {data: gz(t, tarBytes(t, many...))},
	} {
		t.Run(name, func(t *testing.T) {
			root, dir := openRoot(t)
			shown := newShown()
			opts := testOptions()
			opts.Subpath, opts.AnyTree, opts.Content = tc.subpath, tc.subpath == "", shown.content
			if tc.scratch {
				opts.Scratch = func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "scratch") }
			}
			files, err := Archive(t.Context(), bytes.NewReader(tc.data), int64(len(tc.data)), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := writtenFiles(t, dir)
			if len(want) != len(files) {
				t.Fatalf("wrote %d files, Archive says %d", len(want), len(files))
			}
			if fmt.Sprint(shown.closed) != fmt.Sprint(want) || len(shown.open) != 0 {
				t.Errorf("Content was shown %d files (%d left open), want the %d written with their bytes", len(shown.closed), len(shown.open), len(want))
			}
		})
	}
	t.Run("fs", func(t *testing.T) {
		root, dir := openRoot(t)
		shown := newShown()
		opts := testOptions()
		opts.Content = shown.content
		src := fstest.MapFS{
			"SKILL.md":   {Data: []byte(skillMD)},
			"run.sh":     {Data: []byte("#!/bin/sh\n"), Mode: 0o755},
			"big.md":     {Data: []byte(large)},
			".git/HEAD":  {Data: []byte("ref\n")},
			"sub/one.md": {Data: []byte("one\n")},
		}
		if _, err := FS(t.Context(), src, ".", root, opts); err != nil {
			t.Fatal(err)
		}
		if want := writtenFiles(t, dir); fmt.Sprint(shown.closed) != fmt.Sprint(want) || len(shown.open) != 0 {
			t.Errorf("Content was shown %v (%d left open), want the files written %v", shown.closed, len(shown.open), want)
		}
	})
}

// TestContentWriterError checks that an error of a writer Options.Content
// returns fails the extraction with that error.
func TestContentWriterError(t *testing.T) {
	data := gz(t, tarBytes(t, tReg("SKILL.md", skillMD), tReg("big.md", strings.Repeat("x", bufSize+1))))
	for _, failing := range []string{"SKILL.md", "big.md"} {
		root, _ := openRoot(t)
		opts := testOptions()
		boom := errors.New("boom")
		opts.Content = func(rel string, exec bool, size int64) io.WriteCloser {
			if rel == failing {
				return failWriter{boom}
			}
			return nil
		}
		if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts); !errors.Is(err, boom) {
			t.Errorf("Archive with a writer of %s failing = %v, want its error", failing, err)
		}
	}
}

type failWriter struct{ err error }

func (f failWriter) Write(p []byte) (int, error) { return 0, f.err }
func (f failWriter) Close() error                { return f.err }
