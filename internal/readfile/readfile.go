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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}
