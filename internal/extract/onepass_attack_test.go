package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
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

// These tests attack the one-pass tar and tar.gz extraction, which writes
// files as entries arrive and removes them when the archive is refused
// late: the root must then be left exactly as it was found, with what it
// held before untouched, and no goroutine left behind.

// seedRoot fills the folder dir with content the extraction must never
// touch: files, a folder tree and a symbolic link, none of them named as
// an entry of the archives below.
func seedRoot(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{
		"keep.txt":          "kept\n",
		"keep-dir/inner.md": "inner\n",
		"zz/deep/x":         "deep\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink("keep.txt", filepath.Join(dir, "keep-link")); err != nil {
			t.Fatal(err)
		}
	}
}

// listing describes every file, folder and link under dir: its kind,
// mode and content or target.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[filepath.ToSlash(rel)] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkSameListing fails when the root's listing changed.
func checkSameListing(t *testing.T, before, after map[string]string) {
	t.Helper()
	for name, desc := range after {
		if b, ok := before[name]; !ok {
			t.Errorf("%s: left behind (%s)", name, desc)
		} else if b != desc {
			t.Errorf("%s: was %s, now %s", name, b, desc)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("%s: removed, but the extraction did not create it", name)
		}
	}
}

// early is SKILL.md, 60 files and more written before a late violation, with
// names the violations below collide with: a file whose name holds a
// ligature and one with the Kelvin sign (NFKC twins of "file" and
// "key"), an executable, and a folder whose entry comes after its files.
func early(more ...tarEntry) []tarEntry {
	entries := []tarEntry{
		tReg("docs/\ufb01le.md", "ligature\n"),
		tReg("docs/\u212aey.md", "kelvin\n"),
		tExec("bin/run", "#!/bin/sh\n"),
		tReg("big.bin", strings.Repeat("b", 300<<10)), // streamed, not buffered
		tDir("docs/"),
	}
	return append(manyEntries(60, entries...), more...)
}

// earlyCount is how many entries early() counts against the limit: its
// entries and the folders part-0 to part-6 and bin, which no entry lists.
var earlyCount = len(early()) + 8

