package cache

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDigestIsCanonical(t *testing.T) {
	a := []File{{Path: "a", Size: 1, Sum: sha256.Sum256([]byte("a"))}, {Path: "b/c", Exec: true, Size: 1, Sum: sha256.Sum256([]byte("c"))}}
	b := []File{a[1], a[0]}
	if Digest("kit", a) != Digest("kit", b) {
		t.Errorf("Digest depends on file order")
	}
	for name, other := range map[string][]File{
		"exec bit": {a[0], {Path: "b/c", Size: 1, Sum: a[1].Sum}},
		"path":     {a[0], {Path: "b/d", Exec: true, Size: 1, Sum: a[1].Sum}},
		"content":  {a[0], {Path: "b/c", Exec: true, Size: 1, Sum: sha256.Sum256([]byte("x"))}},
		"fewer":    {a[0]},
	} {
		if Digest("kit", other) == Digest("kit", a) {
			t.Errorf("Digest ignores a change of %s", name)
		}
	}
	if Digest("kit", a) == Digest("kat", a) {
		t.Errorf("Digest ignores the runtime name")
	}
	// Framing: moving bytes between the name and a path changes the digest.
	if Digest("ab", []File{{Path: "c"}}) == Digest("a", []File{{Path: "bc"}}) {
		t.Errorf("Digest is ambiguous across field boundaries")
	}
}

// Many stores share a root; each sweeps once while the others stage. No
// live staging area may be swept from under its owner.
func TestSweepNeverTakesLiveStaging(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			s, err := Open(root)
			if err != nil {
				errs <- err
				return
			}
			st, err := s.Stage("kit")
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			f, err := st.Root().Create("SKILL.md")
			if err != nil {
				errs <- err
				return
			}
			f.Close()
			if _, _, err := st.Publish([]File{{Path: "SKILL.md", Sum: sha256.Sum256(nil)}}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, tmpDir))
	if len(entries) != 0 {
		t.Errorf("staging left behind: %d entries", len(entries))
	}
}

func TestLookupRejectsForgedManifest(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stage("kit")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.Root().WriteFile("SKILL.md", []byte("x"), 0o444)
	files := []File{{Path: "SKILL.md", Size: 1, Sum: sha256.Sum256([]byte("x"))}}
	dir, digest, err := st.Publish(files)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Lookup(digest, "kit"); !ok || got != dir {
		t.Fatalf("Lookup(%s) = %s, %v, want %s", digest, got, ok, dir)
	}
	if _, ok := s.Lookup(digest, "other"); ok {
		t.Errorf("Lookup with another name succeeded")
	}
	m := filepath.Join(s.Root(), digest, manifestName)
	os.Chmod(m, 0o644)
	if err := os.WriteFile(m, manifest("kit", []File{{Path: "SKILL.md", Size: 1}}), 0o444); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup(digest, "kit"); ok {
		t.Errorf("Lookup accepted a manifest that does not match its digest")
	}
	if _, ok := s.Lookup("../../etc", "kit"); ok {
		t.Errorf("Lookup accepted a digest that is not hex")
	}
}

