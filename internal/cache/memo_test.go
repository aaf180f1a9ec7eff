//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package cache

import (
	"os"
	"path/filepath"
	"testing"
)

// Rule 4: a Store remembers the records of the trees it checked, so a
// later lookup in the process compares stats with it without reading the
// record again: with the record removed from the folder, a lookup still
// hashes nothing.
func TestLookupRemembersRecord(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir, digest := publishFiles(t, s, "kit", map[string]string{"SKILL.md": "genuine", "a/b.md": "b"})
	outOfWindow(t, s, digest, "kit")
	if err := os.Remove(filepath.Join(filepath.Dir(dir), statName)); err != nil {
		t.Fatal(err)
	}
	c := &treeCheck{memo: &s.records}
	if ok, _ := intactTree(s.dir, digest, "kit", c); !ok || c.hashed != 0 {
		t.Errorf("lookup with the record held: intact %v, %d hashed; want intact, none hashed", ok, c.hashed)
	}
	c = &treeCheck{}
	if ok, _ := intactTree(s.dir, digest, "kit", c); !ok || c.hashed != 2 {
		t.Errorf("lookup without the record: intact %v, %d hashed; want intact, 2 hashed", ok, c.hashed)
	}
}

// Rule 4 with rule 2: a tree replaced by another process (a damaged tree
// repaired) passes a lookup by a store that held the old tree's record:
// its stats differ from that record, so its files are hashed, and they
// are the manifest's.
func TestLookupAfterRepairElsewhere(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tree := map[string]string{"SKILL.md": "genuine"}
	dir, digest := publishFiles(t, s, "kit", tree)
	outOfWindow(t, s, digest, "kit")

	other, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	p := filepath.Join(dir, "SKILL.md")
	os.Chmod(p, 0o644)
	os.WriteFile(p, []byte("GENUINE"), 0o644)
	os.Chmod(p, 0o444)
	if _, ok := other.Lookup(digest, "kit"); ok {
		t.Fatal("Lookup of an edited tree succeeded")
	}
	if d, digest2 := publishFiles(t, other, "kit", tree); d != dir || digest2 != digest {
		t.Fatalf("republish = %s, %s; want %s, %s", d, digest2, dir, digest)
	}
	if got, ok := s.Lookup(digest, "kit"); !ok || got != dir {
		t.Errorf("Lookup after a repair by another store = %q, %v; want %q, true", got, ok, dir)
	}
}
