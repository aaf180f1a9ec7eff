package skill

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
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
	return digestFolder(ctx, dir, nil)
}

// digestFolder reads the folder dir as ContentDigest describes and
// returns its digest. With a record, a file whose stat the record holds
// is not read again (see folderRecord.file).
func digestFolder(ctx context.Context, dir string, rec *folderCheck) (string, error) {
	fsys := os.DirFS(dir)
	var files []cache.File
	var links []cache.Link
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p != "." && extract.LeftOut(d.Name()) {
			// Not part of the skill (rule 10 of the package doc).
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			f, err := rec.file(filepath.Join(dir, filepath.FromSlash(p)), p, info)
			if err != nil {
				return err
			}
			f.Path, f.Exec = p, info.Mode()&0o111 != 0
			files = append(files, f)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			links = append(links, cache.Link{Path: p, Target: filepath.ToSlash(target)})
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("digest skill folder %s: %w", dir, err)
	}
	return cache.DigestTree(filepath.Base(dir), files, links), nil
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
