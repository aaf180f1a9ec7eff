// Package skillcache is what the module's own packages do with a
// [skill.Cache] beyond what its users do: installers and sources that put
// skills into agents' folders, list the skills of an archive, or fetch
// content for the cache, under the cache's rules and limits, without a
// second copy of the extractor or of the limits.
//
// Package skill's API is for hosts: they materialize skills, and list and
// collect the cache. What only the module needs (a tree checked or copied
// into a folder of the caller's, a repository unpacked, a tree looked up
// by a recorded digest, the limit error a download makes) is here, behind
// internal/, so that skill's API can stay small while install, the
// sources and the command-line tool apply the cache's rules exactly. Every
// function takes the *skill.Cache whose root and limits it applies; a
// zero Cache (not made by skill.NewCache) is refused. Nothing here writes
// in the cache except [Lookup], which records a use, a [Repository],
// which extracts into a staging area of the cache and publishes trees
// from it, and [SetRecord], which keeps a caller's stat record
// ([Record]).
//
// The rules are those of package skill's doc: rules 6, 7 and 10 (what a
// tree may hold, the limits, version-control metadata left out) hold for
// every tree read here, rule 4 for every tree [Lookup] hands out.
package skillcache

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/skill"
)

// errZeroCache is the error of every use of a Cache not made by
// skill.NewCache, as package skill words it.
var errZeroCache = errors.New("skill: a Cache must be made with NewCache")

// File is one regular file of a skill tree, as [CheckFS] reads it: Path is
// slash-separated and relative to the tree's root, Exec whether it is
// executable, Size its length and Sum the SHA-256 of its bytes.
type File = extract.File

// DroppedLink is a link entry that [ExtractRepository] left out: Name is
// its slash-separated path in the archive, Target its target as the
// archive spells it, Problem why it was left out.
type DroppedLink = extract.DroppedLink

// LinkProblem says why [ExtractRepository] left a link out.
type LinkProblem = extract.LinkProblem

// The values of LinkProblem.
const (
	LinkOut      = extract.LinkOut      // absolute, not portable, or out of the archive
	LinkMissing  = extract.LinkMissing  // to nothing the archive holds
	LinkToFolder = extract.LinkToFolder // to a folder
	LinkToLink   = extract.LinkToLink   // to another link
)

// LeftOut reports whether an entry named name (one path element) is left
// out of every skill: version-control metadata such as .git, in any ASCII
// case (rule 10 of package skill's doc). A program that reads a skill tree
// itself skips such entries as the cache does.
func LeftOut(name string) bool { return extract.LeftOut(name) }

// SoleFolder returns the folder that holds everything of the folder dir
// (the one entry there, when it is a folder and not a link, leaving
// version-control metadata out of the count), or "": the rule by which
// package skill takes an archive of one folder for that folder's skill
// (rule 17 of internal/extract), for an installer that reads an archive
// extracted into dir.
func SoleFolder(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	return extract.SoleFolder(func(yield func(string, bool) bool) {
		for _, e := range entries {
			if !yield(e.Name(), e.IsDir()) {
				return
			}
		}
	})
}

// NewLimitError returns a *skill.LimitError over the limit named limit
// (one of skill.LimitArchiveSize and its siblings, or a source's own
// option, named the same way), whose value is max, with a message
// formatted from format and args: for code that enforces a Cache's limits
// (or its own) where the cache does not read, such as a download for it,
// so that its refusals are the cache's own.
func NewLimitError(limit string, max int64, format string, args ...any) *skill.LimitError {
	return extract.NewLimitError(extract.Limit(limit), max, format, args...)
}

// Lookup returns the folder of the tree with the content digest digest
// (see skill.ContentDigest) and runtime name name, when c holds it
// undamaged: a program that recorded a digest can use the content again
// without its source. A tree changed after it was published (rule 4) is
// refused: the caller must fetch the source again, and materializing it
// replaces the tree. A lookup counts as a use of the tree (see
// skill.Cache.GC). A root that does not exist yet is not created. A lookup
// with ctx already done finds nothing; one started is not interrupted (it
// checks one tree, bounded by the cache's limits). It opens c's root for
// this one lookup, by its path: a root that is not safe from other users
// (rule 8 of package skill's doc) finds nothing.
func Lookup(ctx context.Context, c *skill.Cache, digest, name string) (dir string, ok bool) {
	if ctx.Err() != nil || c.Root() == "" {
		return "", false
	}
	return cache.Lookup(c.Root(), digest, name)
}