// TestOnePassLateRefusalRestoresRoot refuses archives whose violation
// comes after dozens of files were written, into a root that already
// holds files, folders and a link: the root's listing afterwards is the
// one before, byte for byte and mode for mode, and no goroutine is left.
func TestOnePassLateRefusalRestoresRoot(t *testing.T) {
	lowTotal := func(o *Options) { o.MaxTotalSize = 1 << 20 }
	cases := []struct {
		name    string
		entries []tarEntry
		raw     func(tarball []byte) []byte // edits the tar stream
		rawGz   func(gz []byte) []byte      // edits the tar.gz (tar.gz only)
		opts    func(*Options)
		want    error
	}{
		{name: "bad name", entries: early(tReg("a/../../evil", "x")), want: ErrUnsafe},
		{name: "absolute name", entries: early(tReg("/abs", "x")), want: ErrUnsafe},
		{name: "duplicate of a written file", entries: early(tReg("part-3/f-0003.md", "again")), want: ErrUnsafe},
		{name: "duplicate of the streamed file", entries: early(tReg("big.bin", "again")), want: ErrUnsafe},
		{name: "case twin of a written file", entries: early(tReg("PART-3/F-0003.MD", "again")), want: ErrUnsafe},
		{name: "NFKC twin (ligature)", entries: early(tReg("docs/file.md", "again")), want: ErrUnsafe},
		{name: "NFKC twin (Kelvin sign)", entries: early(tReg("docs/key.md", "again")), want: ErrUnsafe},
		{name: "file where a folder was made", entries: early(tReg("part-3", "x")), want: ErrUnsafe},
		{name: "folder where a file was written", entries: early(tReg("part-3/f-0003.md/inner", "x")), want: ErrUnsafe},
		{name: "folder entry where a file was written", entries: early(tDir("bin/run/")), want: ErrUnsafe},
		{name: "file where a folder entry was", entries: early(tReg("docs", "x")), want: ErrUnsafe},
		{name: "character device", entries: early(tSpecial("dev", '3')), want: ErrUnsafe},
		{name: "fifo", entries: early(tSpecial("fifo", '6')), want: ErrUnsafe},
		{name: "symlink to a symlink", entries: early(tSymlink("l1", "SKILL.md"), tSymlink("l2", "l1")), want: ErrUnsafe},
		{name: "hard link to a hard link", entries: early(tLink("h1", "SKILL.md"), tLink("h2", "h1")), want: ErrUnsafe},
		{name: "symlink to a left-out file", entries: early(tReg(".git/config", "secret"), tSymlink("cfg", ".git/config")), want: ErrUnsafe},
		{name: "hard link to a left-out file", entries: early(tReg(".GIT/config", "secret"), tLink("cfg", ".GIT/config")), want: ErrUnsafe},
		{name: "symlink to a file later duplicated", entries: early(tSymlink("l", "later.md"), tReg("later.md", "1"), tReg("later.md", "2")), want: ErrUnsafe},
		{name: "hard link to a file later replaced by a folder", entries: early(tLink("h", "later"), tReg("later", "1"), tReg("later/x", "2")), want: ErrUnsafe},
		{name: "symlink to a later symlink", entries: early(tSymlink("l1", "l2"), tSymlink("l2", "SKILL.md")), want: ErrUnsafe},
		{name: "symlink to a folder", entries: early(tSymlink("d", "docs")), want: ErrUnsafe},
		{name: "symlink out", entries: early(tSymlink("docs/out", "../../keep.txt")), want: ErrUnsafe},
		{name: "symlink to the root's own file", entries: early(tSymlink("k", "keep.txt")), want: ErrUnsafe},
		{name: "hard link to the root's own file", entries: early(tLink("k", "keep.txt")), want: ErrUnsafe},
		{name: "link through a link", entries: early(tSymlink("alias", "docs"), tSymlink("via", "alias/\ufb01le.md")), want: ErrUnsafe},
		{name: "file over its limit, last", entries: early(tReg("last", strings.Repeat("x", 400<<10))), opts: func(o *Options) { o.MaxFileSize = 350 << 10 }, want: ErrLimit},
		{name: "total over its limit, last", entries: early(tReg("last", strings.Repeat("x", 900<<10))), opts: lowTotal, want: ErrLimit},
		{name: "total over its limit by link copies", entries: early(tLink("c1", "big.bin"), tLink("c2", "big.bin"), tLink("c3", "big.bin")), opts: lowTotal, want: ErrLimit},
		{name: "entry count by implied folders", entries: early(tReg("i1/i2/i3/f", "x")), opts: func(o *Options) { o.MaxArchiveEntries = earlyCount + 1 }, want: ErrLimit},
		{name: "entry count, last entry", entries: early(tReg("last", "x")), opts: func(o *Options) { o.MaxArchiveEntries = earlyCount }, want: ErrLimit},
		{name: "no SKILL.md at the subpath", entries: early(), opts: func(o *Options) { o.Subpath = "part-3" }, want: ErrFormat},
		{name: "hard link out of the subpath", entries: early(tLink("part-3/h", "part-4/f-0004.md")), opts: func(o *Options) { o.Subpath = "part-3"; o.AnyTree = true }, want: ErrUnsafe},
		{name: "garbage after the end marker", entries: early(), raw: func(b []byte) []byte { return append(slices.Clip(b), pad512([]byte("junk"))...) }, want: ErrFormat},
		{name: "truncated end marker", entries: early(), raw: func(b []byte) []byte { return b[:len(b)-1024] }, want: ErrFormat},
		{name: "bad gzip trailer", entries: early(), rawGz: func(b []byte) []byte { b = slices.Clone(b); b[len(b)-8] ^= 0xff; return b }, want: ErrFormat},
		{name: "bad gzip length", entries: early(), rawGz: func(b []byte) []byte { b = slices.Clone(b); b[len(b)-1] ^= 0xff; return b }, want: ErrFormat},
		{name: "garbage after the gzip member", entries: early(), rawGz: func(b []byte) []byte { return append(slices.Clip(b), "garbage"...) }, want: ErrFormat},
		{name: "truncated gzip", entries: early(), rawGz: func(b []byte) []byte { return b[:len(b)-4] }, want: ErrFormat},
	}
	for _, c := range cases {
		for _, format := range []string{formatTar, formatTarGz} {
			if c.rawGz != nil && format == formatTar {
				continue
			}
			t.Run(c.name+"/"+format, func(t *testing.T) {
				data := tarBytes(t, c.entries...)
				if c.raw != nil {
					data = c.raw(data)
				}
				if format == formatTarGz {
					data = gz(t, data)
					if c.rawGz != nil {
						data = c.rawGz(data)
					}
				}
				opts := concurrentOptions()
				opts.Format = format
				if c.opts != nil {
					c.opts(&opts)
				}
				root, dir := openRoot(t)
				seedRoot(t, dir)
				before := listing(t, dir)
				goroutines := runtime.NumGoroutine()
				files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, opts)
				if !errors.Is(err, c.want) {
					t.Fatalf("Archive = %d files, %v, want %v", len(files), err, c.want)
				}
				checkSameListing(t, before, listing(t, dir))
				checkNoLeak(t, goroutines)
			})
		}
	}
}

