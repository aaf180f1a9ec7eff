package skillcache

import (
	"archive/tar"
	"archive/zip"
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/extract"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Repository is a repository snapshot extracted into a private staging
// area of a skill cache (rule 1 of internal/cache: locked while it lives,
// swept once its owner is gone), as [ExtractRepositoryShown] extracts
// one, so that a skill found in it becomes a tree of the cache by a
// rename ([Repository.Publish]) rather than by a copy: each file of a
// skill kept in the cache is written once. Make one with
// [StageRepository], and Close it when done. A Repository is not safe
// for concurrent use, except Publish of disjoint folders.
type Repository struct {
	c     *skill.Cache
	store *cache.Store
	st    *cache.Staging
	files []File
}

// StageRepository returns a new, empty Repository in c's staging area.
// It fails when c's root cannot be opened as a store (rule 8 of package
// skill's doc): the caller then extracts elsewhere.
func StageRepository(c *skill.Cache) (*Repository, error) {
	if c.Root() == "" {
		return nil, errZeroCache
	}
	store, err := cache.Open(c.Root())
	if err != nil {
		return nil, err
	}
	st, err := store.Stage("repository")
	if err != nil {
		store.Close()
		return nil, err
	}
	return &Repository{c: c, store: store, st: st}, nil
}

// Dir returns the folder the repository is extracted into (absolute).
func (r *Repository) Dir() string { return r.st.Dir() }

// Extract is [ExtractRepositoryShown] into [Repository.Dir], which must
// still be empty; Extract is called once.
//
// With also not nil, it writes only what the skills of the repository
// need, when the archive's entries can be listed without reading it (a
// tar read by its headers, a zip by its central directory; a tar.gz is
// written whole): the folders that hold a SKILL.md, with everything in
// them; the entries at the repository's root (its folders, at least
// empty); the files also reports true for (a caller's manifests); and
// the entries the links among those point to, to the end of a chain of
// links (so that each link is resolved, or dropped, as in the whole
// archive). Every entry is still checked and counted as
// [ExtractRepositoryShown] checks it, and the files returned are those
// written. An entry is a folder as the extractor takes it: by a tar
// header's type, a zip entry's mode. A repository with a SKILL.md at its
// root is written whole. A caller lists a tar.gz by extracting the tar
// [PlainTar] decompresses it to. The listing holds the cache's limits before it
// reads (the archive's size, the entries it lists, a zip's directory
// counted first), so that an archive they refuse costs no more than
// without it.
func (r *Repository) Extract(ctx context.Context, a io.ReaderAt, size int64, content func(rel string, exec bool, size int64) io.WriteCloser, also func(rel string) bool) ([]File, []DroppedLink, error) {
	root := r.st.Root()
	var dropped []DroppedLink
	opts := options(r.c)
	opts.Content = content
	var top []string
	if also != nil {
		if entries, ok := listing(a, size, r.c.Limits()); ok {
			opts.Leave, top = leaveOf(entries, also)
		}
	}
	files, err := extractAll(ctx, opts, r.c, a, size, root, func(d DroppedLink) { dropped = append(dropped, d) })
	if err != nil {
		return nil, nil, err
	}
	for _, name := range top { // the root's folders, as a whole extraction has them
		if err := root.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, nil, err
		}
	}
	r.files = files
	return files, dropped, nil
}

// MaxPlainTar bounds the tar a tar.gz decompresses to for [PlainTar]:
// past it, PlainTar gives up, having decompressed and written this many
// bytes for nothing.
const MaxPlainTar = 64 << 20

