package extract

import (
	"archive/tar"
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
	"testing"
)

// manyEntries is SKILL.md and n files of a few KiB in a handful of
// folders, followed by more.
func manyEntries(n int, more ...tarEntry) []tarEntry {
	entries := []tarEntry{tReg("SKILL.md", "# s\n")}
	body := strings.Repeat("text ", 1000)
	for i := range n {
		entries = append(entries, tReg(fmt.Sprintf("part-%d/f-%04d.md", i%7, i), body))
	}
	return append(entries, more...)
}

// checkRootEmpty fails unless the folder dir holds nothing.
func checkRootEmpty(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		names := make([]string, len(left))
		for i, e := range left {
			names[i] = e.Name()
		}
		t.Errorf("the root holds %v after a refused extraction, want it empty", names)
	}
}

// TestLateViolationLeavesRootEmpty refuses archives whose one violation
// comes after 500 files were written, for each rule checked as entries
// arrive or at the end: the extraction removes every file and folder it
// created, so the root is as it found it. Tar and tar.gz.
func TestLateViolationLeavesRootEmpty(t *testing.T) {
	t.Parallel()
	const n = 500
	whole := tarBytes(t, manyEntries(n)...)
	cases := []struct {
		name string
		tar  []byte
		opts func(*Options)
		want error
	}{
		{"duplicate name", tarBytes(t, manyEntries(n, tReg("part-3/f-0003.md", "again"))...), nil, ErrUnsafe},
		{"fold collision", tarBytes(t, manyEntries(n, tReg("PART-3/f-0003.md", "again"))...), nil, ErrUnsafe},
		{"file over a folder", tarBytes(t, manyEntries(n, tReg("part-3", "x"))...), nil, ErrUnsafe},
		{"bad name", tarBytes(t, manyEntries(n, tReg("a/../../evil", "x"))...), nil, ErrUnsafe},
		{"device", tarBytes(t, manyEntries(n, tSpecial("dev", '3'))...), nil, ErrUnsafe},
		{"link out of the skill", tarBytes(t, manyEntries(n, tSymlink("out", "../../x"))...), nil, ErrUnsafe},
		{"link to nothing", tarBytes(t, manyEntries(n, tSymlink("dangling", "nothing.md"))...), nil, ErrUnsafe},
		{"link to a folder", tarBytes(t, manyEntries(n, tSymlink("dir", "part-1"))...), nil, ErrUnsafe},
		{"file over its limit", tarBytes(t, manyEntries(n, tReg("big", strings.Repeat("x", 8<<10)))...), func(o *Options) { o.MaxFileSize = 6 << 10 }, ErrLimit},
		{"total over its limit", whole, func(o *Options) { o.MaxTotalSize = 2 << 20 }, ErrLimit},
		{"entry count", whole, func(o *Options) { o.MaxArchiveEntries = n }, ErrLimit},
		{"no SKILL.md", whole[512+512:], nil, ErrFormat},
		{"data after the end marker", append(slices.Clip(whole), pad512([]byte("junk"))...), nil, ErrFormat},
		{"truncated", whole[:len(whole)/2&^511], nil, ErrFormat},
	}
	for _, c := range cases {
		for _, format := range []string{formatTar, formatTarGz} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				data := c.tar
				if format == formatTarGz {
					data = gz(t, data)
				}
				opts := concurrentOptions()
				opts.Format = format
				if c.opts != nil {
					c.opts(&opts)
				}
				root, dir := openRoot(t)
				files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts)
				if !errors.Is(err, c.want) {
					t.Fatalf("Archive = %d files, %v, want %v", len(files), err, c.want)
				}
				checkRootEmpty(t, dir)
			})
		}
	}
}

// TestGzipTrailerCheckedBeforeSuccess damages the gzip checksum of a
// well-formed tar.gz: every file is written before the trailer is read,
// and the extraction fails and removes them all.
func TestGzipTrailerCheckedBeforeSuccess(t *testing.T) {
	data := gz(t, tarBytes(t, manyEntries(200)...))
	data[len(data)-8] ^= 0xff // the CRC-32 of the trailer
	root, dir := openRoot(t)
	_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("err = %v, want ErrFormat", err)
	}
	checkRootEmpty(t, dir)
}