// TestOnePassGoodArchiveBaseline extracts the archive the refusals above
// start from: it is good, so each refusal is caused by its late entry.
func TestOnePassGoodArchiveBaseline(t *testing.T) {
	data := tarBytes(t, early()...)
	// At the limits the refusals above use, it passes; one entry fewer
	// and it does not.
	tight := concurrentOptions()
	tight.MaxTotalSize, tight.MaxFileSize, tight.MaxArchiveEntries = 1<<20, 350<<10, earlyCount
	if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), nil, tight); err != nil {
		t.Fatalf("at the tight limits: %v", err)
	}
	tight.MaxArchiveEntries--
	if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), nil, tight); !errors.Is(err, ErrLimit) {
		t.Fatalf("one entry fewer: %v, want ErrLimit", err)
	}
	root, dir := openRoot(t)
	seedRoot(t, dir)
	files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(early())-1 { // all but the folder entry
		t.Errorf("%d files, want %d", len(files), len(early())-1)
	}
	// The folder entry after the files inside it changes nothing of the
	// folder: it stays 0755 whatever the entry says.
	info, err := os.Stat(filepath.Join(dir, "docs"))
	if err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o755) {
		t.Errorf("docs: %v, %v, want a folder 0755", info, err)
	}
}

// TestOnePassFolderEntryModesIgnored lists a folder after the files in it
// with modes that would lock it or make it setuid: the folder is 0755.
func TestOnePassFolderEntryModesIgnored(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("folder modes are not Unix modes on Windows")
	}
	for _, mode := range []int64{0, 0o700, 0o7777, 0o1777} {
		t.Run(fmt.Sprintf("%o", mode), func(t *testing.T) {
			dir := tDir("docs/")
			dir.Mode = mode
			data := tarBytes(t, tReg("SKILL.md", "# s\n"), tReg("docs/a.md", "a"), dir, tReg("docs/b.md", "b"))
			root, top := openRoot(t)
			if _, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, testOptions()); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(filepath.Join(top, "docs"))
			if err != nil || info.Mode() != fs.ModeDir|0o755 {
				t.Errorf("docs: %v, %v, want drwxr-xr-x", info.Mode(), err)
			}
		})
	}
}

