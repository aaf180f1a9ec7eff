package oci

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/agentadaptor/agentadaptor/source"
)

// cacheDir is the folder under the skill cache root that holds fetched
// blobs:
//
//	.oci/blobs/<algorithm>/<hex>   a verified manifest, index or layer
//	.oci/tmp/<random>              a download in progress
const cacheDir = ".oci"

// staleAfter is how old a leftover download must be before it is removed.
const staleAfter = 24 * time.Hour

// blobs is the local, content-addressed cache of blobs. Every file is
// reached through an os.Root on its folder, is written whole to tmp and
// renamed into place only once verified, and is verified again whenever
// it is read.
type blobs struct {
	dir  string
	root *os.Root
}

// openBlobs opens, creating it private when missing, the blob cache under
// cacheRoot.
func openBlobs(cacheRoot string) (*blobs, error) {
	dir := filepath.Join(cacheRoot, cacheDir)
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, fmt.Errorf("open the OCI blob cache: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the OCI blob cache: %w", err)
	}
	return &blobs{dir: dir, root: root}, nil
}

func (b *blobs) Close() error { return b.root.Close() }

// name returns the slash-separated name of the blob d under the cache
// folder.
func blobName(d digest.Digest) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("invalid digest %q: %w", d, err)
	}
	return path.Join("blobs", d.Algorithm().String(), d.Encoded()), nil
}

// path returns the file name of the blob d on disk, for readers that
// need one.
func (b *blobs) path(d digest.Digest) (string, error) {
	name, err := blobName(d)
	if err != nil {
		return "", err
	}
	local, err := filepath.Localize(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(b.dir, local), nil
}

// open opens the cached blob desc. It fails with fs.ErrNotExist when the
// cache does not hold it, or holds a file of another size (which it
// removes). The content is verified by whoever reads it.
func (b *blobs) open(desc ocispec.Descriptor) (*os.File, error) {
	name, err := blobName(desc.Digest)
	if err != nil {
		return nil, err
	}
	f, err := b.root.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && (!info.Mode().IsRegular() || (desc.Size >= 0 && info.Size() != desc.Size)) {
		err = fs.ErrNotExist
		b.root.Remove(name)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readSmall returns the cached blob desc, of at most limit bytes, when
// the cache holds it intact. A damaged copy is removed. An intact copy
// of another size than desc's (when desc.Size is known, not -1) is kept,
// and is an integrity failure: desc, which a document listing it wrote,
// is wrong, as the download would find it.
func (b *blobs) readSmall(desc ocispec.Descriptor, limit int64) ([]byte, bool, error) {
	d := desc.Digest
	f, err := b.open(ocispec.Descriptor{Digest: d, Size: -1})
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(data)) > limit || d.Algorithm().FromBytes(data) != d {
		b.remove(d)
		return nil, false, nil
	}
	if desc.Size >= 0 && int64(len(data)) != desc.Size {
		return nil, false, fmt.Errorf("%w: the blob %s is %d bytes, not the %d its descriptor says: the document that lists it is wrong; tell its publisher", errDamaged, d, len(data), desc.Size)
	}
	return data, true, nil
}

// remove removes the cached blob d, if any.
func (b *blobs) remove(d digest.Digest) {
	if name, err := blobName(d); err == nil {
		b.root.Remove(name)
	}
}

// create returns a new private file in tmp for a download, and its name.
// Leftovers of downloads older than staleAfter are removed first.
func (b *blobs) create() (*os.File, string, error) {
	b.sweep()
	var rnd [12]byte
	rand.Read(rnd[:])
	name := path.Join("tmp", hex.EncodeToString(rnd[:]))
	f, err := b.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", err
	}
	return f, name, nil
}

// sweep removes downloads left in tmp by processes that died, once they
// are older than staleAfter.
func (b *blobs) sweep() {
	dir, err := b.root.Open("tmp")
	if err != nil {
		return
	}
	entries, _ := dir.ReadDir(-1)
	dir.Close()
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > staleAfter {
			b.root.Remove(path.Join("tmp", e.Name()))
		}
	}
}

// commit moves the verified download tmp into place as the blob d. When
// another process committed d first, its copy is kept.
func (b *blobs) commit(tmp string, d digest.Digest) error {
	name, err := blobName(d)
	if err != nil {
		return err
	}
	if err := b.root.MkdirAll(path.Dir(name), 0o700); err != nil {
		return err
	}
	if err := b.root.Rename(tmp, name); err != nil {
		if _, serr := b.root.Stat(name); serr == nil {
			b.root.Remove(tmp)
			return nil
		}
		b.root.Remove(tmp)
		return err
	}
	return nil
}

// tmpPath returns the file name on disk of the download tmp.
func (b *blobs) tmpPath(tmp string) string {
	return filepath.Join(b.dir, filepath.FromSlash(tmp))
}

// discard removes the download tmp.
func (b *blobs) discard(tmp string) { b.root.Remove(tmp) }

// errDamaged reports content that does not match its descriptor: an
// integrity failure (source.ErrIntegrity), whether the registry sent it
// or the cached copy changed.
var errDamaged = fmt.Errorf("%w: content does not match its descriptor", source.ErrIntegrity)

// checkDigest reports whether d, which a registry named, is a digest this
// package hashes with: well formed, and sha256 or sha512 (rule 7 of What Fetch reads). A
// digest of another algorithm cannot be verified, and one go-digest does
// not know would crash the verifier.
func checkDigest(d digest.Digest) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("the digest %q is not valid (%v); only sha256 and sha512 digests are accepted", d, err)
	}
	if a := d.Algorithm(); a != digest.SHA256 && a != digest.SHA512 {
		return fmt.Errorf("the digest %s uses %s; only sha256 and sha512 digests are accepted", d, a)
	}
	return nil
}

// copyVerified copies r to w, which must be exactly desc.Size bytes whose
// digest is desc.Digest.
func copyVerified(w io.Writer, r io.Reader, desc ocispec.Descriptor) error {
	if err := checkDigest(desc.Digest); err != nil {
		return err
	}
	v := desc.Digest.Verifier()
	n, err := io.Copy(io.MultiWriter(w, v), io.LimitReader(r, desc.Size+1))
	if err != nil {
		return err
	}
	if n != desc.Size {
		return fmt.Errorf("%w: the blob %s has %d bytes or more, not the %d its descriptor says", errDamaged, desc.Digest, n, desc.Size)
	}
	if !v.Verified() {
		return fmt.Errorf("%w: the bytes sent for %s have another digest", errDamaged, desc.Digest)
	}
	return nil
}

// verifyingReader reads a cached blob and fails at its end when the bytes
// read do not match the descriptor, removing the damaged copy.
type verifyingReader struct {
	f     *os.File
	v     digest.Verifier
	n     int64
	desc  ocispec.Descriptor
	blobs *blobs
	err   error
}

func (r *verifyingReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.f.Read(p)
	r.v.Write(p[:n])
	r.n += int64(n)
	if r.n > r.desc.Size || err == io.EOF && (r.n != r.desc.Size || !r.v.Verified()) {
		r.blobs.remove(r.desc.Digest)
		r.err = fmt.Errorf("%w: the cached copy of %s was damaged and is removed: open it again to download it", errDamaged, r.desc.Digest)
		return 0, r.err
	}
	return n, err
}

func (r *verifyingReader) Close() error {
	err := r.f.Close()
	r.blobs.Close()
	return err
}
