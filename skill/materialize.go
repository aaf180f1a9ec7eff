package skill

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/ctxio"
	"github.com/agentadaptor/agentadaptor/internal/extract"
)

// Errors that classify why archive or tree content was refused. They are
// wrapped by the Cause of a [SkillMaterializationError].
var (
	// ErrArchiveFormat reports an archive that is corrupt, truncated, of an
	// unsupported format, whose checksums do not match, or that has no
	// SKILL.md where one is expected.
	ErrArchiveFormat = extract.ErrFormat
	// ErrArchiveUnsafe reports an entry that could escape the cache, clash
	// with another entry, or is not a regular file or folder.
	ErrArchiveUnsafe = extract.ErrUnsafe
	// ErrArchiveLimit reports content over one of the materializer's limits.
	ErrArchiveLimit = extract.ErrLimit
)

// LimitError reports content over a limit; errors.Is(err,
// [ErrArchiveLimit]) holds for it. It is the one limit error of the
// module, so that whoever shows an error can say what to do about any
// limit alike:
//
//   - Limit names the limit: for a [Cache]'s, the field of [Limits] that
//     holds it ("MaxArchiveSize", "MaxFileSize", "MaxTotalSize",
//     "MaxArchiveEntries"); packages that fetch sources for the cache
//     name their own options the same way (package github's
//     "MaxDownloadSize").
//   - Max is the limit's value.
//
// Its message says what is over the limit, never how to raise it: a
// program sets an option, a command may have a flag or none, so the caller
// says that from Limit. The materializer adds the option to the Cause of
// its [SkillMaterializationError] ("raise it with WithMaxFileSize"). Use
// errors.As with a *LimitError.
type LimitError = extract.LimitError

// The names of a [Cache]'s limits, as [LimitError.Limit] gives them: each
// is the field of [Limits] that holds the limit, and the option that sets
// it is With and the name.
const (
	LimitArchiveSize    = "MaxArchiveSize"
	LimitFileSize       = "MaxFileSize"
	LimitTotalSize      = "MaxTotalSize"
	LimitArchiveEntries = "MaxArchiveEntries"
)

// Materializer writes a skill source to a directory containing SKILL.md.
type Materializer interface {
	// Materialize makes s available in a directory containing SKILL.md and
	// returns that directory.
	Materialize(ctx context.Context, s Skill) (sourcePath string, err error)
}

// ContentMaterializer is an optional interface for a Materializer that also
// reports the [ContentDigest] of the folder it returns, sparing its caller
// a second read of the folder. The default materializer implements it.
type ContentMaterializer interface {
	Materializer
	// MaterializeContent is Materialize that also returns the folder's
	// ContentDigest.
	MaterializeContent(ctx context.Context, s Skill) (sourcePath, digest string, err error)
}

// Materialize stages s and returns its folder. Every failure is a
// *SkillMaterializationError naming the skill.
func (c *Cache) Materialize(ctx context.Context, s Skill) (string, error) {
	dir, _, err := c.run(ctx, s, false)
	return dir, err
}

// MaterializeContent is Materialize that also returns the folder's
// ContentDigest; for a cached tree it is known without reading the tree
// again.
func (c *Cache) MaterializeContent(ctx context.Context, s Skill) (dir, digest string, err error) {
	return c.run(ctx, s, true)
}

func (c *Cache) run(ctx context.Context, s Skill, wantDigest bool) (string, string, error) {
	name, err := RuntimeName(s)
	var dir, digest string
	switch {
	case c.root == "":
		err = errZeroCache
	case err == nil:
		dir, digest, err = c.materialize(ctx, s.Source, name, wantDigest)
	}
	if err != nil {
		return "", "", &SkillMaterializationError{Key: s.Key, RuntimeName: name, Cause: withHint(err)}
	}
	return dir, digest, nil
}

// withHint adds to an error over a limit the option that raises it.
func withHint(err error) error {
	var over *LimitError
	if errors.As(err, &over) {
		return fmt.Errorf("%w (raise it with With%s)", err, over.Limit)
	}
	return err
}

