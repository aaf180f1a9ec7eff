// Package cachetest gives tests a skill cache root of their own.
package cachetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Root returns a new folder under t.TempDir() for a skill cache. Published
// cache trees have read-only folders, which the temporary folder's removal
// cannot empty without root's rights, so the test's cleanup first makes
// every folder under it writable again.
func Root(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	t.Cleanup(func() { Writable(root) })
	return root
}

// Writable makes every folder under root writable by its owner, so that
// os.RemoveAll can empty them.
func Writable(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
