package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular and ErrTooLarge are what [InRoot] refuses, beside the
// errors of the open itself.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// InRoot reads the file name in root as [Small] reads a path: only a
// regular file of at most limit bytes. The open goes through root, so a
// name or a link that leads out of it is an error, as [os.Root] makes
// it; a missing file is an error wrapping fs.ErrNotExist. Its other
// errors name no file (the caller does): [ErrNotRegular], or
// [ErrTooLarge] saying the limit.
func InRoot(root *os.Root, name string, limit int64) ([]byte, error) {
	fi, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrTooLarge, limit)
	}
	return b, nil
}

// OpenNoLink opens the regular file name of root for reading, as
// [InRoot] reads it, but refuses a link, even one that stays inside
// root (which an [os.Root] follows, whatever the flags), with
// [ErrNotRegular]: it is never followed, neither at name's last element
// nor at any folder on the way to it (l/f, with l a link to a folder, is
// refused as l is). So is a FIFO or a device refused, without waiting
// for a writer, and a name or folder replaced by another between the
// check and the open: each folder entered and the file opened are the
// ones checked. A name that leads out of root is an error. It returns
// the opened file's FileInfo. A missing file is an error wrapping
// fs.ErrNotExist.
func OpenNoLink(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	clean := filepath.Clean(name)
	if !filepath.IsLocal(clean) {
		return nil, nil, fmt.Errorf("%s: a name that leads out of its folder", name)
	}
	elems := strings.Split(filepath.ToSlash(clean), "/")
	dir := root
	for _, e := range elems[:len(elems)-1] {
		sub, err := enter(dir, e)
		if dir != root {
			dir.Close()
		}
		if err != nil {
			return nil, nil, err
		}
		dir = sub
	}
	if dir != root {
		defer dir.Close()
	}
	last := elems[len(elems)-1]
	before, err := dir.Lstat(last)
	if err != nil {
		return nil, nil, err
	}
	if m := before.Mode(); !m.IsRegular() {
		return nil, nil, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(m))
	}
	f, err := dir.OpenFile(last, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || !os.SameFile(before, fi)) {
		err = fmt.Errorf("%w (replaced as it was opened)", ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// enter opens the folder name of dir, refusing a link ([ErrNotRegular],
// saying the folder) or anything else but a folder, and a folder
// replaced as it was opened.
func enter(dir *os.Root, name string) (*os.Root, error) {
	before, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	if m := before.Mode(); !m.IsDir() {
		if m&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%w (%s is a link)", ErrNotRegular, name)
		}
		return nil, fmt.Errorf("%s: not a folder (%s)", name, Kind(m))
	}
	sub, err := dir.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	after, err := sub.Stat(".")
	if err == nil && !os.SameFile(before, after) {
		err = fmt.Errorf("%w (%s replaced as it was opened)", ErrNotRegular, name)
	}
	if err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// InRootNoLink reads the file name of root as [InRoot] does, opened by
// [OpenNoLink]: a link is refused, not followed.
func InRootNoLink(root *os.Root, name string, limit int64) ([]byte, error) {
	f, _, err := OpenNoLink(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrTooLarge, limit)
	}
	return b, nil
}

// Kind names what a file mode is, for messages: "a file", "a link", "a
// folder", "a named pipe", "a socket", "a device", or its mode letters.
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m&os.ModeSymlink != 0:
		return "a link"
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}
