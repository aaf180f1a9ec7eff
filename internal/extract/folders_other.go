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

// mkdir makes the folder dir, whose parent exists.
func (fl *folders) mkdir(dir string) error {
	local, err := filepath.Localize(dir)
	if err != nil {
		return unsafeEntry(dir, err.Error())
	}
	return fl.root.Mkdir(local, 0o755)
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
