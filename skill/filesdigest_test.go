package skill

import (
	"path/filepath"
	"testing"
)

// TestFilesDigest checks that FilesDigest of what CheckFS returns is the
// ContentDigest of a copy of the same tree, and that it depends on the
// name.
func TestFilesDigest(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	files, err := c.CheckFS(t.Context(), treeFS())
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "kit")
	copied, err := c.CopyFS(t.Context(), treeFS(), dst)
	if err != nil {
		t.Fatal(err)
	}
	content, err := ContentDigest(t.Context(), dst)
	if err != nil {
		t.Fatal(err)
	}
	if got := FilesDigest("kit", files); got != copied || got != content {
		t.Errorf("FilesDigest = %s, want CopyFS's %s and ContentDigest's %s", got, copied, content)
	}
	if FilesDigest("other", files) == copied {
		t.Error("FilesDigest does not depend on the name")
	}
}