// TestOnePassLinkCopies writes links to files written earlier and later,
// with executable bits that differ from the link's own mode: each copy
// has its target's bytes and executable bit, and no link is on disk.
func TestOnePassLinkCopies(t *testing.T) {
	data := tarBytes(t,
		tReg("SKILL.md", "# s\n"),
		tExec("bin/run", "#!/bin/sh\necho run\n"),
		tLink("bin/hard-to-earlier", "bin/run"), // link mode 0644, target 0755
		tSymlink("docs/soft-to-later", "../lib/plain.md"),
		tLink("hard-to-later", "lib/plain.md"),
		func() tarEntry { e := tLink("exec-link-to-plain", "lib/plain.md"); e.Mode = 0o755; return e }(),
		tReg("lib/plain.md", "plain\n"),
		tReg("big.bin", strings.Repeat("z", 300<<10)),
		tSymlink("big-copy", "big.bin"),
	)
	want := map[string]struct {
		body string
		exec bool
	}{
		"bin/hard-to-earlier": {"#!/bin/sh\necho run\n", true},
		"docs/soft-to-later":  {"plain\n", false},
		"hard-to-later":       {"plain\n", false},
		"exec-link-to-plain":  {"plain\n", false},
		"big-copy":            {strings.Repeat("z", 300<<10), false},
	}
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
			got := map[string]File{}
			for _, f := range files {
				got[f.Path] = f
			}
			for name, w := range want {
				f := got[name]
				if f.Sum != sha256.Sum256([]byte(w.body)) || f.Exec != w.exec {
					t.Errorf("%s: listed %+v, want %q exec %v", name, f, w.body, w.exec)
				}
				p := filepath.Join(dir, filepath.FromSlash(name))
				info, err := os.Lstat(p)
				b, rerr := os.ReadFile(p)
				if err != nil || rerr != nil || !info.Mode().IsRegular() || string(b) != w.body {
					t.Errorf("%s on disk: %v %v %v, want a regular file", name, info, err, rerr)
					continue
				}
				if runtime.GOOS != "windows" && (info.Mode()&0o111 != 0) != w.exec {
					t.Errorf("%s: mode %v, want exec %v", name, info.Mode(), w.exec)
				}
			}
		})
	}
}

// swapOnErr is a context that, the first time it is asked for its error
// once the file at path holds size bytes, replaces that file with a
// symbolic link to decoy.
type swapOnErr struct {
	context.Context
	t           *testing.T
	path, decoy string
	size        int64
	swapped     bool
}

func (c *swapOnErr) Err() error {
	if info, err := os.Lstat(c.path); !c.swapped && err == nil && info.Mode().IsRegular() && info.Size() == c.size {
		c.swapped = true
		if err := os.Remove(c.path); err != nil {
			c.t.Error(err)
		}
		if err := os.Symlink(c.decoy, c.path); err != nil {
			c.t.Error(err)
		}
	}
	return c.Context.Err()
}

// TestOnePassLinkCopyFollowsNoSymlink replaces a written file with a
// symbolic link to a file of the root that the extraction did not write,
// holding the same bytes, before the link to it is copied: the copy must
// not read through that symbolic link.
func TestOnePassLinkCopyFollowsNoSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	body := strings.Repeat("t", 300<<10) // written on the reading goroutine
	data := tarBytes(t, tReg("SKILL.md", "# s\n"), tReg("target.md", body), tLink("copy.md", "target.md"))
	root, dir := openRoot(t)
	if err := os.WriteFile(filepath.Join(dir, "decoy.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := &swapOnErr{Context: t.Context(), t: t, path: filepath.Join(dir, "target.md"), decoy: "decoy.md", size: int64(len(body))}
	files, err := Archive(ctx, bytes.NewReader(data), int64(len(data)), root, testOptions())
	if !ctx.swapped {
		t.Fatal("the file was never swapped")
	}
	if err == nil {
		t.Errorf("Archive = %d files, nil: it copied a link through a symbolic link it did not write", len(files))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "decoy.md")); string(b) != body {
		t.Error("decoy.md changed")
	}
}