// TestBombStopsAtTheLimit extracts a tar.gz whose one file decompresses
// to 256 MiB of zeros under a total limit of 1 MiB: the decompressor
// produces no more than the limit (and a byte), and the extraction reads
// a sliver of the compressed archive.
func TestBombStopsAtTheLimit(t *testing.T) {
	const limit = 1 << 20
	data := zeroBomb(t, 256<<20)
	opts := Options{MaxFileSize: 1 << 30, MaxTotalSize: limit, MaxArchiveEntries: 10, Format: formatTarGz}

	// What the decompressor produces.
	src, stop := tarStream(t.Context(), bytes.NewReader(data), int64(len(data)), true, limit)
	produced, err := io.Copy(io.Discard, src)
	stop()
	if err != nil || produced > limit+1 {
		t.Fatalf("the decompressor produced %d bytes (%v), want at most %d", produced, err, limit+1)
	}

	// What the extraction reads of the archive.
	rc := &readCounter{r: bytes.NewReader(data)}
	root, dir := openRoot(t)
	_, err = Archive(t.Context(), rc, int64(len(data)), root, opts)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitTotalSize {
		t.Fatalf("err = %v, want the total size limit", err)
	}
	if got := rc.n.Load(); got > int64(len(data))/8 {
		t.Errorf("read %d of the bomb's %d compressed bytes, want at most an eighth", got, len(data))
	}
	checkRootEmpty(t, dir)
}

