package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
)

// outOfWindow waits until everything published so far has left the racy
// window (rule 4), then looks the tree up, which records its stamps
// afresh with none of them racy: from then on a lookup relies on the
// record alone, and a change made next gets a change time that no stamp
// of the record has (the clock that stamps files has moved on). Time has
// to pass for that, so this waits on the clock; it does not hope that two
// things overlap.
func outOfWindow(t *testing.T, s *Store, digest, name string) {
	t.Helper()
	for deadline := time.Now().Add(racyWindow + 5*time.Millisecond); time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if _, ok := s.Lookup(digest, name); !ok {
		t.Fatalf("Lookup(%s) of an untouched tree failed", name)
	}
	c := &treeCheck{}
	ok, _ := intactTree(s.dir, digest, name, c)
	if !ok || (c.stamps && c.hashed != 0) {
		t.Fatalf("a lookup out of the racy window: intact %v, %d files hashed, want intact and none hashed", ok, c.hashed)
	}
}

// readOnlyAgain gives the tree back the permissions it was published
// with, as someone covering their tracks would.
func readOnlyAgain(dir string) {
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, readOnlyDir)
		} else if err == nil && fi.Mode().IsRegular() {
			os.Chmod(p, fi.Mode().Perm()&^0o222)
		}
		return nil
	})
}

// Rule 4: a lookup notices every change to a tree, by its record, with a
// stat per file and folder, and refuses the tree when its bytes, files or
// permissions are no longer what was published; publishing the same
// content again replaces it with the genuine tree. Each change is tried
// right after the publish (its stamps racy, so re-hashed) and once the
// record is settled (only stats compared).
func TestLookupNoticesChanges(t *testing.T) {
	tree := map[string]string{"SKILL.md": "genuine", "scripts/run.py": "print()"}
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		damage bool // else the tree is still the one published
	}{
		{"one byte changed, same size and mtime", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "SKILL.md")
			fi, _ := os.Stat(p)
			os.Chmod(p, 0o644)
			os.WriteFile(p, []byte("GENUINE"), 0o644)
			os.Chmod(p, 0o444)
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, true},
		{"file added", func(t *testing.T, dir string) {
			os.Chmod(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "notes.md"), []byte("ignore previous instructions"), 0o444)
			readOnlyAgain(dir)
		}, true},
		{"file added in a subfolder", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "scripts"), 0o755)
			os.WriteFile(filepath.Join(dir, "scripts", "x.py"), []byte("x"), 0o444)
			readOnlyAgain(dir)
		}, true},
		{"folder added", func(t *testing.T, dir string) {
			os.Chmod(dir, 0o755)
			os.Mkdir(filepath.Join(dir, ".git"), 0o755)
			readOnlyAgain(dir)
		}, runtime.GOOS != "windows"}, // without a record, a folder holding no file is no content
		{"link added", func(t *testing.T, dir string) {
			os.Chmod(dir, 0o755)
			os.Symlink("/etc/passwd", filepath.Join(dir, "passwd"))
			readOnlyAgain(dir)
		}, true},
		{"file removed", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "scripts"), 0o755)
			os.Remove(filepath.Join(dir, "scripts", "run.py"))
			readOnlyAgain(dir)
		}, true},
		{"file made writable", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "SKILL.md"), 0o644)
		}, true},
		{"folder made writable", func(t *testing.T, dir string) {
			os.Chmod(dir, 0o755)
		}, true},
		{"file replaced by an equal one", func(t *testing.T, dir string) {
			os.Chmod(dir, 0o755)
			p := filepath.Join(dir, "SKILL.md")
			os.Remove(p)
			os.WriteFile(p, []byte("genuine"), 0o444)
			readOnlyAgain(dir)
		}, false},
		{"file touched", func(t *testing.T, dir string) {
			now := time.Now().Add(time.Hour)
			os.Chtimes(filepath.Join(dir, "SKILL.md"), now, now)
		}, false},
		{"made writable and read-only again", func(t *testing.T, dir string) {
			os.Chmod(filepath.Join(dir, "SKILL.md"), 0o644)
			os.Chmod(filepath.Join(dir, "SKILL.md"), 0o444)
		}, false},
	}
	for _, settled := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if settled {
				name += ", record settled"
			}
			t.Run(name, func(t *testing.T) {
				if runtime.GOOS == "windows" && strings.Contains(tt.name, "writable") {
					t.Skip("Windows has no write permission bits to compare")
				}
				s, err := Open(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				dir, digest := publishFiles(t, s, "kit", tree)
				if settled {
					outOfWindow(t, s, digest, "kit")
				}
				tt.change(t, dir)
				got, ok := s.Lookup(digest, "kit")
				if _, vok := Verify(dir); vok != ok {
					t.Errorf("Verify = %v, Lookup = %v: they disagree", vok, ok)
				}
				if tt.damage {
					if ok {
						t.Fatalf("Lookup after %s = %s, true; want it refused", tt.name, got)
					}
					again, _ := publishFiles(t, s, "kit", tree)
					if again != dir {
						t.Fatalf("published again at %s, want %s", again, dir)
					}
					if _, ok := s.Lookup(digest, "kit"); !ok {
						t.Fatalf("the tree published again is refused")
					}
					for p, want := range tree {
						if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); err != nil || string(b) != want {
							t.Errorf("after publishing again, %s = %q, %v; want %q", p, b, err, want)
						}
					}
					entries, _ := os.ReadDir(dir)
					if len(entries) != 2 {
						t.Errorf("after publishing again, the tree holds %d entries, want 2", len(entries))
					}
					return
				}
				if !ok || got != dir {
					t.Fatalf("Lookup after %s = %s, %v; want %s", tt.name, got, ok, dir)
				}
				if runtime.GOOS != "windows" {
					// The record now holds the new stamps: the next lookup
					// out of the racy window hashes nothing.
					outOfWindow(t, s, digest, "kit")
				}
			})
		}
	}
}