// failAt is an archive whose reads fail with err from offset at on.
type failAt struct {
	r   io.ReaderAt
	at  int64
	err error
}

func (f *failAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.at {
		n := max(0, int(f.at-off))
		m, _ := f.r.ReadAt(p[:n], off)
		return m, f.err
	}
	return f.r.ReadAt(p, off)
}

// TestOnePassErrorPaths fails extractions at each stage, with errors of
// the source, of the destination and of the context: each returns its
// error, leaves no goroutine, never touches what the root held before,
// and removes what it wrote unless the error is the file system's.
func TestOnePassErrorPaths(t *testing.T) {
	entries := early(tLink("copy.md", "big.bin"))
	plain := tarBytes(t, entries...)
	packed := gz(t, plain)
	sourceErr := &fs.PathError{Op: "read", Path: "archive", Err: errors.New("disk gone")}
	cases := []struct {
		name   string
		source func(data []byte) io.ReaderAt
		seed   string // a file the root holds before, named as an entry
		want   error
		kept   bool // what was written stays (an error of the file system)
	}{
		{name: "source fails early", source: func(d []byte) io.ReaderAt {
			return &failAt{r: bytes.NewReader(d), at: int64(len(d)) / 10, err: sourceErr}
		}, want: sourceErr, kept: true},
		{name: "source fails at the end", source: func(d []byte) io.ReaderAt {
			return &failAt{r: bytes.NewReader(d), at: int64(len(d)) - 100, err: sourceErr}
		}, want: sourceErr, kept: true},
		{name: "destination holds a late file", seed: "part-3/f-0059.md", want: fs.ErrExist, kept: true},
		{name: "destination holds the streamed file", seed: "big.bin", want: fs.ErrExist, kept: true},
		{name: "destination holds a link's copy", seed: "copy.md", want: fs.ErrExist, kept: true},
		// The context cases are set up by name below.
		{name: "cancelled before", want: context.Canceled},
		{name: "cancelled while writing", want: context.Canceled},
		{name: "cancelled while copying links", want: context.Canceled},
	}
	for _, c := range cases {
		for _, format := range []string{formatTar, formatTarGz} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				data := plain
				if format == formatTarGz {
					data = packed
				}
				var src io.ReaderAt = bytes.NewReader(data)
				if c.source != nil {
					src = c.source(data)
				}
				root, dir := openRoot(t)
				seedRoot(t, dir)
				if c.seed != "" {
					p := filepath.Join(dir, filepath.FromSlash(c.seed))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte("the owner's"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before := listing(t, dir)
				inner, cancel := context.WithCancel(t.Context())
				defer cancel()
				var ctx context.Context = inner
				switch c.name {
				case "cancelled before":
					cancel()
				case "cancelled while writing":
					ctx = &cancelOnFile{Context: inner, cancel: cancel, path: filepath.Join(dir, "part-2/f-0030.md")}
				case "cancelled while copying links":
					ctx = &cancelOnFile{Context: inner, cancel: cancel, path: filepath.Join(dir, "copy.md")}
				}
				opts := concurrentOptions()
				opts.Format = format
				goroutines := runtime.NumGoroutine()
				_, err := Archive(ctx, src, int64(len(data)), root, opts)
				if !errors.Is(err, c.want) {
					t.Fatalf("err = %v, want %v", err, c.want)
				}
				checkNoLeak(t, goroutines)
				after := listing(t, dir)
				for name, desc := range before {
					if after[name] != desc {
						t.Errorf("%s: was %s, now %q", name, desc, after[name])
					}
				}
				if !c.kept {
					checkSameListing(t, before, after)
				}
			})
		}
	}
}

