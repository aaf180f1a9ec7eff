package skill

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCacheArchiveSkills(t *testing.T) {
	md := "---\nname: x\ndescription: d\n---\n"
	data := tarBytes(t, true, []entry{
		{name: "SKILL.md", body: md},
		{name: "a/SKILL.md", body: md},
		{name: "a/b/SKILL.md", body: md},
		{name: "a/b/c/SKILL.md", body: md},
		{name: "z/notes.md", body: "not a skill"},
		{name: "z/skill.md", body: "lower case is not the marker"},
	})
	file := filepath.Join(t.TempDir(), "kit.tgz")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCache(WithSkillCacheRoot(filepath.Join(t.TempDir(), "cache")))
	for depth, want := range [][]string{{""}, {"", "a"}, {"", "a", "a/b"}, {"", "a", "a/b", "a/b/c"}} {
		got, err := c.ArchiveSkills(t.Context(), file, depth)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ArchiveSkills(depth %d) = %q, %v, want %q", depth, got, err, want)
		}
	}
	if _, err := os.Stat(c.Root()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ArchiveSkills wrote to the cache root: Stat = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.tgz")
	os.WriteFile(bad, tarBytes(t, true, []entry{{name: "../SKILL.md", body: md}}), 0o600)
	if got, err := c.ArchiveSkills(t.Context(), bad, 1); !errors.Is(err, ErrArchiveUnsafe) {
		t.Errorf("ArchiveSkills(an entry named ../SKILL.md) = %q, %v, want ErrArchiveUnsafe", got, err)
	}
	if _, err := c.ArchiveSkills(t.Context(), filepath.Join(t.TempDir(), "missing.tgz"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ArchiveSkills(a missing file) = %v, want ErrNotExist", err)
	}
}

func TestCacheLookup(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	c := NewCache(WithSkillCacheRoot(root))
	dir, digest, err := c.MaterializeContent(t.Context(), Inline("tone", "---\nname: tone\ndescription: d\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Another Cache on the same root finds the tree by its digest.
	other := NewCache(WithSkillCacheRoot(root))
	if got, ok := other.Lookup(t.Context(), digest, "tone"); !ok || got != dir {
		t.Errorf("Lookup(digest, tone) = %s, %v, want %s, true", got, ok, dir)
	}
	if got, ok := other.Lookup(t.Context(), digest, "other"); ok {
		t.Errorf("Lookup(digest, other) = %s, true, want false: the name is part of the tree", got)
	}
	if got, ok := other.Lookup(t.Context(), "0000000000000000000000000000000000000000000000000000000000000000", "tone"); ok {
		t.Errorf("Lookup(unknown digest) = %s, true", got)
	}
	if got, ok := other.Lookup(t.Context(), "../../etc", "tone"); ok {
		t.Errorf("Lookup(../../etc) = %s, true", got)
	}
	// A damaged tree is not handed out.
	os.Chmod(dir, 0o755)
	if err := os.Remove(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if got, ok := other.Lookup(t.Context(), digest, "tone"); ok {
		t.Errorf("Lookup of a tree whose SKILL.md was removed = %s, true", got)
	}
	// A root that does not exist finds nothing and stays absent.
	absent := filepath.Join(t.TempDir(), "absent")
	if got, ok := NewCache(WithSkillCacheRoot(absent)).Lookup(t.Context(), digest, "tone"); ok {
		t.Errorf("Lookup under a missing root = %s, true", got)
	}
	if _, err := os.Stat(absent); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lookup created the missing root: Stat = %v", err)
	}
	// A root that cannot be a cache finds nothing.
	if got, ok := NewCache(WithSkillCacheRoot("/dev/null/cache")).Lookup(t.Context(), digest, "tone"); ok {
		t.Errorf("Lookup under /dev/null = %s, true", got)
	}
}

func TestZeroCacheRefusesEveryUse(t *testing.T) {
	t.Chdir(t.TempDir())
	var c Cache
	if _, err := c.Materialize(t.Context(), Inline("tone", "# Tone\n")); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: Materialize = %v, want %v", err, errZeroCache)
	}
	if _, err := c.Entries(t.Context()); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: Entries = %v", err)
	}
	if _, err := c.GC(t.Context(), 0); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: GC = %v", err)
	}
	if _, err := c.ArchiveSkills(t.Context(), "kit.tgz", 1); !errors.Is(err, errZeroCache) {
		t.Errorf("zero Cache: ArchiveSkills = %v", err)
	}
	if dir, ok := c.Lookup(t.Context(), "0000000000000000000000000000000000000000000000000000000000000000", "tone"); ok {
		t.Errorf("zero Cache: Lookup = %s, true", dir)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("a zero Cache wrote to the working folder: %v", entries)
	}
}

func TestCacheGCOfMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "absent")
	if removed, err := NewCache(WithSkillCacheRoot(root)).GC(t.Context(), 0); err != nil || len(removed) != 0 {
		t.Errorf("GC of a missing root = %v, %v, want nothing", removed, err)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("GC created the missing root: Stat = %v", err)
	}
}

func TestCacheOpenIsRetried(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "cache")
	// A root under a folder every user may write (and not sticky) is
	// refused; once the folder is made private, the same Cache works.
	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	c := NewCache(WithSkillCacheRoot(root))
	s := Inline("tone", "---\nname: tone\ndescription: d\n---\n")
	if _, err := c.Materialize(t.Context(), s); err == nil {
		t.Fatalf("Materialize under a folder every user may write succeeded")
	}
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Materialize(t.Context(), s); err != nil {
		t.Errorf("Materialize once the folder is private = %v, want the open tried again", err)
	}
}
