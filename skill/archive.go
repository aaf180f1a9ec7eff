package skill

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
)

// Format selects the decompressor applied to an Archive source. FormatAuto
// (the zero value) triggers magic-byte sniffing.
type Format string

// Supported archive formats accepted by the built-in materializer.
const (
	// FormatAuto leaves format detection to the materializer's
	// magic-byte sniffing (zip local-file header, gzip magic, ustar
	// magic at offset 257).
	FormatAuto Format = ""
	// FormatZip is a ZIP archive (PKZIP format).
	FormatZip Format = "zip"
	// FormatTar is an uncompressed POSIX tar archive.
	FormatTar Format = "tar"
	// FormatTarGz is a tar archive wrapped in a gzip stream
	// (canonical .tar.gz / .tgz).
	FormatTarGz Format = "tar.gz"
)

// Opener produces a fresh reader over the archive bytes. It is invoked at
// materialization time and read to completion (subject to the configured
// size cap), so implementations MUST be idempotent: a second invocation
// should produce the same content. Build one with ArchiveBytes,
// ArchiveFile, or ArchiveURL, or supply your own.
type Opener = func(ctx context.Context) (io.ReadCloser, error)

// ArchiveSource is the public archive-origin value stored in
// [Skill.Source]. Independently declared ArchiveSource values without a
// non-empty Fingerprint are intentionally not assumed equal because Go
// functions have no stable content identity.
type ArchiveSource struct {
	// Archive opens the archive from its beginning for each materialization.
	Archive Opener
	// Format selects archive decoding; its zero value enables detection.
	Format Format
	// Subpath locates the skill root within the archive.
	Subpath string
	// Fingerprint is an optional stable source revision or identity.
	Fingerprint string
}

// SkillSource implements Source.
func (ArchiveSource) SkillSource() {}

// SkillArchive returns the values consumed by a compatible materializer:
// the opener, the format, the subpath and the fingerprint.
func (s ArchiveSource) SkillArchive() (Opener, string, string, string) {
	return s.Archive, string(s.Format), s.Subpath, s.Fingerprint
}

// archiveConfig collects ArchiveOption values.
type archiveConfig struct {
	format      Format
	subpath     string
	fingerprint string
}

// ArchiveOption configures the archive source built by Archive.
type ArchiveOption func(*archiveConfig)

// WithFingerprint supplies an opaque, stable source revision or identity.
// It is used to decide whether independently declared archive sources refer
// to the same logical revision and may also participate in Thread
// compatibility. It is not a cache key and is not an integrity check: the
// built-in materializer always keys its cache from the extracted content.
// Hosts that need authenticity or integrity verification must perform it in
// the Opener before returning the reader. Default: none.
func WithFingerprint(fingerprint string) ArchiveOption {
	return func(c *archiveConfig) { c.fingerprint = fingerprint }
}

// WithFormat pins the archive format instead of relying on magic-byte
// sniffing. Explicit formats surface mismatches as decompression errors,
// which is preferable when the host already knows what it serves. Default:
// FormatAuto.
func WithFormat(f Format) ArchiveOption {
	return func(c *archiveConfig) { c.format = f }
}

// WithSubpath declares the prefix inside the archive where SKILL.md lives.
// Empty means the archive root. Entries that resolve outside the subpath
// are rejected during extraction: they are checked and counted against the
// limits, but never written. Default: empty, the archive root (or, for an
// archive of one folder without a SKILL.md at its root, that folder, as
// Archive says).
func WithSubpath(subpath string) ArchiveOption {
	return func(c *archiveConfig) { c.subpath = subpath }
}

