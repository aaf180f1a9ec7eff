package extract

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

// The cases below follow the checklist in archive-safety.md, row by row. Every
// hostile archive is built in code. Each case asserts the sentinel, that the
// error names the offending entry where the checklist says "Reject", and that
// nothing changed beside the destination root.

const skillMD = "---\nname: kit\ndescription: a kit\n---\nbody\n"

// testOptions returns generous limits; cases about a limit lower it.
func testOptions() Options {
	return Options{MaxFileSize: 1 << 20, MaxTotalSize: 16 << 20, MaxArchiveEntries: 1000}
}

// ---------------------------------------------------------------------------
// The sandbox: a destination root with victims planted around it.

// sandbox is a destination root with victims beside it. Its folder sits
// three levels below the test's temporary folder, so an entry that climbs
// out of dst with a few ".." lands where check can still see it.
type sandbox struct {
	top    string // the test's temporary folder: nothing in it may change but dst
	dir    string // top/p/q/r: holds dst and the victims; "$TMP" in names
	dst    string
	root   *os.Root
	before map[string]string
	read   int64 // bytes the last extract read of its input
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "p", "q", "r")
	s := &sandbox{top: top, dir: dir, dst: filepath.Join(dir, "dst")}
	for _, d := range []string{s.dst, filepath.Join(dir, "victim"), filepath.Join(dir, "dest-evil")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victims := map[string]string{
		filepath.Join(dir, "victim", "secret.txt"): "original victim\n",
		filepath.Join(dir, "dest-evil", "secret"):  "classified\n",
		filepath.Join(dir, "victim.txt"):           "beside dst\n",
		filepath.Join(top, "victim.txt"):           "at the top\n",
	}
	for name, body := range victims {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(s.dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	s.root = root
	s.before = snapshot(t, top, s.dst)
	return s
}

// snapshot describes every file, folder and link under top except what is
// inside skip: type, permissions and, for files, size, content and mtime.
func snapshot(t *testing.T, top, skip string) map[string]string {
	t.Helper()
	m := make(map[string]string)
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, p)
		desc := info.Mode().String()
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %d %x %d", info.Size(), sha256.Sum256(b), info.ModTime().UnixNano())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		}
		m[rel] = desc
		if p == skip {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// expand replaces "$TMP" with the absolute folder that holds dst.
func (s *sandbox) expand(v string) string { return strings.ReplaceAll(v, "$TMP", s.dir) }

// extract runs Archive on data into the sandbox's root and reports, with
// its result, how many bytes Archive read from data.
func (s *sandbox) extract(t *testing.T, data []byte, opts Options) ([]File, error) {
	t.Helper()
	r := &readCounter{r: bytes.NewReader(data)}
	files, err := Archive(t.Context(), r, int64(len(data)), s.root, opts)
	s.read = r.n.Load()
	return files, err
}

// readCounter is an io.ReaderAt that counts the bytes read through it: the
// work an extraction does on its input, which a loaded machine cannot
// change as it changes the time taken.
type readCounter struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// countingFS is an fs.FS that counts the bytes read from its files.
type countingFS struct {
	fsys fs.FS
	n    atomic.Int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, n: &c.n}, nil
}

func (c *countingFS) ReadLink(name string) (string, error) { return fs.ReadLink(c.fsys, name) }

func (c *countingFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(c.fsys, name) }

// countingFile is a file of a countingFS.
type countingFile struct {
	fs.File
	n *atomic.Int64
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.n.Add(int64(n))
	return n, err
}

func (f *countingFile) ReadDir(n int) ([]fs.DirEntry, error) {
	d, ok := f.File.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Err: errors.ErrUnsupported}
	}
	return d.ReadDir(n)
}

// readBudget is the most an extraction may read of an input of size
// bytes: a bounded number of passes over it, whatever it declares.
func readBudget(size int64) int64 { return 3*size + 64<<10 }

// written lists what is under dst, folders with a trailing slash.
func (s *sandbox) written(t *testing.T) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(s.dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == s.dst {
			return nil
		}
		rel, _ := filepath.Rel(s.dst, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// checkUntouched fails the test if anything outside dst changed, appeared or
// disappeared.
func (s *sandbox) checkUntouched(t *testing.T) {
	t.Helper()
	after := snapshot(t, s.top, s.dst)
	for p, want := range s.before {
		got, ok := after[p]
		switch {
		case !ok:
			t.Errorf("outside dst, %s was removed", p)
		case got != want:
			t.Errorf("outside dst, %s = %s, want %s", p, got, want)
		}
	}
	for p, got := range after {
		if _, ok := s.before[p]; !ok {
			t.Errorf("outside dst, %s appeared: %s", p, got)
		}
	}
}

// checkEmpty fails the test if a failed extraction wrote anything under dst.
func (s *sandbox) checkEmpty(t *testing.T, name string, err error) {
	t.Helper()
	if err == nil {
		return // an extraction that wrongly succeeded is reported by checkErr
	}
	if got := s.written(t); len(got) != 0 {
		t.Errorf("Archive(%q) wrote %q before failing, want nothing written", name, got)
	}
}

var sentinels = []error{ErrFormat, ErrUnsafe, ErrLimit}

// checkErr fails the test unless err wraps want and no other sentinel.
func checkErr(t *testing.T, call, name string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s(%q) = %v, want %v", call, name, err, want)
		return
	}
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%s(%q) = %v, which wraps %d sentinels, want exactly 1", call, name, err, n)
	}
}

// checkNamed fails the test unless err's message names entry: quoted, or,
// for a very long name, by its first bytes.
func checkNamed(t *testing.T, call, name string, err error, entry string) {
	t.Helper()
	if err == nil || entry == "" {
		return
	}
	want := fmt.Sprintf("%q", entry)
	if len(entry) > 80 {
		want = entry[:40]
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s(%q) = %v, want an error naming %s", call, name, err, want)
	}
}

// checkRefused fails the test unless err, what call returned for the case
// name, wraps want and no other sentinel, names entry (see checkNamed),
// and the failed call wrote nothing under dst.
func (s *sandbox) checkRefused(t *testing.T, call, name string, err, want error, entry string) {
	t.Helper()
	checkErr(t, call, name, err, want)
	checkNamed(t, call, name, err, entry)
	s.checkEmpty(t, name, err)
}

// ---------------------------------------------------------------------------
// Tar builders.

// tarEntry is a tar header and the body written after it.
type tarEntry struct {
	tar.Header
	body string
}

func tReg(name, body string) tarEntry {
	return tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(body))}, body}
}

func tExec(name, body string) tarEntry {
	e := tReg(name, body)
	e.Mode = 0o755
	return e
}

func tDir(name string) tarEntry {
	return tarEntry{Header: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755}}
}

func tSymlink(name, target string) tarEntry {
	return tarEntry{Header: tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777}}
}

func tLink(name, target string) tarEntry {
	return tarEntry{Header: tar.Header{Typeflag: tar.TypeLink, Name: name, Linkname: target, Mode: 0o644}}
}

func tSpecial(name string, typ byte) tarEntry {
	return tarEntry{Header: tar.Header{Typeflag: typ, Name: name, Mode: 0o644, Devmajor: 1, Devminor: 3}}
}

// tarBytes writes entries with archive/tar.
func tarBytes(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.Header
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("WriteHeader(%q) = %v", h.Name, err)
		}
		if _, err := io.WriteString(tw, e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz compresses b into one gzip member. BestSpeed keeps the race-enabled
// tests fast; even so a megabyte of zeros shrinks about 200-fold.
func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	return compress(t, b, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, gzip.BestSpeed) })
}

// compress returns b written through the compressor that newWriter makes.
func compress(t testing.TB, b []byte, newWriter func(io.Writer) (io.WriteCloser, error)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := newWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawHeader returns a ustar header block with a valid checksum and the
// fields written exactly as given, so a test can put in it what archive/tar
// refuses to write (a NUL inside the name, an unknown type).
func rawHeader(name string, typ byte, size int64, linkname string) []byte {
	b := make([]byte, 512)
	copy(b[0:100], name)
	copy(b[100:108], "0000644\x00")
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	copy(b[124:136], fmt.Sprintf("%011o\x00", size))
	copy(b[136:148], "00000000000\x00")
	b[156] = typ
	copy(b[157:257], linkname)
	copy(b[257:265], "ustar\x0000")
	setChecksum(b)
	return b
}

// gnuHeader is rawHeader with the GNU magic.
func gnuHeader(name string, typ byte, size int64, linkname string) []byte {
	b := rawHeader(name, typ, size, linkname)
	copy(b[257:265], "ustar  \x00")
	setChecksum(b)
	return b
}

func setChecksum(b []byte) {
	copy(b[148:156], "        ")
	sum := 0
	for _, c := range b[:512] {
		sum += int(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// pad512 pads b with zeros to a whole number of blocks.
func pad512(b []byte) []byte {
	if r := len(b) % 512; r != 0 {
		b = append(b, make([]byte, 512-r)...)
	}
	return b
}

// rawFile is a ustar header and its padded body.
func rawFile(name, body string) []byte {
	return append(rawHeader(name, tar.TypeReg, int64(len(body)), ""), pad512([]byte(body))...)
}

// paxRecord formats one PAX record as archive/tar does.
func paxRecord(k, v string) string {
	size := len(k) + len(v) + 3
	size += len(strconv.Itoa(size))
	rec := strconv.Itoa(size) + " " + k + "=" + v + "\n"
	if len(rec) != size {
		rec = strconv.Itoa(len(rec)) + " " + k + "=" + v + "\n"
	}
	return rec
}

// paxHeader is a hand-written PAX extended header ('x', or 'g' for a
// global one) holding kv, pairs of keys and values.
func paxHeader(typ byte, kv ...string) []byte {
	var data string
	for i := 0; i < len(kv); i += 2 {
		data += paxRecord(kv[i], kv[i+1])
	}
	return append(rawHeader("PaxHeaders.0/x", typ, int64(len(data)), ""), pad512([]byte(data))...)
}

// gnuLong is a GNU long name ('L') or long link ('K') header.
func gnuLong(typ byte, name string) []byte {
	data := name + "\x00"
	return append(gnuHeader("././@LongLink", typ, int64(len(data)), ""), pad512([]byte(data))...)
}

// rawTar joins blocks and adds the end marker.
func rawTar(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, pad512(slices.Clone(p))...)
	}
	return append(b, make([]byte, 1024)...)
}

// rawHeaders returns n ustar headers with no data, named name(i), of type
// typ and linking to link, stamped from one template: archive/tar takes half
// a second for ten thousand headers under the race detector.
func rawHeaders(n int, typ byte, link string, name func(i int) string) [][]byte {
	tmpl := rawHeader("", typ, 0, link)
	copy(tmpl[148:156], "        ")
	base := 0
	for _, c := range tmpl {
		base += int(c)
	}
	all := make([]byte, 512*n)
	out := make([][]byte, n)
	for i := range n {
		h := all[512*i : 512*(i+1)]
		copy(h, tmpl)
		nm := name(i)
		copy(h[:100], nm)
		sum := base
		for j := 0; j < len(nm); j++ {
			sum += int(nm[j])
		}
		copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
		out[i] = h
	}
	return out
}

// ---------------------------------------------------------------------------
// Zip builders.

// zipEntry is a zip header and its body. A raw entry is written with
// CreateRaw: the body is stored as given and the header's CRC-32, sizes,
// flags and method are written as they are, lies included.
type zipEntry struct {
	zip.FileHeader
	body string
	raw  bool
}

func zFile(name, body string) zipEntry {
	e := zipEntry{FileHeader: zip.FileHeader{Name: name, Method: zip.Deflate}, body: body}
	e.SetMode(0o644)
	return e
}

func zMode(name, body string, mode fs.FileMode) zipEntry {
	e := zFile(name, body)
	e.SetMode(mode)
	return e
}

func zDir(name string) zipEntry {
	e := zipEntry{FileHeader: zip.FileHeader{Name: name, Method: zip.Store}}
	e.SetMode(fs.ModeDir | 0o755)
	return e
}

func zSymlink(name, target string) zipEntry {
	e := zipEntry{FileHeader: zip.FileHeader{Name: name, Method: zip.Store}, body: target}
	e.SetMode(fs.ModeSymlink | 0o777)
	return e
}

// zRaw is a stored entry with a correct header, which edit may then falsify.
func zRaw(name, body string, edit func(*zip.FileHeader)) zipEntry {
	e := zipEntry{FileHeader: zip.FileHeader{
		Name:               name,
		Method:             zip.Store,
		CRC32:              crc32.ChecksumIEEE([]byte(body)),
		CompressedSize64:   uint64(len(body)),
		UncompressedSize64: uint64(len(body)),
	}, body: body, raw: true}
	e.SetMode(0o644)
	if edit != nil {
		edit(&e.FileHeader)
	}
	return e
}

// deflate compresses b as raw DEFLATE, the form zip stores.
func deflate(t testing.TB, b []byte) string {
	t.Helper()
	return string(compress(t, b, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestCompression) }))
}

