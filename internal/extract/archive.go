package extract

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// Sniff names the format of an archive from its leading bytes: a zip local
// file header (or the end record of an empty zip) at offset 0, the gzip
// magic, or the ustar magic at offset 257. Anything else is [ErrFormat].
func Sniff(head []byte) (string, error) {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return formatZip, nil
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return formatTarGz, nil
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return formatTar, nil
	}
	return "", ErrUnrecognized
}

// ErrUnrecognized is the [ErrFormat] of an archive whose leading bytes
// name no format ([Sniff]): a caller that lets its user name the format
// says so.
var ErrUnrecognized = formatf("not a zip, tar or tar.gz archive")

// Archive extracts the skill held in the archive r (size bytes long) into
// dst, checking every entry, and returns the files it wrote. With a nil
// dst it checks and hashes without writing. When the archive is refused
// or the context cancelled, it removes what it created in dst; after an
// error of the file system, dst may hold part of the tree: the caller
// owns dst and removes it.
func Archive(ctx context.Context, r io.ReaderAt, size int64, dst *os.Root, opts Options) ([]File, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if wrapped := opts.Wrapped; wrapped != nil && opts.Subpath == "" && !opts.AnyTree {
		// The plan names the folder once it knows it; the caller hears of
		// it only when the extraction succeeded.
		sole := ""
		opts.Wrapped = func(folder string) { sole = folder }
		files, err := extractArchive(ctx, r, size, dst, opts)
		if err != nil || sole == "" {
			return files, err
		}
		for i := range files {
			files[i].Path = strings.TrimPrefix(files[i].Path, sole+"/")
		}
		wrapped(sole)
		return files, nil
	}
	opts.Wrapped = nil
	return extractArchive(ctx, r, size, dst, opts)
}

// extractArchive is Archive once its options are checked.
func extractArchive(ctx context.Context, r io.ReaderAt, size int64, dst *os.Root, opts Options) ([]File, error) {
	format := opts.Format
	if format == formatAuto {
		head := make([]byte, 512)
		n, err := r.ReadAt(head, 0)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if format, err = Sniff(head[:n]); err != nil {
			return nil, err
		}
	}
	switch format {
	case formatZip:
		return extractZip(ctx, r, size, dst, opts)
	case formatTar, formatTarGz:
		return extractTar(ctx, r, size, format == formatTarGz, dst, opts)
	}
	return nil, formatf("unknown format %q (use zip, tar or tar.gz)", format)
}

// counter counts the bytes that come out of a decompressor, fails once
// they pass the total limit, and checks for cancellation on every read.
// It also keeps what the tar checks need of the stream: the last block of
// 512 bytes read (after tar.Reader.Next, the raw header it parsed, for
// checkRawHeader) and how many of the bytes read last are zero (for the
// end marker).
type counter struct {
	ctx       context.Context
	r         io.Reader
	n         int64
	limit     int64
	zeros     int64 // how many of the last bytes read are zero
	lastBlock [512]byte
}

// Read reads from the decompressor, counting and checking.
func (c *counter) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n >= len(c.lastBlock) {
		copy(c.lastBlock[:], p[n-len(c.lastBlock):n])
	} else {
		copy(c.lastBlock[:], c.lastBlock[n:])
		copy(c.lastBlock[len(c.lastBlock)-n:], p[:n])
	}
	i := n
	for i > 0 && p[i-1] == 0 {
		i--
	}
	if i == 0 {
		c.zeros += int64(n)
	} else {
		c.zeros = int64(n - i)
	}
	if c.n > c.limit {
		return n, limitf(LimitTotalSize, c.limit, "more than %d bytes once decompressed", c.limit)
	}
	return n, err
}

// asFormat classifies a decoder error: limits and cancellation pass
// through; anything else is a corrupt archive.
//
// Errors from the file system (writing the destination, or reading a
// spooled archive) are not the archive's fault and pass through as they are.
func asFormat(err error) error {
	var pathErr *fs.PathError
	if err == nil || errors.Is(err, ErrLimit) || errors.Is(err, ErrUnsafe) || errors.Is(err, ErrFormat) ||
		isCancel(err) || errors.As(err, &pathErr) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrFormat, err)
}

// decompressed opens the tar stream of the archive: r itself, or r
// through gzip.
func decompressed(r io.ReaderAt, size int64, gz bool) (io.Reader, func(), error) {
	src := io.NewSectionReader(r, 0, size)
	if !gz {
		return src, func() {}, nil
	}
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, nil, asFormat(err)
	}
	return zr, func() { zr.Close() }, nil
}

