package extract

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// FS copies the skill rooted at root in fsys into dst under the same rules
// and limits as an archive, and returns the files it wrote. With a nil dst
// it checks and hashes without writing. Symbolic links are copied as their
// target when fsys can read links and the target is a regular file of the
// skill; any other link, and any entry that is not a regular file or
// folder, fails.
func FS(ctx context.Context, fsys fs.FS, root string, dst *os.Root, opts Options) ([]File, error) {
	opts.Subpath = ""
	if err := opts.check(); err != nil {
		return nil, err
	}
	if root == "" {
		root = "."
	}
	root = strings.TrimSuffix(root, "/")
	if !fs.ValidPath(root) {
		return nil, fmt.Errorf("%w: invalid root %q (use a slash-separated path without . or .. elements)", ErrUnsafe, root)
	}
	p := newPlan(opts)
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == root {
			if !d.IsDir() {
				return fmt.Errorf("%w: %q is not a folder", ErrUnsafe, root)
			}
			return nil
		}
		rel := name
		if root != "." {
			rel = name[len(root)+1:]
		}
		switch t := d.Type(); {
		case t.IsDir():
			return p.add(rel, kindDir, false, 0, "")
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return p.add(rel, kindFile, info.Mode()&0o111 != 0, info.Size(), "")
		case t&fs.ModeSymlink != 0:
			target, err := fs.ReadLink(fsys, name)
			if err != nil {
				return unsafeEntry(rel, fmt.Sprintf("symbolic link cannot be read: %v", err))
			}
			return p.add(rel, kindSymlink, false, 0, target)
		}
		return unsafeEntry(rel, fmt.Sprintf("mode %v is not a regular file, folder or link", d.Type()))
	})
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	w := newWriter(dst, opts.MaxTotalSize)
	defer w.close()
	files := make([]File, 0, len(p.entries))
	for _, e := range p.entries {
		if e.kind != kindFile {
			continue
		}
		f, err := fsys.Open(path.Join(root, e.rel))
		if err != nil {
			return nil, err
		}
		file, err := w.write(ctx, e.rel, e.exec, f, opts.MaxFileSize)
		f.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return w.copyLinks(ctx, p, files)
}
