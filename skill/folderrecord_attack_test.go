//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package skill

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestFolderRecordNoticesReplacements checks rule 11 against changes of
// an entry's kind and of the folder itself: a file replaced by a link or
// a folder, a link by a file, a file's permissions changed without its
// executable bit, and the skill folder moved away with another moved to
// its path, its files' times set as the first's.
func TestFolderRecordNoticesReplacements(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		changed bool // ContentDigest changes
	}{
		{"file replaced by a link to a copy", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "references", "b.md")
			must(t, os.WriteFile(filepath.Join(dir, "references", "c.md"), []byte("reference b"), 0o644))
			must(t, os.Remove(p))
			must(t, os.Symlink("c.md", p))
		}, true},
		{"file replaced by a folder", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "references", "b.md")
			must(t, os.Remove(p))
			must(t, os.MkdirAll(filepath.Join(p, "x"), 0o755))
			must(t, os.WriteFile(filepath.Join(p, "x", "y"), []byte("reference b"), 0o644))
		}, true},
		{"link replaced by a file", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "references", "link")
			must(t, os.Remove(p))
			must(t, os.WriteFile(p, []byte("a.md"), 0o644))
		}, true},
		{"permissions changed, not the executable bit", func(t *testing.T, dir string) {
			must(t, os.Chmod(filepath.Join(dir, "references", "a.md"), 0o600))
		}, false},
		{"folder moved away, another moved in", func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "kit")
			must(t, os.CopyFS(other, os.DirFS(dir)))
			rewrite(t, filepath.Join(other, "references", "a.md"), "reference A")
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				rel, _ := filepath.Rel(dir, p)
				if fi, err := os.Lstat(p); err == nil && d.Type()&os.ModeSymlink == 0 {
					os.Chtimes(filepath.Join(other, rel), fi.ModTime(), fi.ModTime())
				}
				return nil
			})
			must(t, os.Rename(dir, dir+".old"))
			must(t, os.Rename(other, dir))
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
			dir := sourceFolder(t)
			store := settledRecord(t, c, dir)
			before, _, _ := c.folderDigestIn(t.Context(), store, dir)
			tt.change(t, dir)
			want, err := ContentDigest(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if (want != before) != tt.changed {
				t.Fatalf("ContentDigest before %s, after %s; want changed %v", before, want, tt.changed)
			}
			fresh := NewCache(WithSkillCacheRoot(c.Root()))
			for i, reader := range []*Cache{fresh, c, c, fresh} {
				if got, _, err := reader.folderDigestIn(t.Context(), store, dir); err != nil || got != want {
					t.Errorf("read %d: folderDigestIn = %s, %v; want %s", i, got, err, want)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
