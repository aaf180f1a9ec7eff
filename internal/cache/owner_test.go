//go:build unix

package cache

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeInfo is a folder or file description with a chosen owner and mode.
type fakeInfo struct {
	mode fs.FileMode
	uid  uint32
}

func (f fakeInfo) Name() string       { return "x" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return &syscall.Stat_t{Uid: f.uid} }

// Rule 5, folder by folder: which folders above a cache may stand.
func TestCheckAncestor(t *testing.T) {
	const me, other = 1000, 4242
	tests := []struct {
		name string
		info fakeInfo
		ok   bool
	}{
		{"own folder", fakeInfo{fs.ModeDir | 0o755, me}, true},
		{"own private folder", fakeInfo{fs.ModeDir | 0o700, me}, true},
		{"root's folder", fakeInfo{fs.ModeDir | 0o755, 0}, true},
		{"root's sticky folder every user may write (/tmp)", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o777, 0}, true},
		{"own sticky folder every user may write", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o777, me}, true},
		{"another user's folder", fakeInfo{fs.ModeDir | 0o755, other}, false},
		{"another user's sticky folder", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o777, other}, false},
		{"own folder every user may write", fakeInfo{fs.ModeDir | 0o777, me}, false},
		{"own folder its group may write", fakeInfo{fs.ModeDir | 0o775, me}, false},
		{"root's folder every user may write, not sticky", fakeInfo{fs.ModeDir | 0o777, 0}, false},
		{"a file", fakeInfo{0o644, me}, false},
	}
	for _, tc := range tests {
		err := checkAncestor("/some/folder", tc.info, me)
		if (err == nil) != tc.ok {
			t.Errorf("checkAncestor(%s) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "/some/folder") {
			t.Errorf("checkAncestor(%s) = %v, want the folder named", tc.name, err)
		}
	}
}

// A cache below a folder another user can change is refused, whatever
// lies between; links on the way are followed and checked.
func TestOpenRefusesUnsafeAncestors(t *testing.T) {
	isRoot := os.Geteuid() == 0
	tests := []struct {
		name     string
		root     bool // needs root, to give a folder to another user
		setup    func(t *testing.T, base string) string
		ok       bool
		mentions string
	}{
		{name: "private folders", ok: true, setup: func(t *testing.T, base string) string {
			return filepath.Join(base, "a", "b", "cache")
		}},
		{name: "parent every user may write", mentions: "shared", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "shared"), 0o777)
			return filepath.Join(base, "shared", "me", "cache")
		}},
		{name: "grandparent its group may write", mentions: "team", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "team"), 0o775)
			mkdir(t, filepath.Join(base, "team", "me"), 0o700)
			return filepath.Join(base, "team", "me", "cache")
		}},
		{name: "sticky parent every user may write", ok: true, setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "tmp"), 0o777|fs.ModeSticky)
			return filepath.Join(base, "tmp", "me", "cache")
		}},
		{name: "link to a folder every user may write", mentions: "shared", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "shared"), 0o777)
			mkdir(t, filepath.Join(base, "shared", "x"), 0o700)
			symlink(t, filepath.Join(base, "shared", "x"), filepath.Join(base, "link"))
			return filepath.Join(base, "link", "cache")
		}},
		{name: "relative link through a folder every user may write", mentions: "shared", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "shared"), 0o777)
			mkdir(t, filepath.Join(base, "shared", "x"), 0o700)
			mkdir(t, filepath.Join(base, "d"), 0o700)
			symlink(t, "../shared/x", filepath.Join(base, "d", "link"))
			return filepath.Join(base, "d", "link", "cache")
		}},
		{name: "link to a private folder", ok: true, setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "real"), 0o700)
			symlink(t, "real", filepath.Join(base, "link"))
			return filepath.Join(base, "link", "cache")
		}},
		{name: "parent of another user", root: true, mentions: "4242", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "theirs"), 0o755)
			chown(t, filepath.Join(base, "theirs"), 4242)
			mkdir(t, filepath.Join(base, "theirs", "me"), 0o700)
			return filepath.Join(base, "theirs", "me", "cache")
		}},
		{name: "link of another user on the way", root: true, mentions: "4242", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "real"), 0o700)
			mkdir(t, filepath.Join(base, "tmp"), 0o777|fs.ModeSticky)
			symlink(t, filepath.Join(base, "real"), filepath.Join(base, "tmp", "agent"))
			if err := os.Lchown(filepath.Join(base, "tmp", "agent"), 4242, 4242); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(base, "tmp", "agent", "cache")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && !isRoot {
				t.Skip("giving a folder to another user needs root")
			}
			root := tc.setup(t, t.TempDir())
			s, err := Open(root)
			if tc.ok {
				if err != nil {
					t.Fatalf("Open(%s) = %v, want a store", root, err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded, want it refused", root)
			}
			if !strings.Contains(err.Error(), tc.mentions) || !strings.Contains(err.Error(), "AGENT_ADAPTOR_SKILL_CACHE_ROOT") {
				t.Errorf("Open(%s) = %v, want it to name %q and say how to choose another root", root, err, tc.mentions)
			}
		})
	}
}

func mkdir(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, p string, uid int) {
	t.Helper()
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
}

// A store holds its root open: a folder above it swapped for a link to a
// forged cache (a tree with the same manifest and other bytes of the same
// size) redirects neither lookups nor publishing.
func TestStoreSurvivesSwappedParent(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "p", "cache")
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir, digest := publish(t, s, "kit", "good")

	forged := filepath.Join(base, "forged", "cache", digest)
	if err := os.MkdirAll(filepath.Join(forged, "kit"), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, digest, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(forged, manifestName), data, 0o444)
	os.WriteFile(filepath.Join(forged, "kit", "SKILL.md"), []byte("evil"), 0o444)
	if err := os.Rename(filepath.Join(base, "p"), filepath.Join(base, "p.old")); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(base, "forged"), filepath.Join(base, "p"))

	if got, ok := s.Lookup(digest, "kit"); ok {
		b, _ := os.ReadFile(filepath.Join(got, "SKILL.md"))
		t.Errorf("Lookup after the swap = %s (SKILL.md %q), want not found", got, b)
	}
	st, err := s.Stage("kit")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.Root().WriteFile("SKILL.md", []byte("good"), 0o444)
	if got, _, err := st.Publish([]File{{Path: "SKILL.md", Size: 4, Sum: sha256.Sum256([]byte("good"))}}); err == nil {
		t.Errorf("Publish after the swap = %s, want an error", got)
	} else if !strings.Contains(err.Error(), root) {
		t.Errorf("Publish after the swap = %v, want it to name %s", err, root)
	}
	if got, err := os.ReadFile(filepath.Join(base, "p.old", "cache", digest, "kit", "SKILL.md")); err != nil || string(got) != "good" {
		t.Errorf("the real tree %s now holds %q, %v", dir, got, err)
	}
}