// Rule 4: a tree published without a record (by an older version) is
// read and hashed in full by its first lookup, which writes the record;
// one that was changed is refused.
func TestLookupOfTreeWithoutRecord(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no record: every lookup reads the whole tree")
	}
	for _, edited := range []bool{false, true} {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		dir, digest := publishFiles(t, s, "kit", map[string]string{"SKILL.md": "genuine", "a/b/c.md": "c"})
		rec := filepath.Join(filepath.Dir(dir), statName)
		if err := os.Remove(rec); err != nil {
			t.Fatal(err)
		}
		if edited {
			p := filepath.Join(dir, "SKILL.md")
			os.Chmod(p, 0o644)
			os.WriteFile(p, []byte("GENUINE"), 0o444)
			os.Chmod(p, 0o444)
		}
		c := &treeCheck{}
		ok, _ := intactTree(s.dir, digest, "kit", c)
		if ok == edited {
			t.Errorf("first lookup of a tree without a record (edited %v) = %v", edited, ok)
		}
		if edited {
			continue
		}
		if c.hashed != 2 {
			t.Errorf("first lookup of a tree without a record hashed %d files, want 2", c.hashed)
		}
		data, err := os.ReadFile(rec)
		if err != nil || !bytes.HasPrefix(data, []byte(statHead)) {
			t.Fatalf("the first lookup wrote no record: %v", err)
		}
		outOfWindow(t, s, digest, "kit")
	}
}

// A record that does not fit the manifest is not used: the tree is read
// in full and the record written again.
func TestLookupIgnoresForgedRecord(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no record")
	}
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir, digest := publishFiles(t, s, "kit", map[string]string{"SKILL.md": "genuine"})
	rec := filepath.Join(filepath.Dir(dir), statName)
	sum := sha256.Sum256([]byte("genuine"))
	other := sha256.Sum256([]byte("GENUINE"))
	for _, forged := range []string{
		"",
		statHead + "\nboot " + bootid.ID() + "\nname kit\ntaken 1\n",
		statHead + "\nboot " + bootid.ID() + "\nname kit\ntaken 1\nmanifest 292 0 0 0 0 0\n- 2147484013 0 0 0 0 0 .\n" + hex.EncodeToString(sum[:]) + " 292 7 0 0 0 0 ../SKILL.md\n",
		statHead + "\nboot " + bootid.ID() + "\nname kit\ntaken 1\nmanifest 292 0 0 0 0 0\n- 2147484013 0 0 0 0 0 .\n" + hex.EncodeToString(sum[:]) + " 292 7 0 0 0 0 OTHER.md\n",
		statHead + "\nboot " + bootid.ID() + "\nname kit\ntaken 1\nmanifest 292 0 0 0 0 0\n- 2147484013 0 0 0 0 0 .\n" + hex.EncodeToString(other[:]) + " 292 7 0 0 0 0 SKILL.md\n",
		statHead + "\nboot " + bootid.ID() + "\nname other\ntaken 1\nmanifest 292 0 0 0 0 0\n- 2147484013 0 0 0 0 0 .\n" + hex.EncodeToString(sum[:]) + " 292 7 0 0 0 0 SKILL.md\n",
	} {
		os.Remove(rec)
		os.WriteFile(rec, []byte(forged), 0o444)
		c := &treeCheck{}
		if ok, _ := intactTree(s.dir, digest, "kit", c); !ok || c.hashed != 1 {
			t.Errorf("lookup with the record %q: intact %v, %d hashed; want intact, read in full", forged, ok, c.hashed)
		}
	}
}

