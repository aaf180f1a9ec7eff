package skill

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// File is one regular file of a skill tree, as [Cache.CheckFS] reads it.
type File struct {
	// Path is slash-separated and relative to the tree's root.
	Path string
	// Exec reports whether the file is executable.
	Exec bool
	// Size is the file's length in bytes.
	Size int64
	// Sum is the SHA-256 of the file's bytes.
	Sum [32]byte
}

// LeftOut reports whether an entry named name (one path element) is left
// out of every skill: version-control metadata such as .git, in any ASCII
// case (rule 10 of the package doc). A program that reads a skill tree
// itself skips such entries as the cache does.
func LeftOut(name string) bool { return extract.LeftOut(name) }

// CheckFS reads the skill tree fsys as materializing [FS](fsys, ".")
// would, under the cache's rules and limits (rules 6, 7 and 10 of the
// package doc: a regular SKILL.md at the root, portable names, regular
// files and folders only, a link read as the file it points to inside the
// tree, the limits, version-control metadata left out), and returns its
// files, hashed. It writes nothing, in the cache or elsewhere.
func (c *Cache) CheckFS(ctx context.Context, fsys fs.FS) ([]File, error) {
	if c.root == "" {
		return nil, errZeroCache
	}
	files, err := extract.FS(ctx, fsys, ".", nil, c.extractOptions())
	if err != nil {
		return nil, err
	}
	out := make([]File, len(files))
	for i, f := range files {
		out[i] = File(f)
	}
	return out, nil
}

// FilesDigest returns the [ContentDigest] of a folder named name that
// holds files and nothing else: what [Cache.CopyFS] returns for a copy of
// the tree whose files [Cache.CheckFS] returned, without the copy.
func FilesDigest(name string, files []File) string {
	sums := make([]cache.File, len(files))
	for i, f := range files {
		sums[i] = cache.File(f)
	}
	return cache.Digest(name, sums)
}

// CopyFS copies the skill tree fsys, checked as [Cache.CheckFS] checks
// it, into dst, a new folder it creates (its parent must exist), and
// returns the [ContentDigest] of dst, computed while copying. Unlike the
// cache's trees the copy is the caller's to edit: files are written 0644
// (0755 when executable), folders 0755; on Windows, which keeps no
// executable bit, every file is writable. It writes nothing in the cache.
// On failure dst may hold part of the tree: the caller removes it.
func (c *Cache) CopyFS(ctx context.Context, fsys fs.FS, dst string) (digest string, err error) {
	if c.root == "" {
		return "", errZeroCache
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return "", err
	}
	defer root.Close()
	opts := c.extractOptions()
	opts.Writable = true
	files, err := extract.FS(ctx, fsys, ".", root, opts)
	if err != nil {
		return "", err
	}
	// The encoding ContentDigest uses for a folder of regular files.
	return cache.Digest(filepath.Base(dst), cacheFiles(files)), nil
}

// ExtractArchive extracts the whole archive r, size bytes long (zip, tar
// or tar.gz, told apart by its leading bytes), into the existing folder
// dst, checked under the cache's rules and limits as
// [Cache.ArchiveSkills] checks it: every skill it holds, at any depth,
// whether or not a SKILL.md is at its root. A tar or tar.gz is checked
// as it is written, and what was written is removed again when it is
// refused; a zip is checked whole first. An archive over MaxArchiveSize
// is refused before it is read. Files are written read-only (0444, 0555
// when executable), folders 0755, so dst can be removed with
// os.RemoveAll. It writes nothing in the cache; errors do not name this
// package's options (the caller says what to do). On failure dst may
// hold part of the tree: the caller removes it.
func (c *Cache) ExtractArchive(ctx context.Context, r io.ReaderAt, size int64, dst string) error {
	return c.extractTo(ctx, r, size, dst, extract.Options{})
}

// ExtractRepository extracts the whole archive r, a repository snapshot
// that may hold many skills, as [Cache.ExtractArchive] does, except that
// a link entry that a skill could not hold (one whose target is
// absolute, out of the archive, a folder, another link or nothing) does
// not fail it: that link is checked and counted like every entry, never
// written and never followed, and returned, so that the caller can skip
// the skills whose folders held one. Every other rule still fails the
// whole archive.
func (c *Cache) ExtractRepository(ctx context.Context, r io.ReaderAt, size int64, dst string) ([]DroppedLink, error) {
	var dropped []DroppedLink
	err := c.extractTo(ctx, r, size, dst, extract.Options{DropLink: func(d DroppedLink) { dropped = append(dropped, d) }})
	if err != nil {
		return nil, err
	}
	return dropped, nil
}

// extractTo extracts the whole archive r into the folder dst with the
// DropLink of opts.
func (c *Cache) extractTo(ctx context.Context, r io.ReaderAt, size int64, dst string, opts extract.Options) error {
	if c.root == "" {
		return errZeroCache
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	_, err = c.extractAll(ctx, r, size, root, opts.DropLink)
	return err
}

// DroppedLink is a link entry that [Cache.ExtractRepository] left out:
// Name is its slash-separated path in the archive, Target its target as
// the archive spells it, Problem why it was left out.
type DroppedLink = extract.DroppedLink

// LinkProblem says why [Cache.ExtractRepository] left a link out.
type LinkProblem = extract.LinkProblem

// The values of LinkProblem.
const (
	LinkOut      = extract.LinkOut      // absolute, not portable, or out of the archive
	LinkMissing  = extract.LinkMissing  // to nothing the archive holds
	LinkToFolder = extract.LinkToFolder // to a folder
	LinkToLink   = extract.LinkToLink   // to another link
)