// zipBytes writes entries with archive/zip.
func zipBytes(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := e.FileHeader
		var w io.Writer
		var err error
		if e.raw {
			w, err = zw.CreateRaw(&h)
		} else {
			w, err = zw.CreateHeader(&h)
		}
		if err != nil {
			t.Fatalf("Create(%q) = %v", short(h.Name), err)
		}
		if _, err := io.WriteString(w, e.body); err != nil {
			t.Fatalf("Write(%q) = %v", short(h.Name), err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var le = binary.LittleEndian

// zipDirectory returns the offsets of b's central directory records, in
// order, and of its end record. It expects what zip.Writer writes: no
// comment and no zip64 end record.
func zipDirectory(t testing.TB, b []byte) (records []int, end int) {
	t.Helper()
	end = len(b) - 22
	if end < 0 || string(b[end:end+4]) != "PK\x05\x06" {
		t.Fatal("no end of central directory record at the end")
	}
	off := int(le.Uint32(b[end+16:]))
	for range int(le.Uint16(b[end+10:])) {
		if string(b[off:off+4]) != "PK\x01\x02" {
			t.Fatalf("no central directory record at %d", off)
		}
		records = append(records, off)
		off += 46 + int(le.Uint16(b[off+28:])) + int(le.Uint16(b[off+30:])) + int(le.Uint16(b[off+32:]))
	}
	return records, end
}

// zipRecordName is the name in the central directory record at off.
func zipRecordName(b []byte, off int) string {
	n := int(le.Uint16(b[off+28:]))
	return string(b[off+46 : off+46+n])
}

// zipFind returns the offset of the central directory record named name.
func zipFind(t testing.TB, b []byte, name string) int {
	t.Helper()
	recs, _ := zipDirectory(t, b)
	for _, off := range recs {
		if zipRecordName(b, off) == name {
			return off
		}
	}
	t.Fatalf("no central directory record %q", name)
	return 0
}

// zipDataOffset returns where the data of the entry with the central
// directory record at rec starts.
func zipDataOffset(b []byte, rec int) int {
	lfh := int(le.Uint32(b[rec+42:]))
	return lfh + 30 + int(le.Uint16(b[lfh+26:])) + int(le.Uint16(b[lfh+28:]))
}

// zipDupRecord appends times copies of the central directory record named
// name, all pointing at the same local header.
func zipDupRecord(t testing.TB, b []byte, name string, times int) []byte {
	t.Helper()
	recs, end := zipDirectory(t, b)
	i := slices.IndexFunc(recs, func(off int) bool { return zipRecordName(b, off) == name })
	stop := end
	if i+1 < len(recs) {
		stop = recs[i+1]
	}
	rec := b[recs[i]:stop]
	out := slices.Clone(b[:end])
	for range times {
		out = append(out, rec...)
	}
	eocd := slices.Clone(b[end:])
	le.PutUint16(eocd[8:], le.Uint16(eocd[8:])+uint16(times))
	le.PutUint16(eocd[10:], le.Uint16(eocd[10:])+uint16(times))
	le.PutUint32(eocd[12:], le.Uint32(eocd[12:])+uint32(times*len(rec)))
	return append(out, eocd...)
}

// zip64End replaces b's end record with a zip64 end record claiming
// records entries, its locator and an end record of 0xFFFF placeholders.
func zip64End(t testing.TB, b []byte, records uint64) []byte {
	t.Helper()
	_, end := zipDirectory(t, b)
	cdSize, cdOff := le.Uint32(b[end+12:]), le.Uint32(b[end+16:])
	out := slices.Clone(b[:end])
	at := len(out)
	rec := make([]byte, 56)
	le.PutUint32(rec[0:], 0x06064b50)
	le.PutUint64(rec[4:], 44)
	le.PutUint16(rec[12:], 45)
	le.PutUint16(rec[14:], 45)
	le.PutUint64(rec[24:], records)
	le.PutUint64(rec[32:], records)
	le.PutUint64(rec[40:], uint64(cdSize))
	le.PutUint64(rec[48:], uint64(cdOff))
	loc := make([]byte, 20)
	le.PutUint32(loc[0:], 0x07064b50)
	le.PutUint64(loc[8:], uint64(at))
	le.PutUint32(loc[16:], 1)
	eocd := make([]byte, 22)
	le.PutUint32(eocd[0:], 0x06054b50)
	le.PutUint16(eocd[8:], 0xFFFF)
	le.PutUint16(eocd[10:], 0xFFFF)
	le.PutUint32(eocd[12:], 0xFFFFFFFF)
	le.PutUint32(eocd[16:], 0xFFFFFFFF)
	out = append(out, rec...)
	out = append(out, loc...)
	return append(out, eocd...)
}

// patch returns a copy of b with f applied.
func patch(b []byte, f func(b []byte)) []byte {
	b = slices.Clone(b)
	f(b)
	return b
}

// ---------------------------------------------------------------------------
// Hostile tar and tar.gz entries.

// fileCase is a hostile archive of regular files only, which tar and zip
// hold alike: TestTarHostile and TestZipHostile run each in their formats.
// The runners put a SKILL.md first, so an extractor that writes as it goes
// would leave it behind, and an extractor that accepted the entry would
// succeed.
type fileCase struct {
	name  string
	files []fileSpec // "$TMP" in names is the folder holding dst
	want  error
	named string // the entry the error must name; "" when the checklist does not ask
}

// fileSpec is a regular file of a fileCase: its name and body.
type fileSpec struct{ name, body string }

// hostileFiles returns the cases of TestTarHostile and TestZipHostile whose
// archives hold regular files only.
func hostileFiles() []fileCase {
	long300 := strings.Repeat("a", 300)
	deep := strings.Repeat("d/", 3000) + "f"
	name65535 := strings.Repeat("n", 65535)
	return []fileCase{
		// Zip slip, bare "..", absolute paths.
		{"slip ../evil", []fileSpec{{"../evil", "pwned"}}, ErrUnsafe, "../evil"},
		{"slip ../../tmp/evil.txt", []fileSpec{{"../../tmp/evil.txt", "pwned"}}, ErrUnsafe, "../../tmp/evil.txt"},
		{"slip after good file", []fileSpec{{"good.txt", "ok"}, {"../../../victim.txt", "pwned"}}, ErrUnsafe, "../../../victim.txt"},
		{"bare ..", []fileSpec{{"..", "pwned"}}, ErrUnsafe, ".."},
		{"../../pwned", []fileSpec{{"../../pwned", "pwned"}}, ErrUnsafe, "../../pwned"},
		{"a/../../b", []fileSpec{{"a/../../b", "pwned"}}, ErrUnsafe, "a/../../b"},
		{"a/../b", []fileSpec{{"a/../b", "pwned"}}, ErrUnsafe, "a/../b"},
		{"./../evil", []fileSpec{{"./../evil", "pwned"}}, ErrUnsafe, "../evil"},
		{"absolute into the sandbox", []fileSpec{{"$TMP/abs.txt", "pwned"}}, ErrUnsafe, "$TMP/abs.txt"},
		{"absolute /abs.txt", []fileSpec{{"/abs.txt", "pwned"}}, ErrUnsafe, "/abs.txt"},
		// Backslashes and Windows paths.
		{`..\..\Temp\evil.txt`, []fileSpec{{`..\..\Temp\evil.txt`, "pwned"}}, ErrUnsafe, `..\..\Temp\evil.txt`},
		{`C:\x`, []fileSpec{{`C:\x`, "pwned"}}, ErrUnsafe, `C:\x`},
		{`C:x`, []fileSpec{{`C:x`, "pwned"}}, ErrUnsafe, `C:x`},
		{`\\srv\share\x`, []fileSpec{{`\\srv\share\x`, "pwned"}}, ErrUnsafe, `\\srv\share\x`},
		{`\\?\C:\x`, []fileSpec{{`\\?\C:\x`, "pwned"}}, ErrUnsafe, `\\?\C:\x`},
		{"backslash inside", []fileSpec{{`a\b`, "x"}}, ErrUnsafe, `a\b`},
		{"stream colon", []fileSpec{{"a.txt:evil", "x"}}, ErrUnsafe, "a.txt:evil"},
		// Dot and empty elements.
		{"a//b", []fileSpec{{"a//b", "x"}}, ErrUnsafe, "a//b"},
		{"a/./b", []fileSpec{{"a/./b", "x"}}, ErrUnsafe, "a/./b"},
		{"a/.", []fileSpec{{"a/.", "x"}}, ErrUnsafe, "a/."},
		{"file named .", []fileSpec{{".", "x"}}, ErrUnsafe, "."},
		{"empty name file", []fileSpec{{"", "x"}}, ErrUnsafe, ""},
		// Control characters (NUL: TestTarRawHostile and TestZipHostile).
		{"control 0x01", []fileSpec{{"evil\x01.txt", "x"}}, ErrUnsafe, "evil\x01.txt"},
		{"control 0x1b", []fileSpec{{"a\x1bb", "x"}}, ErrUnsafe, "a\x1bb"},
		{"newline", []fileSpec{{"evil\n.txt", "x"}}, ErrUnsafe, "evil\n.txt"},
		{"DEL", []fileSpec{{"evil\x7f.txt", "x"}}, ErrUnsafe, "evil\x7f.txt"},
		// Long names and deep nesting.
		{"300-byte path", []fileSpec{{long300, "x"}}, ErrUnsafe, long300},
		{"name of 65535 bytes", []fileSpec{{name65535, "x"}}, ErrUnsafe, name65535},
		{"256-byte element", []fileSpec{{"d/" + strings.Repeat("e", 256), "x"}}, ErrUnsafe, "d/" + strings.Repeat("e", 256)},
		{"256-byte element at the root", []fileSpec{{strings.Repeat("e", 256), "x"}}, ErrUnsafe, strings.Repeat("e", 256)},
		{"path over MaxPathLen", []fileSpec{{strings.Repeat("abcdefg/", 128) + "x", "x"}}, ErrUnsafe, strings.Repeat("abcdefg/", 128) + "x"},
		{"deep nesting 3000", []fileSpec{{deep, "x"}}, ErrUnsafe, deep},
		{"depth 33", []fileSpec{{strings.Repeat("d/", 32) + "f", "x"}}, ErrUnsafe, strings.Repeat("d/", 32) + "f"},
		// Windows reserved names and aliases.
		{"CON", []fileSpec{{"CON", "x"}}, ErrUnsafe, "CON"},
		{"nul.txt", []fileSpec{{"nul.txt", "x"}}, ErrUnsafe, "nul.txt"},
		{"COM¹", []fileSpec{{"COM¹", "x"}}, ErrUnsafe, "COM¹"},
		{"lpt9.log", []fileSpec{{"docs/lpt9.log", "x"}}, ErrUnsafe, "docs/lpt9.log"},
		{"CONIN$", []fileSpec{{"CONIN$", "x"}}, ErrUnsafe, "CONIN$"},
		{"CONOUT$", []fileSpec{{"conout$", "x"}}, ErrUnsafe, "conout$"},
		{"aux folder", []fileSpec{{"aux/x.txt", "x"}}, ErrUnsafe, "aux/x.txt"},
		{"trailing dot", []fileSpec{{"foo.", "x"}}, ErrUnsafe, "foo."},
		{"trailing space", []fileSpec{{"foo ", "x"}}, ErrUnsafe, "foo "},
		{"short name GIT~1", []fileSpec{{"GIT~1/config", "x"}}, ErrUnsafe, "GIT~1/config"},
		{"short name GIT~1 alone", []fileSpec{{"GIT~1", "x"}}, ErrUnsafe, "GIT~1"},
		// Case and normalization collisions.
		{"README.md and readme.md", []fileSpec{{"README.md", "a"}, {"readme.md", "b"}}, ErrUnsafe, "readme.md"},
		{"m.go and M.GO", []fileSpec{{"m.go", "a"}, {"M.GO", "b"}}, ErrUnsafe, "M.GO"},
		{"SKILL.md and skill.md", []fileSpec{{"skill.md", "b"}}, ErrUnsafe, "skill.md"},
		{"Kelvin sign", []fileSpec{{"key", "a"}, {"\u212Aey", "b"}}, ErrUnsafe, "\u212Aey"},
		{"Kelvin sign alone", []fileSpec{{"\u212A", "a"}, {"k", "b"}}, ErrUnsafe, "k"},
		{"ligature", []fileSpec{{"file", "a"}, {"\ufb01le", "b"}}, ErrUnsafe, "\ufb01le"},
		{"folders differ in case", []fileSpec{{"Docs/a", "a"}, {"docs/b", "b"}}, ErrUnsafe, "docs"},
		{"NFC and NFD", []fileSpec{{"caf\u00e9", "a"}, {"cafe\u0301", "b"}}, ErrUnsafe, "cafe\u0301"},
		// Duplicates and file-versus-folder conflicts.
		{"duplicate a.txt", []fileSpec{{"a.txt", "a"}, {"a.txt", "b"}}, ErrUnsafe, "a.txt"},
		{"duplicate ./a.txt", []fileSpec{{"a.txt", "a"}, {"./a.txt", "b"}}, ErrUnsafe, "a.txt"},
		{"file then file under it", []fileSpec{{"a", "a"}, {"a/b", "b"}}, ErrUnsafe, "a"},
		{"file under then file", []fileSpec{{"a/b", "b"}, {"a", "a"}}, ErrUnsafe, "a"},
	}
}

// entryCase is one hostile archive described by the entries that follow
// its SKILL.md, of type tarEntry or zipEntry, run as fileCase describes.
type entryCase[E any] struct {
	name    string
	entries []E // "$TMP" in names and link targets is the folder holding dst
	want    error
	named   string // the entry the error must name; "" when the checklist does not ask
}

// fileCases returns hostileFiles with their files made entries by file.
func fileCases[E any](file func(name, body string) E) []entryCase[E] {
	var cases []entryCase[E]
	for _, c := range hostileFiles() {
		entries := make([]E, len(c.files))
		for i, f := range c.files {
			entries[i] = file(f.name, f.body)
		}
		cases = append(cases, entryCase[E]{c.name, entries, c.want, c.named})
	}
	return cases
}

// runEntryCases runs each case as a subtest, its name followed by suffix:
// archive builds the case's archive, SKILL.md first, for the sandbox s.
func runEntryCases[E any](t *testing.T, suffix string, cases []entryCase[E], archive func(t *testing.T, s *sandbox, entries []E) []byte) {
	for _, tc := range cases {
		t.Run(tc.name+suffix, func(t *testing.T) {
			s := newSandbox(t)
			_, err := s.extract(t, archive(t, s, tc.entries), testOptions())
			s.checkRefused(t, "Archive", tc.name, err, tc.want, s.expand(tc.named))
			s.checkUntouched(t)
		})
	}
}

func TestTarHostile(t *testing.T) {
	t.Parallel()
	cases := append(fileCases(tReg), []entryCase[tarEntry]{
		// Hostile folders and folder-versus-file conflicts.
		{"absolute folder", []tarEntry{tDir("$TMP/evil/")}, ErrUnsafe, "$TMP/evil"},
		{"control in folder", []tarEntry{tDir("d\x1f/")}, ErrUnsafe, "d\x1f"},
		{"duplicate folder", []tarEntry{tDir("d/"), tDir("./d/")}, ErrUnsafe, "d"},
		{"folder then file", []tarEntry{tDir("a/"), tReg("a", "b")}, ErrUnsafe, "a"},
		// Symbolic links out and writes through them.
		{"symlink to absolute folder then write", []tarEntry{tSymlink("l", "$TMP/victim"), tReg("l/secret.txt", "pwned")}, ErrUnsafe, "l"},
		{"symlink to /etc", []tarEntry{tSymlink("l", "/etc")}, ErrUnsafe, "l"},
		{"linktoroot/ to /", []tarEntry{tSymlink("linktoroot/", "/"), tReg("linktoroot/victim.txt", "pwned")}, ErrUnsafe, "linktoroot"},
		{"symlink out ../victim.txt", []tarEntry{tSymlink("l", "../victim.txt")}, ErrUnsafe, "l"},
		{"symlink with backslash target", []tarEntry{tSymlink("l", `..\victim.txt`)}, ErrUnsafe, "l"},
		{"symlink with empty target", []tarEntry{tSymlink("l", "")}, ErrUnsafe, "l"},
		{"relative loophole", []tarEntry{tDir("dir/"), tSymlink("dir/loophole", "../../victim"), tReg("dir/loophole/secret.txt", "pwned")}, ErrUnsafe, "dir/loophole"},
		{"chained go_up", []tarEntry{tDir("inner/"), tSymlink("inner/go_up", ".."), tSymlink("inner/go_up/escape", "../victim"), tReg("inner/go_up/escape/secret.txt", "pwned")}, ErrUnsafe, "inner/go_up"},
		{"symlink to a folder", []tarEntry{tDir("d/"), tReg("d/f", "x"), tSymlink("l", "d")}, ErrUnsafe, "l"},
		{"symlink to the root", []tarEntry{tSymlink("l", ".")}, ErrUnsafe, "l"},
		{"symlink to a symlink", []tarEntry{tSymlink("a", "SKILL.md"), tSymlink("b", "a")}, ErrUnsafe, "b"},
		{"symlink to nothing", []tarEntry{tSymlink("l", "missing.md")}, ErrUnsafe, "l"},
		{"case-insensitive traversal to absolute", []tarEntry{tSymlink("tmp", "$TMP"), tReg("Tmp/test-file", "pwned")}, ErrUnsafe, "tmp"},
		{"case-insensitive traversal by fold", []tarEntry{tSymlink("tmp", "SKILL.md"), tReg("Tmp/test-file", "pwned")}, ErrUnsafe, "Tmp"},
		// Hard links out, to links, and replaced.
		{"hardlink ../../etc/shadow", []tarEntry{tLink("h", "../../etc/shadow")}, ErrUnsafe, "h"},
		{"hardlink /etc/passwd", []tarEntry{tLink("h", "/etc/passwd")}, ErrUnsafe, "h"},
		{"hardlink ../dest-evil/secret", []tarEntry{tLink("h", "../dest-evil/secret")}, ErrUnsafe, "h"},
		{"hardlink to absolute victim", []tarEntry{tLink("h", "$TMP/victim/secret.txt")}, ErrUnsafe, "h"},
		{"hardlink to a symlink", []tarEntry{tSymlink("symlink1", "SKILL.md"), tLink("symlink2", "symlink1")}, ErrUnsafe, "symlink2"},
		{"hardlink to a folder", []tarEntry{tDir("d/"), tLink("h", "d")}, ErrUnsafe, "h"},
		{"hardlink to nothing", []tarEntry{tLink("h", "missing")}, ErrUnsafe, "h"},
		{"link then regular", []tarEntry{tLink("x", "SKILL.md"), tReg("x", "replaced")}, ErrUnsafe, "x"},
		{"regular then link", []tarEntry{tReg("x", "a"), tLink("x", "SKILL.md")}, ErrUnsafe, "x"},
		// Devices, FIFOs and other types.
		{"char device", []tarEntry{tSpecial("null", tar.TypeChar)}, ErrUnsafe, "null"},
		{"block device", []tarEntry{tSpecial("sda", tar.TypeBlock)}, ErrUnsafe, "sda"},
		{"fifo", []tarEntry{tSpecial("fifo", tar.TypeFifo)}, ErrUnsafe, "fifo"},
		{"contiguous file", []tarEntry{tSpecial("cont", tar.TypeCont)}, ErrUnsafe, "cont"},
	}...)
	tarOf := func(t *testing.T, s *sandbox, entries []tarEntry) []byte {
		all := []tarEntry{tReg("SKILL.md", skillMD)}
		for _, e := range entries {
			e.Name, e.Linkname = s.expand(e.Name), s.expand(e.Linkname)
			all = append(all, e)
		}
		return tarBytes(t, all...)
	}
	runEntryCases(t, "/tar", cases, tarOf)
	runEntryCases(t, "/tar.gz", cases, func(t *testing.T, s *sandbox, entries []tarEntry) []byte { return gz(t, tarOf(t, s, entries)) })
}

// TestTarRawHostile covers headers archive/tar will not write: NUL inside
// names, PAX and GNU name overrides, sparse files, unknown types.
func TestTarRawHostile(t *testing.T) {
	t.Parallel()
	skill := rawFile("SKILL.md", skillMD)
	cases := []struct {
		name  string
		data  []byte
		want  error
		named string
	}{
		// archive/tar cuts a ustar name at its first NUL, so the extractor
		// cannot name what it never sees; the checklist still says reject.
		{"ustar name with NUL", rawTar(skill, rawFile("evil\x00.txt", "x")), ErrUnsafe, ""},
		{"ustar name with NUL and slip", rawTar(skill, rawFile("ok\x00/../../evil", "x")), ErrUnsafe, ""},
		// archive/tar refuses a NUL in a PAX path itself, before the
		// extractor sees a name.
		{"PAX path with NUL", rawTar(skill, paxHeader('x', "path", "a\x00b"), rawFile("benign.txt", "x")), ErrFormat, ""},
		{"PAX path override", rawTar(skill, paxHeader('x', "path", "../../x"), rawFile("benign.txt", "x")), ErrUnsafe, "../../x"},
		{"PAX absolute path", rawTar(skill, paxHeader('x', "path", "/etc/evil"), rawFile("benign.txt", "x")), ErrUnsafe, "/etc/evil"},
		{"PAX linkpath override", rawTar(skill, paxHeader('x', "linkpath", "/etc/passwd"), rawHeader("ok", tar.TypeSymlink, 0, "SKILL.md")), ErrUnsafe, "ok"},
		{"PAX hardlink linkpath override", rawTar(skill, paxHeader('x', "linkpath", "../../etc/shadow"), rawHeader("ok", tar.TypeLink, 0, "SKILL.md")), ErrUnsafe, "ok"},
		{"GNU long name", rawTar(skill, gnuLong('L', "../../x"), rawFile("benign.txt", "x")), ErrUnsafe, "../../x"},
		{"GNU long name backslash", rawTar(skill, gnuLong('L', `..\..\x`), rawFile("benign.txt", "x")), ErrUnsafe, `..\..\x`},
		{"GNU long link", rawTar(skill, gnuLong('K', "/etc/passwd"), gnuHeader("ok", tar.TypeSymlink, 0, "SKILL.md")), ErrUnsafe, "ok"},
		{"PAX path over 1 MiB", rawTar(skill, paxHeader('x', "path", strings.Repeat("a/", 1<<19)+"x"), rawFile("benign.txt", "x")), ErrFormat, ""},
		{"file named ./", rawTar(skill, rawFile("./", "x")), ErrUnsafe, "./"},
		{"empty file named ./", rawTar(skill, rawFile("./", "")), ErrUnsafe, "./"},
		{"file named /", rawTar(skill, rawFile("/", "x")), ErrUnsafe, "/"},
		{"regular file with a trailing slash", rawTar(skill, rawFile("a/", "x"), rawFile("a/b", "y")), ErrUnsafe, "a"},
		{"folder with data", rawTar(skill, append(rawHeader("d/", tar.TypeDir, 5, ""), pad512([]byte("hello"))...)), ErrUnsafe, "d/"},
		{"unknown type", rawTar(skill, rawHeader("z", 'Z', 0, "")), ErrUnsafe, "z"},
		{"old GNU sparse", rawTar(skill, sparseHeader("sparse.img", 1<<33-1)), ErrUnsafe, "sparse.img"},
		{"PAX sparse 0.1", rawTar(skill,
			paxHeader('x', "GNU.sparse.major", "0", "GNU.sparse.minor", "1", "GNU.sparse.name", "big.img",
				"GNU.sparse.size", strconv.FormatInt(64<<30, 10), "GNU.sparse.numblocks", "1", "GNU.sparse.map", "0,4"),
			rawFile("GNUSparseFile.0/big.img", "data")), ErrUnsafe, "big.img"},
		{"PAX sparse renamed out", rawTar(skill,
			paxHeader('x', "GNU.sparse.major", "0", "GNU.sparse.minor", "1", "GNU.sparse.name", "../../big.img",
				"GNU.sparse.size", "4", "GNU.sparse.numblocks", "1", "GNU.sparse.map", "0,4"),
			rawFile("GNUSparseFile.0/big.img", "data")), ErrUnsafe, "../../big.img"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			_, err := s.extract(t, tc.data, testOptions())
			s.checkRefused(t, "Archive", tc.name, err, tc.want, tc.named)
			s.checkUntouched(t)
		})
	}
}

// sparseHeader is an old GNU sparse header ('S') with one empty region
// at its end, declaring size bytes (at most 8 GiB: 11 octal digits) from
// one block.
func sparseHeader(name string, size int64) []byte {
	b := gnuHeader(name, tar.TypeGNUSparse, 0, "")
	copy(b[386:398], fmt.Sprintf("%011o\x00", size-1))
	copy(b[398:410], "00000000000\x00")
	copy(b[483:495], fmt.Sprintf("%011o\x00", size))
	setChecksum(b)
	return b
}

// TestTarGzHostile covers the stream around the entries: the gzip trailer,
// trailing data, bombs and floods.
func TestTarGzHostile(t *testing.T) {
	t.Parallel()
	skill := tarBytes(t, tReg("SKILL.md", skillMD), tReg("a.txt", "hello"))
	skillGz := gz(t, skill)
	zeros := func(n int) string { return string(make([]byte, n)) }

	// A bomb of many zero files, each under the per-file cap.
	var bomb []tarEntry
	for i := range 64 {
		bomb = append(bomb, tReg(fmt.Sprintf("zeros/%02d.bin", i), zeros(32<<10)))
	}
	// A flood of chained PAX headers before one file.
	var flood [][]byte
	for range 4000 {
		flood = append(flood, paxHeader('x', "comment", strings.Repeat("x", 400)))
	}

	cases := []struct {
		name   string
		data   []byte
		format string
		opts   func(*Options)
		want   error
		named  string
	}{
		{name: "gzip CRC flipped", data: patch(skillGz, func(b []byte) { b[len(b)-8] ^= 0xff }), want: ErrFormat},
		{name: "gzip size flipped", data: patch(skillGz, func(b []byte) { b[len(b)-1] ^= 0x01 }), want: ErrFormat},
		{name: "gzip trailing garbage", data: append(slices.Clone(skillGz), "garbage"...), want: ErrFormat},
		{name: "gzip trailing zero byte", data: append(slices.Clone(skillGz), 0), want: ErrFormat},
		{name: "gzip truncated", data: skillGz[:len(skillGz)-12], want: ErrFormat},
		{name: "gzip truncated trailer", data: skillGz[:len(skillGz)-4], want: ErrFormat},
		{name: "gzip header only", data: skillGz[:10], want: ErrFormat},
		{name: "gzip magic, then junk", data: []byte("\x1f\x8bjunkjunkjunkjunk"), want: ErrFormat},
		{name: "gzip second member is junk", data: append(slices.Clone(skillGz), "\x1f\x8b\x08\x00junk"...), want: ErrFormat},
		{name: "gzip of a zip", data: gz(t, zipBytes(t, zFile("SKILL.md", skillMD))), want: ErrFormat},
		{name: "plain tar pinned as tar.gz", data: skill, format: formatTarGz, want: ErrFormat},
		{name: "tar.gz pinned as tar", data: skillGz, format: formatTar, want: ErrFormat},
		{name: "junk after tar end marker", data: append(slices.Clone(skill), pad512([]byte("junk"))...), want: ErrFormat},
		{name: "junk after tar end marker, gzipped", data: gz(t, append(slices.Clone(skill), pad512([]byte("junk"))...)), want: ErrFormat},
		{name: "zip appended to tar", data: append(slices.Clone(skill), zipBytes(t, zFile("SKILL.md", skillMD))...), want: ErrFormat},
		{name: "tar truncated in a body", data: skill[:512+20], want: ErrFormat},
		{name: "tar truncated in the padding", data: skill[:1024+512+100], want: ErrFormat},
		{name: "tar without end marker", data: skill[:len(skill)-1024], want: ErrFormat},
		{name: "tar with half an end marker", data: skill[:len(skill)-512], want: ErrFormat},
		{name: "tar.gz without end marker", data: gz(t, skill[:len(skill)-1024]), want: ErrFormat},
		{name: "tar without end marker, last file all zeros", data: tarBytes(t, tReg("SKILL.md", skillMD), tReg("zeros.bin", zeros(2048)))[:512*7], want: ErrFormat},
		{name: "tar truncated in a header", data: skill[:1024+100], want: ErrFormat},
		{name: "tar header checksum broken", data: patch(skill, func(b []byte) { b[0] = 'X' }), format: formatTar, want: ErrFormat},
		{
			name:  "gzip bomb one file over the per-file cap",
			data:  gz(t, tarBytes(t, tReg("SKILL.md", skillMD), tReg("zeros.bin", zeros(1<<20+1)))),
			opts:  func(o *Options) { o.MaxFileSize = 1 << 20 },
			want:  ErrLimit,
			named: "zeros.bin",
		},
		{
			name: "tar.gz bomb of files under the per-file cap",
			data: gz(t, tarBytes(t, append([]tarEntry{tReg("SKILL.md", skillMD)}, bomb...)...)),
			opts: func(o *Options) { o.MaxFileSize, o.MaxTotalSize = 32<<10, 1<<20 },
			want: ErrLimit,
		},
		{
			name: "tar.gz bomb outside the subpath",
			data: gz(t, tarBytes(t, append([]tarEntry{tReg("skill/SKILL.md", skillMD)}, bomb...)...)),
			opts: func(o *Options) { o.Subpath, o.MaxFileSize, o.MaxTotalSize = "skill", 32<<10, 1<<20 },
			want: ErrLimit,
		},
		{
			name: "PAX header flood",
			data: gz(t, rawTar(append(append([][]byte{rawFile("SKILL.md", skillMD)}, flood...), rawFile("a.txt", "x"))...)),
			opts: func(o *Options) { o.MaxTotalSize = 256 << 10 },
			want: ErrLimit,
		},
		{
			name:  "declared size of 1 TiB in PAX",
			data:  append(rawTar(rawFile("SKILL.md", skillMD))[:1024], append(paxHeader('x', "size", strconv.FormatInt(1<<40, 10)), rawHeader("huge.bin", tar.TypeReg, 0, "")...)...),
			want:  ErrLimit,
			named: "huge.bin",
		},
		{
			name:  "declared size of 8 GiB in ustar",
			data:  append(rawTar(rawFile("SKILL.md", skillMD))[:1024], rawHeader("huge.bin", tar.TypeReg, 1<<33-1, "")...),
			want:  ErrLimit,
			named: "huge.bin",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			opts := testOptions()
			opts.Format = tc.format
			if tc.opts != nil {
				tc.opts(&opts)
			}
			_, err := s.extract(t, tc.data, opts)
			s.checkRefused(t, "Archive", tc.name, err, tc.want, tc.named)
			s.checkUntouched(t)
			if max := readBudget(int64(len(tc.data))); s.read > max {
				t.Errorf("Archive(%q) read %d bytes of a %d-byte archive, want at most %d", tc.name, s.read, len(tc.data), max)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Hostile zip entries.

func TestZipHostile(t *testing.T) {
	t.Parallel()
	cases := append(fileCases(zFile), []entryCase[zipEntry]{
		// A NUL, which a tar header cannot carry in a name.
		{"NUL in name", []zipEntry{zFile("a\x00b", "x")}, ErrUnsafe, "a\x00b"},
		{"folder a/ and file a", []zipEntry{zDir("a/"), zFile("a", "b")}, ErrUnsafe, "a"},
		{"folder with data", []zipEntry{zMode("a", "data", fs.ModeDir|0o755)}, ErrUnsafe, "a"},
		{"symlink out", []zipEntry{zSymlink("l", "../../victim")}, ErrUnsafe, "l"},
		{"symlink absolute then write", []zipEntry{zSymlink("l", "$TMP/victim"), zFile("l/secret.txt", "pwned")}, ErrUnsafe, "l"},
		{"symlink to a folder", []zipEntry{zDir("d/"), zFile("d/f", "x"), zSymlink("l", "d")}, ErrUnsafe, "l"},
		{"symlink to a symlink", []zipEntry{zSymlink("a", "SKILL.md"), zSymlink("b", "a")}, ErrUnsafe, "b"},
		{"symlink then write through", []zipEntry{zSymlink("l", "SKILL.md"), zFile("l/x", "pwned")}, ErrUnsafe, "l"},
		{"symlink target too long", []zipEntry{zSymlink("l", strings.Repeat("a/", 600)+"SKILL.md")}, ErrUnsafe, "l"},
		{"named pipe", []zipEntry{zMode("fifo", "", fs.ModeNamedPipe|0o644)}, ErrUnsafe, "fifo"},
		{"device", []zipEntry{zMode("sda", "", fs.ModeDevice|0o644)}, ErrUnsafe, "sda"},
		{"char device", []zipEntry{zMode("null", "", fs.ModeDevice|fs.ModeCharDevice|0o644)}, ErrUnsafe, "null"},
		{"socket", []zipEntry{zMode("sock", "", fs.ModeSocket|0o644)}, ErrUnsafe, "sock"},
		{"encrypted", []zipEntry{zRaw("secret.txt", "xxxx", func(h *zip.FileHeader) { h.Flags |= 0x1 })}, ErrFormat, "secret.txt"},
		{"method 12 bzip2", []zipEntry{zRaw("a.bz2", "xxxx", func(h *zip.FileHeader) { h.Method = 12 })}, ErrFormat, "a.bz2"},
		{"method 14 lzma", []zipEntry{zRaw("a.lzma", "xxxx", func(h *zip.FileHeader) { h.Method = 14 })}, ErrFormat, "a.lzma"},
		{"method 93 zstd", []zipEntry{zRaw("a.zst", "xxxx", func(h *zip.FileHeader) { h.Method = 93 })}, ErrFormat, "a.zst"},
		{"method 99 AES", []zipEntry{zRaw("a.aes", "xxxx", func(h *zip.FileHeader) { h.Method = 99 })}, ErrFormat, "a.aes"},
		{"declared 1 TiB", []zipEntry{zRaw("huge.bin", "xxxx", func(h *zip.FileHeader) { h.UncompressedSize64 = 1 << 40 })}, ErrLimit, "huge.bin"},
		{"declared 4 GiB", []zipEntry{zRaw("huge.bin", "xxxx", func(h *zip.FileHeader) { h.UncompressedSize64 = 1<<32 - 2 })}, ErrLimit, "huge.bin"},
	}...)
	runEntryCases(t, "", cases, func(t *testing.T, s *sandbox, entries []zipEntry) []byte {
		all := []zipEntry{zFile("SKILL.md", skillMD)}
		for _, e := range entries {
			e.Name = s.expand(e.Name)
			all = append(all, e)
		}
		return zipBytes(t, all...)
	})
}

// TestZipRawHostile covers archives whose bytes disagree with themselves:
// size and CRC lies, data descriptors, overlapping entries, prefixes and
// odd end records.
func TestZipRawHostile(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("all work and no play ", 50)
	skill := zFile("SKILL.md", skillMD)
	plain := zipBytes(t, skill, zFile("a.txt", body))
	stored := zipBytes(t, skill, zRaw("a.txt", body, nil), zRaw("b.txt", "bee", nil))

	deflated := deflate(t, []byte(body))
	ddLie := func(edit func(b []byte, dd int)) []byte {
		// zip.Writer follows every file with a data descriptor (flag 0x8):
		// signature, CRC-32, and 32-bit sizes.
		return patch(plain, func(b []byte) {
			rec := zipFind(t, b, "a.txt")
			dd := zipDataOffset(b, rec) + int(le.Uint32(b[rec+20:]))
			if string(b[dd:dd+4]) != "PK\x07\x08" {
				t.Fatal("no data descriptor after a.txt")
			}
			edit(b, dd)
		})
	}
	cases := []struct {
		name   string
		data   []byte
		format string
		want   error // nil: the archive must extract
		named  string
		// mayWrite: the error comes while copying data, after earlier files
		// were written; the owner of dst removes them.
		mayWrite bool
	}{
		{name: "size lie, stored, actual > declared", data: zipBytes(t, skill, zRaw("a.txt", body, func(h *zip.FileHeader) { h.UncompressedSize64 = 50 })), want: ErrFormat, mayWrite: true},
		{name: "size lie, deflated, actual > declared", data: zipBytes(t, skill, zRaw("a.txt", deflated, func(h *zip.FileHeader) {
			h.Method, h.CRC32, h.UncompressedSize64 = zip.Deflate, crc32.ChecksumIEEE([]byte(body)), 50
		})), want: ErrFormat, mayWrite: true},
		{name: "size lie, deflated, actual > declared > per-file cap", data: zipBytes(t, skill, zRaw("a.txt", deflate(t, make([]byte, 2<<20)), func(h *zip.FileHeader) {
			h.Method, h.CRC32, h.UncompressedSize64 = zip.Deflate, crc32.ChecksumIEEE(make([]byte, 2<<20)), 100
		})), want: ErrFormat, mayWrite: true},
		{name: "size lie, stored, actual < declared", data: zipBytes(t, skill, zRaw("a.txt", body, func(h *zip.FileHeader) { h.UncompressedSize64 += 100 })), want: ErrFormat, mayWrite: true},
		{name: "size lie, deflated, actual < declared", data: zipBytes(t, skill, zRaw("a.txt", deflated, func(h *zip.FileHeader) {
			h.Method, h.CRC32, h.UncompressedSize64 = zip.Deflate, crc32.ChecksumIEEE([]byte(body)), uint64(len(body))+100
		})), want: ErrFormat, mayWrite: true},
		{name: "size lie in central directory", data: patch(plain, func(b []byte) {
			rec := zipFind(t, b, "a.txt")
			le.PutUint32(b[rec+24:], le.Uint32(b[rec+24:])-10)
		}), want: ErrFormat, mayWrite: true},
		{name: "data descriptor sizes wrong", data: ddLie(func(b []byte, dd int) {
			le.PutUint32(b[dd+8:], 1)
			le.PutUint32(b[dd+12:], 1<<31)
		}), want: nil},
		{name: "data descriptor CRC differs", data: ddLie(func(b []byte, dd int) { b[dd+4] ^= 0xff }), want: ErrFormat, mayWrite: true},
		{name: "CRC zero in central directory", data: patch(plain, func(b []byte) {
			rec := zipFind(t, b, "a.txt")
			le.PutUint32(b[rec+16:], 0)
			lfh := int(le.Uint32(b[rec+42:]))
			le.PutUint16(b[lfh+6:], le.Uint16(b[lfh+6:])&^0x8)
			le.PutUint16(b[rec+8:], le.Uint16(b[rec+8:])&^0x8)
		}), want: ErrFormat, mayWrite: true},
		{name: "CRC zero, no data descriptor", data: zipBytes(t, skill, zRaw("a.txt", body, func(h *zip.FileHeader) { h.CRC32 = 0 })), want: ErrFormat, mayWrite: true},
		{name: "CRC wrong, no data descriptor", data: zipBytes(t, skill, zRaw("a.txt", body, func(h *zip.FileHeader) { h.CRC32++ })), want: ErrFormat, mayWrite: true},
		{name: "local name differs from central", data: patch(stored, func(b []byte) {
			rec := zipFind(t, b, "a.txt")
			lfh := int(le.Uint32(b[rec+42:]))
			copy(b[lfh+30:], "/ab")
		}), want: nil},
		{name: "local sizes differ from central", data: patch(stored, func(b []byte) {
			rec := zipFind(t, b, "a.txt")
			lfh := int(le.Uint32(b[rec+42:]))
			le.PutUint32(b[lfh+18:], 1<<30)
			le.PutUint32(b[lfh+22:], 1<<30)
		}), want: nil},
		{name: "duplicate central record", data: zipDupRecord(t, stored, "b.txt", 1), want: ErrUnsafe, named: "b.txt"},
		{name: "overlap by extended size", data: patch(stored, func(b []byte) {
			a, bb := zipFind(t, b, "a.txt"), zipFind(t, b, "b.txt")
			span := uint32(zipDataOffset(b, bb) + 3 - zipDataOffset(b, a))
			le.PutUint32(b[a+20:], span)
			le.PutUint32(b[a+24:], span)
		}), want: ErrUnsafe, named: "a.txt"},
		{name: "overlap bomb, many records share one local header", data: zipDupRecord(t, stored, "a.txt", 64), want: ErrUnsafe, named: "a.txt"},
		{name: "data runs past the end", data: patch(stored, func(b []byte) {
			rec := zipFind(t, b, "b.txt")
			le.PutUint32(b[rec+20:], uint32(len(b)))
		}), want: ErrFormat},
		// Counted from the end record before archive/zip reads the
		// directory, so it fails as over the entry limit.
		{name: "end record claims 2^32 entries", data: zip64End(t, stored, 1<<32), want: ErrLimit},
		{name: "end record claims more entries", data: patch(stored, func(b []byte) {
			_, end := zipDirectory(t, b)
			le.PutUint16(b[end+8:], 5)
			le.PutUint16(b[end+10:], 5)
		}), want: ErrFormat},
		{name: "zip64 end record", data: zip64End(t, stored, 3), want: nil},
		{name: "folder with stored data", data: patch(zipBytes(t, skill, zRaw("aa", "data", nil)), func(b []byte) {
			rec := zipFind(t, b, "aa")
			lfh := int(le.Uint32(b[rec+42:]))
			copy(b[rec+46:], "a/")
			copy(b[lfh+30:], "a/")
		}), want: ErrUnsafe, named: "a/"},
		{name: "stub before zip", data: append([]byte("MZ\x90\x00 stub program "), plain...), want: ErrFormat},
		{name: "stub before zip, pinned", data: append([]byte("MZ\x90\x00 stub program "), plain...), format: formatZip, want: ErrFormat},
		{name: "local header magic then prefixed zip", data: append([]byte("PK\x03\x04 not really a header "), plain...), want: ErrFormat},
		{name: "zip before zip", data: append(zipBytes(t, zFile("decoy.txt", "decoy")), plain...), want: ErrFormat},
		{name: "tar before zip, pinned", data: append(tarBytes(t, tReg("SKILL.md", skillMD)), plain...), format: formatZip, want: ErrFormat},
		{name: "zip truncated", data: plain[:len(plain)/2], want: ErrFormat},
		{name: "zip without end record", data: plain[:len(plain)-22], want: ErrFormat},
		{name: "empty zip", data: []byte("PK\x05\x06" + strings.Repeat("\x00", 18)), want: ErrFormat},
		{name: "random bytes", data: []byte("this is not an archive at all, just text that goes on for a while"), want: ErrFormat},
		{name: "empty input", data: nil, want: ErrFormat},
		{name: "v7 tar without magic", data: patch(rawTar(rawFile("SKILL.md", skillMD)), func(b []byte) {
			copy(b[257:265], make([]byte, 8))
			setChecksum(b)
		}), want: ErrFormat},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			opts := testOptions()
			opts.Format = tc.format
			files, err := s.extract(t, tc.data, opts)
			if tc.want == nil {
				checkWritten(t, s, "Archive", tc.name, files, err, nil)
			} else {
				checkErr(t, "Archive", tc.name, err, tc.want)
				checkNamed(t, "Archive", tc.name, err, tc.named)
				if !tc.mayWrite {
					s.checkEmpty(t, tc.name, err)
				}
			}
			s.checkUntouched(t)
		})
	}
}

// checkWritten fails the test unless call (Archive or FS) returned no
// error for the case name and wrote the files it returned (checkFiles), or
// exactly want when want is not nil (checkTree).
func checkWritten(t *testing.T, s *sandbox, call, name string, files []File, err error, want map[string]wantFile) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s(%q) = %v, want nil", call, name, err)
	}
	if want == nil {
		checkFiles(t, s, name, files)
		return
	}
	checkTree(t, s, name, files, want)
}

// checkFiles fails the test unless every returned file is on disk under
// dst with the size, checksum and permissions it reports, and dst holds no
// other file.
func checkFiles(t *testing.T, s *sandbox, name string, files []File) {
	t.Helper()
	seen := make(map[string]bool)
	for _, f := range files {
		if err := CheckPath(f.Path); err != nil {
			t.Errorf("Archive(%q) returned path %q: %v", name, f.Path, err)
			continue
		}
		seen[f.Path] = true
		info, err := s.root.Lstat(filepath.FromSlash(f.Path))
		if err != nil {
			t.Errorf("Archive(%q) returned %q, not on disk: %v", name, f.Path, err)
			continue
		}
		wantPerm := fs.FileMode(0o444)
		if f.Exec {
			wantPerm = 0o555
		}
		if !info.Mode().IsRegular() || info.Mode().Perm() != wantPerm {
			t.Errorf("Archive(%q): %s has mode %v, want a regular file %v", name, f.Path, info.Mode(), wantPerm)
		}
		b, err := s.root.ReadFile(filepath.FromSlash(f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) != f.Size || sha256.Sum256(b) != f.Sum {
			t.Errorf("Archive(%q): %s on disk is %d bytes %x, returned %d bytes %x", name, f.Path, len(b), sha256.Sum256(b), f.Size, f.Sum)
		}
	}
	for _, p := range s.written(t) {
		if !strings.HasSuffix(p, "/") && !seen[p] {
			t.Errorf("Archive(%q) wrote %s but did not return it", name, p)
		}
	}
}

// ---------------------------------------------------------------------------
// Hostile fs.FS trees.

func TestFSHostile(t *testing.T) {
	t.Parallel()
	skill := &fstest.MapFile{Data: []byte(skillMD), Mode: 0o644}
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	link := func(target string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
	}
	cases := []struct {
		name  string
		fsys  fstest.MapFS
		root  string
		opts  func(*Options)
		want  error
		named string
	}{
		{name: "symlink out", fsys: fstest.MapFS{"s/SKILL.md": skill, "s/l": link("../../victim/secret.txt")}, root: "s", want: ErrUnsafe, named: "l"},
		{name: "symlink out of the root, inside the FS", fsys: fstest.MapFS{"s/SKILL.md": skill, "s/l": link("../other.txt"), "other.txt": file("x")}, root: "s", want: ErrUnsafe, named: "l"},
		{name: "symlink absolute", fsys: fstest.MapFS{"SKILL.md": skill, "l": link("/etc/passwd")}, want: ErrUnsafe, named: "l"},
		{name: "symlink to a folder", fsys: fstest.MapFS{"SKILL.md": skill, "d/f": file("x"), "l": link("d")}, want: ErrUnsafe, named: "l"},
		{name: "symlink to a symlink", fsys: fstest.MapFS{"SKILL.md": skill, "a": link("SKILL.md"), "b": link("a")}, want: ErrUnsafe, named: "b"},
		{name: "symlink to nothing", fsys: fstest.MapFS{"SKILL.md": skill, "l": link("missing")}, want: ErrUnsafe, named: "l"},
		{name: "named pipe", fsys: fstest.MapFS{"SKILL.md": skill, "fifo": {Mode: fs.ModeNamedPipe | 0o644}}, want: ErrUnsafe, named: "fifo"},
		{name: "device", fsys: fstest.MapFS{"SKILL.md": skill, "null": {Mode: fs.ModeDevice | fs.ModeCharDevice | 0o644}}, want: ErrUnsafe, named: "null"},
		{name: "socket", fsys: fstest.MapFS{"SKILL.md": skill, "sock": {Mode: fs.ModeSocket | 0o644}}, want: ErrUnsafe, named: "sock"},
		{name: "backslash name", fsys: fstest.MapFS{"SKILL.md": skill, `a\b`: file("x")}, want: ErrUnsafe, named: `a\b`},
		{name: "colon name", fsys: fstest.MapFS{"SKILL.md": skill, "C:x": file("x")}, want: ErrUnsafe, named: "C:x"},
		{name: "control name", fsys: fstest.MapFS{"SKILL.md": skill, "a\nb": file("x")}, want: ErrUnsafe, named: "a\nb"},
		{name: "reserved name", fsys: fstest.MapFS{"SKILL.md": skill, "docs/nul.txt": file("x")}, want: ErrUnsafe, named: "docs/nul.txt"},
		{name: "case collision", fsys: fstest.MapFS{"SKILL.md": skill, "README.md": file("a"), "readme.md": file("b")}, want: ErrUnsafe, named: "readme.md"},
		{name: "NFD name", fsys: fstest.MapFS{"SKILL.md": skill, "cafe\u0301": file("a")}, want: ErrUnsafe, named: "cafe\u0301"},
		{name: "invalid root", fsys: fstest.MapFS{"SKILL.md": skill}, root: "../x", want: ErrUnsafe, named: "../x"},
		{name: "root is a file", fsys: fstest.MapFS{"SKILL.md": skill}, root: "SKILL.md", want: ErrUnsafe, named: "SKILL.md"},
		{name: "no SKILL.md", fsys: fstest.MapFS{"skill.txt": skill}, want: ErrFormat},
		{name: "SKILL.md is a folder", fsys: fstest.MapFS{"SKILL.md/x": file("x")}, want: ErrFormat},
		{name: "file over the per-file cap", fsys: fstest.MapFS{"SKILL.md": skill, "big": file(strings.Repeat("x", 101))}, opts: func(o *Options) { o.MaxFileSize = 100 }, want: ErrLimit, named: "big"},
		{name: "link copies over the total", fsys: fstest.MapFS{"SKILL.md": skill, "big": file(strings.Repeat("x", 100)), "l1": link("big"), "l2": link("big")}, opts: func(o *Options) { o.MaxTotalSize = int64(len(skillMD)) + 299 }, want: ErrLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			opts := testOptions()
			if tc.opts != nil {
				tc.opts(&opts)
			}
			_, err := FS(t.Context(), tc.fsys, tc.root, s.root, opts)
			s.checkRefused(t, "FS", tc.name, err, tc.want, tc.named)
			s.checkUntouched(t)
		})
	}
}

// TestFSDirLinks runs FS over a real folder (os.DirFS) whose links point
// out of it and at a victim: none may be followed.
func TestFSDirLinks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		target string // "$TMP" is the folder holding dst and the victims
		want   error  // nil: the link is copied as a regular file
	}{
		{"relative out", "../victim/secret.txt", ErrUnsafe},
		{"absolute", "$TMP/victim/secret.txt", ErrUnsafe},
		{"absolute folder", "$TMP/victim", ErrUnsafe},
		{"to a folder", "docs", ErrUnsafe},
		{"inside", "docs/guide.md", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			src := filepath.Join(s.top, "src")
			for name, body := range map[string]string{"SKILL.md": skillMD, "docs/guide.md": "guide\n"} {
				p := filepath.Join(src, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(filepath.FromSlash(s.expand(tc.target)), filepath.Join(src, "l")); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
			s.before = snapshot(t, s.top, s.dst)
			files, err := FS(t.Context(), os.DirFS(src), ".", s.root, testOptions())
			if tc.want == nil {
				checkWritten(t, s, "FS", tc.name, files, err, nil)
				if b, err := s.root.ReadFile("l"); err != nil || string(b) != "guide\n" {
					t.Errorf("FS(%q): l = %q, %v, want a copy of docs/guide.md", tc.name, b, err)
				}
			} else {
				s.checkRefused(t, "FS", tc.name, err, tc.want, "l")
			}
			s.checkUntouched(t)
		})
	}
}

// ---------------------------------------------------------------------------
// What a normal skill turns into.

// wantFile is a file expected in the destination.
type wantFile struct {
	body string
	exec bool
}

// checkTree fails the test unless dst holds exactly want (plus the folders
// above them, 0755) and files describes the same set.
func checkTree(t *testing.T, s *sandbox, name string, files []File, want map[string]wantFile) {
	t.Helper()
	checkFiles(t, s, name, files)
	got := make(map[string]File)
	for _, f := range files {
		if _, dup := got[f.Path]; dup {
			t.Errorf("Archive(%q) returned %q twice", name, f.Path)
		}
		got[f.Path] = f
		if !fs.ValidPath(f.Path) {
			t.Errorf("Archive(%q) returned %q, want a path that passes fs.ValidPath", name, f.Path)
		}
	}
	var wantWritten []string
	dirs := make(map[string]bool)
	for p, w := range want {
		wantWritten = append(wantWritten, p)
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if !dirs[d] {
				dirs[d] = true
				wantWritten = append(wantWritten, d+"/")
			}
		}
		f, ok := got[p]
		switch {
		case !ok:
			t.Errorf("Archive(%q) did not return %q", name, p)
		case f.Exec != w.exec || f.Size != int64(len(w.body)) || f.Sum != sha256.Sum256([]byte(w.body)):
			t.Errorf("Archive(%q): %s = exec %v, %d bytes, want exec %v, %d bytes %q", name, p, f.Exec, f.Size, w.exec, len(w.body), w.body)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Archive(%q) returned %d files, want %d", name, len(got), len(want))
	}
	slices.Sort(wantWritten)
	if gotWritten := s.written(t); !slices.Equal(gotWritten, wantWritten) {
		t.Errorf("Archive(%q) wrote %q, want %q", name, gotWritten, wantWritten)
	}
	for d := range dirs {
		info, err := s.root.Lstat(filepath.FromSlash(d))
		if err != nil || !info.IsDir() || info.Mode().Perm() != 0o755 {
			t.Errorf("Archive(%q): folder %s = %v, %v, want a 0755 folder", name, d, info, err)
		}
	}
}

func TestArchiveSkill(t *testing.T) {
	t.Parallel()
	want := map[string]wantFile{
		"SKILL.md":          {skillMD, false},
		"scripts/run.sh":    {"#!/bin/sh\necho hi\n", true},
		"docs/guide.md":     {"guide\n", false},
		"docs/deep/x/y.txt": {"y\n", false},
		"empty.txt":         {"", false},
		"link.md":           {"guide\n", false},
		"run-link":          {"#!/bin/sh\necho hi\n", true},
		"café.md":           {"unicode\n", false},
		"inner.zip":         {"", false}, // filled in below
	}
	inner := string(zipBytes(t, zFile("SKILL.md", skillMD), zFile("../../evil.txt", "pwned")))
	want["inner.zip"] = wantFile{inner, false}

	tarEntries := []tarEntry{
		tDir("./"),
		tReg("./SKILL.md", skillMD),
		tDir("./scripts/"),
		tExec("./scripts/run.sh", "#!/bin/sh\necho hi\n"),
		tReg("docs/guide.md", "guide\n"),
		tReg("docs/deep/x/y.txt", "y\n"),
		tReg("empty.txt", ""),
		tSymlink("link.md", "docs/guide.md"),
		tLink("run-link", "scripts/run.sh"),
		tReg("café.md", "unicode\n"),
		tReg("inner.zip", inner),
	}
	zipEntries := []zipEntry{
		zDir("./"),
		zFile("./SKILL.md", skillMD),
		zDir("scripts/"),
		zMode("scripts/run.sh", "#!/bin/sh\necho hi\n", 0o755),
		zFile("docs/guide.md", "guide\n"),
		zFile("docs/deep/x/y.txt", "y\n"),
		zRaw("empty.txt", "", nil),
		zSymlink("link.md", "docs/guide.md"),
		zSymlink("run-link", "scripts/run.sh"),
		zFile("café.md", "unicode\n"),
		zFile("inner.zip", inner),
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"zip", zipBytes(t, zipEntries...)},
		{"tar", tarBytes(t, tarEntries...)},
		{"tar.gz", gz(t, tarBytes(t, tarEntries...))},
		{"tar with a . root", tarBytes(t, append([]tarEntry{tDir(".")}, tarEntries[1:]...)...)},
		{"tar.gz with extra zero blocks", gz(t, append(tarBytes(t, tarEntries...), make([]byte, 10*512)...))},
		{"tar.gz in two members", gzMembers(t, tarBytes(t, tarEntries...), 2)},
		{"tar.gz in five members", gzMembers(t, tarBytes(t, tarEntries...), 5)},
		{"zip with trailing data", append(zipBytes(t, zipEntries...), "trailing junk"...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			files, err := s.extract(t, tc.data, testOptions())
			checkWritten(t, s, "Archive", tc.name, files, err, want)
			// Links are copies, never links.
			for _, l := range []string{"link.md", "run-link"} {
				if info, err := s.root.Lstat(l); err != nil || !info.Mode().IsRegular() {
					t.Errorf("Archive(%q): %s = %v, %v, want a regular file", tc.name, l, info, err)
				}
			}
			s.checkUntouched(t)

			// With no root, Archive checks and hashes the same files.
			dry, err := Archive(t.Context(), bytes.NewReader(tc.data), int64(len(tc.data)), nil, testOptions())
			if err != nil {
				t.Fatalf("Archive(%q, nil root) = %v, want nil", tc.name, err)
			}
			sortFiles(files)
			sortFiles(dry)
			if !slices.Equal(dry, files) {
				t.Errorf("Archive(%q, nil root) = %v, want %v", tc.name, dry, files)
			}
		})
	}
}

