package extract

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// bufSize is the size of copy buffers, and the largest file that is read
// into memory whole and handed to another goroutine to write.
const bufSize = 256 << 10

// bufPool holds copy buffers; extraction allocates none per file.
var bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// writer creates a skill's files under a root, remembering which folders
// exist so each is made once. Files are created read-only: published trees
// are never modified again. A writer is safe for concurrent use; with a
// nil root it only hashes.
type writer struct {
	root     *os.Root
	mu       sync.Mutex
	dirs     map[string]dirHandle // folders made; held open for the first maxOpenDirs
	files    []string             // files created, for discard
	folders  *folders             // makes the folders; nil until the first file
	open     int
	total    atomic.Int64 // bytes written so far
	maxTotal int64
	writable bool                                     // files 0644/0755 instead of 0444/0555
	content  func(string, bool, int64) io.WriteCloser // Options.Content
}

// maxOpenDirs is how many folders a writer keeps open, so that creating a
// file in one costs one system call instead of one per path element.
const maxOpenDirs = 64

func newWriter(root *os.Root, opts Options) *writer {
	return &writer{root: root, dirs: make(map[string]dirHandle), maxTotal: opts.MaxTotalSize, writable: opts.Writable, content: opts.Content}
}

// shown returns the writer that Options.Content shows the file rel's
// bytes to, or nil.
func (w *writer) shown(rel string, exec bool, size int64) io.WriteCloser {
	if w.content == nil {
		return nil
	}
	return w.content(rel, exec, size)
}

// close releases the folders the writer holds open.
func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.folders != nil {
		w.folders.close()
		w.folders = nil
	}
	for dir, d := range w.dirs {
		d.close()
		w.dirs[dir] = dirHandle{}
	}
	w.open = 0
}

// dir makes dir and its parents as needed, and returns dir's handle:
// held open (for the root, and for the first maxOpenDirs folders made),
// or not, and then a file in dir is created through the root.
func (w *writer) dir(dir string) (dirHandle, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.folders == nil {
		var err error
		if w.folders, err = newFolders(w.root); err != nil {
			return dirHandle{}, err
		}
	}
	if dir == "." {
		return w.folders.top(), nil
	}
	if err := w.mkdirsLocked(dir); err != nil {
		return dirHandle{}, err
	}
	return w.dirs[dir], nil
}

func (w *writer) mkdirsLocked(dir string) error {
	if dir == "." {
		return nil
	}
	if _, ok := w.dirs[dir]; ok {
		return nil
	}
	if err := w.mkdirsLocked(path.Dir(dir)); err != nil {
		return err
	}
	if _, err := filepath.Localize(dir); err != nil {
		return unsafeEntry(dir, err.Error())
	}
	d, err := w.folders.mkdir(dir, w.open < maxOpenDirs)
	if err != nil {
		return err
	}
	if d.held() {
		w.open++
	}
	w.dirs[dir] = d
	return nil
}

// create makes a new file and opens it for writing; it never replaces
// one. In a folder held open, that is one system call (openat), and
// writing the file takes no more than write and close.
func (w *writer) create(rel string, exec bool) (io.WriteCloser, error) {
	d, err := w.dir(path.Dir(rel))
	if err != nil {
		return nil, err
	}
	perm := os.FileMode(0o444)
	if exec {
		perm = 0o555
	}
	if w.writable {
		perm |= 0o200
	}
	var f io.WriteCloser
	if d.held() {
		if _, err := filepath.Localize(path.Base(rel)); err != nil {
			return nil, unsafeEntry(rel, err.Error())
		}
		f, err = d.create(path.Base(rel), rel, perm)
	} else {
		local, lerr := filepath.Localize(rel)
		if lerr != nil {
			return nil, unsafeEntry(rel, lerr.Error())
		}
		f, err = w.root.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	}
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.files = append(w.files, rel)
	w.mu.Unlock()
	return f, nil
}

