package agentdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

const key = "0123456789abcdef0123456789abcdef"

// acquire takes a lease on key, released at the test's end.
func acquire(t *testing.T, root string, k Kind, key string) *Lease {
	t.Helper()
	l, err := Acquire(t.Context(), root, k, key)
	if err != nil {
		t.Fatalf("Acquire(%s, %v, %s) = %v", root, k, key, err)
	}
	t.Cleanup(l.Release)
	return l
}

// setTime sets the modification time of p.
func setTime(t *testing.T, p string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// mkKey makes the folder of key with a file in it, used last at when.
func mkKey(t *testing.T, root string, k Kind, key string, when time.Time) string {
	t.Helper()
	l := acquire(t, root, k, key)
	if err := os.MkdirAll(filepath.Join(l.Dir(), "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Dir(), "sub", "f"), []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	l.Release()
	setTime(t, filepath.Join(l.Base(), key+leaseSuffix), when)
	return l.Dir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Rules 2 and 3: a lease makes the kind's folders (0700) and records its
// use when taken and when released, in the lease file, not the folder.
func TestAcquireRecordsUse(t *testing.T) {
	for _, k := range Kinds() {
		t.Run(k.String(), func(t *testing.T) {
			root := cachetest.Root(t)
			start := time.Now().Add(-time.Second)
			l := acquire(t, root, k, key)
			if want := filepath.Join(root, filepath.FromSlash(k.Dir), key); l.Dir() != want {
				t.Errorf("Dir() = %s, want %s", l.Dir(), want)
			}
			for _, p := range []string{filepath.Dir(l.Base()), l.Base()} {
				fi, err := os.Lstat(p)
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Errorf("Lstat(%s) = %v, %v; want a folder 0700", p, fi, err)
				}
			}
			lease := filepath.Join(l.Base(), key+leaseSuffix)
			fi, err := os.Stat(lease)
			if err != nil || fi.ModTime().Before(start) {
				t.Fatalf("lease %s: %v, %v; want one used now", lease, fi, err)
			}
			old := time.Now().Add(-time.Hour)
			setTime(t, lease, old)
			l.Release()
			if fi, err := os.Stat(lease); err != nil || !fi.ModTime().After(old) {
				t.Errorf("lease %s after Release: %v, %v; want its use recorded", lease, fi, err)
			}
			l.Release() // again: nothing
		})
	}
}

func TestAcquireRefusesBadKeys(t *testing.T) {
	for _, k := range []string{"", "ABC", "../x", "a.b", strings.Repeat("a", 65)} {
		if _, err := Acquire(t.Context(), t.TempDir(), ClaudeMount, k); err == nil || !strings.Contains(err.Error(), "hexadecimal") {
			t.Errorf("Acquire(key %q) = %v, want it refused", k, err)
		}
	}
}

// Rule 1: every folder from the root to the key's is checked before it
// is used, and nothing is made below one that fails.
func TestAcquireChecksEveryFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("ownership and modes are not checked on Windows (see the package doc)")
	}
	isRoot := os.Geteuid() == 0
	const other = 12345
	chown := func(t *testing.T, p string) {
		t.Helper()
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, other, other); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(mode fs.FileMode) func(t *testing.T, p string) {
		return func(t *testing.T, p string) {
			t.Helper()
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(t *testing.T, p string) {
		t.Helper()
		real := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.MkdirAll(real, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, p); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		kind     Kind
		at       string // slash path under the root; "" is the root
		spoil    func(*testing.T, string)
		root     bool // needs root's rights
		mentions string
	}{
		{"mounts of another user", ClaudeMount, "mounts", chown, true, "belongs to user 12345"},
		{"mounts/claude of another user", ClaudeMount, "mounts/claude", chown, true, "belongs to user 12345"},
		{"mount of another user", ClaudeMount, "mounts/claude/" + key, chown, true, "belongs to user 12345"},
		{"homes of another user", CodexHome, "homes", chown, true, "belongs to user 12345"},
		{"homes/codex of another user", CodexHome, "homes/codex", chown, true, "belongs to user 12345"},
		{"home of another user", CodexHome, "homes/codex/" + key, chown, true, "belongs to user 12345"},
		{"root of another user", CodexHome, "", chown, true, "belongs to user 12345"},
		{"mounts writable by its group", ClaudeMount, "mounts", chmod(0o770), false, "may be written by its group"},
		{"homes writable by all", CodexHome, "homes", chmod(0o707), false, "may be written by its group or by every user"},
		{"homes/codex writable by all", CodexHome, "homes/codex", chmod(0o777), false, "may be written"},
		{"mount writable by its group", ClaudeMount, "mounts/claude/" + key, chmod(0o770), false, "may be written"},
		{"root writable by its group", ClaudeMount, "", chmod(0o770), false, "may be written"},
		{"mounts a link", ClaudeMount, "mounts", link, false, "is not a folder"},
		{"homes/codex a link", CodexHome, "homes/codex", link, false, "is not a folder"},
		{"mounts a file", ClaudeMount, "mounts", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, false, "is not a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && !isRoot {
				t.Skip("giving a folder to another user needs root")
			}
			root := filepath.Join(cachetest.Root(t), "cache")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			bad := filepath.Join(root, filepath.FromSlash(tc.at))
			tc.spoil(t, bad)
			l, err := Acquire(t.Context(), root, tc.kind, key)
			if err == nil {
				l.Release()
				t.Fatalf("Acquire with %s = a lease, want it refused", tc.name)
			}
			if !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), tc.mentions) || !strings.Contains(err.Error(), "AGENT_ADAPTOR_SKILL_CACHE_ROOT") {
				t.Errorf("Acquire with %s = %v, want it to name %s, say %q and how to use another root", tc.name, err, bad, tc.mentions)
			}
			// Nothing is made below the folder refused.
			if tc.at != "" && !strings.HasSuffix(tc.at, key) {
				below := filepath.Join(root, filepath.FromSlash(tc.kind.Dir))
				if tc.at != tc.kind.Dir && exists(below) {
					t.Errorf("%s was made below the refused %s", below, bad)
				}
			}
			// Listing and collecting refuse it too, except the key's own
			// folder, which they read only under the checked ones.
			if !strings.HasSuffix(tc.at, key) {
				if _, err := List(root); err == nil {
					t.Errorf("List with %s = nil error, want it refused", tc.name)
				}
				if _, err := Collect(root, time.Now().Add(time.Hour)); err == nil {
					t.Errorf("Collect with %s = nil error, want it refused", tc.name)
				}
				if _, err := Linked(root); err == nil {
					t.Errorf("Linked with %s = nil error, want it refused", tc.name)
				}
			}
		})
	}
}