// Archive builds a Skill sourced from an archive stream (zip, tar, or
// tar.gz). The archive must contain SKILL.md at its root, or under the
// prefix declared via WithSubpath. Key is required; open supplies the
// archive bytes and is typically built with ArchiveBytes, ArchiveFile, or
// ArchiveURL:
//
//	skill.Archive("deploy-kit", skill.ArchiveFile("./deploy-kit.tgz"))
//
//	skill.Archive("deploy-kit",
//	    skill.ArchiveURL("https://store.example.com/kits/deploy.zip",
//	        skill.WithArchiveHeader("Authorization", "Bearer "+token)),
//	    skill.WithFingerprint(knownDigest),
//	)
//
// Format defaults to FormatAuto (magic-byte sniffing); use WithFormat to
// pin it explicitly.
//
// An archive of one folder, such as `tar -czf kit.tgz kit` or a zip of
// a folder makes, counts as having SKILL.md at its root when it has no
// SKILL.md there and its root holds nothing but that folder (a folder,
// not a link; version-control metadata such as .git aside), which holds
// SKILL.md: the skill is that folder, as `agentskills add` reads the
// same archive (one rule for both, in the module's extractor). A root
// that holds more (a second folder, a file beside the folder) has no
// skill at its root; WithSubpath names the folder that holds it:
//
//	skill.Archive("kit", skill.ArchiveFile("./kits.tgz"), skill.WithSubpath("kit"))
func Archive(key string, open Opener, opts ...ArchiveOption) Skill {
	var c archiveConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return Skill{Key: key, Source: ArchiveSource{
		Archive:     open,
		Format:      c.format,
		Subpath:     c.subpath,
		Fingerprint: c.fingerprint,
	}}
}

// memReader is the reader ArchiveBytes hands out. The default
// materializer recognizes its type and reads the bytes in place instead of
// spooling them.
type memReader struct {
	*bytes.Reader
	data []byte
}

// Close does nothing: the bytes belong to the caller.
func (memReader) Close() error { return nil }

// ArchiveBytes returns an Opener that serves the given data from memory.
// The slice is captured by reference; callers MUST NOT mutate it
// afterwards.
func ArchiveBytes(data []byte) Opener {
	return func(ctx context.Context) (io.ReadCloser, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return memReader{Reader: bytes.NewReader(data), data: data}, nil
	}
}

// ArchiveFile returns an Opener that opens the given file each time the
// materializer needs to read it. Useful when the host has already
// downloaded the archive to disk.
func ArchiveFile(path string) Opener {
	return func(ctx context.Context) (io.ReadCloser, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return os.Open(path)
	}
}

// archiveHTTPConfig collects ArchiveHTTPOption values.
type archiveHTTPConfig struct {
	client *http.Client
	header http.Header
}

// ArchiveHTTPOption configures the http.Request issued by ArchiveURL.
type ArchiveHTTPOption func(*archiveHTTPConfig)

// WithArchiveHTTPClient overrides the http.Client used by the ArchiveURL
// opener. Defaults to http.DefaultClient; nil also means the default.
func WithArchiveHTTPClient(client *http.Client) ArchiveHTTPOption {
	return func(c *archiveHTTPConfig) { c.client = client }
}

// WithArchiveHeader adds a header to every request the ArchiveURL opener
// issues. Multiple WithArchiveHeader options accumulate, including several
// values for one key. Default: no headers beyond Go's own.
func WithArchiveHeader(key, value string) ArchiveHTTPOption {
	return func(c *archiveHTTPConfig) { c.header.Add(key, value) }
}

// ArchiveURL returns an Opener that GETs the URL with the configured
// headers and HTTP client. Non-2xx responses surface as errors. It performs
// no integrity checking, and WithFingerprint is only a declared source
// identity—it does not add integrity verification. The opener itself must
// verify authenticity when required. ArchiveURL imposes no default timeout:
// either supply an http.Client with a Timeout via WithArchiveHTTPClient or
// make sure the run context carries a deadline.
func ArchiveURL(url string, opts ...ArchiveHTTPOption) Opener {
	c := archiveHTTPConfig{header: make(http.Header)}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return func(ctx context.Context) (io.ReadCloser, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("archive URL %q: %w", url, err)
		}
		req.Header = c.header.Clone()
		client := c.client
		if client == nil {
			client = http.DefaultClient
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("download archive: %w", err)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			resp.Body.Close()
			return nil, fmt.Errorf("download archive %s: server answered %s", url, resp.Status)
		}
		return resp.Body, nil
	}
}