// discard returns err, after removing every file and folder the writer
// created (files first, then folders, deepest first) when err refuses
// the archive: a violated rule or limit, or cancellation. So a refused
// archive leaves the root as the extraction found it. An error of the
// file system (a file that already exists, a full disk) leaves what was
// written to the owner of the root, who knows more of its state. Removal
// is best effort, and the callers' jobs have all returned: nothing else
// creates files under the root meanwhile.
func (w *writer) discard(err error) error {
	if w.root == nil || !refuses(err) {
		return err
	}
	w.close()
	w.mu.Lock()
	defer w.mu.Unlock()
	fl, ferr := newFolders(w.root)
	if ferr != nil {
		return err
	}
	defer fl.close()
	slices.Sort(w.files)
	for _, rel := range w.files {
		fl.remove(rel, false)
	}
	dirs := slices.Sorted(maps.Keys(w.dirs))
	// A folder sorts after its parent: in reverse order, each is removed
	// after everything under it.
	for _, dir := range slices.Backward(dirs) {
		fl.remove(dir, true)
	}
	w.files, w.dirs = nil, make(map[string]dirHandle)
	return err
}

// refuses reports whether err refuses the archive (a violated rule or
// limit) or is a cancellation.
func refuses(err error) bool {
	return errors.Is(err, ErrFormat) || errors.Is(err, ErrUnsafe) || errors.Is(err, ErrLimit) || isCancel(err)
}

func (w *writer) count(n int) error {
	if w.total.Add(int64(n)) > w.maxTotal {
		return limitf(LimitTotalSize, w.maxTotal, "files exceed %d bytes in all", w.maxTotal)
	}
	return nil
}

// known is a file's content as the first pass over a tar.gz read it from
// the decompressor: its SHA-256, and a CRC-32 that the second pass checks
// the bytes it writes against (reading them back from the scratch file).
// So the first pass, which leaves a core idle while it waits on the
// decompressor, does the hashing. The CRC catches a scratch file damaged
// between the passes; it does not stop one rewritten on purpose to the
// same size and CRC (CRC-32 is easy to forge), which only a process of
// the same user can do: the scratch file lies in the caller's private
// staging folder, where that process could as well rewrite the files
// written, so the check is no weaker than the folder. (A keyed hash
// instead cost a fifth of the cold time.)
type known struct {
	sum  [32]byte
	crc  uint32
	size int64
}

