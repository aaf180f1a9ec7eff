//go:build unix

package extract

import (
	"io"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// folders makes and removes the folders of an extraction under a root
// through a chain of open folders, one step at a time, each opened with
// O_NOFOLLOW: making or removing a folder next to the last one costs a
// system call or two and no walk from the root, however deep it lies, so
// an archive of deep names costs a bounded number of allocations for each
// folder (os.Root walks the whole path on every call). A folders is used
// under its writer's lock.
type folders struct {
	root  *os.File // the root folder, open
	chain []chainDir
}

// chainDir is a folder of the chain, open.
type chainDir struct {
	path string
	fd   int
}

func newFolders(root *os.Root) (*folders, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	return &folders{root: f}, nil
}

// at returns a descriptor open on the folder dir (made already), after
// closing the folders of the chain that are not above it and opening
// those below the last that is.
func (fl *folders) at(dir string) (int, error) {
	for n := len(fl.chain); n > 0 && fl.chain[n-1].path != dir && !isUnder(dir, fl.chain[n-1].path); n-- {
		unix.Close(fl.chain[n-1].fd)
		fl.chain = fl.chain[:n-1]
	}
	fd, done := int(fl.root.Fd()), ""
	if n := len(fl.chain); n > 0 {
		fd, done = fl.chain[n-1].fd, fl.chain[n-1].path
	}
	for done != dir && dir != "." {
		rest := dir
		if done != "" {
			rest = dir[len(done)+1:]
		}
		elem, _, _ := strings.Cut(rest, "/")
		next, err := unix.Openat(fd, elem, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &os.PathError{Op: "openat", Path: dir, Err: err}
		}
		if done == "" {
			done = elem
		} else {
			done = dir[:len(done)+1+len(elem)]
		}
		fl.chain = append(fl.chain, chainDir{path: done, fd: next})
		fd = next
	}
	return fd, nil
}

// mkdir makes the folder dir, whose parent exists, and with hold returns
// it held open when it can.
func (fl *folders) mkdir(dir string, hold bool) (dirHandle, error) {
	fd, err := fl.at(path.Dir(dir))
	if err != nil {
		return dirHandle{}, err
	}
	if err := unix.Mkdirat(fd, path.Base(dir), 0o755); err != nil {
		return dirHandle{}, &os.PathError{Op: "mkdirat", Path: dir, Err: err}
	}
	if !hold {
		return dirHandle{}, nil
	}
	sub, err := unix.Openat(fd, path.Base(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		// Made, but not held (out of descriptors, say): its files
		// are created through the root.
		return dirHandle{}, nil
	}
	return dirHandle{fd: sub, open: true}, nil
}

// top returns the root folder's handle, which fl owns: it is not closed
// but with fl.
func (fl *folders) top() dirHandle {
	return dirHandle{fd: int(fl.root.Fd()), open: true}
}

// dirHandle is a folder the writer made, held open (on the descriptor
// fd) so that creating a file in it is one openat, or not (the zero
// value).
type dirHandle struct {
	fd   int
	open bool
}

// held reports whether the folder is held open.
func (d dirHandle) held() bool { return d.open }

// close closes the folder, when held open.
func (d dirHandle) close() {
	if d.open {
		unix.Close(d.fd)
	}
}

// create makes the new file name in the held folder d, following no
// symbolic link and replacing nothing, and returns it open for writing:
// a bare descriptor, written with write(2) and closed with close(2), as
// an *os.File would add a few fcntl and epoll calls to each file. rel is
// the file's path in the skill, for errors.
func (d dirHandle) create(name, rel string, perm os.FileMode) (*fdFile, error) {
	for {
		fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.ELOOP:
			// Some systems report a link in the way as ELOOP: it is
			// a name that exists all the same.
			err = unix.EEXIST
		}
		if err != nil {
			return nil, &os.PathError{Op: "openat", Path: rel, Err: err}
		}
		return &fdFile{fd: fd, name: rel}, nil
	}
}

// fdFile is a file open for writing by its bare descriptor. It is used
// by one goroutine; Close may be called more than once.
type fdFile struct {
	fd   int
	name string
}

// Write writes all of b.
func (f *fdFile) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Write(f.fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &os.PathError{Op: "write", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, &os.PathError{Op: "write", Path: f.name, Err: io.ErrShortWrite}
		}
		n += m
	}
	return n, nil
}

// Close closes the file once.
func (f *fdFile) Close() error {
	if f.fd < 0 {
		return nil
	}
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil && err != unix.EINTR {
		return &os.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// remove removes the file, or with dir the empty folder, rel; errors
// are ignored.
func (fl *folders) remove(rel string, dir bool) {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	if fd, err := fl.at(path.Dir(rel)); err == nil {
		unix.Unlinkat(fd, path.Base(rel), flags)
	}
}

// open opens the file rel for reading without following a symbolic link
// in its place or in the folders above it: the regular file the
// extraction wrote there, or an error (a FIFO put there is not waited on).
func (fl *folders) open(rel string) (*os.File, error) {
	dirfd, err := fl.at(path.Dir(rel))
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat(dirfd, path.Base(rel), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: rel, Err: errNotWritten}
	}
	return f, nil
}

// close closes the folders held open.
func (fl *folders) close() {
	for _, d := range fl.chain {
		unix.Close(d.fd)
	}
	fl.chain = nil
	fl.root.Close()
}

// isUnder reports whether the path name lies under the folder dir.
func isUnder(name, dir string) bool {
	return len(name) > len(dir) && name[len(dir)] == '/' && strings.HasPrefix(name, dir)
}
