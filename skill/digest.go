package skill

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// ContentDigest returns a digest of the skill folder dir: the hex SHA-256
// of the encoding the cache uses (a framed, versioned record of the
// folder's base name and, in order of path, every regular file's path,
// executable bit, size and SHA-256 and every symbolic link's path and
// target text; internal/cache's package doc defines it byte for byte).
//
// For a folder used in place, or one returned by another materializer,
// every file is read, so the digest is equal for equal content on any
// machine. A tree published by the default materializer is not read
// again while it passes the check of rule 4 of the package doc (a stat
// per file and folder against the record written when it was published):
// its digest is the one it was published under. A tree that fails it
// (a file edited, added or removed, a permission changed) is read like
// any other folder, so its digest is that of what it holds now.
//
// Version-control metadata (.git and the others of rule 10 of the package
// doc) is not part of a skill and is left out of the digest, as it is
// left out of every tree the cache and installs write.
//
// When the folder is read, a link is never followed: it counts as its
// target text, with separators turned into slashes, in an entry of its
// own that no file can match. Folders count
// only through what they hold; other special files (devices, pipes, and on
// Windows junctions) are ignored.
//
// A read of the folder stops between two files when ctx is done, with
// ctx's error.
func ContentDigest(ctx context.Context, dir string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	if d, ok := cache.Verify(dir); ok {
		return d, nil
	}
	return digestFolder(ctx, dir, &folderCheck{})
}

func hashFile(path string) (cache.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return cache.File{}, err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 32<<10)
	var out cache.File
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		out.Size += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return cache.File{}, err
		}
	}
	h.Sum(out.Sum[:0])
	return out, nil
}