func sortFiles(files []File) {
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
}

// gzMembers compresses b as n gzip members, one after another.
func gzMembers(t testing.TB, b []byte, n int) []byte {
	t.Helper()
	var out []byte
	step := (len(b) + n - 1) / n
	for i := 0; i < len(b); i += step {
		out = append(out, gz(t, b[i:min(i+step, len(b))])...)
	}
	return out
}

func TestFSSkill(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"skills/kit/SKILL.md":          {Data: []byte(skillMD), Mode: 0o644},
		"skills/kit/scripts/run.sh":    {Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		"skills/kit/docs/guide.md":     {Data: []byte("guide\n"), Mode: 0o600 | fs.ModeSetuid},
		"skills/kit/link.md":           {Data: []byte("docs/guide.md"), Mode: fs.ModeSymlink | 0o777},
		"skills/kit/empty":             {Mode: fs.ModeDir | 0o700},
		"skills/kitchen/SKILL.md":      {Data: []byte("other"), Mode: 0o644},
		"skills/kit-not-me/escape.txt": {Data: []byte("other"), Mode: 0o644},
	}
	want := map[string]wantFile{
		"SKILL.md":       {skillMD, false},
		"scripts/run.sh": {"#!/bin/sh\n", true},
		"docs/guide.md":  {"guide\n", false},
		"link.md":        {"guide\n", false},
	}
	for _, root := range []string{"skills/kit", "skills/kit/"} {
		t.Run(root, func(t *testing.T) {
			s := newSandbox(t)
			files, err := FS(t.Context(), fsys, root, s.root, testOptions())
			if err != nil {
				t.Fatalf("FS(%q) = %v, want nil", root, err)
			}
			// FS does not create empty folders: a skill is its files.
			checkFiles(t, s, root, files)
			got := make(map[string]wantFile)
			for _, f := range files {
				b, _ := s.root.ReadFile(filepath.FromSlash(f.Path))
				got[f.Path] = wantFile{string(b), f.Exec}
			}
			for p, w := range want {
				if got[p] != w {
					t.Errorf("FS(%q): %s = %+v, want %+v", root, p, got[p], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("FS(%q) returned %d files, want %d", root, len(got), len(want))
			}
			s.checkUntouched(t)
		})
	}
}

// TestSubpath checks that only the subpath is written, matched element by
// element, and that entries outside it are still checked and counted.
func TestSubpath(t *testing.T) {
	t.Parallel()
	entries := []tarEntry{
		tReg("README.md", "repo"),
		tReg("skills/foo/SKILL.md", skillMD),
		tReg("skills/foo/x.txt", "x"),
		tReg("skills/foobar/x", "sibling"),
		tReg("skills/foobar/SKILL.md", "sibling skill"),
		tReg("skills/foo.md", "not in foo"),
		tReg("skills/fo/SKILL.md", "not in foo"),
	}
	// The folders the names imply, which count as entries: skills,
	// skills/foo, skills/foobar and skills/fo.
	const implied = 4
	fooWant := map[string]wantFile{"SKILL.md": {skillMD, false}, "x.txt": {"x", false}}
	foobarWant := map[string]wantFile{"SKILL.md": {"sibling skill", false}, "x": {"sibling", false}}
	zipOf := func(entries []tarEntry) []byte {
		var z []zipEntry
		for _, e := range entries {
			switch e.Typeflag {
			case tar.TypeSymlink:
				z = append(z, zSymlink(e.Name, e.Linkname))
			default:
				z = append(z, zFile(e.Name, e.body))
			}
		}
		return zipBytes(t, z...)
	}
	cases := []struct {
		name    string
		entries []tarEntry
		subpath string
		opts    func(*Options)
		want    map[string]wantFile
		wantErr error
		named   string
		tarOnly bool // hard links, which zip does not hold
	}{
		{name: "skills/foo", entries: entries, subpath: "skills/foo", want: fooWant},
		{name: "./skills/foo/", entries: entries, subpath: "./skills/foo/", want: fooWant},
		{name: "sibling skills/foobar", entries: entries, subpath: "skills/foobar", want: foobarWant},
		{name: "prefix of a name skills/fo", entries: entries[:4], subpath: "skills/fo", wantErr: ErrFormat},
		{name: "subpath that is a file", entries: entries, subpath: "skills/foo.md", wantErr: ErrFormat},
		{name: "subpath in another case", entries: entries, subpath: "Skills/Foo", wantErr: ErrFormat},
		{name: "subpath out", entries: entries, subpath: "../skills/foo", wantErr: ErrUnsafe, named: "../skills/foo"},
		{name: "subpath absolute", entries: entries, subpath: "/skills/foo", wantErr: ErrUnsafe, named: "/skills/foo"},
		{name: "hostile name outside", entries: append(slices.Clone(entries), tReg("other/../../evil", "x")), subpath: "skills/foo", wantErr: ErrUnsafe, named: "other/../../evil"},
		{name: "collision outside", entries: append(slices.Clone(entries), tReg("readme.md", "x")), subpath: "skills/foo", wantErr: ErrUnsafe, named: "readme.md"},
		{name: "oversized file outside", entries: append(slices.Clone(entries), tReg("other/big", strings.Repeat("x", 101))), subpath: "skills/foo", opts: func(o *Options) { o.MaxFileSize = 100 }, wantErr: ErrLimit, named: "other/big"},
		{name: "entries outside are counted", entries: entries, subpath: "skills/foo", opts: func(o *Options) { o.MaxArchiveEntries = len(entries) + implied - 1 }, wantErr: ErrLimit},
		{name: "entries outside are counted, just fits", entries: entries, subpath: "skills/foo", opts: func(o *Options) { o.MaxArchiveEntries = len(entries) + implied }, want: fooWant},
		{name: "symlink out of the subpath", entries: append(slices.Clone(entries), tSymlink("skills/foo/l", "../foobar/x")), subpath: "skills/foo", wantErr: ErrUnsafe, named: "skills/foo/l"},
		{name: "symlink outside the subpath is checked", entries: append(slices.Clone(entries), tSymlink("other/l", "/etc/passwd")), subpath: "skills/foo", wantErr: ErrUnsafe, named: "other/l"},
		{name: "symlink inside the subpath", entries: append(slices.Clone(entries), tSymlink("skills/foo/l", "x.txt")), subpath: "skills/foo", want: map[string]wantFile{"SKILL.md": {skillMD, false}, "x.txt": {"x", false}, "l": {"x", false}}},
		{name: "hardlink out of the subpath", entries: append(slices.Clone(entries), tLink("skills/foo/h", "skills/foobar/x")), subpath: "skills/foo", wantErr: ErrUnsafe, named: "skills/foo/h", tarOnly: true},
		{name: "hardlink inside the subpath", entries: append(slices.Clone(entries), tLink("skills/foo/h", "skills/foo/x.txt")), subpath: "skills/foo", want: map[string]wantFile{"SKILL.md": {skillMD, false}, "x.txt": {"x", false}, "h": {"x", false}}, tarOnly: true},
	}
	for _, tc := range cases {
		for _, format := range []string{formatTar, formatTarGz, formatZip} {
			if tc.tarOnly && format == formatZip {
				continue
			}
			t.Run(tc.name+"/"+string(format), func(t *testing.T) {
				s := newSandbox(t)
				var data []byte
				switch format {
				case formatZip:
					data = zipOf(tc.entries)
				case formatTar:
					data = tarBytes(t, tc.entries...)
				case formatTarGz:
					data = gz(t, tarBytes(t, tc.entries...))
				}
				opts := testOptions()
				opts.Subpath = tc.subpath
				if tc.opts != nil {
					tc.opts(&opts)
				}
				files, err := s.extract(t, data, opts)
				if tc.wantErr != nil {
					s.checkRefused(t, "Archive", tc.name, err, tc.wantErr, tc.named)
				} else {
					checkWritten(t, s, "Archive", tc.name, files, err, tc.want)
				}
				s.checkUntouched(t)
			})
		}
	}
}

// TestPAXGlobalHeader checks that a global header is skipped, even one
// that names a path out of the archive.
func TestPAXGlobalHeader(t *testing.T) {
	t.Parallel()
	viaWriter := tarBytes(t,
		tarEntry{Header: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"path": "../../evil", "comment": "git archive"}}},
		tReg("SKILL.md", skillMD),
	)
	byHand := rawTar(paxHeader('g', "path", "../../evil", "comment", "x"), rawFile("SKILL.md", skillMD), paxHeader('g', "mtime", "1"))
	for name, data := range map[string][]byte{"tar.Writer": viaWriter, "by hand": byHand, "gzipped": gz(t, byHand)} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t)
			opts := testOptions()
			opts.MaxArchiveEntries = 1 // global headers are not entries
			files, err := s.extract(t, data, opts)
			checkWritten(t, s, "Archive", name, files, err, map[string]wantFile{"SKILL.md": {skillMD, false}})
			s.checkUntouched(t)
		})
	}
}

