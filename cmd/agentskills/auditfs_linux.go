package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentadaptor/agentadaptor/audit"
)

// auditFolder audits the skill tree in the folder dir, reading it
// through a heldFolder: a file costs five system calls (its openat2,
// fstat, two reads, close), where os.DirFS's *os.File costs ten.
func auditFolder(dir string) (audit.Report, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return audit.Report{}, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	h := &heldFolder{fd: fd, kept: -1}
	defer h.drop()
	return audit.Tree(h)
}

// heldFolder is a file system of the folder whose descriptor it holds:
// every name is opened beneath that descriptor, following no link on
// the way (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS, or
// where the kernel lacks openat2, element by element with O_NOFOLLOW),
// and its folders are read, its files' information taken and its links
// read through it too. A folder renamed and replaced while the audit
// runs is not read: the held one is, to the end.
//
// Open is for regular files, as the audit opens only those; it opens
// without waiting (O_NONBLOCK) and refuses, with [errNotRegular], what
// is not a regular file (a file swapped for a named pipe or a folder
// after its folder was read). A file is read by bare system calls, not
// through an *os.File, whose making tries to register the file with the
// runtime's poller (four fcntl calls and a failed epoll_ctl for a
// regular file) and sets a cleanup. The information of a regular file's
// entry is its fstat: the open is kept for the Open of that name that
// follows (one at a time), so the size read is the file's that is read.
type heldFolder struct {
	fd int
	// kept is the descriptor opened by the last Info of a regular
	// file's entry, for the Open of keptName; -1 when none.
	kept     int
	keptName string
}

var (
	_ fs.ReadDirFS  = (*heldFolder)(nil)
	_ fs.ReadLinkFS = (*heldFolder)(nil)
	_ fs.StatFS     = (*heldFolder)(nil)
)

// errNotRegular is the error of opening what is not a regular file.
var errNotRegular = errors.New("not a regular file")

// noOpenat2 is set when openat2 is found missing (ENOSYS): names are
// then opened element by element.
var noOpenat2 atomic.Bool

// openat2 is unix.Openat2; tests replace it to try the fallback.
var openat2 = unix.Openat2

// open opens name beneath the held folder, with flags (O_CLOEXEC and,
// for the last element, O_NOFOLLOW added), following no link.
func (h *heldFolder) open(op, name string, flags int) (int, error) {
	if !fs.ValidPath(name) {
		return -1, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	if !noOpenat2.Load() {
		how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
		for {
			fd, err := openat2(h.fd, name, &how)
			switch {
			case err == unix.EINTR || err == unix.EAGAIN:
				continue
			case err == unix.ENOSYS:
				noOpenat2.Store(true)
			case err != nil:
				return -1, &fs.PathError{Op: op, Path: name, Err: err}
			default:
				return fd, nil
			}
			break
		}
	}
	dir, rest := h.fd, name
	defer func() {
		if dir != h.fd {
			unix.Close(dir)
		}
	}()
	for {
		elem, more, ok := strings.Cut(rest, "/")
		f := flags
		if ok {
			f = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(dir, elem, f, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: op, Path: name, Err: err}
		}
		if !ok {
			return fd, nil
		}
		if dir != h.fd {
			unix.Close(dir)
		}
		dir, rest = fd, more
	}
}

// drop closes the descriptor kept for an Open, if any.
func (h *heldFolder) drop() {
	if h.kept >= 0 {
		unix.Close(h.kept)
		h.kept, h.keptName = -1, ""
	}
}

// openFile opens the regular file name and takes its fstat.
func (h *heldFolder) openFile(name string) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	fd, err := h.open("open", name, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return -1, st, err
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, st, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	return fd, st, nil
}

func (h *heldFolder) Open(name string) (fs.File, error) {
	if h.kept >= 0 && h.keptName == name {
		fd := h.kept
		h.kept, h.keptName = -1, ""
		return &heldFile{fd: fd, name: name}, nil
	}
	fd, _, err := h.openFile(name)
	if err != nil {
		return nil, err
	}
	return &heldFile{fd: fd, name: name}, nil
}

func (h *heldFolder) ReadDir(name string) ([]fs.DirEntry, error) {
	fd, err := h.open("open", name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	list, err := f.ReadDir(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.Unwrap(err)}
	}
	entries := make([]fs.DirEntry, len(list))
	for i, e := range list {
		entries[i] = heldEntry{h: h, name: path.Join(name, e.Name()), DirEntry: e}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// parent opens the folder of name beneath the held folder (O_PATH), and
// returns it with name's last element; the caller closes it unless it
// is the held folder's.
func (h *heldFolder) parent(op, name string) (int, string, error) {
	if !fs.ValidPath(name) || name == "." {
		return -1, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return h.fd, name, nil
	}
	fd, err := h.open(op, name[:i], unix.O_PATH|unix.O_DIRECTORY)
	return fd, name[i+1:], err
}

// Stat is Lstat: the held folder follows no link.
func (h *heldFolder) Stat(name string) (fs.FileInfo, error) {
	return h.Lstat(name)
}

func (h *heldFolder) Lstat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if name == "." {
		if err := unix.Fstat(h.fd, &st); err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return heldInfo{name: ".", st: st}, nil
	}
	dir, base, err := h.parent("lstat", name)
	if err != nil {
		return nil, err
	}
	if dir != h.fd {
		defer unix.Close(dir)
	}
	if err := unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return heldInfo{name: base, st: st}, nil
}

func (h *heldFolder) ReadLink(name string) (string, error) {
	dir, base, err := h.parent("readlink", name)
	if err != nil {
		return "", err
	}
	if dir != h.fd {
		defer unix.Close(dir)
	}
	for n := 256; ; n *= 2 {
		b := make([]byte, n)
		m, err := unix.Readlinkat(dir, base, b)
		if err != nil {
			return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
		}
		if m < n {
			return string(b[:m]), nil
		}
	}
}

// heldEntry is an entry of a folder read by heldFolder, whose Info is
// taken through the held folder: a regular file's by opening it (see
// heldFolder).
type heldEntry struct {
	h    *heldFolder
	name string
	fs.DirEntry
}

func (e heldEntry) Info() (fs.FileInfo, error) {
	if !e.Type().IsRegular() {
		return e.h.Lstat(e.name)
	}
	e.h.drop()
	fd, st, err := e.h.openFile(e.name)
	if err != nil {
		return nil, err
	}
	e.h.kept, e.h.keptName = fd, e.name
	return heldInfo{name: e.Name(), st: st}, nil
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
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
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
	st   unix.Stat_t
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
