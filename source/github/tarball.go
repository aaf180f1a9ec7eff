package github

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

type tarballConfig struct {
	dir         string // the pinned folder; "" for the root
	commit      string // the pinned commit, lower case
	name        string // the pin, for errors
	maxDownload int64
	maxExpanded int64
	clean       func(string) string
}

// tarball reads a GitHub tarball (tar.gz, one top folder) and gives the
// entries under cfg.dir as an uncompressed tar without the top folder
// (rules 8 to 11). It copies one bounded chunk at a time into buf, so its
// memory does not grow with the archive, and it starts no goroutine.
type tarball struct {
	cfg  tarballConfig
	body io.ReadCloser
	in   *limited // compressed bytes
	out  *limited // decompressed bytes
	zr   *gzip.Reader
	tr   *tar.Reader
	tw   *tar.Writer
	buf  bytes.Buffer
	top  string
	data bool // copying the current entry's bytes
	seen bool // an entry under cfg.dir was passed on
	err  error
}

// The client's limits, as a limit error names them: the option that sets
// each is With and the name.
const (
	limitDownload = "MaxDownloadSize"
	limitExpanded = "MaxExpandedSize"
)

func newTarball(body io.ReadCloser, cfg tarballConfig) *tarball {
	t := &tarball{cfg: cfg, body: body}
	t.in = &limited{r: bodyReader{body}, n: cfg.maxDownload, err: func() error {
		return fmt.Errorf("%s: %w", cfg.name, skillcache.NewLimitError(limitDownload, cfg.maxDownload, "the download is over %d bytes", cfg.maxDownload))
	}}
	t.tw = tar.NewWriter(&t.buf)
	return t
}

// Read implements io.Reader.
func (t *tarball) Read(p []byte) (int, error) {
	for t.buf.Len() == 0 {
		if t.err != nil {
			return 0, t.err
		}
		t.err = t.step()
	}
	return t.buf.Read(p)
}

// Close closes the download.
func (t *tarball) Close() error {
	if t.zr != nil {
		t.zr.Close()
	}
	return t.body.Close()
}

// step puts the next piece of output into buf, or returns why there is
// none (io.EOF at the end).
func (t *tarball) step() error {
	if t.zr == nil {
		zr, err := gzip.NewReader(t.in)
		if err != nil {
			return t.fail(err, "not a gzip stream")
		}
		t.zr = zr
		t.out = &limited{r: zr, n: t.cfg.maxExpanded, err: func() error {
			return fmt.Errorf("%s: %w", t.cfg.name, skillcache.NewLimitError(limitExpanded, t.cfg.maxExpanded, "the archive expands to over %d bytes", t.cfg.maxExpanded))
		}}
		t.tr = tar.NewReader(t.out)
	}
	if t.data {
		n, err := io.CopyN(t.tw, t.tr, 32<<10)
		if err == io.EOF || (err == nil && n < 32<<10) {
			t.data = false
			return nil
		}
		if err != nil {
			return t.fail(err, "corrupt entry data")
		}
		return nil
	}
	hdr, err := t.tr.Next()
	if err == io.EOF {
		return t.finish()
	}
	if err != nil {
		return t.fail(err, "corrupt tar stream")
	}
	return t.entry(hdr)
}