// TestModesIgnored checks that archive modes do not survive except the
// executable bit: no setuid, setgid, sticky, group or world write.
func TestModesIgnored(t *testing.T) {
	t.Parallel()
	tarData := tarBytes(t,
		tReg("SKILL.md", skillMD),
		tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: "suid", Mode: 0o7755, Size: 1}, "x"},
		tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: "suid-noexec", Mode: 0o4666, Size: 1}, "x"},
		tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: "group-exec", Mode: 0o610, Size: 1}, "x"},
		tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: "none", Mode: 0, Size: 1}, "x"},
		tarEntry{Header: tar.Header{Typeflag: tar.TypeDir, Name: "sticky/", Mode: 0o1777}},
		tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: "sticky/f", Mode: 0o777, Size: 1}, "x"},
	)
	zipData := zipBytes(t,
		zFile("SKILL.md", skillMD),
		zMode("suid", "x", fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky|0o755),
		zMode("suid-noexec", "x", fs.ModeSetuid|0o666),
		zMode("group-exec", "x", 0o610),
		zMode("none", "x", 0),
		zDir("sticky/"),
		zMode("sticky/f", "x", 0o777),
	)
	want := map[string]wantFile{
		"SKILL.md":    {skillMD, false},
		"suid":        {"x", true},
		"suid-noexec": {"x", false},
		"group-exec":  {"x", true},
		"none":        {"x", false},
		"sticky/f":    {"x", true},
	}
	for name, data := range map[string][]byte{"tar": tarData, "zip": zipData} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t)
			files, err := s.extract(t, data, testOptions())
			checkWritten(t, s, "Archive", name, files, err, want) // checks 0444, 0555 and 0755 exactly
			s.checkUntouched(t)
		})
	}
}