func TestMemo(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := Digest("k", nil)
	if _, ok := s.Memo(key); ok {
		t.Errorf("Memo on an empty store found an entry")
	}
	want := Digest("v", nil)
	if err := s.SetMemo(key, want); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Memo(key); !ok || got != want {
		t.Errorf("Memo = %s, %v, want %s", got, ok, want)
	}
	// Each key is an entry of its own: a second key leaves the first as
	// it was.
	other, otherWant := Digest("k2", nil), Digest("v2", nil)
	if err := s.SetMemo(other, otherWant); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Memo(key); !ok || got != want {
		t.Errorf("Memo(%s) after another key = %s, %v, want %s", key, got, ok, want)
	}
	if got, ok := s.Memo(other); !ok || got != otherWant {
		t.Errorf("Memo(%s) = %s, %v, want %s", other, got, ok, otherWant)
	}
	if memos, _ := os.ReadDir(filepath.Join(s.Root(), memoDir)); len(memos) != 2 {
		t.Errorf("memo holds %d entries, want 2 (one per key)", len(memos))
	}
	if err := s.SetMemo("../x", want); err == nil {
		t.Errorf("SetMemo accepted a key that is not a digest")
	}
	if _, ok := s.Memo("../x"); ok {
		t.Errorf("Memo found an entry for a key that is not a digest")
	}
	// A memo that cannot be put in place (here a folder holds its name) is
	// an error, and leaves no temporary file behind.
	blocked := Digest("blocked", nil)
	if err := os.MkdirAll(filepath.Join(s.Root(), memoDir, blocked, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMemo(blocked, want); err == nil {
		t.Errorf("SetMemo(%s) over a folder = nil, want an error", blocked)
	}
	if left, _ := filepath.Glob(filepath.Join(s.Root(), memoDir, blocked+".tmp-*")); len(left) != 0 {
		t.Errorf("SetMemo left %v behind", left)
	}
}

// publish stages a one-file tree and publishes it.
func publish(t *testing.T, s *Store, name, content string) (string, string) {
	t.Helper()
	st, err := s.Stage(name)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Root().WriteFile("SKILL.md", []byte(content), 0o444); err != nil {
		t.Fatal(err)
	}
	dir, digest, err := st.Publish([]File{{Path: "SKILL.md", Size: int64(len(content)), Sum: sha256.Sum256([]byte(content))}})
	if err != nil {
		t.Fatal(err)
	}
	return dir, digest
}

func TestSweepTouchesOnlyItsOwnNames(t *testing.T) {
	root := t.TempDir()
	tmp := filepath.Join(root, tmpDir)
	os.MkdirAll(filepath.Join(tmp, "project"), 0o755)
	os.WriteFile(filepath.Join(tmp, "notes.txt"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(tmp, "project", "main.go"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(tmp, "0123456789abcdef01234567.spool"), nil, 0o600) // an orphan of ours
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	publish(t, s, "kit", "x")
	for _, p := range []string{"notes.txt", "project/main.go"} {
		if _, err := os.Stat(filepath.Join(tmp, p)); err != nil {
			t.Errorf("the sweep removed %s, which the store did not make: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "0123456789abcdef01234567.spool")); err == nil {
		t.Errorf("the sweep left an orphan of its own")
	}
}

func TestOpenRefusesUnsafeFolders(t *testing.T) {
	t.Run("linked staging folder", func(t *testing.T) {
		root, victim := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(victim, "precious.txt"), []byte("x"), 0o644)
		os.Symlink(victim, filepath.Join(root, tmpDir))
		if _, err := Open(root); err == nil {
			t.Errorf("Open accepted a .tmp that is a link")
		}
		if _, err := os.Stat(filepath.Join(victim, "precious.txt")); err != nil {
			t.Errorf("victim changed: %v", err)
		}
	})
	t.Run("memo is a file", func(t *testing.T) {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, memoDir), nil, 0o644)
		if _, err := Open(root); err == nil {
			t.Errorf("Open accepted a .memo that is a file")
		}
	})
	t.Run("world-writable root", func(t *testing.T) {
		root := t.TempDir()
		os.Chmod(root, 0o777)
		if _, err := Open(root); err == nil {
			t.Errorf("Open accepted a root every user may write")
		}
	})
	t.Run("group-writable root", func(t *testing.T) {
		root := t.TempDir()
		os.Chmod(root, 0o770)
		if _, err := Open(root); err == nil || !strings.Contains(err.Error(), "chmod go-w") {
			t.Errorf("Open of a root its group may write = %v, want it refused, saying what to change", err)
		}
	})
	t.Run("group-writable staging folder", func(t *testing.T) {
		root := t.TempDir()
		os.Mkdir(filepath.Join(root, tmpDir), 0o700)
		os.Chmod(filepath.Join(root, tmpDir), 0o770)
		if _, err := Open(root); err == nil {
			t.Errorf("Open accepted a .tmp its group may write")
		}
	})
}

func TestLookupRefusesTamperedTrees(t *testing.T) {
	tests := map[string]func(dir string){
		"missing file": func(dir string) { os.Chmod(dir, 0o755); os.Remove(filepath.Join(dir, "SKILL.md")) },
		"file made a folder": func(dir string) {
			os.Chmod(dir, 0o755)
			os.Remove(filepath.Join(dir, "SKILL.md"))
			os.Mkdir(filepath.Join(dir, "SKILL.md"), 0o755)
		},
		"resized file": func(dir string) {
			os.Chmod(filepath.Join(dir, "SKILL.md"), 0o644)
			os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("xx"), 0o644)
		},
		"exec bit": func(dir string) { os.Chmod(filepath.Join(dir, "SKILL.md"), 0o555) },
		"missing manifest": func(dir string) {
			os.Remove(filepath.Join(filepath.Dir(dir), manifestName))
		},
		"linked tree": func(dir string) {
			os.Chmod(dir, 0o755)
			other := dir + ".real"
			os.Rename(dir, other)
			os.Symlink(other, dir)
		},
		"linked digest folder": func(dir string) {
			parent := filepath.Dir(dir)
			os.Rename(parent, parent+".real")
			os.Symlink(parent+".real", parent)
		},
	}
	for name, damage := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir, digest := publish(t, s, "kit", "x")
			damage(dir)
			if _, ok := s.Lookup(digest, "kit"); ok {
				t.Fatalf("Lookup accepted a tree with a %s", name)
			}
			if _, ok := Verify(dir); ok {
				t.Errorf("Verify accepted a tree with a %s", name)
			}
			// Publishing again repairs it.
			again, _ := publish(t, s, "kit", "x")
			if _, ok := s.Lookup(digest, "kit"); !ok || again != dir {
				t.Errorf("after repair: Lookup = %v, folder %s, want %s", ok, again, dir)
			}
		})
	}
}