// budgetReader is an archive that fails the test when more than budget
// of its bytes are read.
type budgetReader struct {
	t      *testing.T
	r      io.ReaderAt
	budget int64
	read   readCounter
}

func (b *budgetReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := b.read.ReadAt(p, off)
	if got := b.read.n.Load(); got > b.budget {
		b.t.Errorf("read %d bytes of the archive, want at most %d", got, b.budget)
		return n, errors.New("over the read budget")
	}
	return n, err
}

// TestOnePassLimitsAsBytesArrive refuses archives over a limit that the
// first few megabytes show, followed by many more megabytes of
// incompressible data: the extraction reads little more of the archive
// than the limit (the read-ahead of the decompressor, a few MiB), never
// the rest.
func TestOnePassLimitsAsBytesArrive(t *testing.T) {
	noise := make([]byte, 16<<20)
	rand.Read(noise)
	const slack = 6 << 20 // the decompressor's read-ahead and buffers
	cases := []struct {
		name    string
		entries []tarEntry
		opts    func(*Options)
		budget  int64
		want    Limit
	}{
		{"total, one big file", []tarEntry{tReg("SKILL.md", "# s\n"), tReg("noise", string(noise))},
			func(o *Options) { o.MaxFileSize = 1 << 30; o.MaxTotalSize = 2 << 20 }, 2<<20 + slack, LimitTotalSize},
		{"total, many files", append([]tarEntry{tReg("SKILL.md", "# s\n")}, func() []tarEntry {
			var es []tarEntry
			for i := range 16 {
				es = append(es, tReg(fmt.Sprintf("n/%02d", i), string(noise[i<<20:(i+1)<<20])))
			}
			return es
		}()...), func(o *Options) { o.MaxTotalSize = 2 << 20 }, 2<<20 + slack, LimitTotalSize},
		{"file declared over, then more", []tarEntry{tReg("SKILL.md", "# s\n"), tReg("a", string(noise[:2<<20])), tReg("noise", string(noise[2<<20:]))},
			func(o *Options) { o.MaxFileSize = 3 << 20; o.MaxTotalSize = 1 << 30 }, 2<<20 + slack, LimitFileSize},
		{"entries, many empty files", append([]tarEntry{tReg("SKILL.md", "# s\n")}, func() []tarEntry {
			es := []tarEntry{}
			for i := range 20000 {
				es = append(es, tReg(fmt.Sprintf("e%05d", i), ""))
			}
			return es
		}()...), func(o *Options) { o.MaxArchiveEntries = 1000 }, 1000*512 + slack, LimitEntries},
	}
	for _, c := range cases {
		plain := tarBytes(t, c.entries...)
		for _, format := range []string{formatTar, formatTarGz} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				data := plain
				if format == formatTarGz {
					data = gz(t, plain)
				}
				opts := concurrentOptions()
				opts.Format = format
				c.opts(&opts)
				root, dir := openRoot(t)
				src := &budgetReader{t: t, r: bytes.NewReader(data), budget: c.budget}
				src.read.r = src.r
				goroutines := runtime.NumGoroutine()
				_, err := Archive(t.Context(), src, int64(len(data)), root, opts)
				var le *LimitError
				if !errors.As(err, &le) || le.Limit != c.want {
					t.Fatalf("err = %v, want the %s limit", err, c.want)
				}
				checkRootEmpty(t, dir)
				checkNoLeak(t, goroutines)
			})
		}
	}
}