// TestMetadataIgnored checks that owners, times and extended attributes
// from the archive are not applied.
func TestMetadataIgnored(t *testing.T) {
	t.Parallel()
	future := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	data := tarBytes(t,
		tReg("SKILL.md", skillMD),
		tarEntry{tar.Header{
			Typeflag: tar.TypeReg, Name: "owned", Mode: 0o644, Size: 1,
			Uid: 0, Gid: 0, Uname: "root", Gname: "wheel", ModTime: future,
			PAXRecords: map[string]string{"SCHILY.xattr.user.evil": "1", "SCHILY.xattr.security.capability": "x"},
		}, "x"},
	)
	s := newSandbox(t)
	before := time.Now().Add(-time.Minute)
	files, err := s.extract(t, data, testOptions())
	checkWritten(t, s, "Archive", "owned", files, err, map[string]wantFile{"SKILL.md": {skillMD, false}, "owned": {"x", false}})
	info, err := s.root.Stat("owned")
	if err != nil {
		t.Fatal(err)
	}
	if mt := info.ModTime(); mt.Before(before) || mt.After(time.Now().Add(time.Minute)) {
		t.Errorf("Archive(%q): mtime = %v, want the time of extraction", "owned", mt)
	}
	s.checkUntouched(t)
}

// TestLateFailure covers a failure found after files were written (a
// checksum at the end of the last entry): nothing outside dst changes,
// and the owner of dst can remove what was written.
func TestLateFailure(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("late ", 100)
	data := zipBytes(t, zFile("SKILL.md", skillMD), zDir("sub/"), zMode("sub/run.sh", "#!/bin/sh\n", 0o755),
		zRaw("sub/zz.txt", body, func(h *zip.FileHeader) { h.CRC32 ^= 1 }))
	s := newSandbox(t)
	_, err := s.extract(t, data, testOptions())
	checkErr(t, "Archive", "late CRC", err, ErrFormat)
	s.checkUntouched(t)
	if err := os.RemoveAll(s.dst); err != nil {
		t.Errorf("RemoveAll(dst) after a late failure = %v, want nil", err)
	}
}