// readKnown reads r to its end and describes its content.
func readKnown(r io.Reader) (*known, error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	k := &known{}
	sum := sha256.New()
	for {
		n, err := r.Read(buf)
		k.size += int64(n)
		sum.Write(buf[:n])
		k.crc = crc32.Update(k.crc, crc32.IEEETable, buf[:n])
		if err == io.EOF {
			sum.Sum(k.sum[:0])
			return k, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// check compares what the second pass wrote of a file, its size and
// CRC-32, with what the first pass read.
func (k *known) check(rel string, size int64, crc uint32) error {
	if size != k.size || crc != k.crc {
		return formatf("%q: the scratch copy of the archive changed between the two passes", rel)
	}
	return nil
}

// write copies at most limit bytes of r into a new file (when w has a root)
// and returns the file's description. Reading more than limit bytes is an
// error: declared sizes are never trusted (size, the declared one or -1,
// only tells Options.Content). With k, the content must be the one k
// describes, and is not hashed again.
func (w *writer) write(ctx context.Context, rel string, exec bool, r io.Reader, limit, size int64, k *known) (File, error) {
	f := File{Path: rel, Exec: exec}
	var out io.WriteCloser
	if w.root != nil {
		var err error
		if out, err = w.create(rel, exec); err != nil {
			return f, err
		}
		defer out.Close()
	}
	shown := w.shown(rel, exec, size)
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	var sum hash.Hash
	if k == nil {
		sum = sha256.New()
	}
	var crc uint32
	for {
		if err := ctx.Err(); err != nil {
			return f, err
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			f.Size += int64(n)
			if f.Size > limit {
				return f, limitf(LimitFileSize, limit, "file %q is larger than %d bytes", rel, limit)
			}
			if err := w.count(n); err != nil {
				return f, err
			}
			if k == nil {
				sum.Write(buf[:n])
			} else {
				crc = crc32.Update(crc, crc32.IEEETable, buf[:n])
			}
			if out != nil {
				if _, err := out.Write(buf[:n]); err != nil {
					return f, err
				}
			}
			if shown != nil {
				if _, err := shown.Write(buf[:n]); err != nil {
					return f, err
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return f, rerr
		}
	}
	if k == nil {
		sum.Sum(f.Sum[:0])
	} else {
		if err := k.check(rel, f.Size, crc); err != nil {
			return f, err
		}
		f.Sum = k.sum
	}
	if out != nil {
		if err := out.Close(); err != nil {
			return f, err
		}
	}
	if shown != nil {
		return f, shown.Close()
	}
	return f, nil
}

// writeAll writes a file whose whole content is data, already bounded by
// the caller. With k, data must be the content k describes, and is not
// hashed again.
func (w *writer) writeAll(rel string, exec bool, data []byte, k *known) (File, error) {
	f := File{Path: rel, Exec: exec, Size: int64(len(data))}
	if k == nil {
		f.Sum = sha256.Sum256(data)
	} else {
		if err := k.check(rel, f.Size, crc32.ChecksumIEEE(data)); err != nil {
			return f, err
		}
		f.Sum = k.sum
	}
	if err := w.count(len(data)); err != nil {
		return f, err
	}
	if w.root != nil {
		out, err := w.create(rel, exec)
		if err != nil {
			return f, err
		}
		_, err = out.Write(data)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return f, err
		}
	}
	if shown := w.shown(rel, exec, int64(len(data))); shown != nil {
		if _, err := shown.Write(data); err != nil {
			return f, err
		}
		return f, shown.Close()
	}
	return f, nil
}

// fileWriter writes files from concurrent jobs and collects their
// descriptions, in the order of the entries they come from whatever order
// the jobs finish in. Creating files is dominated by system-call latency,
// so small files are written by a few goroutines while the caller goes on
// decoding the archive: [fileWriters] of them, each holding one small
// file in memory.
type fileWriter struct {
	g    *errgroup.Group
	ctx  context.Context
	mu   sync.Mutex
	list []File // by entry; a zero Path for entries not written
}

// fileWriters is how many goroutines write small files at once:
// GOMAXPROCS+1. 2*GOMAXPROCS+2 was measured slower (see
// BenchmarkTarGzWriters).
func fileWriters() int {
	return runtime.GOMAXPROCS(0) + 1
}

// newFileWriter returns a fileWriter for an archive of entries entries
// (a guess: the list grows as entries are added), with writers
// goroutines, or [fileWriters] when writers is 0.
func newFileWriter(ctx context.Context, entries, writers int) *fileWriter {
	if writers <= 0 {
		writers = fileWriters()
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	return &fileWriter{g: g, ctx: ctx, list: make([]File, entries)}
}

// add records the file written for entry i; wait orders the adds
// before files.
func (fw *fileWriter) add(i int, f File) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if i >= len(fw.list) {
		fw.list = append(fw.list, make([]File, i+1-len(fw.list))...)
	}
	fw.list[i] = f
}

// files returns the files written, in entry order, once wait has returned.
func (fw *fileWriter) files() []File {
	out := fw.list[:0]
	for _, f := range fw.list {
		if f.Path != "" {
			out = append(out, f)
		}
	}
	return out
}

// writeFrom writes entry e, entry i, of declared size from r: small files
// are read into a buffer and written by another goroutine, large ones
// streamed here.
func (fw *fileWriter) writeFrom(w *writer, i int, e entry, r io.Reader, size, limit int64) error {
	rel, exec := e.rel, e.exec
	if err := fw.ctx.Err(); err != nil {
		return fw.wait(err)
	}
	if size < 0 || size >= bufSize {
		f, err := w.write(fw.ctx, rel, exec, r, limit, size, e.known)
		if err != nil {
			return fw.wait(err)
		}
		fw.add(i, f)
		return nil
	}
	bp := bufPool.Get().(*[]byte)
	n, err := io.ReadFull(r, (*bp)[:size+1])
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		switch {
		case int64(n) > limit:
			err = limitf(LimitFileSize, limit, "file %q is larger than %d bytes", rel, limit)
		case int64(n) != size:
			err = formatf("entry %q holds %d bytes, but its header declares %d", rel, n, size)
		default:
			err = nil
		}
	case err == nil:
		err = formatf("entry %q holds more data than its header declares", rel)
	}
	if err != nil {
		bufPool.Put(bp)
		return fw.wait(err)
	}
	fw.g.Go(func() error {
		defer bufPool.Put(bp)
		if err := fw.ctx.Err(); err != nil {
			return err // another job failed: write nothing more
		}
		f, err := w.writeAll(rel, exec, (*bp)[:n], e.known)
		if err != nil {
			return err
		}
		fw.add(i, f)
		return nil
	})
	return nil
}

// wait waits for the jobs in flight and returns err, or the first job's
// error when err is nil.
//
// A job's failure cancels the others, and the caller may see only that
// cancellation: the job's own error is the one that counts.
func (fw *fileWriter) wait(err error) error {
	gerr := fw.g.Wait()
	switch {
	case gerr != nil && !isCancel(gerr):
		return gerr
	case err != nil:
		return err
	}
	return gerr
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// copyLinks writes each link as a copy of the file it names, which the
// plan has checked is a regular file of the skill written earlier.
func (w *writer) copyLinks(ctx context.Context, p *plan, files []File) ([]File, error) {
	byPath := make(map[string]File, len(files))
	for _, f := range files {
		byPath[f.Path] = f
	}
	for _, e := range p.entries {
		if (e.kind != kindSymlink && e.kind != kindHardlink) || e.rel == "" {
			continue
		}
		src := byPath[e.target]
		if w.root == nil {
			if err := w.count(int(src.Size)); err != nil {
				return nil, err
			}
			src.Path = e.rel
			files = append(files, src)
			continue
		}
		f, err := w.copyFile(ctx, e.rel, src, p.opts.MaxFileSize)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// errNotWritten reports that a file the extraction wrote is no longer
// the regular file it wrote: the root was changed under it.
var errNotWritten = errors.New("not the regular file the extraction wrote")

// openWritten opens the file rel the writer wrote, for reading, following no
// symbolic link (see [folders.open]): a link's copy reads what was
// written, never a file a link put in its place leads to.
func (w *writer) openWritten(rel string) (*os.File, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.folders == nil {
		var err error
		if w.folders, err = newFolders(w.root); err != nil {
			return nil, err
		}
	}
	return w.folders.open(rel)
}

// copyFile writes rel as a copy of the file src, written earlier, and
// checks that the copy has the bytes src describes.
func (w *writer) copyFile(ctx context.Context, rel string, src File, limit int64) (File, error) {
	in, err := w.openWritten(src.Path)
	if err != nil {
		return File{}, err
	}
	defer in.Close()
	f, err := w.write(ctx, rel, src.Exec, in, limit, src.Size, nil)
	if err != nil {
		return f, fmt.Errorf("copy %q for link %q: %w", src.Path, rel, err)
	}
	if f.Sum != src.Sum {
		// The root changed under the extraction: the file system's
		// matter, not the archive's.
		return f, fmt.Errorf("copy for link %q: %w", rel, &fs.PathError{Op: "read", Path: src.Path, Err: errNotWritten})
	}
	return f, nil
}
