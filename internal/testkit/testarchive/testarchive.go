// Package testarchive builds deterministic, text-like skill archives for
// benchmarks and tests.
package testarchive

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

var words = []string{
	"skill", "agent", "review", "the", "a", "of", "and", "to", "in", "is",
	"workflow", "file", "run", "test", "when", "use", "this", "with", "for",
	"change", "code", "step", "check", "build", "deploy", "read", "write",
	"folder", "archive", "cache", "each", "before", "after", "must", "should",
	"error", "return", "value", "function", "package", "import", "example",
}

// Text returns n bytes of deterministic English-like text for seed.
func Text(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b bytes.Buffer
	b.Grow(n + 16)
	col := 0
	for b.Len() < n {
		w := words[r.IntN(len(words))]
		b.WriteString(w)
		col += len(w) + 1
		if col > 72 {
			b.WriteByte('\n')
			col = 0
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// TarGz writes a gzip-compressed tar skill of files files totalling about
// size bytes, spread over 20 folders, with a SKILL.md at its root and one
// executable script.
func TarGz(w io.Writer, files int, size int64) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	add := func(name string, mode int64, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	if err := add("SKILL.md", 0o644, []byte("---\nname: bench\ndescription: a large benchmark skill\n---\n# Bench\n")); err != nil {
		return err
	}
	if err := add("scripts/run.sh", 0o755, []byte("#!/bin/sh\necho run\n")); err != nil {
		return err
	}
	per := int(size / int64(files))
	for i := range files - 2 {
		name := fmt.Sprintf("references/part-%02d/doc-%04d.md", i%20, i)
		if err := add(name, 0o644, Text(uint64(i), per)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// TarGzFiles returns a tar.gz holding files (path: content), in the order
// of their paths: a path ending in "/" is a folder (0755), any other a
// regular file (0644).
func TarGzFiles(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}
		if strings.HasSuffix(name, "/") {
			hdr.Typeflag, hdr.Size, hdr.Mode = tar.TypeDir, 0, 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
