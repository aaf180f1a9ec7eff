//go:build !unix

package extract

import (
	"os"
	"path/filepath"
)

// folders makes and removes the folders of an extraction under a root,
// by their whole paths. A folders is used under its writer's lock.
type folders struct {
	root *os.Root
}

func newFolders(root *os.Root) (*folders, error) { return &folders{root: root}, nil }

// mkdir makes the folder dir, whose parent exists, and with hold returns
// it held open when it can.
func (fl *folders) mkdir(dir string, hold bool) (dirHandle, error) {
	local, err := filepath.Localize(dir)
	if err != nil {
		return dirHandle{}, unsafeEntry(dir, err.Error())
	}
	if err := fl.root.Mkdir(local, 0o755); err != nil || !hold {
		return dirHandle{}, err
	}
	r, err := fl.root.OpenRoot(local)
	if err != nil {
		return dirHandle{}, nil // made, but not held
	}
	return dirHandle{root: r}, nil
}

// top returns the root folder's handle, which is not closed.
func (fl *folders) top() dirHandle { return dirHandle{root: fl.root} }

// dirHandle is a folder the writer made, held open (root not nil) so
// that creating a file in it does not walk from the root, or not.
type dirHandle struct {
	root *os.Root
}

// held reports whether the folder is held open.
func (d dirHandle) held() bool { return d.root != nil }

// close closes the folder, when held open.
func (d dirHandle) close() {
	if d.root != nil {
		d.root.Close()
	}
}

// create makes the new file name in the held folder d, replacing
// nothing, and returns it open for writing. rel is the file's path in
// the skill.
func (d dirHandle) create(name, _ string, perm os.FileMode) (*os.File, error) {
	local, err := filepath.Localize(name)
	if err != nil {
		return nil, err
	}
	return d.root.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// remove removes the file, or the empty folder, rel; errors are
// ignored.
func (fl *folders) remove(rel string, _ bool) {
	if local, err := filepath.Localize(rel); err == nil {
		fl.root.Remove(local)
	}
}

// open opens the file rel for reading, through the root (which on
// Windows does not check that it is the regular file the extraction
// wrote).
func (fl *folders) open(rel string) (*os.File, error) {
	local, err := filepath.Localize(rel)
	if err != nil {
		return nil, unsafeEntry(rel, err.Error())
	}
	return fl.root.Open(local)
}

func (fl *folders) close() {}
