package skillcache_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
)

// gzipped returns data compressed by gzip.
func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// plainTar runs PlainTar over data and returns the tar it wrote, or nil
// when it gave none; it fails when a call leaves a temporary file.
func plainTar(t *testing.T, ctx context.Context, c *skill.Cache, data []byte) []byte {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	a, n, release := skillcache.PlainTar(ctx, c, bytes.NewReader(data), int64(len(data)))
	var out []byte
	if a != nil {
		out = make([]byte, n)
		if _, err := a.ReadAt(out, 0); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		release()
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("PlainTar left %d temporary files", len(left))
	}
	return out
}

// TestPlainTar checks that PlainTar gives the tar a tar.gz decompresses
// to, and nothing for an archive it must leave to the extractor: not a
// tar.gz, a gzip stream cut short, with a wrong checksum or followed by
// other bytes, one that does not hold a tar, one over the cache's limits
// or MaxPlainTar, and a cancelled decompression.
func TestPlainTar(t *testing.T) {
	tarData := tarBytes(t, false, entry{name: "skills/a/SKILL.md", body: md}, entry{name: "README.md", body: strings.Repeat("x", 4096)})
	gz := gzipped(t, tarData)
	if got := plainTar(t, t.Context(), newCache(t), gz); !bytes.Equal(got, tarData) {
		t.Fatalf("PlainTar of a tar.gz gave %d bytes, want the %d of its tar", len(got), len(tarData))
	}
	badSum := slices.Clone(gz)
	badSum[len(badSum)-8] ^= 0xff // the CRC-32 of the trailer
	// A tar over MaxPlainTar: the tar, then gzip members of zeros (a gzip
	// stream may be several, one after another), compressed once.
	over := slices.Clone(gz)
	member := gzipped(t, make([]byte, 1<<20))
	for range skillcache.MaxPlainTar>>20 + 1 {
		over = append(over, member...)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		data []byte
		c    *skill.Cache
		ctx  context.Context
	}{
		{"a tar", tarData, newCache(t), t.Context()},
		{"a tar.gz cut short", gz[:len(gz)-4], newCache(t), t.Context()},
		{"a wrong checksum", badSum, newCache(t), t.Context()},
		{"bytes after the gzip stream", append(slices.Clone(gz), "trailing"...), newCache(t), t.Context()},
		{"no tar inside", gzipped(t, []byte(strings.Repeat("not a tar\n", 100))), newCache(t), t.Context()},
		{"over the archive size limit", gz, newCache(t, skill.WithMaxArchiveSize(int64(len(gz))-1)), t.Context()},
		{"a tar over the archive size limit", gz, newCache(t, skill.WithMaxArchiveSize(int64(len(tarData))-1)), t.Context()},
		{"a tar over the total size limit", gz, newCache(t, skill.WithMaxTotalSize(int64(len(tarData))-1)), t.Context()},
		{"a tar over MaxPlainTar", over, newCache(t), t.Context()},
		{"a cancelled decompression", gz, newCache(t), cancelled},
	} {
		if got := plainTar(t, tc.ctx, tc.c, tc.data); got != nil {
			t.Errorf("PlainTar(%s) gave a tar of %d bytes, want none", tc.name, len(got))
		}
	}
}

