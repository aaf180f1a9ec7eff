//go:build unix

package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without a user cache folder the cache falls back to the shared temp
// folder: the folder it creates there is private, and one that another
// user prepared (made writable for everyone) is refused, not used.
func TestFallbackCacheRoot(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, parent string)
		ok      bool
	}{
		{name: "created private", ok: true},
		{name: "prepared for every user", prepare: func(t *testing.T, parent string) {
			if err := os.Mkdir(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			os.Chmod(parent, 0o777)
		}},
		{name: "prepared as a link", prepare: func(t *testing.T, parent string) {
			other := filepath.Join(filepath.Dir(parent), "planted")
			if err := os.Mkdir(other, 0o700); err != nil {
				t.Fatal(err)
			}
			os.Chmod(other, 0o777)
			if err := os.Symlink(other, parent); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv(SkillCacheRootEnv, "")
			t.Setenv("XDG_CACHE_HOME", "")
			t.Setenv("HOME", "")
			t.Setenv("TMPDIR", tmp)
			parent := filepath.Join(tmp, fmt.Sprintf("agent-adaptor-%d", os.Getuid()))
			if tc.prepare != nil {
				tc.prepare(t, parent)
			}
			root := NewCache().Root()
			if want := filepath.Join(parent, "skill-cache"); root != want {
				t.Fatalf("NewCache().Root() = %s, want %s", root, want)
			}
			dir, err := NewDefaultSkillMaterializer().Materialize(t.Context(), Inline("tone", "---\nname: tone\ndescription: d\n---\n"))
			if !tc.ok {
				if err == nil {
					t.Fatalf("Materialize with the cache under a prepared %s = %s, want an error", parent, dir)
				}
				if !strings.Contains(err.Error(), tmp) || !strings.Contains(err.Error(), SkillCacheRootEnv) {
					t.Errorf("Materialize = %v, want it to name the folder and %s", err, SkillCacheRootEnv)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{parent, root} {
				fi, err := os.Lstat(p)
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Errorf("%s = %v, %v, want a folder of mode 0700", p, fi.Mode(), err)
				}
			}
		})
	}
}