// zeroBomb returns a tar.gz holding SKILL.md and a file of size zero
// bytes (a whole number of MiB), built without compressing them: after
// the file's header, the rest of a tar stream of zeros (the file, its
// padding, the end marker) is zeros, so the gzip stream is one member
// for the headers and then one member of a MiB of zeros, compressed
// once and repeated, and one for the end marker.
func zeroBomb(t *testing.T, size int64) []byte {
	t.Helper()
	var head bytes.Buffer
	tw := tar.NewWriter(&head)
	for _, h := range []tar.Header{
		{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: 4},
		{Name: "zeros", Typeflag: tar.TypeReg, Mode: 0o644, Size: size},
	} {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Name == "SKILL.md" {
			if _, err := io.WriteString(tw, "# s\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The zeros' header is written; the writer is left without the data
	// it expects (Flush would refuse).
	out := gz(t, head.Bytes())
	mib := gz(t, make([]byte, 1<<20))
	for range size >> 20 {
		out = append(out, mib...)
	}
	out = append(out, gz(t, make([]byte, 1024))...)
	// The stream starts as the tar a writer would have made (its end is
	// not read here: that would decompress the whole bomb).
	zr, err := gzip.NewReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for _, want := range []int64{4, size} {
		h, err := tr.Next()
		if err != nil || h.Size != want {
			t.Fatalf("the bomb's tar: %v, %v, want an entry of %d bytes", h, err, want)
		}
	}
	return out
}

// TestLinkToLaterEntry writes links whose targets come after them in the
// archive, symbolic and hard, as copies of those files.
func TestLinkToLaterEntry(t *testing.T) {
	data := tarBytes(t,
		tReg("SKILL.md", "# s\n"),
		tSymlink("docs/soft.md", "../later/target.md"),
		tLink("hard.md", "later/target.md"),
		tExec("later/target.md", "the target\n"),
	)
	for _, format := range []string{formatTar, formatTarGz} {
		t.Run(format, func(t *testing.T) {
			in := data
			if format == formatTarGz {
				in = gz(t, data)
			}
			root, dir := openRoot(t)
			files, err := Archive(t.Context(), bytes.NewReader(in), int64(len(in)), root, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			want := sha256.Sum256([]byte("the target\n"))
			got := map[string]File{}
			for _, f := range files {
				got[f.Path] = f
			}
			for _, p := range []string{"docs/soft.md", "hard.md", "later/target.md"} {
				f, ok := got[p]
				if !ok || f.Sum != want || !f.Exec {
					t.Errorf("%s: %+v (listed %v), want an executable copy of later/target.md", p, f, ok)
				}
				b, err := os.ReadFile(filepath.Join(dir, p))
				info, lerr := os.Lstat(filepath.Join(dir, p))
				if err != nil || lerr != nil || string(b) != "the target\n" || !info.Mode().IsRegular() {
					t.Errorf("%s on disk: %q, %v, %v", p, b, err, lerr)
				}
			}
		})
	}
}

// TestCancelMidArchiveLeavesRootEmpty cancels an extraction once its
// 1,000th file of 2,000 exists: it fails with the context's error, removes
// what it wrote, and leaves no goroutine.
func TestCancelMidArchiveLeavesRootEmpty(t *testing.T) {
	data := gz(t, tarBytes(t, manyEntries(2000)...))
	before := runtime.NumGoroutine()
	root, dir := openRoot(t)
	inner, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx := &cancelOnFile{Context: inner, cancel: cancel, path: filepath.Join(dir, "part-6/f-1000.md")}
	_, err := Archive(ctx, bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	checkRootEmpty(t, dir)
	checkNoLeak(t, before)
}

// TestTarGzNoScratchFile extracts a tar.gz with no Options.Scratch: no
// file is created outside the root, in the temporary folder or anywhere.
func TestTarGzNoScratchFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TMP", tmp) // Windows
	data := manyFiles(t, 200, 2<<20)
	root, _ := openRoot(t)
	if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, concurrentOptions()); err != nil {
		t.Fatal(err)
	}
	left, err := os.ReadDir(tmp)
	if err != nil || len(left) != 0 {
		t.Errorf("the temporary folder holds %v (%v), want nothing", left, err)
	}
}

// TestTarGzTwoPassesWithScratch extracts with Options.Scratch set: the
// archive is checked whole, through the scratch file, before any file is
// created, so a late violation never reaches the root, and a good
// archive gives the same files as one pass.
func TestTarGzTwoPassesWithScratch(t *testing.T) {
	good := gz(t, tarBytes(t, manyEntries(50, tSymlink("link.md", "part-1/f-0001.md"))...))
	bad := gz(t, tarBytes(t, manyEntries(50, tReg("SKILL.md", "again"))...))
	var scratched int
	withScratch := concurrentOptions()
	withScratch.Scratch = func() (*os.File, error) {
		scratched++
		return os.CreateTemp(t.TempDir(), "scratch")
	}
	root, _ := openRoot(t)
	onePass, err := Archive(t.Context(), bytes.NewReader(good), int64(len(good)), root, concurrentOptions())
	if err != nil {
		t.Fatal(err)
	}
	root, _ = openRoot(t)
	twoPasses, err := Archive(t.Context(), bytes.NewReader(good), int64(len(good)), root, withScratch)
	if err != nil || fmt.Sprint(twoPasses) != fmt.Sprint(onePass) {
		t.Fatalf("two passes: %v, %v, want the files of one pass", twoPasses, err)
	}

	// The root is watched: no file may appear in it, even for a moment.
	root, dir := openRoot(t)
	watch := &cancelOnFile{Context: t.Context(), cancel: func() { t.Error("a file was created before the archive was refused") }, path: filepath.Join(dir, "SKILL.md")}
	if _, err := Archive(watch, bytes.NewReader(bad), int64(len(bad)), root, withScratch); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("err = %v, want ErrUnsafe", err)
	}
	if scratched != 2 {
		t.Errorf("Scratch called %d times, want 2", scratched)
	}
	checkRootEmpty(t, dir)
}

// TestFileSystemErrorLeavesWhatWasWritten makes the destination refuse a
// file half-way: that is no violation of the archive, so what was written
// stays for the root's owner, as doc.go says.
func TestFileSystemErrorLeavesWhatWasWritten(t *testing.T) {
	data := tarBytes(t, manyEntries(100)...)
	root, dir := openRoot(t)
	if err := os.Mkdir(filepath.Join(dir, "part-6"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want fs.ErrExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Errorf("SKILL.md: %v, want it left", err)
	}
}

// TestTwoPassesDamagedScratchLeavesRootEmpty damages, between the two
// passes, the scratch bytes of the last of 200 files: the writing pass,
// which has written the others, refuses it and removes what it wrote.
func TestTwoPassesDamagedScratchLeavesRootEmpty(t *testing.T) {
	last := "the last file\n"
	data := gz(t, tarBytes(t, manyEntries(200, tReg("last.md", last))...))
	opts := concurrentOptions()
	opts.Scratch = func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "scratch") }
	root, dir := openRoot(t)
	src, scratch, release, err := firstTarPass(t.Context(), bytes.NewReader(data), int64(len(data)), true, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	p := newPlan(opts)
	c := &counter{ctx: t.Context(), r: src, limit: opts.MaxTotalSize}
	if err := planTar(c, p, true); err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(io.NewSectionReader(scratch, 0, c.n))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scratch.WriteAt([]byte("X"), int64(bytes.LastIndex(raw, []byte(last)))); err != nil {
		t.Fatal(err)
	}
	if _, err := writeTar(t.Context(), io.NewSectionReader(scratch, 0, c.n), p, root, opts); !errors.Is(err, ErrFormat) {
		t.Fatalf("err = %v, want ErrFormat", err)
	}
	checkRootEmpty(t, dir)
}