// PlainTar decompresses the archive a, size bytes long, into a temporary
// file when it is a tar.gz whose gzip stream is whole and valid and
// gives a tar (as [extract.Sniff] names it) of at most c's archive size
// and total size limits and [MaxPlainTar] bytes, and returns that file,
// its size and what closes it (the file has no name left on Unix, and
// is removed on close elsewhere); otherwise it returns a nil file,
// having removed what it wrote. It lets [Repository.Extract] list a tar.gz, and
// write only what skills need of it: the bytes are those the extractor
// reads of the tar.gz, decompressed by the same gzip package, so the tar
// is checked entry by entry as the tar.gz would be, and a gzip stream
// that fails here is extracted as a tar.gz, failing there as it always
// did. The archive's own size is checked first, as the extraction checks
// it, and a cancelled ctx stops the decompression.
func PlainTar(ctx context.Context, c *skill.Cache, a io.ReaderAt, size int64) (io.ReaderAt, int64, func()) {
	limits := c.Limits()
	if size > limits.MaxArchiveSize {
		return nil, 0, nil
	}
	head := make([]byte, 512)
	if n, _ := a.ReadAt(head[:2], 0); n < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return nil, 0, nil
	}
	zr, err := gzip.NewReader(io.NewSectionReader(a, 0, size))
	if err != nil {
		return nil, 0, nil
	}
	defer zr.Close()
	f, err := os.CreateTemp("", "agentskills-tar-*")
	if err != nil {
		return nil, 0, nil
	}
	// Removed at once where an open file can be (Unix), so a crash
	// leaves nothing behind; elsewhere once closed.
	removed := os.Remove(f.Name()) == nil
	release := func() {
		f.Close()
		if !removed {
			os.Remove(f.Name())
		}
	}
	max := min(limits.MaxArchiveSize, limits.MaxTotalSize, MaxPlainTar)
	n, err := io.Copy(f, io.LimitReader(ctxReader{ctx, zr}, max+1))
	if err != nil || n > max {
		release()
		return nil, 0, nil
	}
	m, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		release()
		return nil, 0, nil
	}
	if format, err := extract.Sniff(head[:m]); err != nil || format != "tar" {
		release()
		return nil, 0, nil
	}
	return f, n, release
}

// ctxReader is r, stopped once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// listed is an entry of an archive as listing reads it: its name as the
// extractor cleans it, and, for a link, its target inside the archive.
type listed struct {
	name string
	dir  bool
	link string // the path in the archive a link points to; "" for others
}