// materialize returns the folder of a source of one of the package's
// kinds (see [SourceDiff]) and, when wantDigest is set or the folder is a
// cached tree, its content digest.
func (c *Cache) materialize(ctx context.Context, src Source, name string, wantDigest bool) (string, string, error) {
	src, ok := canonical(src)
	if !ok {
		return "", "", ErrSkillSourceMissing
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	switch src := src.(type) {
	case PathSource:
		dir, err := usePath(src.Path)
		if err != nil || !wantDigest {
			return dir, "", err
		}
		digest, err := c.folderDigest(ctx, dir)
		return dir, digest, err
	case InlineSource:
		return c.inline(ctx, src.SkillMD, name)
	case FSSource:
		if src.FS == nil {
			return "", "", fmt.Errorf("%w: FSSource has a nil FS", ErrSkillSourceMissing)
		}
		return c.fs(ctx, src.FS, src.Root, name)
	case ArchiveSource:
		if src.Archive == nil {
			return "", "", fmt.Errorf("%w: ArchiveSource has a nil opener", ErrSkillSourceMissing)
		}
		return c.archive(ctx, src.Archive, src.Format, src.Subpath, name)
	}
	return "", "", fmt.Errorf("source type %T is not supported by the default materializer (install a Materializer that handles it)", src)
}

// usePath checks that dir holds a regular SKILL.md and returns it,
// absolute, without copying anything.
func usePath(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("%w: PathSource has an empty path", ErrSkillSourceMissing)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(filepath.Join(abs, "SKILL.md"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s has no SKILL.md (point Dir at the folder that holds it)", abs)
		}
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s/SKILL.md is not a regular file", abs)
	}
	return abs, nil
}

func (c *Cache) inline(ctx context.Context, content, name string) (string, string, error) {
	if n := int64(len(content)); n > c.limits.MaxFileSize {
		return "", "", extract.NewLimitError(extract.LimitFileSize, c.limits.MaxFileSize, "inline SKILL.md is %d bytes; the limit is %d", n, c.limits.MaxFileSize)
	} else if n > c.limits.MaxTotalSize {
		return "", "", extract.NewLimitError(extract.LimitTotalSize, c.limits.MaxTotalSize, "inline SKILL.md is %d bytes; the limit is %d", n, c.limits.MaxTotalSize)
	}
	files := []cache.File{{Path: "SKILL.md", Size: int64(len(content)), Sum: sha256.Sum256([]byte(content))}}
	return c.stageOnce(ctx, name, files, func(root *os.Root) ([]cache.File, error) {
		f, err := root.OpenFile("SKILL.md", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err != nil {
			return nil, err
		}
		_, err = io.WriteString(f, content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if show := cache.ShowOf(ctx).ContentOf(name); show != nil && err == nil {
			if w := show("SKILL.md", false, int64(len(content))); w != nil {
				if _, err = io.WriteString(w, content); err == nil {
					err = w.Close()
				}
			}
		}
		return files, err
	})
}

func (c *Cache) fs(ctx context.Context, fsys fs.FS, root, name string) (string, string, error) {
	opts := c.extractOptions()
	files, err := c.fsFiles(ctx, fsys, root)
	if err != nil {
		return "", "", err
	}
	// The tree is read again while writing; what is published is what
	// this pass wrote and hashed.
	opts.Content = cache.ShowOf(ctx).ContentOf(name)
	return c.stageOnce(ctx, name, files, func(dst *os.Root) ([]cache.File, error) {
		written, err := extract.FS(ctx, fsys, root, dst, opts)
		return cacheFiles(written), err
	})
}

// stageOnce returns the cached tree named name that holds files, or, when
// the cache has none, has write write it into a new staging area and
// publishes what write reports it wrote. Calls for one tree at the same
// time stage it once (rule 3): the first stages, the others wait for its
// tree as long as ctx allows.
func (c *Cache) stageOnce(ctx context.Context, name string, files []cache.File, write func(*os.Root) ([]cache.File, error)) (string, string, error) {
	store, err := c.open()
	if err != nil {
		return "", "", err
	}
	digest := cache.Digest(name, files)
	for {
		if dir, ok := store.Lookup(digest, name); ok {
			return dir, digest, nil
		}
		f, first := c.join(digest)
		if first {
			return c.land(digest, f, func() (string, string, error) {
				// Another flight may have published the tree and ended
				// between the look above and this one's start.
				if dir, ok := store.Lookup(digest, name); ok {
					return dir, digest, nil
				}
				dir, got, err := stage(store, name, write)
				if err == nil {
					cache.ShowOf(ctx).Done(name, got)
				}
				return dir, got, err
			})
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return "", "", ctx.Err()
		}
		if f.err == nil && f.digest == digest {
			return f.dir, digest, nil
		}
		// The first failed, or published other content (an FS that
		// changed between its two passes): look again, and stage.
	}
}

// stage has write write a tree named name into a new staging area of
// store, and publishes what write reports it wrote.
func stage(store *cache.Store, name string, write func(*os.Root) ([]cache.File, error)) (string, string, error) {
	st, err := store.Stage(name)
	if err != nil {
		return "", "", err
	}
	defer st.Close()
	written, err := write(st.Root())
	if err != nil {
		return "", "", err
	}
	return st.Publish(written)
}

// spoolInMemory is how much of a non-seekable archive stream is held in
// memory before it is spooled to a private file in the cache.
const spoolInMemory = 4 << 20

// archive materializes an archive: read it once, hashing; a memo from that
// hash (with the options that shape the result) to the content digest
// turns a repeat into a lookup; otherwise extract into staging and publish.
func (c *Cache) archive(ctx context.Context, open Opener, format Format, subpath, name string) (string, string, error) {
	decoder, err := decoderOf(format)
	if err != nil {
		return "", "", err
	}
	store, err := c.open()
	if err != nil {
		return "", "", err
	}
	rc, err := open(ctx)
	if err != nil {
		return "", "", fmt.Errorf("open archive: %w", err)
	}
	defer rc.Close()
	st := &lazyStaging{store: store, name: name}
	defer st.close()

	in, err := c.read(ctx, rc, st)
	if err != nil {
		return "", "", err
	}
	key := c.memoKey(in.sum, format, subpath, name)
	if digest, ok := store.Memo(key); ok {
		if dir, ok := store.Lookup(digest, name); ok {
			return dir, digest, nil
		}
	}
	data, err := c.private(ctx, in, st)
	if err != nil {
		return "", "", err
	}
	staging, err := st.get()
	if err != nil {
		return "", "", err
	}
	opts := c.extractOptions()
	opts.Format, opts.Subpath = decoder, subpath
	opts.Content = cache.ShowOf(ctx).ContentOf(name)
	sole := ""
	opts.Wrapped = func(folder string) { sole = folder } // an archive of one folder (Archive)
	files, err := extract.Archive(ctx, data, in.size, staging.Root(), opts)
	if errors.Is(err, extract.ErrUnrecognized) {
		// What to set is the caller's: WithFormat, an option of Archive.
		err = fmt.Errorf("%w (pin one with WithFormat if the archive is of an older kind)", err)
	}
	if err != nil {
		return "", "", err
	}
	var dir, digest string
	if sole != "" {
		dir, digest, err = staging.PublishFolder(sole, name, cacheFiles(files))
	} else {
		dir, digest, err = staging.Publish(cacheFiles(files))
	}
	if err != nil {
		return "", "", err
	}
	if sole == "" {
		// The files of an archive of one folder were shown under the
		// folder's name, not as the tree holds them: not Done, the
		// watcher reads the tree instead.
		cache.ShowOf(ctx).Done(name, digest)
	}
	store.SetMemo(key, digest) // best effort: a missing memo costs an extraction
	return dir, digest, nil
}

// decoderOf returns the extractor's name of the format f: the same
// string, once f is known to be one of the formats.
func decoderOf(f Format) (string, error) {
	switch f {
	case FormatAuto, FormatZip, FormatTar, FormatTarGz:
		return string(f), nil
	}
	return "", fmt.Errorf("format %q: %w: unknown (use FormatZip, FormatTar, FormatTarGz or FormatAuto)", string(f), ErrArchiveFormat)
}

// cacheFiles converts the extractor's records of files into the cache's.
func cacheFiles(in []extract.File) []cache.File {
	out := make([]cache.File, len(in))
	for i, f := range in {
		out[i] = cache.File(f)
	}
	return out
}

// lazyStaging is a staging area created on first use, for the archive
// paths that need one (a spool, an extraction) and the memo hit that does
// not.
type lazyStaging struct {
	store *cache.Store
	name  string
	st    *cache.Staging
}

func (l *lazyStaging) get() (*cache.Staging, error) {
	if l.st == nil {
		st, err := l.store.Stage(l.name)
		if err != nil {
			return nil, err
		}
		l.st = st
	}
	return l.st, nil
}

func (l *lazyStaging) close() {
	if l.st != nil {
		l.st.Close()
	}
}

// archiveInput is an archive read once to its end and hashed. Its bytes
// are in data, or, for a seekable source hashed where it is, still only
// in file.
type archiveInput struct {
	data io.ReaderAt
	file io.ReadSeeker
	size int64
	sum  [32]byte
}

// read reads and hashes the archive: bytes from ArchiveBytes in place, a
// seekable stream (a file) where it is, anything else spooled.
func (c *Cache) read(ctx context.Context, rc io.ReadCloser, st *lazyStaging) (archiveInput, error) {
	var in archiveInput
	var err error
	switch r := rc.(type) {
	case memReader: // from ArchiveBytes: the bytes are hashed and read in place
		if int64(len(r.data)) > c.limits.MaxArchiveSize {
			return in, c.tooLarge()
		}
		in.data, in.size, in.sum = bytes.NewReader(r.data), int64(len(r.data)), sha256.Sum256(r.data)
		return in, nil
	case io.ReadSeeker:
		if _, err := r.Seek(0, io.SeekCurrent); err == nil {
			in.file = r
			in.size, in.sum, err = c.hashStream(ctx, r, nil)
			return in, err
		}
	}
	in.data, in.size, in.sum, err = c.spool(ctx, rc, st)
	return in, err
}

// private returns the archive's bytes to extract from: in.data, or a
// private copy of in.file, checked to be what was hashed.
func (c *Cache) private(ctx context.Context, in archiveInput, st *lazyStaging) (io.ReaderAt, error) {
	if in.data != nil {
		return in.data, nil
	}
	if _, err := in.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	staging, err := st.get()
	if err != nil {
		return nil, err
	}
	f, err := staging.File("spool")
	if err != nil {
		return nil, err
	}
	_, again, err := c.hashStream(ctx, in.file, f)
	if err != nil {
		return nil, err
	}
	if again != in.sum {
		return nil, fmt.Errorf("%w: the archive changed while it was read", ErrArchiveFormat)
	}
	return f, nil
}

func (c *Cache) tooLarge() error {
	return extract.NewLimitError(extract.LimitArchiveSize, c.limits.MaxArchiveSize, "archive is larger than %d bytes", c.limits.MaxArchiveSize)
}

// hashStream reads r to its end within the archive size cap, hashing it
// and copying it to w when w is not nil.
func (c *Cache) hashStream(ctx context.Context, r io.Reader, w io.Writer) (int64, [32]byte, error) {
	h := sha256.New()
	dst := io.Writer(h)
	if w != nil {
		dst = io.MultiWriter(h, w)
	}
	n, err := io.Copy(dst, io.LimitReader(ctxio.Reader(ctx, r), c.limits.MaxArchiveSize+1))
	var sum [32]byte
	if err != nil {
		return 0, sum, fmt.Errorf("read archive: %w", err)
	}
	if n > c.limits.MaxArchiveSize {
		return 0, sum, c.tooLarge()
	}
	h.Sum(sum[:0])
	return n, sum, nil
}

// spool reads a stream to its end, in memory while it is small and into a
// private file in the staging area beyond that, so memory use does not
// grow with the archive.
func (c *Cache) spool(ctx context.Context, r io.Reader, stage *lazyStaging) (io.ReaderAt, int64, [32]byte, error) {
	var sum [32]byte
	var head bytes.Buffer
	n, err := head.ReadFrom(io.LimitReader(ctxio.Reader(ctx, r), spoolInMemory+1))
	if err != nil {
		return nil, 0, sum, fmt.Errorf("read archive: %w", err)
	}
	if n <= spoolInMemory {
		if n > c.limits.MaxArchiveSize {
			return nil, 0, sum, c.tooLarge()
		}
		b := head.Bytes()
		return bytes.NewReader(b), n, sha256.Sum256(b), nil
	}
	st, err := stage.get()
	if err != nil {
		return nil, 0, sum, err
	}
	f, err := st.File("spool")
	if err != nil {
		return nil, 0, sum, err
	}
	size, sum, err := c.hashStream(ctx, io.MultiReader(&head, r), f)
	if err != nil {
		return nil, 0, sum, err
	}
	return f, size, sum, nil
}

// memoKey names an archive's memo entry: its bytes' digest plus everything
// else that shapes the extracted tree or decides whether it is allowed.
func (c *Cache) memoKey(sum [32]byte, format Format, subpath, name string) string {
	e := cache.NewEncoder()
	e.Raw([]byte("agentadaptor archive memo v1\x00"))
	e.Raw(sum[:])
	e.Str(string(format))
	e.Str(subpath)
	e.Str(name)
	e.U64(uint64(c.limits.MaxFileSize))
	e.U64(uint64(c.limits.MaxTotalSize))
	e.U64(uint64(c.limits.MaxArchiveEntries))
	return e.Hex()
}