func tarKind(h *tar.Header) (kind, error) {
	switch h.Typeflag {
	case tar.TypeReg:
		return kindFile, nil
	case tar.TypeDir:
		if h.Size != 0 {
			return 0, unsafeEntry(h.Name, "folder entry carries data")
		}
		return kindDir, nil
	case tar.TypeSymlink:
		return kindSymlink, nil
	case tar.TypeLink:
		return kindHardlink, nil
	case tar.TypeGNUSparse:
		return 0, unsafeEntry(h.Name, "sparse files are not allowed")
	}
	return 0, unsafeEntry(h.Name, fmt.Sprintf("entry type %q is not a regular file, folder or link", h.Typeflag))
}

// checkRawHeader refuses a ustar header whose name or link fields hold
// bytes after their terminating NUL: archive/tar cuts a field at its first
// NUL, so "evil\x00.txt" would silently become "evil". Names that came
// from PAX or GNU extension records are checked by archive/tar itself.
func checkRawHeader(h *tar.Header, blk *[512]byte) error {
	field := func(b []byte) (string, bool) {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return string(b), true
		}
		return string(b[:i]), len(bytes.Trim(b[i:], "\x00")) == 0
	}
	name, clean := field(blk[0:100])
	if string(blk[257:263]) == "ustar\x00" {
		prefix, ok := field(blk[345:500])
		if prefix != "" {
			name = prefix + "/" + name
		}
		clean = clean && ok
	}
	if name == h.Name && !clean {
		return unsafeEntry(h.Name, "name field holds data after a NUL byte")
	}
	if link, ok := field(blk[157:257]); link == h.Linkname && !ok {
		return unsafeEntry(h.Name, "link field holds data after a NUL byte")
	}
	return nil
}

