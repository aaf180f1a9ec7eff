// Package treecmp compares two folders of files, such as two copies of a
// skill, by content: cheaply, within limits, and without opening anything
// but regular files.
package treecmp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
)

// Limits of a comparison: past them two folders count as different, which
// is the safe answer for a caller deciding whether one may stand for the
// other, and bounds the cost of a huge tree (a folder linked to /usr, say).
const (
	MaxEntries = 10000
	MaxBytes   = 256 << 20
)

// entry is one file of a skill folder as the comparison sees it.
type entry struct {
	mode fs.FileMode // type bits and the executable bit
	size int64
	link string // a symbolic link's target
}

// Equal reports whether two folders hold the same entries: the same names,
// types, executable bits, sizes, link targets and bytes. It compares the
// listings first (cheap), then the bytes. Folders past [MaxEntries] or
// [MaxBytes] count as different; a folder given as a link is followed, a
// link inside is compared by its target, and special files (FIFOs,
// devices) by their type, never opened. It stops when ctx is done.
func Equal(ctx context.Context, a, b string) (bool, error) {
	la, ok, err := listTree(ctx, a)
	if err != nil || !ok {
		return false, err
	}
	lb, ok, err := listTree(ctx, b)
	if err != nil || !ok {
		return false, err
	}
	if !maps.Equal(la, lb) {
		return false, nil
	}
	for name, e := range la {
		if !e.mode.IsRegular() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		same, err := sameFile(filepath.Join(a, name), filepath.Join(b, name))
		if err != nil || !same {
			return false, err
		}
	}
	return true, nil
}

// listTree lists a folder's entries by slash path; ok is false past the
// limits.
func listTree(ctx context.Context, dir string) (map[string]entry, bool, error) {
	// The folder itself may be a link (the mount's are); what is inside is
	// compared as it is.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, false, err
	}
	out := make(map[string]entry)
	var total int64
	errLimit := errors.New("limit")
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if len(out) >= MaxEntries {
			return errLimit
		}
		rel, _ := filepath.Rel(dir, p)
		var e entry
		switch t := d.Type(); {
		case t.IsDir():
			e.mode = fs.ModeDir
		case t&fs.ModeSymlink != 0:
			e.mode = fs.ModeSymlink
			if e.link, err = os.Readlink(p); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			e.mode, e.size = fi.Mode()&0o111, fi.Size()
			if total += e.size; total > MaxBytes {
				return errLimit
			}
		default:
			e.mode = t // a FIFO or device: compared by type only, never opened
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if errors.Is(err, errLimit) {
		return nil, false, nil
	}
	return out, err == nil, err
}

// sameFile reports whether two regular files hold the same bytes.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 32<<10), make([]byte, 32<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			if (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF) {
				return true, nil
			}
			return false, errors.Join(ignoreEOF(ea), ignoreEOF(eb))
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil
	}
	return err
}
