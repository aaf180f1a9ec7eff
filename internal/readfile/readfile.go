// Package readfile reads small files a user or another program wrote
// (settings, policies, keys) without trusting what they are: only a
// regular file is read (a FIFO or a device would block or never end), and
// never more than a limit.
package readfile

import (
	"fmt"
	"io"
	"os"
)

// Small reads the file at path, which must be a regular file of at most
// limit bytes. A missing file is an error wrapping fs.ErrNotExist; one
// that is not a regular file, or is larger, says so and names path.
func Small(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return read(path, limit)
}

// read reads the file at path as Small does, with no Stat first: the
// path may have become a FIFO or a device since Small's, so it opens it
// without blocking (openFlags) and checks what it opened.
func read(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}