func isSparse(h *tar.Header) bool {
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// extractTar reads the archive once: each header is checked as it
// arrives and each file of the skill is written and hashed as its bytes
// come out of the decompressor, which runs on a goroutine of its own, a
// few buffers ahead, while small files are written by others (see
// [fileWriter]). Links are written last, once every entry is known, as
// copies of files written. On the first violated rule, limit or
// cancellation it stops reading and removes what it created (see
// [writer.discard]). With Options.Scratch, a tar.gz is extracted in two
// passes instead (see [extractTarTwice]).
func extractTar(ctx context.Context, r io.ReaderAt, size int64, gz bool, dst *os.Root, opts Options) ([]File, error) {
	if gz && opts.Scratch != nil {
		return extractTarTwice(ctx, r, size, dst, opts)
	}
	src, stop := tarStream(ctx, r, size, gz, opts.MaxTotalSize)
	defer stop()
	w := newWriter(dst, opts)
	defer w.close()
	out := newFileWriter(ctx, 0, opts.writers)
	p := newPlan(opts)
	c := &counter{ctx: ctx, r: src, limit: opts.MaxTotalSize}
	err := scanTar(c, p, func(i int, e entry, r io.Reader, size int64) error {
		return out.writeFrom(w, i, e, r, size, opts.MaxFileSize)
	})
	if err = asFormat(out.wait(err)); err != nil {
		return nil, w.discard(err)
	}
	files, err := w.copyLinks(ctx, p, out.files())
	if err != nil {
		return nil, w.discard(err)
	}
	return files, nil
}

// tarStream opens the tar stream of the archive: r itself, or r through
// gzip, decompressed a few buffers ahead on a goroutine of its own that
// stops once it has produced more than limit bytes, so a bomb costs no
// more than the limit. stop ends that goroutine.
func tarStream(ctx context.Context, r io.ReaderAt, size int64, gz bool, limit int64) (src io.Reader, stop func()) {
	if !gz {
		return io.NewSectionReader(r, 0, size), func() {}
	}
	ahead := startPrefetch(ctx, func() (io.Reader, func(), error) {
		zr, closeZr, err := decompressed(r, size, true)
		if err != nil {
			return nil, nil, err
		}
		return io.LimitReader(zr, limit+1), closeZr, nil
	}, nil)
	return ahead, ahead.stop
}

// extractTarTwice makes two passes over the (immutable) tar.gz archive,
// for a destination that must never hold a file of an archive that is
// refused: the first checks every header, the gzip trailer and the
// padding without writing any file; the second writes the files. The
// first pass decompresses on a goroutine of its own and keeps the
// decompressed stream in the scratch file Options.Scratch returns, so the
// second reads plain tar instead of decompressing again; the first pass
// also hashes each file of the skill on the core the decompressor leaves
// idle, and the second checks the bytes it writes against a CRC-32 of
// what the first read.
func extractTarTwice(ctx context.Context, r io.ReaderAt, size int64, dst *os.Root, opts Options) ([]File, error) {
	src, scratch, release, err := firstTarPass(ctx, r, size, true, opts)
	if err != nil {
		return nil, err
	}
	defer release()
	p := newPlan(opts)
	c := &counter{ctx: ctx, r: src, limit: opts.MaxTotalSize}
	if err := planTar(c, p, true); err != nil {
		return nil, err
	}
	return writeTar(ctx, io.NewSectionReader(scratch, 0, c.n), p, dst, opts)
}

// firstTarPass opens the stream the first pass of [extractTarTwice]
// reads: the archive itself, or for tar.gz its decompressed stream, which
// is also copied into a scratch file (returned) for the second pass.
// release stops the decompression and gives the scratch file back.
func firstTarPass(ctx context.Context, r io.ReaderAt, size int64, gz bool, opts Options) (src io.Reader, scratch *os.File, release func(), err error) {
	if !gz {
		return io.NewSectionReader(r, 0, size), nil, func() {}, nil
	}
	f, releaseScratch, err := opts.scratch()
	if err != nil {
		return nil, nil, nil, err
	}
	ahead := startPrefetch(ctx, func() (io.Reader, func(), error) { return decompressed(r, size, gz) }, f)
	return ahead, f, func() { ahead.stop(); releaseScratch() }, nil
}

// planTar is the first pass of [extractTarTwice]: it checks the stream c
// as [scanTar] does and writes nothing. With hash, it also hashes the
// data of each file of the skill (see [known]).
func planTar(c *counter, p *plan, hash bool) error {
	var file func(int, entry, io.Reader, int64) error
	if hash {
		file = func(i int, _ entry, r io.Reader, _ int64) (err error) {
			p.entries[i].known, err = readKnown(r)
			return asFormat(err)
		}
	}
	return scanTar(c, p, file)
}

// scanTar reads the tar stream c to its end: it checks every header and
// adds it to the plan, hands each file of the skill (entry i of the plan)
// to file, when not nil, which reads its data from r, then checks the end
// marker and what follows it, and finishes the plan.
func scanTar(c *counter, p *plan, file func(i int, e entry, r io.Reader, size int64) error) error {
	tr := tar.NewReader(c)
	var end int64 // where the last entry's data and padding end
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return asFormat(err)
		}
		end = c.n
		if h.Typeflag == tar.TypeReg {
			end += (h.Size + 511) &^ 511
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		n := len(p.entries)
		if err := planTarHeader(p, h, &c.lastBlock); err != nil {
			return err
		}
		if file != nil && len(p.entries) > n && p.entries[n].kind == kindFile && p.entries[n].rel != "" {
			if err := file(n, p.entries[n], tr, h.Size); err != nil {
				return err
			}
		}
	}
	// The archive must end with its end marker (two zero blocks), and only
	// zero padding may follow; reading it to the end also verifies the
	// gzip checksum and length.
	if c.n%512 != 0 || c.n-end < 1024 || c.zeros < 1024 {
		return formatf("tar archive is truncated: it does not end with the end-of-archive marker")
	}
	if err := zeroTail(c); err != nil {
		return err
	}
	return p.finish()
}

// planTarHeader checks one header (its type, that it is not sparse, the
// raw block it was parsed from) and adds its entry to the plan.
func planTarHeader(p *plan, h *tar.Header, raw *[512]byte) error {
	k, err := tarKind(h)
	if err == nil && isSparse(h) {
		err = unsafeEntry(h.Name, "sparse files are not allowed")
	}
	if err == nil {
		err = checkRawHeader(h, raw)
	}
	if err == nil {
		err = p.add(h.Name, k, h.Mode&0o111 != 0, h.Size, h.Linkname)
	}
	return err
}