// Rules 3 and 4: Collect removes the keys last used before the cut-off,
// by their lease's time (or, without one, their folder's), and keeps the
// others without changing their last use.
func TestCollectByAge(t *testing.T) {
	root := cachetest.Root(t)
	now := time.Now()
	old := mkKey(t, root, ClaudeMount, "aa", now.Add(-2*time.Hour))
	recent := mkKey(t, root, CodexHome, "bb", now.Add(-time.Minute))
	// The folder's time says nothing when there is a lease.
	setTime(t, old, now)
	setTime(t, recent, now.Add(-48*time.Hour))
	// Folders made before leases: their folder's time.
	legacyOld := filepath.Join(root, "homes", "codex", "cc")
	legacyNew := filepath.Join(root, "homes", "codex", "dd")
	for _, p := range []string{legacyOld, legacyNew} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	setTime(t, legacyOld, now.Add(-2*time.Hour))
	setTime(t, legacyNew, now.Add(-time.Minute))
	// A read-only folder inside (a mount's skills folder), and leftovers
	// of the same key.
	if err := os.Chmod(filepath.Join(old, "sub"), 0o500); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(root, "mounts", "claude", "aa.staging-123")
	if err := os.Mkdir(leftover, 0o700); err != nil {
		t.Fatal(err)
	}
	// Names that are not a key's are left alone.
	stranger := filepath.Join(root, "mounts", "claude", "README")
	if err := os.WriteFile(stranger, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	removed, err := Collect(root, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range removed {
		got = append(got, f.Dir)
	}
	if want := []string{old, legacyOld}; !slices.Equal(got, want) {
		t.Fatalf("Collect removed %v, want %v", got, want)
	}
	if removed[0].Size != 5 || removed[0].Files != 1 || removed[0].Agent != ClaudeMount.Agent || removed[0].Home {
		t.Errorf("removed %+v, want its one file of 5 bytes measured", removed[0])
	}
	for _, p := range []string{old, old + leaseSuffix, leftover, legacyOld, legacyOld + leaseSuffix} {
		if exists(p) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{recent, recent + leaseSuffix, legacyNew, stranger} {
		if !exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	if exists(legacyNew + leaseSuffix) {
		t.Errorf("Collect left a lease file for %s, which would change its last use", legacyNew)
	}
	if fi, _ := os.Stat(legacyNew); fi == nil || now.Sub(fi.ModTime()) < 30*time.Second {
		t.Errorf("the last use of %s changed", legacyNew)
	}
	if names, _ := ReadNames(filepath.Join(root, "mounts", "claude")); !slices.Equal(names, []string{kindFile, "README"}) {
		t.Errorf("mounts/claude holds %v, want only the kind file and the stranger", names)
	}
}

// Rule 4: a key a run holds is kept however old; once released, it goes.
func TestCollectKeepsLeased(t *testing.T) {
	root := cachetest.Root(t)
	dir := mkKey(t, root, CodexHome, key, time.Now().Add(-time.Hour))
	l := acquire(t, root, CodexHome, key)
	future := time.Now().Add(time.Hour)
	if removed, err := Collect(root, future); err != nil || len(removed) != 0 {
		t.Fatalf("Collect while leased = %v, %v; want nothing removed", removed, err)
	}
	list, err := List(root)
	if err != nil || len(list) != 1 || !list[0].InUse {
		t.Fatalf("List while leased = %+v, %v; want it in use", list, err)
	}
	l.Release()
	if list, err := List(root); err != nil || len(list) != 1 || list[0].InUse {
		t.Fatalf("List once released = %+v, %v; want it not in use", list, err)
	}
	if removed, err := Collect(root, future); err != nil || len(removed) != 1 || removed[0].Dir != dir {
		t.Fatalf("Collect once released = %v, %v; want %s removed", removed, err, dir)
	}
}

// Rule 5: a lease taken while a collection holds the key ends up on the
// lease file the collection did not remove, whichever of the two opened
// it first.
func TestAcquireAfterCollection(t *testing.T) {
	root := cachetest.Root(t)
	l := acquire(t, root, ClaudeMount, key)
	l.Release()
	lease := filepath.Join(l.Base(), key+leaseSuffix)
	f, err := os.OpenFile(lease, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := filelock.TryLock(f); err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lease, 1)
	go func() {
		l, err := Acquire(t.Context(), root, ClaudeMount, key)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	// The collection removes the lease file, then lets go of it.
	if err := os.Remove(lease); err != nil {
		t.Fatal(err)
	}
	f.Close()
	l2 := <-got
	if l2 == nil {
		return
	}
	defer l2.Release()
	if !sameFile(l2.f, lease) {
		t.Errorf("the lease taken is not the file at %s", lease)
	}
	if removed, err := Collect(root, time.Now().Add(time.Hour)); err != nil || len(removed) != 0 {
		t.Errorf("Collect = %v, %v; want the new lease to keep the key", removed, err)
	}
}

// Rule 7: List reports size, sessions and last use, and creates nothing.
func TestList(t *testing.T) {
	root := cachetest.Root(t)
	if list, err := List(filepath.Join(root, "none")); err != nil || len(list) != 0 {
		t.Fatalf("List of a missing root = %v, %v; want nothing", list, err)
	}
	when := time.Now().Add(-time.Hour).Truncate(time.Second)
	home := mkKey(t, root, CodexHome, key, when)
	for _, s := range []string{"a", "b"} {
		p := filepath.Join(home, "sessions", "2026", "12", "01", "rollout-2026-12-01T10-00-00-"+s+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(home, "auth.json")); err != nil {
		t.Fatal(err)
	}
	// A lease without a folder is no folder.
	acquire(t, root, ClaudeMount, key).Release()
	before := cachetest.Listing(t, root)
	list, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("List = %+v, want one home", list)
	}
	f := list[0]
	if f.Agent != CodexHome.Agent || !f.Home || f.Key != key || f.Dir != home || f.Size != 5+6 || f.Files != 3 || f.Sessions != 2 || !f.LastUse.Equal(when) || f.InUse {
		t.Errorf("List = %+v, want the home with 3 files of 11 bytes, 2 sessions, last used %v", f, when)
	}
	if cachetest.Listing(t, root) != before {
		t.Error("List changed the root")
	}
}

// Rule 6: Linked reports the store entries a folder links into, relative
// links too, and nothing outside the root.
func TestLinked(t *testing.T) {
	root := cachetest.Root(t)
	digest1, digest2 := strings.Repeat("1", 64), strings.Repeat("2", 64)
	mount := mkKey(t, root, ClaudeMount, "aa", time.Now())
	home := mkKey(t, root, CodexHome, "bb", time.Now())
	links := map[string]string{
		filepath.Join(mount, "sub", "one"):   filepath.Join(root, digest1, "one"),
		filepath.Join(home, "sub", "two"):    filepath.Join("..", "..", "..", "..", digest2, "two"),
		filepath.Join(home, "sub", "again"):  filepath.Join(root, digest1, "one"),
		filepath.Join(home, "sub", "theirs"): t.TempDir(),
		filepath.Join(home, "sub", "root"):   root,
	}
	for p, target := range links {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Linked(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{digest1, digest2}; !slices.Equal(got, want) {
		t.Errorf("Linked = %v, want %v", got, want)
	}
	if got, err := Linked(filepath.Join(root, "none")); err != nil || len(got) != 0 {
		t.Errorf("Linked of a missing root = %v, %v; want nothing", got, err)
	}
}

func TestCheckFolder(t *testing.T) {
	dir := t.TempDir()
	if err := CheckFolder(dir); err != nil {
		t.Errorf("CheckFolder(%s) = %v, want nil", dir, err)
	}
	if err := CheckFolder(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckFolder(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestMakeFolders checks that MakeFolders creates the missing folders
// in order, keeps the ones there, refuses a link, and names what it makes
// in the error of a folder it cannot create.
func TestMakeFolders(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "a", "b")
	if err := MakeFolders("test home", a, b); err != nil {
		t.Fatalf("MakeFolders = %v", err)
	}
	if err := MakeFolders("test home", a, b); err != nil {
		t.Fatalf("MakeFolders again = %v", err)
	}
	if fi, err := os.Stat(b); err != nil || !fi.IsDir() {
		t.Fatalf("%s: %v, want a folder", b, err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Skip(err)
	}
	if err := MakeFolders("test home", link); err == nil {
		t.Error("MakeFolders(link) = nil, want a refusal")
	}
	err := MakeFolders("test home", filepath.Join(dir, "none", "c"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "create test home: ") {
		t.Errorf("MakeFolders(no parent) = %v, want create test home: ... fs.ErrNotExist", err)
	}
}

// TestKindHome checks which kinds are homes: the kinds under homes/,
// which the agent writes to and which hold its sessions.
func TestKindHome(t *testing.T) {
	for _, k := range Kinds() {
		if k.Home() != strings.HasPrefix(k.Dir, "homes/") {
			t.Errorf("%v.Home() = %v (its folder is %s)", k, k.Home(), k.Dir)
		}
	}
}

// TestKindCheck checks that Acquire refuses a kind that is not one
// before it creates anything.
func TestKindCheck(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
	}{
		{"no folder", Kind{Agent: "a", Magic: "m"}},
		{"not under mounts or homes", Kind{Dir: "other/a", Agent: "a", Magic: "m"}},
		{"deeper", Kind{Dir: "mounts/a/b", Agent: "a", Magic: "m"}},
		{"upper case", Kind{Dir: "mounts/A", Agent: "a", Magic: "m"}},
		{"no agent", Kind{Dir: "mounts/a", Magic: "m"}},
		{"no magic", Kind{Dir: "mounts/a", Agent: "a"}},
		{"a line break", Kind{Dir: "mounts/a", Agent: "a\nsessions x", Magic: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if l, err := Acquire(t.Context(), root, tt.kind, key); err == nil {
				l.Release()
				t.Fatalf("Acquire(%+v) = nil error", tt.kind)
			}
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("Acquire of a bad kind created %v", entries)
			}
		})
	}
}

// TestListFindsKinds checks rule 14: List and Collect find the kinds
// under the root, with the agent each one's kind file records, and a
// kind folder without one by its name; names that are no kind folder are
// left alone. Mounts come first, then homes, each by folder.
func TestListFindsKinds(t *testing.T) {
	root := cachetest.Root(t)
	other := Kind{Dir: "mounts/new-agent", Agent: "new-agent-id", Magic: "agentadaptor new mount v1"}
	old := time.Now().Add(-time.Hour)
	mkKey(t, root, other, "aa", old)
	mkKey(t, root, CodexHome, "bb", old)
	bare := mkKey(t, root, QwenMount, "cc", old)
	os.Remove(filepath.Join(filepath.Dir(bare), kindFile))
	for _, p := range []string{"mounts/Not-A-Kind", "homes/.hidden"} {
		os.MkdirAll(filepath.Join(root, filepath.FromSlash(p), "dd"), 0o700)
	}
	list, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range list {
		got = append(got, fmt.Sprintf("%s %v %s", f.Agent, f.Home, f.Key))
	}
	if want := []string{"new-agent-id false aa", "qwen false cc", "codex true bb"}; !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	removed, err := Collect(root, time.Now())
	if err != nil || len(removed) != 3 {
		t.Errorf("Collect = %d folders, %v; want 3", len(removed), err)
	}
}