// TestPlainTarExtractsAlike checks the shortcut Repository.Extract's
// callers take for a tar.gz against the way they took before: the tar
// PlainTar gives is extracted as the tar.gz is, to the same files, and
// refused with the same error when the tar.gz is (a link out of the
// repository, dropped, a name out of it, a file or an archive over a
// limit, a tar cut short inside a whole gzip stream); listed, it writes
// only what the skills need (and the end of a chain of links one of them
// starts, a file entry named with a trailing slash as the extractor takes
// it), and finds the skills the whole extraction finds.
func TestPlainTarExtractsAlike(t *testing.T) {
	cut := tarBytes(t, false, entry{name: "skills/a/SKILL.md", body: md}, entry{name: "skills/a/b.md", body: "b"})
	cut = cut[:len(cut)-1024] // no end marker
	good := []entry{
		{name: "README.md", body: "# skills\n"},
		{name: "docs/guide.md", body: "a guide\n"},
		{name: "skills/a/SKILL.md", body: md},
		{name: "skills/a/run.sh", body: "#!/bin/sh\n", mode: 0o755},
		{name: "skills/a/notes.md", link: "../../README.md"},
	}
	for _, tc := range []struct {
		name string
		gz   []byte
		opts []skill.DefaultMaterializerOption
		want []string // with also: the files written
	}{
		{"a repository", tarBytes(t, true, good...), nil, []string{"README.md", "skills/a/SKILL.md", "skills/a/notes.md", "skills/a/run.sh"}},
		{"a link out of the repository", tarBytes(t, true, entry{name: "skills/a/SKILL.md", body: md}, entry{name: "skills/a/x", link: "../../../etc/passwd"}), nil, []string{"skills/a/SKILL.md"}},
		{"a name out of the repository", tarBytes(t, true, entry{name: "skills/a/SKILL.md", body: md}, entry{name: "../x", body: "x"}), nil, nil},
		{"a file over the file size limit", tarBytes(t, true, good...), []skill.DefaultMaterializerOption{skill.WithMaxFileSize(8)}, nil},
		{"entries over the entry limit", tarBytes(t, true, good...), []skill.DefaultMaterializerOption{skill.WithMaxArchiveEntries(3)}, nil},
		{"a tar cut short", gzipped(t, cut), nil, nil},
		{"a link to a link", tarBytes(t, true,
			entry{name: "docs/AGENTS.md", body: "# rules\n"},
			entry{name: "docs/CLAUDE.md", link: "AGENTS.md"},
			entry{name: "docs/guide.md", body: "a guide\n"},
			entry{name: "skills/a/SKILL.md", body: md},
			entry{name: "skills/a/AGENTS.md", link: "../../docs/CLAUDE.md"},
			entry{name: "skills/b/SKILL.md", body: md},
		), nil, []string{"docs/AGENTS.md", "docs/CLAUDE.md", "skills/a/SKILL.md", "skills/b/SKILL.md"}},
		{"a file named with a trailing slash", gzipped(t, slashed(t, tarBytes(t, false,
			entry{name: "docs/guide.md", body: "a guide\n"},
			entry{name: "skills/a/SKILL.md", body: md},
			entry{name: "skills/a/run.md", body: "run\n"},
			entry{name: "skills/b/SKILL.md", body: md},
		), "skills/a/SKILL.md")), nil, []string{"skills/a/SKILL.md", "skills/a/run.md", "skills/b/SKILL.md"}},
	} {
		c := newCache(t, tc.opts...)
		extract := func(a io.ReaderAt, size int64, also func(string) bool) ([]string, string) {
			r, err := skillcache.StageRepository(c)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, _, err = r.Extract(t.Context(), a, size, nil, also)
			if err != nil {
				return nil, strings.ReplaceAll(err.Error(), r.Dir(), "DIR")
			}
			return files(t, r.Dir()), ""
		}
		a, n, release := skillcache.PlainTar(t.Context(), c, bytes.NewReader(tc.gz), int64(len(tc.gz)))
		if a == nil {
			t.Errorf("%s: PlainTar gave no tar", tc.name)
			continue
		}
		wantFiles, wantErr := extract(bytes.NewReader(tc.gz), int64(len(tc.gz)), nil)
		gotFiles, gotErr := extract(a, n, nil)
		if gotErr != wantErr || !slices.Equal(gotFiles, wantFiles) {
			t.Errorf("%s: extracted from PlainTar's tar: %q, %q; from the tar.gz: %q, %q", tc.name, gotFiles, gotErr, wantFiles, wantErr)
		}
		listed, listedErr := extract(a, n, func(string) bool { return false })
		if listedErr != wantErr || !slices.Equal(listed, tc.want) {
			t.Errorf("%s: listed and extracted from PlainTar's tar: %q, %q; want %q, %q", tc.name, listed, listedErr, tc.want, wantErr)
		}
		if got, want := skillFiles(listed), skillFiles(wantFiles); !slices.Equal(got, want) {
			t.Errorf("%s: listed, the skills are %q; extracted whole, %q", tc.name, got, want)
		}
		release()
	}
}

// skillFiles returns the SKILL.md files of files.
func skillFiles(files []string) []string {
	var out []string
	for _, f := range files {
		if path.Base(f) == "SKILL.md" {
			out = append(out, f)
		}
	}
	return out
}

// slashed returns the tar data with a "/" after the name of its file
// entry name, a regular file still (the tar package writes no such
// header itself), and the header's checksum made right again.
func slashed(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	data = slices.Clone(data)
	for off := 0; off+512 <= len(data); off += 512 {
		h := data[off : off+512]
		if string(h[:len(name)+1]) != name+"\x00" {
			continue
		}
		h[len(name)] = '/'
		copy(h[148:156], "        ")
		sum := 0
		for _, c := range h {
			sum += int(c)
		}
		copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
		return data
	}
	t.Fatalf("no header names %q", name)
	return nil
}