// writeTar is the second pass of [extractTarTwice]: it reads the tar
// stream src again, checks that each entry is the one the plan holds,
// and writes the files the plan selected, then the links' copies; when a
// file is refused it removes what it created.
func writeTar(ctx context.Context, src io.Reader, p *plan, dst *os.Root, opts Options) ([]File, error) {
	tr := tar.NewReader(&counter{ctx: ctx, r: src, limit: opts.MaxTotalSize})
	w := newWriter(dst, opts)
	defer w.close()
	out := newFileWriter(ctx, len(p.entries), opts.writers)
	for i := 0; ; {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, w.discard(out.wait(asFormat(err)))
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if i >= len(p.entries) || p.entries[i].name != cleanOrEmpty(h.Name) {
			return nil, w.discard(out.wait(formatf("archive changed while it was read")))
		}
		e := p.entries[i]
		i++
		if e.kind != kindFile || e.rel == "" {
			continue
		}
		if err := out.writeFrom(w, i-1, e, tr, h.Size, opts.MaxFileSize); err != nil {
			return nil, w.discard(asFormat(err))
		}
	}
	if err := out.wait(nil); err != nil {
		return nil, w.discard(asFormat(err))
	}
	files, err := w.copyLinks(ctx, p, out.files())
	if err != nil {
		return nil, w.discard(err)
	}
	return files, nil
}

// cleanOrEmpty is the name the plan records for an archive name.
func cleanOrEmpty(raw string) string {
	name, _, _ := cleanName(raw, false)
	return name
}

func zeroTail(r io.Reader) error {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b != 0 {
				return formatf("data after the end of the tar archive")
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return asFormat(err)
		}
	}
}

// crcReader computes the CRC-32 of what it reads, so entries whose
// recorded CRC is zero are checked too (archive/zip skips those).
type crcReader struct {
	r   io.Reader
	crc uint32
}

// Read reads and updates the checksum.
func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	return n, err
}

const maxLinkTarget = MaxPathLen

// extractZip checks the whole archive, its central directory and then
// every entry, before it writes any file; then it writes the files a few
// at a time.
func extractZip(ctx context.Context, r io.ReaderAt, size int64, dst *os.Root, opts Options) ([]File, error) {
	zr, err := openZip(r, size, opts)
	if err != nil {
		return nil, err
	}
	p, err := planZip(ctx, zr.File, opts)
	if err != nil {
		return nil, err
	}
	return writeZip(ctx, zr.File, p, dst, opts)
}

// openZip checks what can be checked of a zip before its entries: that it
// starts with a zip header, how many entries its central directory holds
// (counted before archive/zip builds them), and that their data neither
// overlap nor run past the end.
func openZip(r io.ReaderAt, size int64, opts Options) (*zip.Reader, error) {
	magic := make([]byte, 4)
	if _, err := r.ReadAt(magic, 0); err != nil || (string(magic) != "PK\x03\x04" && string(magic) != "PK\x05\x06") {
		return nil, formatf("zip archive does not start with a zip header (prefixed data is not allowed)")
	}
	if err := CountZip(r, size, opts.MaxArchiveEntries); err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, asFormat(err)
	}
	if len(zr.File) > opts.MaxArchiveEntries {
		return nil, limitf(LimitEntries, int64(opts.MaxArchiveEntries), "%d entries; the limit is %d", len(zr.File), opts.MaxArchiveEntries)
	}
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	if err := checkRanges(r, zr.File, size); err != nil {
		return nil, err
	}
	return zr, nil
}