// entry passes on one entry, or skips it.
func (t *tarball) entry(hdr *tar.Header) error {
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		if c := strings.ToLower(hdr.PAXRecords["comment"]); isCommit(c) && t.cfg.commit != "" && c != t.cfg.commit {
			return fmt.Errorf("%s: %w: the archive is of commit %s, not the pinned one", t.cfg.name, skill.ErrArchiveFormat, c)
		}
		return nil
	}
	name := strings.TrimPrefix(hdr.Name, "./")
	first, rest, _ := strings.Cut(name, "/")
	if first == "" || (rest == "" && !strings.HasSuffix(name, "/") && hdr.Typeflag != tar.TypeDir) {
		return fmt.Errorf("%s: %w: entry %q is not inside a top folder, as every entry of a GitHub archive is", t.cfg.name, skill.ErrArchiveFormat, hdr.Name)
	}
	if t.top == "" {
		t.top = first
	}
	if first != t.top {
		return fmt.Errorf("%s: %w: entry %q is outside the archive's one top folder %q", t.cfg.name, skill.ErrArchiveFormat, hdr.Name, t.top)
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" || !t.under(rest) {
		return nil
	}
	out := &tar.Header{Name: rest, Typeflag: hdr.Typeflag, Format: tar.FormatPAX}
	switch hdr.Typeflag {
	case tar.TypeDir:
		out.Name += "/"
		out.Mode = 0o755
	case tar.TypeReg:
		out.Mode = 0o644
		if hdr.Mode&0o111 != 0 {
			out.Mode = 0o755
		}
		out.Size = hdr.Size
		t.data = hdr.Size > 0
	case tar.TypeSymlink:
		out.Mode = 0o777
		out.Linkname = hdr.Linkname
	case tar.TypeLink:
		target, ok := strings.CutPrefix(strings.TrimPrefix(hdr.Linkname, "./"), t.top+"/")
		if !ok {
			return fmt.Errorf("%s: %w: link %q points outside the archive's top folder", t.cfg.name, skill.ErrArchiveUnsafe, hdr.Name)
		}
		out.Mode = 0o644
		out.Linkname = target
	default:
		return fmt.Errorf("%s: %w: entry %q is not a file, folder or link (type %q)", t.cfg.name, skill.ErrArchiveUnsafe, hdr.Name, hdr.Typeflag)
	}
	if err := t.tw.WriteHeader(out); err != nil {
		return fmt.Errorf("%s: %w: entry %q: %s", t.cfg.name, skill.ErrArchiveFormat, hdr.Name, t.cfg.clean(err.Error()))
	}
	t.seen = true
	return nil
}

// under reports whether name is the pinned folder or inside it.
func (t *tarball) under(name string) bool {
	d := t.cfg.dir
	return d == "" || name == d || strings.HasPrefix(name, d+"/")
}

// finish checks what follows the tar end (zeros only, and a good gzip
// checksum) and writes the end of the output tar.
func (t *tarball) finish() error {
	var chunk [4096]byte
	for {
		n, err := t.out.Read(chunk[:])
		if bytes.ContainsFunc(chunk[:n], func(r rune) bool { return r != 0 }) {
			return fmt.Errorf("%s: %w: data after the end of the tar stream", t.cfg.name, skill.ErrArchiveFormat)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return t.fail(err, "corrupt gzip stream")
		}
	}
	if t.top == "" {
		return fmt.Errorf("%s: %w: the archive is empty", t.cfg.name, skill.ErrArchiveFormat)
	}
	if !t.seen {
		return fmt.Errorf("%s: %w: no folder %q in that commit", t.cfg.name, source.ErrNotFound, t.cfg.dir)
	}
	if err := t.tw.Close(); err != nil {
		return fmt.Errorf("%s: %w", t.cfg.name, err)
	}
	return io.EOF
}

// fail classifies a read error: a limit, the download's own error, or a
// corrupt stream.
func (t *tarball) fail(err error, what string) error {
	var lim *limitError
	if errors.As(err, &lim) {
		return lim.err
	}
	var dl *downloadError
	if errors.As(err, &dl) {
		return fmt.Errorf("%s: download: %w (try again)", t.cfg.name, dl.err)
	}
	return fmt.Errorf("%s: %w: %s: %s", t.cfg.name, skill.ErrArchiveFormat, what, t.cfg.clean(err.Error()))
}

// limited reads at most n bytes from r and fails with err() past them.
type limited struct {
	r   io.Reader
	n   int64
	err func() error
}

type limitError struct{ err error }

func (e *limitError) Error() string { return e.err.Error() }

// downloadError marks an error of the download itself, as opposed to
// its content.
type downloadError struct{ err error }

func (e *downloadError) Error() string { return e.err.Error() }

// bodyReader marks the download's errors.
type bodyReader struct{ r io.Reader }

func (b bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = &downloadError{err}
	}
	return n, err
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, &limitError{l.err()}
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return n, &limitError{l.err()}
	}
	return n, err
}