// listing lists the entries of the archive a, size bytes long, when that
// costs no read of their content (a tar or a zip without links), and
// reports whether it did. It lists nothing the limits refuse, at no more
// cost than the extraction's refusal: an archive larger than the limit is
// not read, a tar's listing stops at the first entry past the limit, and
// a zip's central directory is counted as the extractor counts it (its
// rule 10) before it is read.
func listing(a io.ReaderAt, size int64, limits skill.Limits) ([]listed, bool) {
	if size > limits.MaxArchiveSize {
		return nil, false
	}
	head := make([]byte, 512)
	n, err := a.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, false
	}
	format, err := extract.Sniff(head[:n])
	if err != nil {
		return nil, false
	}
	var out []listed
	add := func(raw string, dir bool, link string) bool {
		name := strings.TrimSuffix(raw, "/")
		for strings.HasPrefix(name, "./") {
			name = name[2:]
		}
		if name == "" || name == "." {
			return true
		}
		if len(out) >= limits.MaxArchiveEntries {
			return false // the extraction refuses it
		}
		if !fs.ValidPath(name) || link != "" && !fs.ValidPath(link) {
			return false // the extraction refuses it, or drops the link
		}
		// A folder is what the extractor takes for one: a tar entry of the
		// folder type, a zip entry whose mode says folder (archive/zip gives
		// that to a name ending in "/"). A tar file entry whose name ends in
		// "/" is a file to it, trimmed as here.
		out = append(out, listed{name: name, dir: dir, link: link})
		return true
	}
	switch format {
	case "tar":
		tr := tar.NewReader(io.NewSectionReader(a, 0, size)) // a section seeks past the files
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return out, true
			}
			if err != nil {
				return nil, false
			}
			var link string
			switch h.Typeflag {
			case tar.TypeXGlobalHeader:
				continue
			case tar.TypeSymlink:
				link = path.Join(path.Dir(strings.TrimPrefix(h.Name, "./")), h.Linkname)
			case tar.TypeLink:
				link = strings.TrimPrefix(h.Linkname, "./")
			}
			if !add(h.Name, h.Typeflag == tar.TypeDir, link) {
				return nil, false
			}
		}
	case "zip":
		if extract.CountZip(a, size, limits.MaxArchiveEntries) != nil {
			return nil, false
		}
		zr, err := zip.NewReader(a, size)
		if err != nil {
			return nil, false
		}
		for _, f := range zr.File {
			if f.Mode()&fs.ModeSymlink != 0 || !add(f.Name, f.Mode().IsDir(), "") {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// leaveOf returns what Extract leaves out of a repository of entries
// (nil: nothing), and the folders at its root.
func leaveOf(entries []listed, also func(string) bool) (func(string) bool, []string) {
	skills := map[string]bool{}
	var top []string // in the archive's order
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.dir && path.Base(e.name) == "SKILL.md" {
			skills[path.Dir(e.name)] = true
		}
		first, _, nested := strings.Cut(e.name, "/")
		if (nested || e.dir) && !LeftOut(first) && !seen[first] {
			seen[first] = true
			top = append(top, first)
		}
	}
	if skills["."] {
		return nil, nil // the root is a skill: everything is in it
	}
	keep := func(rel string) bool {
		if !strings.Contains(rel, "/") || also(rel) {
			return true
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if skills[d] {
				return true
			}
		}
		return false
	}
	// The targets of the links kept, and of the links those point to, to
	// the end of each chain, so that the extractor resolves each kept link
	// as it does in the whole archive (to a file, or to another link it
	// drops the first for).
	linksOf := map[string][]string{}
	var next []string
	for _, e := range entries {
		if e.link == "" {
			continue
		}
		linksOf[e.name] = append(linksOf[e.name], e.link)
		if keep(e.name) {
			next = append(next, e.link)
		}
	}
	targets := map[string]bool{}
	for len(next) > 0 {
		t := next[len(next)-1]
		next = next[:len(next)-1]
		if !targets[t] {
			targets[t] = true
			next = append(next, linksOf[t]...)
		}
	}
	return func(rel string) bool { return !keep(rel) && !targets[rel] }, top
}

// Publish makes the folder sub of the extracted repository ("" for its
// root) the cache's tree of a skill with runtime name name, and returns
// the tree's folder and content digest (skill.ContentDigest): when the
// cache holds that tree already (package skill's rule 4) it is used, and
// otherwise the folder is renamed into the cache, leaving the
// repository, and published without being read again. The folder must
// hold what Extract wrote there and nothing else, and a skill's tree as
// materializing skill.FS of it would write it (the caller checked its
// SKILL.md; every file passed the cache's rules when it was extracted);
// its files' bytes are those Extract hashed. On failure the folder is
// back in the repository, unless the error says it has left it (as
// [cache.Staging.PublishFolder] says): the caller materializes the skill
// from it or from elsewhere, or fails.
func (r *Repository) Publish(sub, name string) (dir, digest string, err error) {
	files := FilesIn(r.files, sub)
	if len(files) == 0 {
		return "", "", errors.New("no file was extracted there")
	}
	digest = cache.Digest(name, cacheFiles(files))
	if dir, ok := r.store.Lookup(digest, name); ok {
		return dir, digest, nil
	}
	return r.st.PublishFolder(cmp.Or(sub, "."), name, cacheFiles(files))
}

// Close removes what is left of the extracted repository and releases
// its staging area.
func (r *Repository) Close() error {
	err := r.st.Close()
	r.store.Close()
	return err
}

// FilesIn returns those of files (paths relative to a repository's root)
// that lie in its folder sub ("" for the root), with paths relative to
// sub.
func FilesIn(files []File, sub string) []File {
	if sub == "" {
		return files
	}
	var out []File
	for _, f := range files {
		if rel, ok := strings.CutPrefix(f.Path, sub+"/"); ok {
			f.Path = rel
			out = append(out, f)
		}
	}
	return out
}
