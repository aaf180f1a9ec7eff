package oci

import (
	"context"
	"os"
)

// Pack writes the skill folder dir to f as [Push] packs its layer, and
// returns the archive's digest, "sha256:" and 64 hex digits: a
// gzip-compressed tar with sorted entries, fixed times and modes, and
// links to files inside the folder as copies, so that the same folder
// always gives the same bytes; checked as Push checks it (the archive
// rules and the limits of the cache given with [WithCache], and a
// SKILL.md at its root). f must be empty and open for reading and
// writing: the check reads it back. Only WithCache is used.
func Pack(ctx context.Context, dir string, f *os.File, opts ...Option) (string, error) {
	c := cacheConfig(opts)
	desc, _, err := packChecked(ctx, c, dir, f)
	if err != nil {
		return "", err
	}
	return desc.Digest.String(), nil
}
