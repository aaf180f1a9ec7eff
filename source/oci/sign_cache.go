package oci

import (
	"io"
	"path"
	"strings"

	"github.com/opencontainers/go-digest"
)

// sigDir is the folder under the OCI cache that keeps verified bundles:
//
//	.oci/signatures/<algorithm>/<subject hex>/<bundle algorithm>-<bundle hex>
//
// each file a bundle, named by its digest, verified against the name
// when it is read.
const sigDir = "signatures"

// bundleDir returns the slash-separated folder, under the cache folder,
// of the bundles kept for subject.
func bundleDir(subject digest.Digest) (string, error) {
	if err := subject.Validate(); err != nil {
		return "", err
	}
	return path.Join(sigDir, subject.Algorithm().String(), subject.Encoded()), nil
}

// bundles returns the bundles kept for subject, each intact (a damaged
// copy is removed); none when there are none or the cache cannot be read.
func (b *blobs) bundles(subject digest.Digest) [][]byte {
	dir, err := bundleDir(subject)
	if err != nil {
		return nil
	}
	f, err := b.root.Open(dir)
	if err != nil {
		return nil
	}
	entries, _ := f.ReadDir(maxBundles)
	f.Close()
	var out [][]byte
	for _, e := range entries {
		d, err := digestFromName(e.Name())
		if err != nil || !e.Type().IsRegular() {
			continue
		}
		name := path.Join(dir, e.Name())
		data, ok := b.readVerified(name, d, maxBundleSize)
		if !ok {
			b.root.Remove(name)
			continue
		}
		out = append(out, data)
	}
	return out
}

// digestFromName parses a file name "<algorithm>-<hex>".
func digestFromName(name string) (digest.Digest, error) {
	alg, hex, _ := strings.Cut(name, "-")
	d := digest.NewDigestFromEncoded(digest.Algorithm(alg), hex)
	return d, d.Validate()
}

// readVerified reads the file name, of at most limit bytes, and reports
// whether its digest is d.
func (b *blobs) readVerified(name string, d digest.Digest, limit int64) ([]byte, bool) {
	f, err := b.root.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(data)) > limit || d.Algorithm().FromBytes(data) != d {
		return nil, false
	}
	return data, true
}

// keepBundle keeps bundle, verified for subject, written whole beside its
// place and renamed into it; a copy another process kept first is left.
func (b *blobs) keepBundle(subject digest.Digest, bundle []byte) error {
	dir, err := bundleDir(subject)
	if err != nil {
		return err
	}
	d := digest.FromBytes(bundle)
	name := path.Join(dir, d.Algorithm().String()+"-"+d.Encoded())
	if _, err := b.root.Stat(name); err == nil {
		return nil
	}
	if err := b.root.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, tmpName, err := b.create()
	if err != nil {
		return err
	}
	_, err = tmp.Write(bundle)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = b.root.Rename(tmpName, name)
	}
	if err != nil {
		b.discard(tmpName)
		if _, serr := b.root.Stat(name); serr == nil {
			return nil
		}
	}
	return err
}