// TestNoReplace checks that extraction never replaces a file already in the
// destination.
func TestNoReplace(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"zip": zipBytes(t, zFile("SKILL.md", skillMD)),
		"tar": tarBytes(t, tReg("SKILL.md", skillMD)),
	} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t)
			if err := s.root.WriteFile("SKILL.md", []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.extract(t, data, testOptions())
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("Archive(%q) into a root holding SKILL.md = %v, want %v", name, err, fs.ErrExist)
			}
			if b, _ := s.root.ReadFile("SKILL.md"); string(b) != "mine" {
				t.Errorf("Archive(%q) replaced SKILL.md with %q", name, b)
			}
			s.checkUntouched(t)
		})
	}
}

// TestFirstErrorWins checks that when one file fails while others are
// being written concurrently, the error returned is that file's, wrapping
// its sentinel, and not the cancellation it causes for the others.
func TestFirstErrorWins(t *testing.T) {
	t.Parallel()
	var tentries []tarEntry
	zentries := []zipEntry{zFile("SKILL.md", skillMD), zRaw("bad.txt", "bad", func(h *zip.FileHeader) { h.CRC32 ^= 1 })}
	for i := range 64 {
		body := strings.Repeat(string(rune('a'+i%26)), 16<<10)
		tentries = append(tentries, tReg(fmt.Sprintf("f%02d.txt", i), body))
		zentries = append(zentries, zFile(fmt.Sprintf("f%02d.txt", i), body))
	}
	tarData := tarBytes(t, append([]tarEntry{tReg("SKILL.md", skillMD), tReg("taken.txt", "x")}, tentries...)...)
	cases := []struct {
		name  string
		data  []byte
		taken string // a file already in dst
		want  error
	}{
		{"zip, early CRC failure", zipBytes(t, zentries...), "", ErrFormat},
		{"tar, early file exists", tarData, "taken.txt", fs.ErrExist},
		{"tar.gz, early file exists", gz(t, tarData), "taken.txt", fs.ErrExist},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for range 10 {
				s := newSandbox(t)
				if tc.taken != "" {
					if err := s.root.WriteFile(tc.taken, []byte("mine"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				_, err := s.extract(t, tc.data, testOptions())
				if !errors.Is(err, tc.want) || errors.Is(err, context.Canceled) {
					t.Fatalf("Archive(%q) = %v, want %v", tc.name, err, tc.want)
				}
			}
		})
	}
}

// cancelAfter is an io.ReaderAt that cancels a context once n bytes were
// read: a deadline or a kill arriving mid-extraction.
type cancelAfter struct {
	r      io.ReaderAt
	n      int64
	cancel context.CancelFunc
	mu     sync.Mutex
	read   int64
}

func (c *cancelAfter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.mu.Lock()
	c.read += int64(n)
	if c.read >= c.n {
		c.cancel()
	}
	c.mu.Unlock()
	return n, err
}

// TestCancel checks that extraction stops when its context ends, returns
// the context's error, and writes nothing outside dst.
func TestCancel(t *testing.T) {
	t.Parallel()
	var entries []tarEntry
	var zentries []zipEntry
	big := strings.Repeat("z", 64<<10)
	entries = append(entries, tReg("SKILL.md", skillMD))
	zentries = append(zentries, zFile("SKILL.md", skillMD))
	for i := range 16 {
		entries = append(entries, tReg(fmt.Sprintf("f%02d", i), big))
		zentries = append(zentries, zRaw(fmt.Sprintf("f%02d", i), big, nil))
	}
	tarData := tarBytes(t, entries...)
	for name, data := range map[string][]byte{"tar": tarData, "tar.gz": gz(t, tarData), "zip": zipBytes(t, zentries...)} {
		for _, after := range []int64{0, int64(len(data)) / 4, int64(len(data)) / 2} {
			t.Run(fmt.Sprintf("%s/after %d bytes", name, after), func(t *testing.T) {
				s := newSandbox(t)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if after == 0 {
					cancel()
				}
				r := &cancelAfter{r: bytes.NewReader(data), n: max(after, 1), cancel: cancel}
				_, err := Archive(ctx, r, int64(len(data)), s.root, testOptions())
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Archive(%q) = %v, want %v", name, err, context.Canceled)
				}
				for _, sentinel := range sentinels {
					if errors.Is(err, sentinel) {
						t.Errorf("Archive(%q) = %v, which wraps %v, want only the context's error", name, err, sentinel)
					}
				}
				s.checkUntouched(t)
			})
		}
	}
}