// planZip checks every entry of the central directory and returns the
// finished plan. It writes nothing.
func planZip(ctx context.Context, files []*zip.File, opts Options) (*plan, error) {
	p := newPlan(opts)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := planZipEntry(p, f); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// planZipEntry checks one entry's flags, compression method and type and
// adds it to the plan.
func planZipEntry(p *plan, f *zip.File) error {
	if f.Flags&0x1 != 0 {
		return formatf("entry %q is encrypted", f.Name)
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return formatf("entry %q uses compression method %d (only store and deflate are supported)", f.Name, f.Method)
	}
	k, target, err := zipKind(f)
	if err != nil {
		return err
	}
	size := int64(f.UncompressedSize64)
	if f.UncompressedSize64 > 1<<62 {
		size = 1 << 62
	}
	return p.add(f.Name, k, f.Mode()&0o111 != 0, size, target)
}

// zipKind classifies a zip entry by its mode, and reads a symbolic link's
// target.
func zipKind(f *zip.File) (k kind, target string, err error) {
	mode := f.Mode()
	switch {
	case mode.IsDir():
		if f.UncompressedSize64 != 0 || f.CompressedSize64 > 2 {
			return 0, "", unsafeEntry(f.Name, "folder entry carries data")
		}
		return kindDir, "", nil
	case mode.IsRegular():
		return kindFile, "", nil
	case mode&os.ModeSymlink != 0:
		target, err := readLinkTarget(f)
		if err != nil {
			return 0, "", err
		}
		return kindSymlink, target, nil
	}
	return 0, "", unsafeEntry(f.Name, fmt.Sprintf("mode %v is not a regular file, folder or link", mode))
}

// writeZip writes the files the plan selected, a few at a time, then the
// links' copies; on a refused entry (a size or checksum that does not
// match) it removes what it created.
func writeZip(ctx context.Context, files []*zip.File, p *plan, dst *os.Root, opts Options) ([]File, error) {
	w := newWriter(dst, opts)
	defer w.close()
	out := newFileWriter(ctx, len(files), opts.writers)
	for i, f := range files {
		e := p.entries[i]
		if e.kind != kindFile || e.rel == "" {
			continue
		}
		if err := out.ctx.Err(); err != nil {
			return nil, w.discard(out.wait(err))
		}
		out.g.Go(func() error {
			file, err := writeZipEntry(out.ctx, w, f, e, opts.MaxFileSize)
			if err != nil {
				return asFormat(err)
			}
			out.add(i, file)
			return nil
		})
	}
	if err := out.wait(nil); err != nil {
		return nil, w.discard(err)
	}
	written, err := w.copyLinks(ctx, p, out.files())
	if err != nil {
		return nil, w.discard(err)
	}
	return written, nil
}

// writeZipEntry writes one zip entry, verifying its size and CRC-32.
func writeZipEntry(ctx context.Context, w *writer, f *zip.File, e entry, limit int64) (File, error) {
	rc, err := f.Open()
	if err != nil {
		return File{}, fmt.Errorf("entry %q: %w", f.Name, err)
	}
	defer rc.Close()
	cr := &crcReader{r: rc}
	file, err := w.write(ctx, e.rel, e.exec, cr, limit, int64(f.UncompressedSize64), nil)
	if err != nil {
		return file, err
	}
	if cr.crc != f.CRC32 {
		return file, formatf("entry %q: checksum mismatch", f.Name)
	}
	if uint64(file.Size) != f.UncompressedSize64 {
		return file, formatf("entry %q: %d bytes, but its header says %d", f.Name, file.Size, f.UncompressedSize64)
	}
	return file, nil
}

// CountZip is rule 10's count: it returns a *[LimitError] when the zip r,
// size bytes long, holds more than limit entries, by its end record's
// claim or by walking its central directory records, before
// archive/zip builds them all (it builds every record before anyone can
// count them). It returns nil when it finds no end record: the zip
// reader then explains what is wrong.
func CountZip(r io.ReaderAt, size int64, limit int) error {
	if claimed, counted, ok := zipEntries(r, size, limit); ok {
		switch {
		case claimed > uint64(limit):
			return limitf(LimitEntries, int64(limit), "%d entries; the limit is %d", claimed, limit)
		case counted > limit:
			return limitf(LimitEntries, int64(limit), "more than %d entries in the central directory, though its end record claims %d", limit, claimed)
		}
	}
	return nil
}

// zipEntries reads how many entries a zip's end record (or zip64 end
// record) claims and counts the central directory records archive/zip
// would read, without building them: archive/zip reads records until one
// is malformed and compares their number with the claim only modulo
// 65,536, so the claim alone can hide millions. The directory is found as
// archive/zip finds it; where archive/zip could start reading at either of
// two offsets, both are counted and the larger count returned. Counting
// stops once it passes limit, and reads through a small buffer, so it
// costs no more memory for a huge directory than for a small one. It
// reports false when it finds no end record; the zip reader then explains
// what is wrong.
func zipEntries(r io.ReaderAt, size int64, limit int) (claimed uint64, counted int, ok bool) {
	const eocdLen, locatorLen, eocd64Len = 22, 20, 56
	var end []byte
	var endOff int64
	for i, n := range []int64{1024, 65 * 1024} {
		n = min(n, size)
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return 0, 0, false
		}
		if p := findEndRecord(buf); p >= 0 {
			end, endOff = buf[p:], size-n+int64(p)
			break
		}
		if i == 1 || n == size {
			return 0, 0, false
		}
	}
	claimed = uint64(binary.LittleEndian.Uint16(end[10:]))
	dirSize := uint64(binary.LittleEndian.Uint32(end[12:]))
	dirOff := uint64(binary.LittleEndian.Uint32(end[16:]))
	if claimed == 0xffff || dirSize == 0xffff || dirOff == 0xffffffff {
		var loc [locatorLen]byte
		if endOff >= locatorLen {
			if _, err := r.ReadAt(loc[:], endOff-locatorLen); err != nil {
				return 0, 0, false
			}
		}
		if string(loc[:4]) == "PK\x06\x07" && binary.LittleEndian.Uint32(loc[4:]) == 0 && binary.LittleEndian.Uint32(loc[16:]) == 1 {
			off := binary.LittleEndian.Uint64(loc[8:])
			var rec [eocd64Len]byte
			if off > uint64(size) {
				return 0, 0, false
			}
			if _, err := r.ReadAt(rec[:], int64(off)); err != nil || string(rec[:4]) != "PK\x06\x06" {
				return 0, 0, false
			}
			endOff = int64(off)
			claimed = binary.LittleEndian.Uint64(rec[32:])
			dirSize = binary.LittleEndian.Uint64(rec[40:])
			dirOff = binary.LittleEndian.Uint64(rec[48:])
		}
	}
	if dirSize > 1<<62 || dirOff > 1<<62 {
		return claimed, 0, false
	}
	base := endOff - int64(dirSize) - int64(dirOff)
	counted = countRecords(r, size, base+int64(dirOff), limit)
	if base > 0 {
		// archive/zip starts at dirOff instead when a record is there.
		counted = max(counted, countRecords(r, size, int64(dirOff), limit))
	}
	return claimed, counted, true
}

