package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzOptions are small limits, so a fuzzed bomb costs little.
func fuzzOptions(format string) Options {
	return Options{Format: format, MaxFileSize: 64 << 10, MaxTotalSize: 1 << 20, MaxArchiveEntries: 64}
}

// fuzzArchive extracts data into a fresh root and checks what must hold
// for any input: no panic, an error that wraps exactly one sentinel, safe
// returned paths that are on disk, and nothing beside the root.
func fuzzArchive(t *testing.T, data []byte, format string) {
	parent := t.TempDir()
	dst := filepath.Join(parent, "dst")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	files, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), root, fuzzOptions(format))
	if err != nil {
		n := 0
		for _, s := range sentinels {
			if errors.Is(err, s) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Archive(%q) = %v, which wraps %d sentinels, want exactly 1", short(string(data)), err, n)
		}
		if files != nil {
			t.Errorf("Archive(%q) = %d files and error %v, want no files", short(string(data)), len(files), err)
		}
	}
	seen := make(map[string]bool)
	for _, f := range files {
		if err := CheckPath(f.Path); err != nil {
			t.Errorf("Archive(%q) returned path %q: %v", short(string(data)), f.Path, err)
			continue
		}
		if seen[f.Path] {
			t.Errorf("Archive(%q) returned %q twice", short(string(data)), f.Path)
		}
		seen[f.Path] = true
		info, err := root.Lstat(filepath.FromSlash(f.Path))
		if err != nil || !info.Mode().IsRegular() || info.Size() != f.Size {
			t.Errorf("Archive(%q) returned %q (%d bytes); on disk: %v, %v", short(string(data)), f.Path, f.Size, info, err)
		}
	}
	if err == nil && !seen["SKILL.md"] {
		t.Errorf("Archive(%q) succeeded without SKILL.md", short(string(data)))
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "dst" {
			t.Errorf("Archive(%q) left %q beside the destination", short(string(data)), e.Name())
		}
	}
}

// fuzzTarSeeds are tar streams, valid and hostile, built in code.
func fuzzTarSeeds(t testing.TB) [][]byte {
	skill := tReg("SKILL.md", skillMD)
	return [][]byte{
		tarBytes(t, tDir("./"), skill, tExec("scripts/run.sh", "#!/bin/sh\n"), tSymlink("l", "SKILL.md"), tLink("h", "scripts/run.sh")),
		tarBytes(t, skill, tReg("../evil", "x")),
		tarBytes(t, skill, tSymlink("l", "/etc"), tReg("l/passwd", "x")),
		tarBytes(t, skill, tReg("README.md", "a"), tReg("readme.md", "b")),
		tarBytes(t, skill, tSpecial("null", '3')),
		rawTar(rawFile("SKILL.md", skillMD), paxHeader('x', "path", "../../x"), rawFile("benign.txt", "x")),
		rawTar(rawFile("SKILL.md", skillMD), gnuLong('L', "a/b/c"), rawFile("benign.txt", "x")),
		rawTar(paxHeader('g', "path", "x"), rawFile("SKILL.md", skillMD), sparseHeader("s", 1<<20)),
		rawTar(rawFile("SKILL.md", skillMD), append(rawHeader("d/", '5', 5, ""), pad512([]byte("hello"))...)),
		// Deep names under folders of their own: the folders they imply
		// count against the entry limit.
		rawTar(append([][]byte{rawFile("SKILL.md", skillMD)}, rawFiles(deepNames(3, MaxDepth))...)...),
		// Long, deep names outside ASCII, sharing their folders.
		tarBytes(t, skill, tReg(longDeepNames(3, true)[0], ""), tReg(longDeepNames(3, true)[1], ""), tReg(longDeepNames(3, true)[2], "")),
	}
}

// rawFiles returns an empty file's raw tar entry for each name.
func rawFiles(names []string) [][]byte {
	var out [][]byte
	for _, n := range names {
		out = append(out, rawFile(n, ""))
	}
	return out
}

func FuzzTar(f *testing.F) {
	for _, seed := range fuzzTarSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzArchive(t, data, formatTar) })
}

func FuzzTarGz(f *testing.F) {
	for _, seed := range fuzzTarSeeds(f) {
		f.Add(gz(f, seed))
	}
	tarData := fuzzTarSeeds(f)[0]
	f.Add(gzMembers(f, tarData, 2))
	f.Add(append(gz(f, tarData), "junk"...))
	f.Add(gz(f, append(tarData, make([]byte, 4096)...)))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzArchive(t, data, formatTarGz) })
}

// fuzzZipSeeds are zip archives, valid and hostile, built in code.
func fuzzZipSeeds(t testing.TB) [][]byte {
	skill := zFile("SKILL.md", skillMD)
	stored := zipBytes(t, skill, zRaw("a.txt", "aaaa", nil), zRaw("b.txt", "bee", nil))
	return [][]byte{
		zipBytes(t, zDir("./"), skill, zMode("scripts/run.sh", "#!/bin/sh\n", 0o755), zSymlink("l", "SKILL.md")),
		zipBytes(t, skill, zFile("../../tmp/evil.txt", "x")),
		zipBytes(t, skill, zSymlink("l", "../../victim")),
		zipBytes(t, skill, zRaw("e.txt", "xxxx", func(h *zip.FileHeader) { h.Flags |= 1 })),
		zipBytes(t, skill, zRaw("c.txt", "xxxx", func(h *zip.FileHeader) { h.CRC32 = 0 })),
		stored,
		zipDupRecord(t, stored, "b.txt", 2),
		zip64End(t, stored, 3),
		append([]byte("PK\x03\x04 prefix "), stored...),
		zipBytes(t, skill, zRaw(deepNames(3, MaxDepth)[0], "", nil), zRaw(deepNames(3, MaxDepth)[1], "", nil), zRaw(deepNames(3, MaxDepth)[2], "", nil)),
		// More records than the limit, and an end record that hides them.
		zipOfEmpty(65, ""),
		patch(zipOfEmpty(65, ""), func(b []byte) { le.PutUint16(b[len(b)-12:], 1) }),
		zipOfEmpty(65, "xxPK\x05\x06"),
	}
}

func FuzzZip(f *testing.F) {
	for _, seed := range fuzzZipSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzArchive(t, data, formatZip) })
}

func FuzzSniff(f *testing.F) {
	for _, seed := range fuzzZipSeeds(f)[:2] {
		f.Add(seed)
	}
	for _, seed := range fuzzTarSeeds(f)[:2] {
		f.Add(seed)
		f.Add(gz(f, seed))
	}
	f.Add([]byte{})
	f.Add([]byte("PK\x05\x06"))
	f.Add([]byte("\x1f"))
	f.Add([]byte(strings.Repeat("\x00", 257) + "ustar"))
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Sniff(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Errorf("Sniff(%q) = %v, want %v", short(string(data)), err, ErrFormat)
			}
			if format != "" {
				t.Errorf("Sniff(%q) = %q and an error, want no format", short(string(data)), format)
			}
			return
		}
		switch format {
		case formatZip, formatTar, formatTarGz:
		default:
			t.Errorf("Sniff(%q) = %q, want zip, tar or tar.gz", short(string(data)), format)
		}
	})
}
