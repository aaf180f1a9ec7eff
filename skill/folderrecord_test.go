//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package skill

import (
	"bytes"
	"context"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// sourceFolder writes a skill folder with a SKILL.md and two references,
// and returns it.
func sourceFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kit")
	for name, body := range map[string]string{
		"SKILL.md":        "---\nname: kit\ndescription: a kit\n---\nDo it.\n",
		"references/a.md": "reference a",
		"references/b.md": "reference b",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "references", "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// settledRecord reads dir until its record has no racy entry, and checks
// that a read then hashes nothing; it returns the store.
func settledRecord(t *testing.T, c *Cache, dir string) *cache.Store {
	t.Helper()
	store, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.folderDigestIn(t.Context(), store, dir); err != nil {
		t.Fatal(err)
	}
	cachetest.Settle()
	if _, _, err := c.folderDigestIn(t.Context(), store, dir); err != nil {
		t.Fatal(err)
	}
	got, hashed, err := c.folderDigestIn(t.Context(), store, dir)
	want, werr := ContentDigest(t.Context(), dir)
	if err != nil || werr != nil || got != want || hashed != 0 {
		t.Fatalf("folderDigestIn(%s) settled = %s, %d hashed, %v; want %s (%v), 0 hashed", dir, got, hashed, err, want, werr)
	}
	return store
}

// rewrite replaces the file at p with body and sets its times back to
// what they were, as touch -d does: only its change time tells.
func rewrite(t *testing.T, p, body string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestFolderRecordWarm checks rule 11: once a folder's record is out of
// the racy window, a read hashes no file and gives ContentDigest's digest.
func TestFolderRecordWarm(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
	dir := sourceFolder(t)
	store, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	if _, hashed, err := c.folderDigestIn(t.Context(), store, dir); err != nil || hashed != 3 {
		t.Fatalf("first folderDigestIn = %d hashed, %v; want 3", hashed, err)
	}
	// Just written: every entry is racy, so the next read hashes them.
	if _, hashed, err := c.folderDigestIn(t.Context(), store, dir); err != nil || hashed != 3 {
		t.Fatalf("racy folderDigestIn = %d hashed, %v; want 3", hashed, err)
	}
	settledRecord(t, c, dir)
}

// forgedRecord settles a record of a source folder in a new Cache, then
// forges one file's sum in the store's copy, its stamps kept. It returns
// the Cache, its store, the folder and the folder's genuine digest.
func forgedRecord(t *testing.T) (*Cache, *cache.Store, string, string) {
	t.Helper()
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
	dir := sourceFolder(t)
	store := settledRecord(t, c, dir)
	genuine, _, _ := c.folderDigestIn(t.Context(), store, dir)
	rec := parseFolderRecord(store.FolderRecord(folderKey(dir)), dir)
	if rec == nil {
		t.Fatal("no record kept")
	}
	e := rec.entries["references/a.md"]
	e.sum[0] ^= 1
	rec.entries["references/a.md"] = e
	if err := store.SetFolderRecord(folderKey(dir), rec.encode()); err != nil {
		t.Fatal(err)
	}
	return c, store, dir, genuine
}

// TestFolderRecordTrusted checks that a settled record stands in for the
// files: a record whose stamps match but whose sum is forged gives the
// forged digest. (What catches a real change is the stamp; see
// TestFolderRecordNoticesChanges.)
func TestFolderRecordTrusted(t *testing.T) {
	c, store, dir, genuine := forgedRecord(t)
	// This Cache holds the record it made; another one reads the store's.
	if got, hashed, err := c.folderDigestIn(t.Context(), store, dir); err != nil || hashed != 0 || got != genuine {
		t.Errorf("folderDigestIn with the record held = %s, %d hashed, %v; want %s, 0 hashed", got, hashed, err, genuine)
	}
	fresh := NewCache(WithSkillCacheRoot(c.Root()))
	got, hashed, err := fresh.folderDigestIn(t.Context(), store, dir)
	if err != nil || hashed != 0 || got == genuine {
		t.Errorf("folderDigestIn with a forged sum = %s, %d hashed, %v; want another digest than %s, 0 hashed", got, hashed, err, genuine)
	}
}

// TestFolderRecordOfAnotherBoot checks that a record written on another
// boot vouches for nothing (package bootid's rule 1): its stamps may match
// files a crash emptied. The record below has its stamps but a forged sum,
// which TestFolderRecordTrusted shows a record of this boot makes count.
func TestFolderRecordOfAnotherBoot(t *testing.T) {
	c, store, dir, genuine := forgedRecord(t)
	defer bootid.SetForTest("another-boot")()
	fresh := NewCache(WithSkillCacheRoot(c.Root()))
	if got, hashed, err := fresh.folderDigestIn(t.Context(), store, dir); err != nil || hashed != 3 || got != genuine {
		t.Errorf("folderDigestIn with a record of another boot = %s, %d hashed, %v; want %s, 3 hashed", got, hashed, err, genuine)
	}
	settledRecord(t, NewCache(WithSkillCacheRoot(c.Root())), dir) // recorded again, and relied on
}

// TestFolderRecordNoticesChanges checks rule 11: after the record is
// settled, every change to the folder gives the digest of what it holds
// now, and a record that is corrupt or another folder's is ignored and
// rebuilt.
func TestFolderRecordNoticesChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, c *Cache, store *cache.Store, dir string)
	}{
		{"one byte edited, same size, times set back", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			rewrite(t, filepath.Join(dir, "references", "a.md"), "reference A")
		}},
		{"SKILL.md edited, same size, times set back", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			rewrite(t, filepath.Join(dir, "SKILL.md"), "---\nname: kit\ndescription: a kit\n---\nDo IT.\n")
		}},
		{"file added", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "references", "c.md"), []byte("c"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"file removed", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			if err := os.Remove(filepath.Join(dir, "references", "b.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"file renamed over another", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			a := filepath.Join(dir, "references", "a.md")
			fi, _ := os.Stat(a)
			tmp := filepath.Join(dir, "references", "new.md")
			if err := os.WriteFile(tmp, []byte("reference z"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
			if err := os.Rename(tmp, a); err != nil {
				t.Fatal(err)
			}
		}},
		{"link retargeted", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			l := filepath.Join(dir, "references", "link")
			os.Remove(l)
			if err := os.Symlink("b.md", l); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder added with a file", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			sub := filepath.Join(dir, "references", "deep")
			os.Mkdir(sub, 0o755)
			if err := os.WriteFile(filepath.Join(sub, "d.md"), []byte("d"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"file added in a subfolder, folder times set back", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			refs := filepath.Join(dir, "references")
			fi, _ := os.Stat(refs)
			if err := os.WriteFile(filepath.Join(refs, "c.md"), []byte("c"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(refs, fi.ModTime(), fi.ModTime())
		}},
		{"made executable", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			if err := os.Chmod(filepath.Join(dir, "references", "a.md"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder replaced", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			refs := filepath.Join(dir, "references")
			fi, _ := os.Stat(filepath.Join(refs, "a.md"))
			if err := os.Rename(refs, refs+".old"); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(refs, 0o755)
			for name, body := range map[string]string{"a.md": "reference 1", "b.md": "reference b"} {
				p := filepath.Join(refs, name)
				os.WriteFile(p, []byte(body), 0o644)
				os.Chtimes(p, fi.ModTime(), fi.ModTime())
			}
			os.RemoveAll(refs + ".old")
		}},
		{"whole skill folder replaced", func(t *testing.T, _ *Cache, _ *cache.Store, dir string) {
			fi, _ := os.Stat(filepath.Join(dir, "SKILL.md"))
			if err := os.Rename(dir, dir+".old"); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(dir, 0o755)
			p := filepath.Join(dir, "SKILL.md")
			os.WriteFile(p, []byte("---\nname: kit\ndescription: a kit\n---\nDo it!\n"), 0o644)
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
		{"record corrupt", func(t *testing.T, _ *Cache, store *cache.Store, dir string) {
			rewrite(t, filepath.Join(dir, "references", "a.md"), "reference A")
			store.SetFolderRecord(folderKey(dir), []byte(folderHead+"\nboot "+bootid.ID()+"\ndir "+dir+"\ntaken x\n"))
		}},
		{"record truncated", func(t *testing.T, _ *Cache, store *cache.Store, dir string) {
			rewrite(t, filepath.Join(dir, "references", "a.md"), "reference A")
			data := store.FolderRecord(folderKey(dir))
			store.SetFolderRecord(folderKey(dir), data[:len(data)-3])
		}},
		{"record of another folder", func(t *testing.T, c *Cache, store *cache.Store, dir string) {
			// A folder of other content, settled, lends its record, whose
			// stamps are real ones, to this folder's key.
			other := sourceFolder(t)
			rewrite(t, filepath.Join(other, "references", "a.md"), "reference Q")
			settledRecord(t, c, other)
			store.SetFolderRecord(folderKey(dir), store.FolderRecord(folderKey(other)))
			rewrite(t, filepath.Join(dir, "references", "b.md"), "reference B")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
			dir := sourceFolder(t)
			store := settledRecord(t, c, dir)
			before, _, _ := c.folderDigestIn(t.Context(), store, dir)
			tt.change(t, c, store, dir)
			want, err := ContentDigest(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if want == before {
				t.Fatalf("the change left ContentDigest at %s", before)
			}
			// The read that notices, then the one after it, by this Cache
			// (with the record it holds) and by another (with the store's).
			fresh := NewCache(WithSkillCacheRoot(c.Root()))
			for i, reader := range []*Cache{fresh, c, c, fresh} {
				_, got, err := reader.MaterializeContent(t.Context(), Dir(dir))
				if err != nil || got != want {
					t.Errorf("read %d: MaterializeContent(Dir) digest = %s, %v; want %s", i, got, err, want)
				}
			}
			settledRecord(t, c, dir) // the record is rebuilt
		})
	}
}

// TestFolderRecordBounded checks that a folder with more files than the
// entry limit keeps no record (every read hashes it) and that a record
// is only ever the folder's: keyed by its absolute path.
func TestFolderRecordBounded(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)), WithMaxArchiveEntries(2))
	dir := sourceFolder(t)
	store, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	c.folderDigestIn(t.Context(), store, dir)
	if data := store.FolderRecord(folderKey(dir)); data != nil {
		t.Errorf("record of a folder over the entry limit = %q, want none", data)
	}
	if folderKey(dir) == folderKey(dir+"2") {
		t.Error("two folders share a record key")
	}
}

// TestFolderRecordCanceled checks that a read stops when ctx is done.
func TestFolderRecordCanceled(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.folderDigest(ctx, sourceFolder(t)); err == nil {
		t.Error("folderDigest with a canceled ctx succeeded")
	}
}

// TestParseFolderRecord checks that malformed records are refused.
func TestParseFolderRecord(t *testing.T) {
	r := newFolderRecord("/d", time.Now().UnixNano())
	r.entries["."] = folderEntry{kind: kindDir, stamp: cache.Stamp{Mode: uint32(fs.ModeDir | 0o755)}}
	r.entries["a b"] = folderEntry{kind: kindDir, stamp: cache.Stamp{Mode: uint32(fs.ModeDir | 0o755), Ino: 1}}
	r.entries["a b/SKILL.md"] = folderEntry{kind: kindFile, stamp: cache.Stamp{Mode: 0o644, Size: 3, Ino: 2}}
	r.entries["a b/l"] = folderEntry{kind: kindLink, stamp: cache.Stamp{Mode: uint32(fs.ModeSymlink | 0o777), Ino: 3}, target: "../x y"}
	good := r.encode()
	got := parseFolderRecord(good, "/d")
	if got == nil || !maps.Equal(got.entries, r.entries) || !slices.Equal(got.children["a b"], []string{"SKILL.md", "l"}) {
		t.Fatalf("parseFolderRecord(%q) = %v, want %v", good, got, r)
	}
	hexOf := func(s string) string { return hex.EncodeToString([]byte(s)) }
	for _, bad := range [][]byte{
		nil,
		good[:len(good)-1],
		bytes.Replace(good, []byte(hexOf("/d")), []byte(hexOf("/e")), 1),
		bytes.Replace(good, []byte(" "+hexOf("a b/SKILL.md")), []byte(" "+hexOf("../SKILL.md")), 1),
		bytes.Replace(good, []byte(" "+hexOf("a b/SKILL.md")), []byte(" "+hexOf("c/SKILL.md")), 1), // under no folder
		bytes.Replace(good, []byte("f "), []byte("d "), 1),                                         // a file's mode as a folder
		bytes.Replace(good, []byte(" 420 "), []byte(" x "), 1),
		append(good, good[bytes.LastIndex(good[:len(good)-1], []byte("\n"))+1:]...), // a line twice
	} {
		if r := parseFolderRecord(bad, "/d"); r != nil {
			t.Errorf("parseFolderRecord(%q) = %v, want nil", bad, r)
		}
	}
}

// TestFolderRecordGhost checks that a record listing an entry the folder
// does not hold (which no real change leaves behind, the folder's stamp
// changing with it) makes the read start again without the record.
func TestFolderRecordGhost(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
	dir := sourceFolder(t)
	store := settledRecord(t, c, dir)
	rec := parseFolderRecord(store.FolderRecord(folderKey(dir)), dir)
	if rec == nil {
		t.Fatal("no record kept")
	}
	rec.entries["ghost.md"] = rec.entries["SKILL.md"]
	store.SetFolderRecord(folderKey(dir), rec.encode())
	want, _ := ContentDigest(t.Context(), dir)
	fresh := NewCache(WithSkillCacheRoot(c.Root()))
	if got, hashed, err := fresh.folderDigestIn(t.Context(), store, dir); err != nil || got != want || hashed != 3 {
		t.Errorf("folderDigestIn with a ghost in the record = %s, %d hashed, %v; want %s, 3 hashed", got, hashed, err, want)
	}
}

// FuzzParseFolderRecord checks that any record reads without a panic, and
// that one it accepts encodes back to a record that reads the same.
func FuzzParseFolderRecord(f *testing.F) {
	r := newFolderRecord("/d", 7)
	r.entries["."] = folderEntry{kind: kindDir, stamp: cache.Stamp{Mode: uint32(fs.ModeDir | 0o755)}}
	r.entries["a"] = folderEntry{kind: kindFile, stamp: cache.Stamp{Mode: 0o644, Size: 1}}
	f.Add(r.encode())
	f.Add([]byte(folderHead + "\nboot " + bootid.ID() + "\ndir 2f64\ntaken 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := parseFolderRecord(data, "/d")
		if got == nil {
			return
		}
		again := parseFolderRecord(got.encode(), "/d")
		if again == nil || !maps.Equal(again.entries, got.entries) {
			t.Errorf("record %q reads back as %v, want %v", data, again, got)
		}
	})
}