// CheckFS reads the skill tree fsys as materializing skill.FS(fsys, ".")
// in c would (a regular SKILL.md at the root, portable names, regular
// files and folders only, a link read as the file it points to inside the
// tree, c's limits, version-control metadata left out), and returns its
// files, hashed. It writes nothing, in the cache or elsewhere.
func CheckFS(ctx context.Context, c *skill.Cache, fsys fs.FS) ([]File, error) {
	if c.Root() == "" {
		return nil, errZeroCache
	}
	return extract.FS(ctx, fsys, ".", nil, options(c))
}

// FilesDigest returns the skill.ContentDigest of a folder named name that
// holds files and nothing else: what [CopyFS] returns for a copy of the
// tree whose files [CheckFS] returned, without the copy.
func FilesDigest(name string, files []File) string {
	return cache.Digest(name, cacheFiles(files))
}

// CopyFS copies the skill tree fsys, checked as [CheckFS] checks it, into
// dst, a new folder it creates (its parent must exist), and returns the
// skill.ContentDigest of dst, computed while copying, and the bytes of
// its files. Unlike the cache's
// trees the copy is the caller's to edit: files are written 0644 (0755
// when executable), folders 0755; on Windows, which keeps no executable
// bit, every file is writable. It writes nothing in the cache. On failure
// dst may hold part of the tree: the caller removes it.
func CopyFS(ctx context.Context, c *skill.Cache, fsys fs.FS, dst string) (digest string, size int64, err error) {
	if c.Root() == "" {
		return "", 0, errZeroCache
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return "", 0, err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return "", 0, err
	}
	defer root.Close()
	opts := options(c)
	opts.Writable = true
	files, err := extract.FS(ctx, fsys, ".", root, opts)
	if err != nil {
		return "", 0, err
	}
	for _, f := range files {
		size += f.Size
	}
	// The encoding ContentDigest uses for a folder of regular files.
	return FilesDigest(filepath.Base(dst), files), size, nil
}

// ExtractRepository extracts the whole archive r, size bytes long (zip,
// tar or tar.gz, told apart by its leading bytes), a repository snapshot
// that may hold many skills, into the existing folder dst, checked under
// c's rules and limits as [ArchiveSkills] checks it: every skill it holds,
// at any depth, whether or not a SKILL.md is at its root. A link entry
// that a skill could not hold (one whose target is absolute, out of the
// archive, a folder, another link or nothing) does not fail it: that link
// is checked and counted like every entry, never written and never
// followed, and returned, so that the caller can skip the skills whose
// folders held one. Every other rule fails the whole archive. A tar or
// tar.gz is checked as it is written, and what was written is removed
// again when it is refused; a zip is checked whole first. An archive over
// MaxArchiveSize is refused before it is read. Files are written
// read-only (0444, 0555 when executable), folders 0755, so dst can be
// removed with os.RemoveAll. It writes nothing in the cache; errors do not
// name package skill's options (the caller says what to do). On failure
// dst may hold part of the tree: the caller removes it.
func ExtractRepository(ctx context.Context, c *skill.Cache, r io.ReaderAt, size int64, dst string) ([]DroppedLink, error) {
	_, dropped, err := ExtractRepositoryShown(ctx, c, r, size, dst, nil)
	return dropped, err
}

