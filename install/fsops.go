package install

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// copyTree copies the skill folder src into the new folder dst: regular
// files and folders only, read through an os.Root so that no link in src
// leads outside it. Links, devices and other special files fail; ".git"
// folders are left out.
func copyTree(src, dst string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		switch t := d.Type(); {
		case t.IsDir():
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return os.Mkdir(target, 0o755)
		case t.IsRegular():
			return copyFile(root, p, target)
		}
		return fmt.Errorf("%s: %s is not a regular file or folder (links and special files are not installed)", src, p)
	})
}

func copyFile(root *os.Root, name, target string) error {
	in, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", name)
	}
	perm := os.FileMode(0o644)
	if info.Mode()&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// relLink returns the target of a relative link at linkPath to target,
// computed between the folders' real locations, so that it holds even when
// a parent of either is itself a link.
func relLink(linkPath, target string) (string, error) {
	fromDir, err := filepath.EvalSymlinks(filepath.Dir(linkPath))
	if err != nil {
		return "", err
	}
	toDir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(fromDir, filepath.Join(toDir, filepath.Base(target)))
	if err != nil {
		return "", err
	}
	return rel, nil
}

// noLinkError reports that this system could not make a link at all.
type noLinkError struct{ err error }

func (e *noLinkError) Error() string { return "cannot make links here: " + e.err.Error() }
func (e *noLinkError) Unwrap() error { return e.err }

// placeLink makes path a relative link to target, replacing what was there
// (which the caller has checked is its own: an older link, or a copy)
// atomically. A *noLinkError means links cannot be made here.
func placeLink(path, target string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	rel, err := relLink(path, target)
	if err != nil {
		return err
	}
	if cur, err := os.Readlink(path); err == nil && cur == rel {
		return nil
	}
	removeLeftovers(filepath.Dir(path), "."+filepath.Base(path)+".link-")
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".link-"+randomSuffix())
	if err := os.Symlink(rel, tmp); err != nil {
		return &noLinkError{err}
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = os.Rename(tmp, path)
	case err == nil && fi.IsDir():
		// Our copy becomes a link: exchange, then remove the copy.
		if err = swapDirs(tmp, path); err == nil {
			return os.RemoveAll(tmp)
		}
	case err == nil:
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// isLinkTo reports whether path is a link that resolves to target.
func isLinkTo(path, target string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	a, err1 := filepath.EvalSymlinks(path)
	b, err2 := filepath.EvalSymlinks(target)
	return err1 == nil && err2 == nil && a == b
}

// samePath reports whether two folder paths name the same place.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// relTo returns p relative to root when inside it, else p.
func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return p
}

// abs resolves a path recorded relative to root.
func abs(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, filepath.FromSlash(p))
}