// findEndRecord returns where the end record starts in b, the archive's
// tail, as archive/zip looks for it: the last signature with room for
// the record after it, whose comment fits; or -1.
func findEndRecord(b []byte) int {
	for i := len(b) - 22; i >= 0; i-- {
		if b[i] == 'P' && b[i+1] == 'K' && b[i+2] == 0x05 && b[i+3] == 0x06 {
			n := int(b[i+20]) | int(b[i+21])<<8
			if n+22+i > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}

// countRecords counts the whole central directory records from off on, up
// to the first that is not one, stopping once it has counted more than
// limit.
func countRecords(r io.ReaderAt, size, off int64, limit int) int {
	if off < 0 || off >= size {
		return 0
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, off, size-off), 64<<10)
	var h [46]byte
	n := 0
	for n <= limit {
		if _, err := io.ReadFull(br, h[:]); err != nil || string(h[:4]) != "PK\x01\x02" {
			break
		}
		rest := int(binary.LittleEndian.Uint16(h[28:])) + int(binary.LittleEndian.Uint16(h[30:])) + int(binary.LittleEndian.Uint16(h[32:]))
		if d, err := br.Discard(rest); err != nil || d != rest {
			break
		}
		n++
	}
	return n
}

func readLinkTarget(f *zip.File) (string, error) {
	if f.UncompressedSize64 > maxLinkTarget {
		return "", unsafeEntry(f.Name, "link target too long")
	}
	rc, err := f.Open()
	if err != nil {
		return "", asFormat(fmt.Errorf("entry %q: %w", f.Name, err))
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget+1))
	if err != nil {
		return "", asFormat(fmt.Errorf("entry %q: %w", f.Name, err))
	}
	return string(b), nil
}

// checkRanges refuses zip entries whose data overlap (quoted-overlap and
// duplicated-record bombs) or run past the end of the archive.
func checkRanges(r io.ReaderAt, files []*zip.File, size int64) error {
	type span struct {
		start, end uint64
		name       string
	}
	spans := make([]span, 0, len(files))
	for _, f := range files {
		off, err := f.DataOffset()
		if err != nil {
			return asFormat(fmt.Errorf("entry %q: %w", f.Name, err))
		}
		end := uint64(off) + f.CompressedSize64
		if off < 0 || end < uint64(off) || end > uint64(size) {
			return formatf("entry %q: data runs past the end of the archive", f.Name)
		}
		spans = append(spans, span{uint64(off), end, f.Name})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	// The first entry's local header must be the first bytes of the
	// archive: nothing may hide before it (another archive, a stub).
	if len(spans) > 0 {
		var h [30]byte
		if _, err := r.ReadAt(h[:], 0); err != nil {
			return asFormat(err)
		}
		first := 30 + uint64(binary.LittleEndian.Uint16(h[26:])) + uint64(binary.LittleEndian.Uint16(h[28:]))
		if string(h[:4]) != "PK\x03\x04" || first != spans[0].start {
			return formatf("data before the first zip entry (prefixed or concatenated archives are not allowed)")
		}
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end || spans[i].start == spans[i-1].start {
			return unsafeEntry(spans[i].name, fmt.Sprintf("data overlaps entry %q", spans[i-1].name))
		}
	}
	return nil
}
