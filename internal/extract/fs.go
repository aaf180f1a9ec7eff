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
	root, err := fsRoot(root)
	if err != nil {
		return nil, err
	}
	p := newPlan(opts)
	walked, err := planFS(ctx, fsys, root, p)
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return writeFS(ctx, fsys, root, p, walked, dst, opts)
}

// fsRoot returns the root of the skill in the form fs.WalkDir takes:
// "." for the whole file system, and no trailing slash.
func fsRoot(root string) (string, error) {
	if root == "" {
		root = "."
	}
	root = strings.TrimSuffix(root, "/")
	if !fs.ValidPath(root) {
		return "", fmt.Errorf("root %q: %w: not a slash-separated path without . or .. elements", root, ErrUnsafe)
	}
	return root, nil
}

// planFS walks the tree under root and adds every entry to the plan. It
// returns what the walk saw of each regular file, by its path inside the
// skill, for writeFS to check that the file it opens is the same.
func planFS(ctx context.Context, fsys fs.FS, root string, p *plan) (map[string]fs.FileInfo, error) {
	walked := make(map[string]fs.FileInfo)
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if name == root && d.Name() == path.Base(root) {
			if !d.IsDir() {
				return fmt.Errorf("%q: %w: not a folder", root, ErrUnsafe)
			}
			return nil
		}
		rel, err := fsRel(root, name, d.Name())
		if err != nil {
			return err
		}
		if LeftOut(d.Name()) {
			// Not part of the skill (rule 14), and not walked: a
			// repository's objects do not count against the limits.
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		return planFSEntry(fsys, p, walked, name, rel, d)
	})
	return walked, err
}

// fsRel returns the path inside the skill of name, an entry of the walk
// under root whose last element the file system lists as elem.
func fsRel(root, name, elem string) (string, error) {
	// A hostile fs.FS may list names that are empty, "." or ".." or
	// hold slashes, which path.Join would fold into other paths.
	if elem == "" || elem == "." || elem == ".." || strings.ContainsAny(elem, "/\\") {
		return "", unsafeEntry(elem, "the file system lists an invalid name")
	}
	if root == "." {
		return name, nil
	}
	rel, ok := strings.CutPrefix(name, root+"/")
	if !ok {
		return "", unsafeEntry(name, "the file system lists a name outside the root")
	}
	return rel, nil
}

// planFSEntry adds the walk's entry d (name in fsys, rel inside the
// skill) to the plan by its type, recording a regular file's description
// in walked.
func planFSEntry(fsys fs.FS, p *plan, walked map[string]fs.FileInfo, name, rel string, d fs.DirEntry) error {
	switch t := d.Type(); {
	case t.IsDir():
		return p.add(rel, kindDir, false, 0, "")
	case t.IsRegular():
		info, err := d.Info()
		if err != nil {
			return err
		}
		walked[rel] = info
		return p.add(rel, kindFile, info.Mode()&0o111 != 0, info.Size(), "")
	case t&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(fsys, name)
		if err != nil {
			return unsafeEntry(rel, fmt.Sprintf("symbolic link cannot be read: %v", err))
		}
		return p.add(rel, kindSymlink, false, 0, target)
	}
	return unsafeEntry(rel, fmt.Sprintf("mode %v is not a regular file, folder or link", d.Type()))
}

// writeFS copies the regular files of the plan, one after the other, then
// the links' copies.
func writeFS(ctx context.Context, fsys fs.FS, root string, p *plan, walked map[string]fs.FileInfo, dst *os.Root, opts Options) ([]File, error) {
	w := newWriter(dst, opts)
	defer w.close()
	files := make([]File, 0, len(p.entries))
	for _, e := range p.entries {
		if e.kind != kindFile {
			continue
		}
		file, err := copyFSFile(ctx, w, fsys, path.Join(root, e.rel), e, walked[e.rel], opts.MaxFileSize)
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return w.copyLinks(ctx, p, files)
}

// copyFSFile copies one regular file of the tree, checking that what was
// opened is still the regular file the walk saw: a file swapped for a link
// or a device between the walk and the copy fails.
func copyFSFile(ctx context.Context, w *writer, fsys fs.FS, name string, e entry, walked fs.FileInfo, limit int64) (File, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return File{}, err
	}
	if !info.Mode().IsRegular() || !sameFile(walked, info) {
		return File{}, unsafeEntry(e.rel, "changed into something other than the regular file first seen while it was read")
	}
	return w.write(ctx, e.rel, e.exec, f, limit, -1, nil)
}

// sameFile reports whether two descriptions name the same file. Only
// descriptions made by package os carry a file's identity, and os.SameFile
// of such a description with itself is true; descriptions from other file
// systems are taken as the same.
func sameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil || !os.SameFile(a, a) || !os.SameFile(b, b) {
		return true
	}
	return os.SameFile(a, b)
}
