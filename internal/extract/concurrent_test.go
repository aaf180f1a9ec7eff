package extract

import (
	"bytes"
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
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
)

// manyFiles is a tar.gz skill of many small files in several folders, so
// its second pass keeps every writing goroutine busy.
func manyFiles(t *testing.T, files int, size int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := testarchive.TarGz(&b, files, size); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func concurrentOptions() Options {
	return Options{MaxFileSize: 1 << 20, MaxTotalSize: 64 << 20, MaxArchiveEntries: 10000}
}

// checkNoLeak fails when goroutines started since before are still running.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	for range 200 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
}

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

// TestTarGzListInArchiveOrder checks that the files come back in the
// order of the archive, whatever order the writers finish in, with the
// sums the first pass computed matching the bytes written and the sums a
// plain tar extraction (which hashes in its second pass) returns.
func TestTarGzListInArchiveOrder(t *testing.T) {
	data := manyFiles(t, 300, 3<<20)
	before := runtime.NumGoroutine()
	var lists [][]File
	for range 3 {
		root, dir := openRoot(t)
		files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 300 {
			t.Fatalf("%d files, want 300", len(files))
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(b)) != f.Size || sha256.Sum256(b) != f.Sum {
				t.Fatalf("%s: the returned size or sum does not describe the file written", f.Path)
			}
		}
		lists = append(lists, files)
	}
	for _, l := range lists[1:] {
		if !slices.Equal(l, lists[0]) {
			t.Fatal("two extractions of one archive returned different lists")
		}
	}
	// The archive order: SKILL.md, scripts/run.sh, then doc-0000 on.
	if lists[0][0].Path != "SKILL.md" || lists[0][1].Path != "scripts/run.sh" || lists[0][2].Path != "references/part-00/doc-0000.md" || lists[0][299].Path != "references/part-17/doc-0297.md" {
		t.Fatalf("not in archive order: %v ... %v", lists[0][:3], lists[0][299])
	}
	plain := gunzip(t, data)
	opts := concurrentOptions()
	opts.Format = formatTar
	files, err := Archive(t.Context(), bytes.NewReader(plain), int64(len(plain)), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, lists[0]) {
		t.Fatal("tar and tar.gz of one tree returned different lists")
	}
	checkNoLeak(t, before)
}

// cancelOnFile is a context that is cancelled by the first check of its
// error once the file path exists: the extraction that checks it cancels
// itself as soon as it has written that file, with no clock involved.
type cancelOnFile struct {
	context.Context
	cancel context.CancelFunc
	path   string
}

func (c *cancelOnFile) Err() error {
	if c.Context.Err() == nil {
		if _, err := os.Stat(c.path); err == nil {
			c.cancel()
		}
	}
	return c.Context.Err()
}

// TestTarGzCancelWhileWriting cancels an extraction once its first file
// exists: it stops with the context's error and leaves no goroutine. The
// extraction checks its context before every read of the archive, and
// SKILL.md, the first of 2000 files, exists long before the last read.
func TestTarGzCancelWhileWriting(t *testing.T) {
	data := manyFiles(t, 2000, 16<<20)
	before := runtime.NumGoroutine()
	root, dir := openRoot(t)
	inner, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx := &cancelOnFile{Context: inner, cancel: cancel, path: filepath.Join(dir, "SKILL.md")}
	files, err := Archive(ctx, bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
	if err == nil {
		t.Fatalf("the extraction of %d files finished without seeing its context cancelled once SKILL.md was written", len(files))
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := countFiles(t, dir); n >= 2000 {
		t.Fatalf("all %d files written after cancellation", n)
	}
	checkNoLeak(t, before)
}

// TestTarGzWriterErrorStopsOthers makes one file of many, half-way
// through the archive, fail to be created: the extraction fails with that
// error, not with the cancellation it causes, stops writing the files
// after it, and leaves no goroutine.
func TestTarGzWriterErrorStopsOthers(t *testing.T) {
	const n = 2000
	entries := []tarEntry{tReg("SKILL.md", "# s\n")}
	body := strings.Repeat("text ", 1000)
	for i := range n {
		entries = append(entries, tReg(fmt.Sprintf("f-%04d.md", i), body))
	}
	data := gz(t, tarBytes(t, entries...))
	before := runtime.NumGoroutine()
	root, dir := openRoot(t)
	if err := os.WriteFile(filepath.Join(dir, "f-1000.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want the clash on f-1000.md", err)
	}
	// Jobs started before the failing one cancels the rest may still
	// write; the files after the clash are not all written.
	if got := countFiles(t, dir); got < 2 || got >= n+1 {
		t.Fatalf("%d files in the root after a failure at the 1002nd entry of %d", got, n+1)
	}
	checkNoLeak(t, before)
}

// TestKnownContentChecked checks that a file whose bytes differ from what
// the first pass read is refused.
func TestKnownContentChecked(t *testing.T) {
	k, err := readKnown(strings.NewReader("first"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWriter(nil, Options{MaxTotalSize: 1 << 20})
	if f, err := w.writeAll("a", false, []byte("first"), k); err != nil || f.Sum != sha256.Sum256([]byte("first")) {
		t.Fatalf("writeAll of the known bytes: %v, %x", err, f.Sum)
	}
	for _, data := range []string{"fir5t", "first!", ""} {
		if _, err := w.writeAll("a", false, []byte(data), k); !errors.Is(err, ErrFormat) {
			t.Errorf("writeAll of %q: err = %v, want ErrFormat", data, err)
		}
		if _, err := w.write(t.Context(), "a", false, strings.NewReader(data), 1<<20, -1, k); !errors.Is(err, ErrFormat) {
			t.Errorf("write of %q: err = %v, want ErrFormat", data, err)
		}
	}
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
