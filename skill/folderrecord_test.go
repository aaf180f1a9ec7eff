//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package skill

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// TestFolderRecordTrusted checks that a settled record stands in for the
// files: a record whose stamps match but whose sum is forged gives the
// forged digest. (What catches a real change is the stamp; see
// TestFolderRecordNoticesChanges.)
func TestFolderRecordTrusted(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
	dir := sourceFolder(t)
	store := settledRecord(t, c, dir)
	genuine, _, _ := c.folderDigestIn(t.Context(), store, dir)
	rec := parseFolderRecord(store.FolderRecord(folderKey(dir)), dir)
	if rec == nil {
		t.Fatal("no record kept")
	}
	e := rec.files["references/a.md"]
	e.sum[0] ^= 1
	rec.files["references/a.md"] = e
	if err := store.SetFolderRecord(folderKey(dir), rec.encode()); err != nil {
		t.Fatal(err)
	}
	got, hashed, err := c.folderDigestIn(t.Context(), store, dir)
	if err != nil || hashed != 0 || got == genuine {
		t.Errorf("folderDigestIn with a forged sum = %s, %d hashed, %v; want another digest than %s, 0 hashed", got, hashed, err, genuine)
	}
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
			store.SetFolderRecord(folderKey(dir), []byte(folderHead+"\ndir "+dir+"\ntaken x\n"))
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
			for i := range 2 { // the read that notices, then the one after it
				_, got, err := c.MaterializeContent(t.Context(), Dir(dir))
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
	good := (&folderRecord{dir: "/d", taken: time.Now().UnixNano(), files: map[string]folderEntry{
		"SKILL.md": {stamp: cache.Stamp{Mode: 0o644, Size: 3}},
	}}).encode()
	if parseFolderRecord(good, "/d") == nil {
		t.Fatalf("parseFolderRecord(%q) = nil, want a record", good)
	}
	for _, bad := range [][]byte{
		nil,
		good[:len(good)-1],
		bytes.Replace(good, []byte("dir /d"), []byte("dir /e"), 1),
		bytes.Replace(good, []byte(" SKILL.md"), []byte(" ../SKILL.md"), 1),
		bytes.Replace(good, []byte(" 420 "), []byte(" 2147484141 "), 1), // a folder's mode
		append(good, good[bytes.LastIndex(good[:len(good)-1], []byte("\n"))+1:]...),
	} {
		if r := parseFolderRecord(bad, "/d"); r != nil {
			t.Errorf("parseFolderRecord(%q) = %v, want nil", bad, r)
		}
	}
}