// TestDeadline checks that an expired deadline stops extraction with the
// context's error, as a gzip bomb's slow expansion would.
func TestDeadline(t *testing.T) {
	t.Parallel()
	data := gz(t, tarBytes(t, tReg("SKILL.md", skillMD), tReg("zeros.bin", string(make([]byte, 512<<10)))))
	s := newSandbox(t)
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := Archive(ctx, bytes.NewReader(data), int64(len(data)), s.root, testOptions())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Archive(%q) = %v, want %v", "expired deadline", err, context.DeadlineExceeded)
	}
	s.checkEmpty(t, "expired deadline", err)
	s.checkUntouched(t)
}

// TestRecursiveArchive checks that archives inside the archive are written
// as plain files, byte for byte, and never opened (42.zip).
func TestRecursiveArchive(t *testing.T) {
	t.Parallel()
	level1 := zipBytes(t, zFile("SKILL.md", skillMD), zFile("../../evil.txt", "pwned"))
	var nested []zipEntry
	for i := range 8 {
		nested = append(nested, zRaw(fmt.Sprintf("%d.zip", i), string(level1), nil))
	}
	level2 := zipBytes(t, nested...)
	innerTgz := gz(t, tarBytes(t, tReg("SKILL.md", skillMD), tSymlink("l", "/etc/passwd")))
	want := map[string]wantFile{
		"SKILL.md":     {skillMD, false},
		"42.zip":       {string(level2), false},
		"inner.tar.gz": {string(innerTgz), false},
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"zip", zipBytes(t, zFile("SKILL.md", skillMD), zRaw("42.zip", string(level2), nil), zFile("inner.tar.gz", string(innerTgz)))},
		{"tar.gz", gz(t, tarBytes(t, tReg("SKILL.md", skillMD), tReg("42.zip", string(level2)), tReg("inner.tar.gz", string(innerTgz))))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			files, err := s.extract(t, tc.data, testOptions())
			checkWritten(t, s, "Archive", tc.name, files, err, want)
			s.checkUntouched(t)
		})
	}
}

// TestConcurrent extracts one archive from many goroutines at once, each
// into its own root (the cache's racing materializers): all agree.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	entries := []tarEntry{tReg("SKILL.md", skillMD), tExec("run.sh", "#!/bin/sh\n"), tSymlink("l", "run.sh")}
	for i := range 48 {
		entries = append(entries, tReg(fmt.Sprintf("d%d/%03d.txt", i%4, i), strings.Repeat("x", i*37)))
	}
	entries = append(entries, tReg("large.bin", strings.Repeat("L", 300<<10))) // streamed, not buffered
	tarData := tarBytes(t, entries...)
	zentries := []zipEntry{zFile("SKILL.md", skillMD), zMode("run.sh", "#!/bin/sh\n", 0o755), zSymlink("l", "run.sh")}
	for i := range 48 {
		zentries = append(zentries, zFile(fmt.Sprintf("d%d/%03d.txt", i%4, i), strings.Repeat("y", i*37)))
	}
	for name, data := range map[string][]byte{"tar": tarData, "tar.gz": gz(t, tarData), "zip": zipBytes(t, zentries...)} {
		t.Run(name, func(t *testing.T) {
			r := bytes.NewReader(data)
			const n = 6
			results := make([][]File, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				dir := t.TempDir()
				root, err := os.OpenRoot(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer root.Close()
				wg.Go(func() {
					results[i], errs[i] = Archive(t.Context(), r, int64(len(data)), root, testOptions())
				})
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("Archive(%q) in goroutine %d = %v, want nil", name, i, errs[i])
				}
				sortFiles(results[i])
				if !slices.Equal(results[i], results[0]) {
					t.Errorf("Archive(%q) in goroutine %d = %v, want %v", name, i, results[i], results[0])
				}
			}
		})
	}
}

// TestRootRegressions checks the os.Root behaviour the extractor relies on
// (CVE fixes in Go 1.26.5): a link out cannot be opened with a trailing
// slash, and "../" is refused.
func TestRootRegressions(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	if err := os.Symlink(filepath.Join(s.dir, "victim"), filepath.Join(s.dst, "symlink")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join(s.dir, "victim", "secret.txt"), filepath.Join(s.dst, "filelink")); err != nil {
		t.Fatal(err)
	}
	s.before = snapshot(t, s.top, s.dst)
	for _, name := range []string{"symlink/", "symlink", "symlink/secret.txt", "filelink", "../", "..", "../victim.txt", "/"} {
		f, err := s.root.Open(name)
		if err == nil {
			f.Close()
			t.Errorf("Root.Open(%q) = nil error, want an escape refused", name)
		}
		if err := s.root.WriteFile(path.Join(name, "evil"), []byte("pwned"), 0o644); err == nil {
			t.Errorf("Root.WriteFile(%q) = nil error, want an escape refused", path.Join(name, "evil"))
		}
	}
	s.checkUntouched(t)
}

// ---------------------------------------------------------------------------
// Limits: each one crossed by one, and met exactly.

// limitCase is an archive and limits that either fit exactly (want nil) or
// are one short (want ErrLimit, and nothing written).
type limitCase struct {
	name  string
	data  []byte
	fsys  fs.FS // when set, FS is used instead of Archive
	opts  Options
	want  error
	named string
}

func runLimits(t *testing.T, cases []limitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			var files []File
			var err error
			size := int64(len(tc.data))
			if tc.fsys != nil {
				size = fsSize(t, tc.fsys)
				counted := &countingFS{fsys: tc.fsys}
				files, err = FS(t.Context(), counted, ".", s.root, tc.opts)
				s.read = counted.n.Load()
			} else {
				files, err = s.extract(t, tc.data, tc.opts)
			}
			if tc.want == nil {
				checkWritten(t, s, "Archive", tc.name, files, err, nil)
			} else {
				s.checkRefused(t, "Archive", tc.name, err, tc.want, tc.named)
			}
			s.checkUntouched(t)
			if max := readBudget(size); s.read > max {
				t.Errorf("Archive(%q) read %d bytes of a %d-byte input, want at most %d", tc.name, s.read, size, max)
			}
		})
	}
}

