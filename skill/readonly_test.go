package skill

import (
	"os"
	"path/filepath"
	"testing"
)

// A skill script run from the cache cannot write beside itself (the
// tree's folders are read-only), and when something does add to a tree
// (after making it writable), the next materialization notices and
// replaces the tree with the genuine one (rule 4): what a process leaves
// in a tree never reaches a later run.
func TestMaterializedTreeAdditionsAreThrownAway(t *testing.T) {
	m, root := newTestMaterializer(t)
	s := Archive("kit", ArchiveBytes(tarBytes(t, true, skillFiles(entry{name: "scripts/run.py", body: "print('hi')\n", mode: 0o755}))))
	dir, err := m.Materialize(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "scripts")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o555 {
			t.Errorf("folder %s of the tree: %v, %v, want mode 0555", p, fi.Mode(), err)
		}
	}
	want := readTree(t, dir)
	// What Python does on a first run, given a writable folder.
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Join(dir, "scripts"), 0o755)
	pyc := filepath.Join(dir, "scripts", "__pycache__", "run.cpython-312.pyc")
	if err := os.MkdirAll(filepath.Dir(pyc), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pyc, []byte("bytecode"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []Materializer{m, NewDefaultSkillMaterializer(WithSkillCacheRoot(root))} {
		got, err := m.Materialize(t.Context(), s)
		if err != nil || got != dir {
			t.Fatalf("Materialize again = %s, %v, want %s", got, err, dir)
		}
		if _, err := os.Stat(pyc); err == nil {
			t.Errorf("the file added to the tree is still there")
		}
		if tree := readTree(t, got); !mapsEqual(tree, want) {
			t.Errorf("Materialize again = %v, want %v", tree, want)
		}
	}
	if got := published(t, root); len(got) != 1 {
		t.Errorf("cache holds %v, want one tree", got)
	}
}
