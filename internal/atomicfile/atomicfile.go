// Package atomicfile replaces a file whole: after a crash or a power
// loss, the file holds either its old bytes or its new ones, never a mix,
// and never nothing.
//
// Rules:
//
//  1. The new bytes are written to a temporary file in the same folder
//     (named "<name>.tmp-<random>", with a dot in front when name has
//     none, so a listing that skips hidden names skips it), flushed to the device (fsync), and renamed over
//     the file. The folder is then flushed, so the rename itself survives
//     a power loss.
//  2. The file gets exactly the permission bits asked for, whatever the
//     process's umask.
//  3. A write that fails at any step leaves the old file as it was and
//     removes its temporary file.
//  4. Two writers of one file do not mix: the file ends up holding one of
//     the writes, whole.
//  5. Names are opened through an [os.Root] ([WriteIn]), or through a
//     root opened on the file's folder ([Write]), so a link in place of
//     the temporary file is never followed.
//  6. [WriteUnflushed] and [WriteInUnflushed] are [Write] and [WriteIn]
//     without rule 1's flushes, for a file whose loss costs only work
//     done again: a cache entry that its reader checks whole (a JSON
//     document that names its own key, a record whose last line counts
//     its lines), so that after a crash it is the old file, the new one,
//     or one the reader does not use. Rules 2 to 5 hold for them.
//
// # Platforms
//
// On Linux and the other Unix systems a file and its folder are flushed
// with fsync. On macOS the flush of a file is F_FULLFSYNC (Go's
// [os.File.Sync]), which also empties the drive's cache. On Windows the
// file is flushed (FlushFileBuffers) and renamed with MoveFileEx, whose
// change NTFS journals; a folder cannot be flushed there, so rule 1's
// last step is skipped. Where a file system cannot flush a folder (it
// reports the call as invalid or unsupported), that step is skipped too.
// On Windows, rule 2 holds for what Windows keeps: a permission without
// the owner's write bit makes the file read-only.
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Write replaces the file name with data, atomically and durably, with
// the permission bits perm (see the package doc). The folder that holds
// name must exist.
func Write(name string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(name))
	if err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	defer root.Close()
	if err := write(root, filepath.Base(name), data, perm, true); err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	return nil
}

// WriteUnflushed replaces the file name with data, atomically, with the
// permission bits perm, as [Write] does but without flushing the file or
// its folder (rule 6). The folder that holds name must exist.
func WriteUnflushed(name string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(name))
	if err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	defer root.Close()
	if err := write(root, filepath.Base(name), data, perm, false); err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	return nil
}

// WriteIn replaces the file name under root with data, atomically and
// durably, with the permission bits perm (see the package doc). name is
// slash-separated and relative to root; its folder must exist.
func WriteIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	if err := write(root, name, data, perm, true); err != nil {
		return fmt.Errorf("replace %s: %w", filepath.Join(root.Name(), filepath.FromSlash(name)), err)
	}
	return nil
}

// WriteInUnflushed is [WriteIn] without flushing the file or its folder
// (rule 6).
func WriteInUnflushed(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	if err := write(root, name, data, perm, false); err != nil {
		return fmt.Errorf("replace %s: %w", filepath.Join(root.Name(), filepath.FromSlash(name)), err)
	}
	return nil
}

func write(root *os.Root, name string, data []byte, perm fs.FileMode, flush bool) error {
	dir, base := path.Split(name)
	if !strings.HasPrefix(base, ".") {
		base = "." + base
	}
	tmp := dir + base + ".tmp-" + rand.Text()[:16]
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // exactly perm, whatever the umask (rule 2)
	}
	if err == nil && flush {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	if !flush {
		return nil
	}
	return syncDir(root, path.Clean(dir))
}

// syncDir flushes the folder dir under root, so that a rename in it is
// durable. It does nothing on Windows, and nothing where the file system
// cannot flush a folder.
func syncDir(root *os.Root, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("flush folder: %w", err)
	}
	err = d.Sync()
	d.Close()
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("flush folder: %w", err)
	}
	return nil
}