func TestEntriesAndGC(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	_, oldDigest := publish(t, s, "old", "x")
	_, newDigest := publish(t, s, "new", "yy")
	past := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(root, oldDigest), past, past)
	entries, err := Entries(t.Context(), root)
	if err != nil || len(entries) != 2 {
		t.Fatalf("Entries = %+v, %v", entries, err)
	}
	removed, err := GC(t.Context(), root, time.Now().Add(-24*time.Hour))
	if err != nil || len(removed) != 1 || removed[0].Digest != oldDigest || removed[0].Name != "old" || removed[0].Size != 1 {
		t.Fatalf("GC = %+v, %v, want the old tree", removed, err)
	}
	if _, ok := s.Lookup(oldDigest, "old"); ok {
		t.Errorf("the collected tree is still found")
	}
	if _, ok := s.Lookup(newDigest, "new"); !ok {
		t.Errorf("GC removed a tree in use")
	}
	// A lookup records the use.
	os.Chtimes(filepath.Join(root, newDigest), past, past)
	s.Lookup(newDigest, "new")
	if removed, _ := GC(t.Context(), root, time.Now().Add(-24*time.Hour)); len(removed) != 0 {
		t.Errorf("GC removed a tree just looked up")
	}
	if entries, err := Entries(t.Context(), filepath.Join(root, "missing")); err != nil || len(entries) != 0 {
		t.Errorf("Entries of a missing root = %v, %v", entries, err)
	}
}

// BenchmarkLookupDeep looks up the deepest tree the default entry limit
// allows: 312 files, each under 31 folders of its own (9,984 entries).
// A lookup costs a few system calls per folder and file, not per level.
func BenchmarkLookupDeep(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stage("deep")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var files []File
	for i := range 312 {
		dir := fmt.Sprintf("t%03d/", i) + strings.Repeat("d/", 30)
		if err := st.Root().MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := st.Root().WriteFile(filepath.FromSlash(dir+"f"), nil, 0o444); err != nil {
			b.Fatal(err)
		}
		files = append(files, File{Path: dir + "f", Sum: sha256.Sum256(nil)})
	}
	_, digest, err := st.Publish(files)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok := s.Lookup(digest, "deep"); !ok {
			b.Fatal("Lookup found no tree")
		}
	}
}

// Rule 6: a published tree's folders are read-only, as its files are,
// and removing the tree (gc) still works.
func TestPublishedTreeIsReadOnly(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir, digest := publishFiles(t, s, "kit", map[string]string{"SKILL.md": "x", "scripts/lib/run.py": "print()"})
	for _, p := range []string{"", "scripts", "scripts/lib"} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o555 {
			t.Errorf("folder %q of the tree: %v, %v, want mode 0555", p, fi.Mode(), err)
		}
	}
	for _, p := range []string{"SKILL.md", "scripts/lib/run.py"} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil || fi.Mode().Perm() != 0o444 {
			t.Errorf("file %q of the tree: %v, %v, want mode 0444", p, fi.Mode(), err)
		}
	}
	if os.Geteuid() != 0 {
		if err := os.WriteFile(filepath.Join(dir, "scripts", "x.pyc"), nil, 0o644); err == nil {
			t.Errorf("a file could be added to the tree's scripts folder")
		}
	}
	removed, err := GC(t.Context(), root, time.Now().Add(time.Hour))
	if err != nil || len(removed) != 1 || removed[0].Digest != digest {
		t.Fatalf("GC = %+v, %v, want the tree removed", removed, err)
	}
	if _, err := os.Lstat(filepath.Dir(dir)); err == nil {
		t.Errorf("GC left %s", filepath.Dir(dir))
	}
	if entries, _ := os.ReadDir(filepath.Join(root, tmpDir)); len(entries) != 0 {
		t.Errorf("GC left %d entries in staging", len(entries))
	}
}

