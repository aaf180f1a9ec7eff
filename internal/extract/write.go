package extract

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// bufPool holds copy buffers; extraction allocates none per file.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// writer creates a skill's files under a root, remembering which folders
// exist so each is made once. Files are created read-only: published trees
// are never modified again.
type writer struct {
	root     *os.Root
	dirs     map[string]bool
	sum      hash.Hash
	total    int64 // bytes written so far
	maxTotal int64
}

func newWriter(root *os.Root, maxTotal int64) *writer {
	return &writer{root: root, dirs: make(map[string]bool), sum: sha256.New(), maxTotal: maxTotal}
}

func (w *writer) mkdirs(dir string) error {
	if dir == "." || w.dirs[dir] {
		return nil
	}
	if err := w.mkdirs(path.Dir(dir)); err != nil {
		return err
	}
	local, err := filepath.Localize(dir)
	if err != nil {
		return unsafeEntry(dir, err.Error())
	}
	if err := w.root.Mkdir(local, 0o755); err != nil {
		return err
	}
	w.dirs[dir] = true
	return nil
}

// create makes a new file; it never replaces one.
func (w *writer) create(rel string, exec bool) (*os.File, error) {
	if err := w.mkdirs(path.Dir(rel)); err != nil {
		return nil, err
	}
	local, err := filepath.Localize(rel)
	if err != nil {
		return nil, unsafeEntry(rel, err.Error())
	}
	perm := os.FileMode(0o444)
	if exec {
		perm = 0o555
	}
	return w.root.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// write copies at most limit bytes of r into a new file (when w has a root)
// and returns the file's description. Reading more than limit bytes is an
// error: declared sizes are never trusted.
func (w *writer) write(ctx context.Context, rel string, exec bool, r io.Reader, limit int64) (File, error) {
	f := File{Path: rel, Exec: exec}
	var out *os.File
	if w.root != nil {
		var err error
		if out, err = w.create(rel, exec); err != nil {
			return f, err
		}
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	w.sum.Reset()
	for {
		if err := ctx.Err(); err != nil {
			closeQuiet(out)
			return f, err
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			f.Size += int64(n)
			w.total += int64(n)
			if f.Size > limit {
				closeQuiet(out)
				return f, limitf("file %q is larger than %d bytes (raise it with WithMaxFileSize)", rel, limit)
			}
			if w.total > w.maxTotal {
				closeQuiet(out)
				return f, limitf("files exceed %d bytes in all (raise it with WithMaxTotalSize)", w.maxTotal)
			}
			w.sum.Write(buf[:n])
			if out != nil {
				if _, err := out.Write(buf[:n]); err != nil {
					closeQuiet(out)
					return f, err
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			closeQuiet(out)
			return f, rerr
		}
	}
	w.sum.Sum(f.Sum[:0])
	if out != nil {
		if err := out.Close(); err != nil {
			return f, err
		}
	}
	return f, nil
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

func (w *writer) copyFile(ctx context.Context, rel string, src File, limit int64) (File, error) {
	local, err := filepath.Localize(src.Path)
	if err != nil {
		return File{}, err
	}
	in, err := w.root.Open(local)
	if err != nil {
		return File{}, err
	}
	defer in.Close()
	f, err := w.write(ctx, rel, src.Exec, in, limit)
	if err != nil {
		return f, fmt.Errorf("copy %q for link %q: %w", src.Path, rel, err)
	}
	if f.Sum != src.Sum {
		return f, fmt.Errorf("copy %q for link %q: content changed while copying", src.Path, rel)
	}
	return f, nil
}

func closeQuiet(f *os.File) {
	if f != nil {
		f.Close()
	}
}