// TestOnePassManyEntriesGzipBomb refuses a tar.gz of many files of zeros,
// each under the per-file limit, whose total passes the total limit: the
// decompressor stops at the limit.
func TestOnePassManyEntriesGzipBomb(t *testing.T) {
	zeros := string(make([]byte, 1<<20))
	entries := []tarEntry{tReg("SKILL.md", "# s\n")}
	for i := range 40 {
		entries = append(entries, tReg(fmt.Sprintf("z/%03d", i), zeros))
	}
	data := gz(t, tarBytes(t, entries...))
	opts := Options{MaxFileSize: 2 << 20, MaxTotalSize: 4 << 20, MaxArchiveEntries: 1000, Format: formatTarGz}
	src := &budgetReader{t: t, r: bytes.NewReader(data), budget: int64(len(data)) / 4}
	src.read.r = src.r
	root, dir := openRoot(t)
	goroutines := runtime.NumGoroutine()
	_, err := Archive(t.Context(), src, int64(len(data)), root, opts)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitTotalSize {
		t.Fatalf("err = %v, want the total size limit", err)
	}
	checkRootEmpty(t, dir)
	checkNoLeak(t, goroutines)
}

// fuzzRefusalRestores extracts data into a root that already holds
// content: when the archive is refused (a violated rule or limit), the
// root's listing is the one before.
func fuzzRefusalRestores(t *testing.T, data []byte, format string) {
	root, dir := openRoot(t)
	seedRoot(t, dir)
	before := listing(t, dir)
	_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, fuzzOptions(format))
	if refuses(err) {
		checkSameListing(t, before, listing(t, dir))
	}
}

// FuzzTarRefusalRestoresRoot fuzzes tar archives for a refusal that
// leaves behind what the one pass wrote.
func FuzzTarRefusalRestoresRoot(f *testing.F) {
	for _, seed := range fuzzTarSeeds(f) {
		f.Add(seed)
	}
	late := early(tReg("PART-1/F-0001.MD", "x"))
	f.Add(tarBytes(f, late[len(late)-10:]...))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRefusalRestores(t, data, formatTar) })
}

// FuzzTarGzRefusalRestoresRoot is FuzzTarRefusalRestoresRoot for tar.gz.
func FuzzTarGzRefusalRestoresRoot(f *testing.F) {
	for _, seed := range fuzzTarSeeds(f) {
		f.Add(gz(f, seed))
	}
	f.Add(append(gz(f, fuzzTarSeeds(f)[0]), "junk"...))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRefusalRestores(t, data, formatTarGz) })
}

// TestZipLateRefusalRestoresRoot refuses zip archives whose last entry
// fails only once its data is read (a checksum or size that does not
// match), after the others were written, into a root that already holds
// content: the root's listing is the one before, and no goroutine is
// left. A cancellation while the links are copied does the same.
func TestZipLateRefusalRestoresRoot(t *testing.T) {
	many := func(last zipEntry) []byte {
		entries := []zipEntry{zFile("SKILL.md", "# s\n")}
		for i := range 60 {
			entries = append(entries, zFile(fmt.Sprintf("part-%d/f-%04d.md", i%7, i), strings.Repeat("text ", 1000)))
		}
		entries = append(entries, zFile("big.bin", strings.Repeat("b", 300<<10)), zSymlink("link", "big.bin"))
		return zipBytes(t, append(entries, last)...)
	}
	cases := []struct {
		name   string
		data   []byte
		cancel string // cancel once this file exists
		want   error
	}{
		{"checksum", many(zRaw("last", "last bytes", func(h *zip.FileHeader) { h.CRC32 ^= 1 })), "", ErrFormat},
		{"checksum zero", many(zRaw("last", "last bytes", func(h *zip.FileHeader) { h.CRC32 = 0 })), "", ErrFormat},
		{"cancelled while copying links", many(zFile("last", "x")), "link", context.Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, dir := openRoot(t)
			seedRoot(t, dir)
			before := listing(t, dir)
			inner, cancel := context.WithCancel(t.Context())
			defer cancel()
			var ctx context.Context = inner
			if c.cancel != "" {
				ctx = &cancelOnFile{Context: inner, cancel: cancel, path: filepath.Join(dir, filepath.FromSlash(c.cancel))}
			}
			goroutines := runtime.NumGoroutine()
			_, err := Archive(ctx, bytes.NewReader(c.data), int64(len(c.data)), root, concurrentOptions())
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			checkSameListing(t, before, listing(t, dir))
			checkNoLeak(t, goroutines)
		})
	}
}