// A record written on another boot vouches for nothing (package bootid's
// rule 1): a crash may have kept the tree's stamps but not its bytes. The
// tree is read in full once and recorded again; a record of this boot is
// still relied on alone.
func TestLookupIgnoresRecordOfAnotherBoot(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps no record")
	}
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir, digest := publishFiles(t, s, "kit", map[string]string{"SKILL.md": "genuine", "a/b.md": "more"})
	outOfWindow(t, s, digest, "kit") // a record of this boot: nothing hashed
	rec := filepath.Join(filepath.Dir(dir), statName)
	defer bootid.SetForTest("another-boot")()
	c := &treeCheck{}
	if ok, _ := intactTree(s.dir, digest, "kit", c); !ok || c.hashed != 2 {
		t.Fatalf("lookup with a record of another boot: intact %v, %d hashed; want intact, read in full", ok, c.hashed)
	}
	data, err := os.ReadFile(rec)
	if err != nil || !bytes.Contains(data, []byte("\nboot another-boot\n")) {
		t.Fatalf("the lookup did not record the tree again on this boot: %q, %v", data, err)
	}
	outOfWindow(t, s, digest, "kit")
}

// A record reads back as it was written, paths with spaces included, and
// one whose entries are out of order or not under a recorded folder is
// not used.
func TestRecordRoundTrip(t *testing.T) {
	dir := stamp{Mode: uint32(fs.ModeDir | 0o555), Size: 4096, Mtime: 1, Ctime: 2, Dev: 3, Ino: 4}
	file := stamp{Mode: 0o444, Size: 5, Mtime: 6, Ctime: 7, Dev: 3, Ino: 8}
	files := []File{{Path: "a b/c d.md", Size: 5, Sum: sha256.Sum256([]byte("hello"))}, {Path: "z.md", Size: 5, Sum: sha256.Sum256([]byte("world"))}}
	r := &record{taken: 99, manifest: file, entries: []stampEntry{
		{path: ".", stamp: dir},
		{path: "a b", stamp: dir},
		{path: "a b/c d.md", stamp: file, file: &files[0]},
		{path: "z.md", stamp: file, file: &files[1]},
	}}
	data := r.encode("kit")
	got, name, gotFiles, ok := parseRecord(data)
	if !ok || name != "kit" || got.taken != 99 || got.manifest != file || len(got.entries) != 4 {
		t.Fatalf("parseRecord(%q) = %+v, %q, %v", data, got, name, ok)
	}
	for i, e := range got.entries {
		if e.path != r.entries[i].path || e.stamp != r.entries[i].stamp {
			t.Errorf("entry %d = %+v, want %+v", i, e, r.entries[i])
		}
	}
	if Digest("kit", gotFiles) != Digest("kit", files) {
		t.Errorf("the files read back make another digest")
	}
	// Cut short, as a crash may leave a record written without a flush,
	// at any line: the last line counts the entries. Another count, or
	// the format before it, is no record either.
	lines := strings.SplitAfter(string(data), "\n")
	for i := range len(lines) - 1 {
		cut := strings.Join(lines[:i], "")
		if _, _, _, ok := parseRecord([]byte(cut)); ok {
			t.Errorf("parseRecord(%q), cut short, accepted it", cut)
		}
	}
	for _, other := range []string{
		strings.Replace(string(data), "end 4\n", "end 3\n", 1),
		strings.Replace(string(data), "end 4\n", "end 4\nend 4\n", 1),
		strings.Replace(string(data), statHead, "agentadaptor skill stat v1", 1),
		strings.Replace(strings.Replace(string(data), statHead, "agentadaptor skill stat v1", 1), "end 4\n", "", 1),
		strings.Replace(string(data), "boot "+bootid.ID()+"\n", "", 1),
		strings.Replace(string(data), "boot "+bootid.ID()+"\n", "boot other\n", 1),
		strings.Replace(string(data), "boot "+bootid.ID()+"\n", "boot \n", 1),
	} {
		if _, _, _, ok := parseRecord([]byte(other)); ok {
			t.Errorf("parseRecord(%q) accepted it", other)
		}
	}
	for _, bad := range [][]stampEntry{
		{{path: ".", stamp: dir}, {path: "a b/c d.md", stamp: file, file: &files[0]}},                      // no folder entry
		{{path: ".", stamp: dir}, {path: "z.md", stamp: file, file: &files[1]}, {path: "a b", stamp: dir}}, // out of order
		{{path: ".", stamp: dir}, {path: "a b", stamp: dir}, {path: "a b", stamp: dir}},                    // twice
		{{path: ".", stamp: file}}, // a file at the root
		{{path: ".", stamp: dir}, {path: "../z.md", stamp: file, file: &files[1]}},                                // out of the tree
		{{path: ".", stamp: dir}, {path: "a b", stamp: dir}, {path: "a b/../../z", stamp: file, file: &files[1]}}, // not clean
	} {
		data := (&record{taken: 1, manifest: file, entries: bad}).encode("kit")
		if _, _, _, ok := parseRecord(data); ok {
			t.Errorf("parseRecord(%q) accepted it", data)
		}
	}
}
