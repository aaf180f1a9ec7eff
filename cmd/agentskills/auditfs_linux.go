package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentadaptor/agentadaptor/audit"
)

// auditFolder audits the skill tree in the folder dir, reading its files
// through heldFolder: a file costs five system calls (its lstat, openat,
// two reads, close), where os.DirFS's *os.File costs ten.
func auditFolder(dir string) (audit.Report, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return audit.Report{}, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	return audit.Tree(heldFolder{dir: dir, fd: fd, FS: os.DirFS(dir)})
}

// heldFolder is os.DirFS over a folder whose descriptor it holds, except
// that Open opens a file relative to that descriptor (openat), not
// following a link, and returns a bare descriptor's reader: no *os.File,
// whose making tries to register the file with the runtime's poller (four
// fcntl calls and a failed epoll_ctl for a regular file) and sets a
// cleanup. A named pipe put in a file's place is opened without waiting
// for a writer. The folders are read, and files' information taken, as
// os.DirFS does. Open is for regular files, as the audit opens only
// those: a folder opened reads as a folder's descriptor does (EISDIR).
type heldFolder struct {
	dir string
	fd  int
	fs.FS
}

var (
	_ fs.ReadDirFS  = heldFolder{}
	_ fs.ReadLinkFS = heldFolder{}
)

func (h heldFolder) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	for {
		// O_NONBLOCK: a file swapped for a named pipe after the folder
		// was read is not waited on (a regular file's reads ignore it).
		fd, err := syscall.Openat(h.fd, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &heldFile{fd: fd, name: name}, nil
	}
}

func (h heldFolder) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(h.FS, name)
}

func (h heldFolder) ReadLink(name string) (string, error) {
	return fs.ReadLink(h.FS, name)
}

func (h heldFolder) Lstat(name string) (fs.FileInfo, error) {
	return fs.Lstat(h.FS, name)
}

// heldFile is a file opened by heldFolder: its descriptor, read and
// closed by bare system calls.
type heldFile struct {
	fd   int
	name string
}

func (f *heldFile) Read(p []byte) (int, error) {
	if f.fd < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *heldFile) Stat() (fs.FileInfo, error) {
	if f.fd < 0 {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: fs.ErrClosed}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	return heldInfo{name: filepath.Base(f.name), st: st}, nil
}

func (f *heldFile) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil && !errors.Is(err, syscall.EINTR) {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// heldInfo is a heldFile's information, from its fstat.
type heldInfo struct {
	name string
	st   syscall.Stat_t
}

func (i heldInfo) Name() string       { return i.name }
func (i heldInfo) Size() int64        { return i.st.Size }
func (i heldInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i heldInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i heldInfo) Sys() any           { return &i.st }

func (i heldInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	}
	if i.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