// hookOnErr is a context that runs do each time it is asked for its
// error, until do reports it is done.
type hookOnErr struct {
	context.Context
	do   func() bool
	done bool
}

func (c *hookOnErr) Err() error {
	if !c.done {
		c.done = c.do()
	}
	return c.Context.Err()
}

// TestDiscardFollowsNoLink replaces a folder the extraction made, once
// its last file is written, with a symbolic link to a folder of the root
// holding files of the same names; then the archive is refused: removing
// what was written must not follow that link, so the folder it leads to
// keeps its files.
func TestDiscardFollowsNoLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	big := strings.Repeat("b", 300<<10)
	for _, format := range []string{formatTar, formatTarGz} {
		t.Run(format, func(t *testing.T) {
			data := tarBytes(t, manyEntries(60, tReg("part-3/big.bin", big), tReg("a/../../evil", "x"))...)
			if format == formatTarGz {
				data = gz(t, data)
			}
			root, dir := openRoot(t)
			victim := filepath.Join(dir, "victim")
			if err := os.Mkdir(victim, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := 3; i < 60; i += 7 {
				if err := os.WriteFile(filepath.Join(victim, fmt.Sprintf("f-%04d.md", i)), []byte("victim"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := listing(t, victim)
			part := filepath.Join(dir, "part-3")
			ctx := &hookOnErr{Context: t.Context(), do: func() bool {
				// big.bin is written on the reading goroutine: once it
				// holds all its bytes, the next read of the archive is
				// the bad entry's header.
				if info, err := os.Stat(filepath.Join(part, "big.bin")); err != nil || info.Size() != int64(len(big)) {
					return false
				}
				if err := os.Rename(part, part+"-moved"); err != nil {
					t.Error(err)
				}
				if err := os.Symlink("victim", part); err != nil {
					t.Error(err)
				}
				return true
			}}
			_, err := Archive(ctx, bytes.NewReader(data), int64(len(data)), root, concurrentOptions())
			if !ctx.done {
				t.Fatal("the folder was never replaced")
			}
			if !errors.Is(err, ErrUnsafe) {
				t.Fatalf("err = %v, want ErrUnsafe", err)
			}
			checkSameListing(t, before, listing(t, victim))
		})
	}
}

// TestLinkCopyOfChangedFileIsNoContentError rewrites a written file in
// place, same size, before the link to it is copied: the copy's bytes
// differ from what was written, which is the file system's matter (the
// root changed under the extraction), not the archive's, so the error
// wraps no sentinel of the content (doc.go's error contract).
func TestLinkCopyOfChangedFileIsNoContentError(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a read-only file cannot be rewritten in place on Windows")
	}
	body := strings.Repeat("t", 300<<10) // written on the reading goroutine
	data := tarBytes(t, tReg("SKILL.md", "# s\n"), tReg("target.md", body), tLink("copy.md", "target.md"))
	root, dir := openRoot(t)
	target := filepath.Join(dir, "target.md")
	ctx := &hookOnErr{Context: t.Context(), do: func() bool {
		if info, err := os.Stat(target); err != nil || info.Size() != int64(len(body)) {
			return false
		}
		if err := os.Chmod(target, 0o644); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(target, []byte(strings.Repeat("u", len(body))), 0o644); err != nil {
			t.Error(err)
		}
		return true
	}}
	_, err := Archive(ctx, bytes.NewReader(data), int64(len(data)), root, testOptions())
	if !ctx.done {
		t.Fatal("the file was never rewritten")
	}
	if err == nil || refuses(err) {
		t.Errorf("err = %v, want an error of the file system, wrapping no sentinel", err)
	}
}