// publishFiles stages and publishes a tree of files (path -> content).
func publishFiles(t *testing.T, s *Store, name string, tree map[string]string) (string, string) {
	t.Helper()
	st, err := s.Stage(name)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var files []File
	for p, content := range tree {
		if err := st.Root().MkdirAll(filepath.Dir(filepath.FromSlash(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := st.Root().WriteFile(filepath.FromSlash(p), []byte(content), 0o444); err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Size: int64(len(content)), Sum: sha256.Sum256([]byte(content))})
	}
	dir, digest, err := st.Publish(files)
	if err != nil {
		t.Fatal(err)
	}
	return dir, digest
}

// BenchmarkOpen opens a store with nothing to sweep, as every process
// that uses a cache does once.
func BenchmarkOpen(b *testing.B) {
	root := b.TempDir()
	for b.Loop() {
		s, err := Open(root)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// Rule 7: last use is recorded to the second, so gc with a cut-off under
// an hour keeps a tree used since.
func TestLastUseIsExact(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, digest := publish(t, s, "kit", "x")
	past := time.Now().Add(-10 * time.Minute)
	os.Chtimes(filepath.Join(root, digest), past, past)
	used := time.Now()
	if _, ok := s.Lookup(digest, "kit"); !ok {
		t.Fatal("Lookup found no tree")
	}
	entries, err := Entries(t.Context(), root)
	if err != nil || len(entries) != 1 {
		t.Fatalf("Entries = %v, %v", entries, err)
	}
	if d := entries[0].LastUse.Sub(used); d < -time.Second || d > time.Second {
		t.Errorf("LastUse = %v after a lookup at %v, want it within a second", entries[0].LastUse, used)
	}
	if removed, err := GC(t.Context(), root, time.Now().Add(-5*time.Minute)); err != nil || len(removed) != 0 {
		t.Errorf("GC of trees unused for 5 minutes = %v, %v, removed a tree used just now", removed, err)
	}
}

// staged lists the names in the staging folder of the cache at root.
func staged(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, tmpDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out, err
}

// TestStaging checks what a writer keeps in the staging folder: its
// staging area, its lock and its spooled files while it stages, nothing
// once it is closed.
func TestStaging(t *testing.T) {
	root := t.TempDir()
	if got, err := staged(filepath.Join(root, "missing")); err != nil || len(got) != 0 {
		t.Errorf("staged(missing root) = %v, %v, want none", got, err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stage("kit")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.File("spool"); err != nil {
		t.Fatal(err)
	}
	want := []string{st.id, st.id + ".lock", st.id + ".spool"}
	if got, err := staged(root); err != nil || !slices.Equal(got, want) {
		t.Errorf("staged(%s) = %v, %v, want %v", root, got, err, want)
	}
	st.Close()
	if got, err := staged(root); err != nil || len(got) != 0 {
		t.Errorf("Staged after Close = %v, %v, want none", got, err)
	}
}

// TestEntriesGCAndVerifyRefuseUnsafeRoots checks that listing, collecting
// and verifying apply rule 5 as Open does: a root others may write is
// refused, and nothing in it is trusted.
func TestEntriesGCAndVerifyRefuseUnsafeRoots(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	dir, digest := publish(t, s, "kit", "x")
	s.Close()
	if got, ok := Verify(dir); !ok || got != digest {
		t.Fatalf("Verify(%s) = %s, %v, want %s", dir, got, ok, digest)
	}
	if _, ok := Verify(t.TempDir()); ok {
		t.Errorf("Verify of a folder that is not a cache tree = true")
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(root, 0o700)
	if entries, err := Entries(t.Context(), root); err == nil {
		t.Errorf("Entries of a root every user may write = %v, want an error", entries)
	}
	if removed, err := GC(t.Context(), root, time.Now()); err == nil {
		t.Errorf("GC of a root every user may write = %v, want an error", removed)
	}
	if _, ok := Verify(dir); ok {
		t.Errorf("Verify of a tree in a root every user may write = true")
	}
	if got, ok := Lookup(root, digest, "kit"); ok {
		t.Errorf("Lookup in a root every user may write = %s, true", got)
	}
}

// Lookup by root finds what a store published, and creates and sweeps
// nothing: not a missing root, not the store's own folders.
func TestLookupByRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	if got, ok := Lookup(root, strings.Repeat("0", 64), "kit"); ok {
		t.Errorf("Lookup in a missing root = %s, true", got)
	}
	if _, err := os.Lstat(root); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lookup in a missing root made it: %v", err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	dir, digest := publish(t, s, "kit", "x")
	s.Close()
	for _, sub := range []string{tmpDir, memoDir} {
		if err := os.RemoveAll(filepath.Join(root, sub)); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok := Lookup(root, digest, "kit"); !ok || got != dir {
		t.Errorf("Lookup(%q, %s, kit) = %s, %v, want %s, true", root, digest, got, ok, dir)
	}
	if got, ok := Lookup(root, digest, "other"); ok {
		t.Errorf("Lookup(%q, %s, other) = %s, true, want false", root, digest, got)
	}
	for _, sub := range []string{tmpDir, memoDir} {
		if _, err := os.Lstat(filepath.Join(root, sub)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Lookup made %s: %v", sub, err)
		}
	}
}
