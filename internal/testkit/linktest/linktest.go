// Package linktest makes the linked folders the tests of real paths
// share: a repository folder reached through a symbolic link.
package linktest

import (
	"os"
	"path/filepath"
	"testing"
)

// Repos makes base/repos/acme/tools and a link base/link to base/repos,
// and returns base's real path (t.TempDir is under a link on macOS). It
// skips t where symbolic links cannot be made.
func Repos(t testing.TB) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "repos", "acme", "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "repos"), filepath.Join(base, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	return base
}
