//go:build unix

package extract

import (
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

// mkdir makes the folder dir, whose parent exists.
func (fl *folders) mkdir(dir string) error {
	fd, err := fl.at(path.Dir(dir))
	if err != nil {
		return err
	}
	if err := unix.Mkdirat(fd, path.Base(dir), 0o755); err != nil {
		return &os.PathError{Op: "mkdirat", Path: dir, Err: err}
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
