package readfile

import (
	"errors"
	"fmt"
	"io"
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

// kind names a file mode that is not a regular file's.
func kind(m os.FileMode) string {
	switch {
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