// ExtractRepositoryShown is [ExtractRepository] that shows content the
// bytes of every file as it is written (the extractor's
// Options.Content: content, when not nil, is called from several
// goroutines at once with each file's path, executable bit and size
// when known, else -1, and the writer it returns gets the bytes and is
// closed once the file is written), so that the caller audits them
// without reading dst again; it returns the files written too, as
// [CheckFS] describes files.
func ExtractRepositoryShown(ctx context.Context, c *skill.Cache, r io.ReaderAt, size int64, dst string, content func(rel string, exec bool, size int64) io.WriteCloser) ([]File, []DroppedLink, error) {
	if c.Root() == "" {
		return nil, nil, errZeroCache
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	var dropped []DroppedLink
	opts := options(c)
	opts.Content = content
	files, err := extractAll(ctx, opts, c, r, size, root, func(d DroppedLink) { dropped = append(dropped, d) })
	if err != nil {
		return nil, nil, err
	}
	return files, dropped, nil
}

// ArchiveSkills lists the skills in the archive file at archivePath: the
// folders holding a SKILL.md at the archive's root or at most depth levels
// below it, as subpaths for skill.WithSubpath ("" for the root), sorted.
// The whole archive is checked under c's rules and limits first, and
// nothing is written to the cache (a tar.gz is decompressed once into a
// temporary file, removed before ArchiveSkills returns); an archive that
// breaks a rule fails as its materialization would, with errors that do
// not name package skill's options (the caller says what to do).
func ArchiveSkills(ctx context.Context, c *skill.Cache, archivePath string, depth int) ([]string, error) {
	if c.Root() == "" {
		return nil, errZeroCache
	}
	f, err := os.Open(archivePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	files, err := extractAll(ctx, options(c), c, f, info.Size(), nil, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, file := range files {
		if path.Base(file.Path) != "SKILL.md" {
			continue
		}
		dir := path.Dir(file.Path)
		if dir == "." {
			dir = ""
		}
		if n := strings.Count(dir, "/") + 1; dir != "" && n > depth {
			continue
		}
		out = append(out, dir)
	}
	slices.Sort(out)
	return out, nil
}

// extractAll checks the whole archive r, of size bytes, under c's rules
// and limits (opts, options(c) and what the caller adds), whether or not
// a SKILL.md is at its root, and writes it to dst unless dst is nil;
// drop, when not nil, is extract's Options.DropLink.
func extractAll(ctx context.Context, opts extract.Options, c *skill.Cache, r io.ReaderAt, size int64, dst *os.Root, drop func(DroppedLink)) ([]File, error) {
	if max := c.Limits().MaxArchiveSize; size > max {
		return nil, extract.NewLimitError(extract.LimitArchiveSize, max, "archive is larger than %d bytes", max)
	}
	opts.AnyTree = true
	opts.DropLink = drop
	return extract.Archive(ctx, r, size, dst, opts)
}

// options are c's limits in the extractor's terms (package skill converts
// them alike for materializing; its TestOneVocabulary holds the two
// vocabularies equal).
func options(c *skill.Cache) extract.Options {
	l := c.Limits()
	return extract.Options{
		MaxFileSize:       l.MaxFileSize,
		MaxTotalSize:      l.MaxTotalSize,
		MaxArchiveEntries: l.MaxArchiveEntries,
	}
}

// cacheFiles converts the extractor's records of files into the cache's.
func cacheFiles(in []File) []cache.File {
	out := make([]cache.File, len(in))
	for i, f := range in {
		out[i] = cache.File(f)
	}
	return out
}

// MaterializeContent materializes s with m and returns its absolute
// folder and its content digest: the digest m reports when it is a
// [skill.ContentMaterializer] that returned an absolute folder, else the
// digest of the folder's content. It is how the SDK's resolution and a
// checking materializer that wraps another read what they stage.
func MaterializeContent(ctx context.Context, m skill.Materializer, s skill.Skill) (dir, digest string, err error) {
	if cm, ok := m.(skill.ContentMaterializer); ok {
		dir, digest, err = cm.MaterializeContent(ctx, s)
	} else {
		dir, err = m.Materialize(ctx, s)
	}
	if err != nil {
		return "", "", err
	}
	if dir == "" {
		return "", "", errors.New("the materializer returned no folder")
	}
	if !filepath.IsAbs(dir) {
		if dir, err = filepath.Abs(dir); err != nil {
			return "", "", err
		}
		digest = ""
	}
	if digest == "" {
		if digest, err = skill.ContentDigest(ctx, dir); err != nil {
			return "", "", err
		}
	}
	return dir, digest, nil
}