// fsSize is the bytes of fsys's regular files.
func fsSize(t *testing.T, fsys fs.FS) int64 {
	t.Helper()
	var size int64
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		size += info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// limits returns Options with the given limits; zero means generous.
func limits(file, total int64, entries int) Options {
	o := testOptions()
	if file > 0 {
		o.MaxFileSize = file
	}
	if total > 0 {
		o.MaxTotalSize = total
	}
	if entries > 0 {
		o.MaxArchiveEntries = entries
	}
	return o
}

func TestZipLimits(t *testing.T) {
	t.Parallel()
	skill := zFile("SKILL.md", skillMD)
	oneK := zipBytes(t, skill, zFile("a.bin", strings.Repeat("a", 1000)))
	total := int64(len(skillMD) + 1000)

	many := func(n int) []byte {
		entries := []zipEntry{skill, zDir("d/")}
		for i := range n - 2 {
			entries = append(entries, zRaw(fmt.Sprintf("d/%05d", i), "", nil))
		}
		return zipBytes(t, entries...)
	}
	withLinks := func(size, n int) []byte {
		entries := []zipEntry{skill, zFile("big", strings.Repeat("b", size))}
		for i := range n {
			entries = append(entries, zSymlink(fmt.Sprintf("l%05d", i), "big"))
		}
		return zipBytes(t, entries...)
	}
	links3 := withLinks(10000, 3)
	linksTotal := int64(len(skillMD) + 4*10000)

	runLimits(t, []limitCase{
		{name: "MaxFileSize met", data: oneK, opts: limits(1000, 0, 0)},
		{name: "MaxFileSize crossed", data: oneK, opts: limits(999, 0, 0), want: ErrLimit, named: "a.bin"},
		{name: "MaxTotalSize met", data: oneK, opts: limits(0, total, 0)},
		{name: "MaxTotalSize crossed", data: oneK, opts: limits(0, total-1, 0), want: ErrLimit},
		{name: "MaxArchiveEntries met", data: many(100), opts: limits(0, 0, 100)},
		{name: "MaxArchiveEntries crossed", data: many(100), opts: limits(0, 0, 99), want: ErrLimit},
		{name: "MaxArchiveEntries 1000 crossed by 1001", data: many(1001), opts: limits(0, 0, 1000), want: ErrLimit},
		{name: "link copies met", data: links3, opts: limits(0, linksTotal, 0)},
		{name: "link copies crossed", data: links3, opts: limits(0, linksTotal-1, 0), want: ErrLimit},
		{name: "10000 link copies of one large file", data: withLinks(64<<10, 10000), opts: limits(0, 4<<20, 20000), want: ErrLimit},
	})
}

func TestTarLimits(t *testing.T) {
	t.Parallel()
	skill := tReg("SKILL.md", skillMD)
	oneK := tarBytes(t, skill, tReg("a.bin", strings.Repeat("a", 1000)))
	oneKTar := oneK

	many := func(n int) []byte {
		files := rawHeaders(n-2, tar.TypeReg, "", func(i int) string { return fmt.Sprintf("d/%05d", i) })
		return rawTar(append([][]byte{rawFile("SKILL.md", skillMD), rawHeader("d/", tar.TypeDir, 0, "")}, files...)...)
	}
	withLinks := func(size, n int) []byte {
		parts := [][]byte{rawFile("SKILL.md", skillMD), rawFile("big", strings.Repeat("b", size))}
		parts = append(parts, rawHeaders(n/2, tar.TypeLink, "big", func(i int) string { return fmt.Sprintf("h%05d", i) })...)
		parts = append(parts, rawHeaders(n-n/2, tar.TypeSymlink, "big", func(i int) string { return fmt.Sprintf("s%05d", i) })...)
		return rawTar(parts...)
	}
	links3 := withLinks(10000, 3)
	linksTotal := int64(len(skillMD) + 4*10000)

	// A bomb of zero files, each under the per-file cap: the total is met
	// exactly by the decompressed stream, headers included.
	var zeros []tarEntry
	for i := range 32 {
		zeros = append(zeros, tReg(fmt.Sprintf("z/%02d", i), string(make([]byte, 32<<10))))
	}
	bomb := tarBytes(t, append([]tarEntry{skill}, zeros...)...)
	bombTar := bomb

	// A flood of PAX headers: only the decompressed-bytes cap sees it.
	var flood [][]byte
	flood = append(flood, rawFile("SKILL.md", skillMD))
	for range 200 {
		flood = append(flood, paxHeader('x', "comment", strings.Repeat("x", 400)))
	}
	flood = append(flood, rawFile("a.txt", "x"))
	paxFlood := rawTar(flood...)
	paxFloodTar := paxFlood

	many100, many1001, linkBomb := many(100), many(1001), withLinks(64<<10, 10000)

	var cases []limitCase
	for _, gzipped := range []bool{false, true} {
		wrap, suffix := func(b []byte) []byte { return b }, "/tar"
		if gzipped {
			wrap, suffix = func(b []byte) []byte { return gz(t, b) }, "/tar.gz"
		}
		stream := func(b []byte) int64 { return int64(len(b)) } // bytes out of the decompressor
		oneK, many100, bomb, paxFlood := wrap(oneK), wrap(many100), wrap(bomb), wrap(paxFlood)
		cases = append(cases,
			limitCase{name: "MaxFileSize met" + suffix, data: oneK, opts: limits(1000, 0, 0)},
			limitCase{name: "MaxFileSize crossed" + suffix, data: oneK, opts: limits(999, 0, 0), want: ErrLimit, named: "a.bin"},
			limitCase{name: "MaxTotalSize met" + suffix, data: oneK, opts: limits(0, stream(oneKTar), 0)},
			limitCase{name: "MaxTotalSize crossed" + suffix, data: oneK, opts: limits(0, stream(oneKTar)-1, 0), want: ErrLimit},
			limitCase{name: "MaxArchiveEntries met" + suffix, data: many100, opts: limits(0, 0, 100)},
			limitCase{name: "MaxArchiveEntries crossed" + suffix, data: many100, opts: limits(0, 0, 99), want: ErrLimit},
			limitCase{name: "MaxArchiveEntries 1000 crossed by 1001" + suffix, data: wrap(many1001), opts: limits(0, 0, 1000), want: ErrLimit},
			limitCase{name: "link copies met" + suffix, data: wrap(links3), opts: limits(0, linksTotal, 0)},
			limitCase{name: "link copies crossed" + suffix, data: wrap(links3), opts: limits(0, linksTotal-1, 0), want: ErrLimit},
			limitCase{name: "10000 link copies of one large file" + suffix, data: wrap(linkBomb), opts: limits(0, 8<<20, 20000), want: ErrLimit},
			limitCase{name: "zero-file bomb met" + suffix, data: bomb, opts: limits(32<<10, stream(bombTar), 0)},
			limitCase{name: "zero-file bomb crossed" + suffix, data: bomb, opts: limits(32<<10, stream(bombTar)-1, 0), want: ErrLimit},
			limitCase{name: "PAX flood met" + suffix, data: paxFlood, opts: limits(0, stream(paxFloodTar), 2)},
			limitCase{name: "PAX flood crossed" + suffix, data: paxFlood, opts: limits(0, stream(paxFloodTar)-1, 2), want: ErrLimit},
		)
	}
	runLimits(t, cases)
}

func TestFSLimits(t *testing.T) {
	t.Parallel()
	file := func(s string, mode fs.FileMode) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: mode} }
	oneK := fstest.MapFS{"SKILL.md": file(skillMD, 0o644), "a.bin": file(strings.Repeat("a", 1000), 0o644)}
	total := int64(len(skillMD) + 1000)
	many := fstest.MapFS{"SKILL.md": file(skillMD, 0o644)}
	for i := range 98 {
		many[fmt.Sprintf("d/%02d", i)] = file("", 0o644)
	}
	// 1 SKILL.md + 1 folder + 98 files = 100 entries.
	links := fstest.MapFS{
		"SKILL.md": file(skillMD, 0o644),
		"big":      file(strings.Repeat("b", 1000), 0o644),
		"l1":       file("big", fs.ModeSymlink|0o777),
		"l2":       file("big", fs.ModeSymlink|0o777),
	}
	linksTotal := int64(len(skillMD) + 3*1000)
	runLimits(t, []limitCase{
		{name: "MaxFileSize met", fsys: oneK, opts: limits(1000, 0, 0)},
		{name: "MaxFileSize crossed", fsys: oneK, opts: limits(999, 0, 0), want: ErrLimit, named: "a.bin"},
		{name: "MaxTotalSize met", fsys: oneK, opts: limits(0, total, 0)},
		{name: "MaxTotalSize crossed", fsys: oneK, opts: limits(0, total-1, 0), want: ErrLimit},
		{name: "MaxArchiveEntries met", fsys: many, opts: limits(0, 0, 100)},
		{name: "MaxArchiveEntries crossed", fsys: many, opts: limits(0, 0, 99), want: ErrLimit},
		{name: "link copies met", fsys: links, opts: limits(0, linksTotal, 0)},
		{name: "link copies crossed", fsys: links, opts: limits(0, linksTotal-1, 0), want: ErrLimit},
	})
}

// growingFS serves a file that is longer when read than when listed.
type growingFS struct{ fstest.MapFS }

func (g growingFS) Open(name string) (fs.File, error) {
	f, err := g.MapFS.Open(name)
	if err != nil || name != "grows" {
		return f, err
	}
	return &growingFile{File: f, extra: 1 << 20}, nil
}

type growingFile struct {
	fs.File
	extra int
}

func (f *growingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if err == io.EOF && f.extra > 0 {
		n = min(len(p), f.extra)
		clear(p[:n])
		f.extra -= n
		return n, nil
	}
	return n, err
}

// TestFSGrowingFile checks that FS bounds what it copies, not what the
// file said it held when listed.
func TestFSGrowingFile(t *testing.T) {
	t.Parallel()
	fsys := growingFS{fstest.MapFS{
		"SKILL.md": {Data: []byte(skillMD), Mode: 0o644},
		"grows":    {Data: []byte("small"), Mode: 0o644},
	}}
	s := newSandbox(t)
	_, err := FS(t.Context(), fsys, ".", s.root, limits(64<<10, 0, 0))
	checkErr(t, "FS", "grows", err, ErrLimit)
	checkNamed(t, "FS", "grows", err, "grows")
	s.checkUntouched(t)
}

// A zip whose directory holds more records than the entry limit is refused
// before archive/zip builds them all, so memory stays small.
func TestZipEntryCountFromEndRecord(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 20000 {
		zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%04d", i), Method: zip.Store})
	}
	zw.Close()
	data := buf.Bytes()
	if claimed, counted, ok := zipEntries(bytes.NewReader(data), int64(len(data)), 30000); !ok || claimed != 20000 || counted != 20000 {
		t.Fatalf("zipEntries = %d, %d, %v, want 20000 claimed and counted", claimed, counted, ok)
	}
	opts := testOptions()
	opts.MaxArchiveEntries = 19999
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Archive(t.Context(), bytes.NewReader(data), int64(len(data)), nil, opts)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("Archive = %v, want ErrLimit", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing the archive allocated %d bytes; the directory was read", grew)
	}
}

// deepNames returns n file names, each depth elements deep under a top
// folder of its own, so each implies depth-1 folders nothing lists.
func deepNames(n, depth int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%05d/", i) + strings.Repeat("d/", depth-2) + "f"
	}
	return names
}

// Every folder a name implies counts against the entry limit, so a small
// archive of deep names cannot make thousands of folders.
func TestImpliedFoldersCount(t *testing.T) {
	t.Parallel()
	build := func(format string, names []string) []byte {
		if format == formatZip {
			entries := []zipEntry{zFile("SKILL.md", skillMD)}
			for _, n := range names {
				entries = append(entries, zRaw(n, "", nil))
			}
			return zipBytes(t, entries...)
		}
		parts := [][]byte{rawFile("SKILL.md", skillMD)}
		for _, n := range names {
			parts = append(parts, rawFile(n, ""))
		}
		if format == formatTarGz {
			return gz(t, rawTar(parts...))
		}
		return rawTar(parts...)
	}
	for _, format := range []string{formatTar, formatTarGz, formatZip} {
		// SKILL.md, a/b/c/f and the folders a, a/b and a/b/c: 5 entries.
		abc := build(format, []string{"a/b/c/f"})
		// An explicit folder entry counts once, whether it comes before or
		// after the names inside it.
		var listed []byte
		if format == formatZip {
			listed = zipBytes(t, zFile("SKILL.md", skillMD), zRaw("a/b/c/f", "", nil), zDir("a/b/"), zDir("a/"))
		} else {
			listed = rawTar(rawFile("SKILL.md", skillMD), rawFile("a/b/c/f", ""), rawHeader("a/b/", tar.TypeDir, 0, ""), rawHeader("a/", tar.TypeDir, 0, ""))
			if format == formatTarGz {
				listed = gz(t, listed)
			}
		}
		// 100 names 32 deep under their own top folders imply 3,100
		// folders: over a limit of 1,000 entries that 101 entries meet.
		deep := build(format, deepNames(100, MaxDepth))
		suffix := "/" + string(format)
		opts := func(entries int) Options { o := limits(0, 0, entries); o.Format = format; return o }
		runLimits(t, []limitCase{
			{name: "implied folders met" + suffix, data: abc, opts: opts(5)},
			{name: "implied folders crossed" + suffix, data: abc, opts: opts(4), want: ErrLimit},
			{name: "listed folders counted once, met" + suffix, data: listed, opts: opts(5)},
			{name: "listed folders counted once, crossed" + suffix, data: listed, opts: opts(4), want: ErrLimit},
			{name: "deep names under their own folders" + suffix, data: deep, opts: opts(1000), want: ErrLimit},
		})
	}
}

// zipOfEmpty builds a zip of n empty stored files by hand, with no zip64
// records: its end record claims uint16(n) entries, which archive/zip
// accepts for any n with the same remainder modulo 65,536. comment is the
// end record's comment.
func zipOfEmpty(n int, comment string) []byte {
	var local, dir bytes.Buffer
	for i := range n {
		name := fmt.Sprintf("f%06d", i)
		h := make([]byte, 30)
		le.PutUint32(h[0:], 0x04034b50)
		le.PutUint16(h[4:], 20)
		le.PutUint16(h[26:], uint16(len(name)))
		off := local.Len()
		local.Write(h)
		local.WriteString(name)
		c := make([]byte, 46)
		le.PutUint32(c[0:], 0x02014b50)
		le.PutUint16(c[4:], 20)
		le.PutUint16(c[6:], 20)
		le.PutUint16(c[28:], uint16(len(name)))
		le.PutUint32(c[42:], uint32(off))
		dir.Write(c)
		dir.WriteString(name)
	}
	end := make([]byte, 22)
	le.PutUint32(end[0:], 0x06054b50)
	le.PutUint16(end[8:], uint16(n))
	le.PutUint16(end[10:], uint16(n))
	le.PutUint32(end[12:], uint32(dir.Len()))
	le.PutUint32(end[16:], uint32(local.Len()))
	le.PutUint16(end[20:], uint16(len(comment)))
	out := append(local.Bytes(), dir.Bytes()...)
	out = append(out, end...)
	return append(out, comment...)
}

// A zip whose end record hides how many records its directory holds is
// refused before archive/zip builds them: refusing costs little memory
// next to the archive, whatever the directory holds.
//
// Not parallel: TotalAlloc counts every goroutine of the test binary, so
// the measure holds only while no other test runs.
func TestZipHiddenEntryCount(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		// 65,537 records; the end record claims 1 (65,537 modulo 65,536).
		{"count wrapped modulo 65536", zipOfEmpty(1<<16+1, "")},
		// The end record claims 20,000, and its comment ends with an end
		// signature that is not an end record.
		{"end signature in the last bytes of the comment", zipOfEmpty(20000, "xxPK\x05\x06")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Archive(t.Context(), bytes.NewReader(tc.data), int64(len(tc.data)), nil, opts)
			runtime.ReadMemStats(&after)
			checkErr(t, "Archive", tc.name, err, ErrLimit)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("refusing a %d-byte archive allocated %d bytes; the directory was built", len(tc.data), grew)
			}
		})
	}
}

// longDeepNames returns n names of about 1,000 bytes, 32 levels deep,
// spelled in upper-case letters outside ASCII (so folding them allocates):
// with shared, they share their 31 folders; else each has a top folder of
// its own.
func longDeepNames(n int, shared bool) []string {
	elem := strings.Repeat("Ä", 15) // 30 bytes
	names := make([]string, n)
	for i := range names {
		if shared {
			names[i] = strings.Repeat(elem+"/", 31) + fmt.Sprintf("%05d", i) + strings.Repeat("É", 12)
		} else {
			names[i] = fmt.Sprintf("%05d", i) + strings.Repeat("/"+elem, 30) + "/f"
		}
	}
	return names
}

// Planning holds each element of the names once, with its fold key, and
// folds an element once however many names repeat it: its memory is
// bounded by the entry and name limits, not by the names' length times
// their depth.
func TestPlanMemory(t *testing.T) {
	opts := testOptions()
	opts.MaxArchiveEntries = 2000
	for _, shared := range []bool{true, false} {
		names := longDeepNames(opts.MaxArchiveEntries-32, shared)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p := newPlan(opts)
		var err error
		for _, n := range names {
			if err = p.add(n, kindFile, false, 0, ""); err != nil {
				break
			}
		}
		runtime.ReadMemStats(&after)
		if shared && err != nil {
			t.Fatalf("plan of %d shared names: %v", len(names), err)
		}
		if !shared && !errors.Is(err, ErrLimit) {
			t.Fatalf("plan of %d names under folders of their own = %v, want %v", len(names), err, ErrLimit)
		}
		// A few KiB for each entry the limit allows: an element and its
		// fold key of at most MaxNameLen bytes each, and their bookkeeping.
		// The names are the caller's. (Folding every prefix of every name
		// allocated 670 MB here at 10,000 entries.)
		bound := uint64(opts.MaxArchiveEntries) * 4 << 10
		if grew := after.TotalAlloc - before.TotalAlloc; grew > bound {
			t.Errorf("planning %d names (shared folders %v) allocated %d bytes, want at most %d", len(names), shared, grew, bound)
		}
		runtime.KeepAlive(p)
	}
}
