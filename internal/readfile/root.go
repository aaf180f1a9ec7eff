package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))
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
// [ErrNotRegular]: it is never followed. So is a FIFO or a device
// refused, without waiting for a writer, and a name replaced by one of
// them between the check and the open: the file opened is the one
// checked. It returns the opened file's FileInfo. A missing file is an
// error wrapping fs.ErrNotExist.
func OpenNoLink(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	before, err := root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if m := before.Mode(); !m.IsRegular() {
		return nil, nil, fmt.Errorf("%w (%s)", ErrNotRegular, kind(m))
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openFlags, 0)
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

// kind names a file mode that is not a regular file's.
func kind(m os.FileMode) string {
	switch {
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
