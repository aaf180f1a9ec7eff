//go:build linux || openbsd || dragonfly || darwin || freebsd || netbsd

package skill

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/internal/bootid"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

const setMD = "---\nname: %s\ndescription: a skill\n---\nDo it.\n"

// setSkills returns a set of each kind: two inline skills, a folder used
// in place (sourceFolder: a SKILL.md, two references and a link) and an
// fs.FS tree, and the folder and the FS.
func setSkills(t *testing.T) ([]Skill, string, fstest.MapFS) {
	t.Helper()
	dir := sourceFolder(t)
	fsys := fstest.MapFS{
		"tree/SKILL.md":     {Data: []byte(strings.ReplaceAll(setMD, "%s", "tree")), Mode: 0o644},
		"tree/references/a": {Data: []byte("a"), Mode: 0o644},
	}
	return []Skill{
		Inline("alpha", strings.ReplaceAll(setMD, "%s", "alpha")),
		Inline("beta", strings.ReplaceAll(setMD, "%s", "beta")),
		Dir(dir),
		FS(fsys, "tree"),
	}, dir, fsys
}

// full materializes skills one by one, as a run without the record of
// its set would, in a new Cache on root.
func full(t *testing.T, root string, skills []Skill) (dirs, digests []string) {
	t.Helper()
	c := NewCache(WithSkillCacheRoot(root))
	for _, s := range skills {
		dir, digest, err := c.MaterializeContent(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		dirs, digests = append(dirs, dir), append(digests, digest)
	}
	return dirs, digests
}

// warmSet materializes skills as a set until its record vouches for every
// skill it covers: once, and again once what the first published and
// read has left the racy window.
func warmSet(t *testing.T, c *Cache, skills []Skill) (dirs, digests []string) {
	t.Helper()
	if _, _, err := c.MaterializeSet(t.Context(), skills); err != nil {
		t.Fatal(err)
	}
	cachetest.Settle()
	dirs, digests, err := c.MaterializeSet(t.Context(), skills)
	if err != nil {
		t.Fatal(err)
	}
	return dirs, digests
}

// vouched reports which of skills the record of their set vouches for
// now, in c, as a warm MaterializeSet checks it.
func vouched(t *testing.T, c *Cache, skills []Skill) []bool {
	t.Helper()
	store, err := c.open()
	if err != nil {
		t.Fatal(err)
	}
	members := setMembers(skills)
	done := make([]bool, len(skills))
	r := c.setRecordOf(store, c.setKey(members), members)
	if r != nil {
		r.vouch(store, members, make([]string, len(skills)), make([]string, len(skills)), done)
	}
	return done
}

// Rule 12: a warm set's inline skills and folders are vouched for by its
// record, its FS tree is not; what the set returns is what materializing
// each skill returns, warm or not, in this Cache or another on the root.
func TestMaterializeSetWarm(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	c := NewCache(WithSkillCacheRoot(root))
	dirs, digests := warmSet(t, c, skills)
	if got, want := vouched(t, c, skills), []bool{true, true, true, false}; !slices.Equal(got, want) {
		t.Fatalf("vouched = %v, want %v", got, want)
	}
	wantDirs, wantDigests := full(t, root, skills)
	if !slices.Equal(dirs, wantDirs) || !slices.Equal(digests, wantDigests) {
		t.Fatalf("MaterializeSet = %q, %q; want %q, %q", dirs, digests, wantDirs, wantDigests)
	}
	again, againDigests, err := c.MaterializeSet(t.Context(), skills)
	if err != nil || !slices.Equal(again, wantDirs) || !slices.Equal(againDigests, wantDigests) {
		t.Fatalf("MaterializeSet warm = %q, %q, %v; want %q, %q", again, againDigests, err, wantDirs, wantDigests)
	}
	// Another process (a new Cache) reads the record from the store.
	other := NewCache(WithSkillCacheRoot(root))
	if got, want := vouched(t, other, skills), []bool{true, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("vouched in a new Cache = %v, want %v", got, want)
	}
}

// Rule 12: a warm call that vouches for every covered skill leaves the
// record in the store as it is.
func TestMaterializeSetWritesOnlyChanges(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	c := NewCache(WithSkillCacheRoot(root))
	warmSet(t, c, skills)
	if _, _, err := c.MaterializeSet(t.Context(), skills); err != nil {
		t.Fatal(err)
	}
	p := setRecordPath(t, c, skills)
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.MaterializeSet(t.Context(), skills); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(p)
	if err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the record was written again by a warm call")
	}
}

func setRecordPath(t *testing.T, c *Cache, skills []Skill) string {
	return filepath.Join(c.Root(), ".memo", c.setKey(setMembers(skills))+".set")
}

// Rule 12 with rule 4: a warm set whose inline skill's tree was changed
// (edited to the same size and time, a file added or removed, made
// writable) does not vouch for it, and returns the genuine tree, rebuilt.
func TestMaterializeSetNoticesChangedTrees(t *testing.T) {
	for _, change := range cachetest.Changes() {
		t.Run(change.Name, func(t *testing.T) {
			root := cachetest.Root(t)
			skills, _, _ := setSkills(t)
			c := NewCache(WithSkillCacheRoot(root))
			dirs, digests := warmSet(t, c, skills)
			genuine := cachetest.Tree(t, dirs[0])
			change.Apply(t, dirs[0])
			if got := vouched(t, c, skills); got[0] || !got[1] {
				t.Errorf("vouched after %s = %v, want the changed skill left out and the other kept", change.Name, got)
			}
			got, gotDigests, err := c.MaterializeSet(t.Context(), skills)
			if err != nil || !slices.Equal(got, dirs) || !slices.Equal(gotDigests, digests) {
				t.Fatalf("MaterializeSet after %s = %q, %q, %v; want %q, %q", change.Name, got, gotDigests, err, dirs, digests)
			}
			if tree := cachetest.Tree(t, got[0]); !maps.Equal(tree, genuine) {
				t.Errorf("MaterializeSet after %s holds %q, want %q", change.Name, tree, genuine)
			}
		})
	}
}

// Rule 12 with rule 11: a warm set whose folder changed does not vouch
// for it and returns what reading the folder returns: the digest of what
// it holds now, or the error of a folder no longer a skill.
func TestMaterializeSetNoticesChangedFolders(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(outside, []byte(strings.ReplaceAll(setMD, "%s", "kit")), 0o644); err != nil {
		t.Fatal(err)
	}
	changes := []struct {
		name   string
		change func(t *testing.T, dir string)
		fails  bool
	}{
		{"edited, same size and times", func(t *testing.T, dir string) {
			rewrite(t, filepath.Join(dir, "references", "a.md"), "reference A")
		}, false},
		{"file added", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "references", "c.md"), []byte("c"), 0o644)
		}, false},
		{"file removed", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "references", "b.md"))
		}, false},
		{"folder replaced", func(t *testing.T, dir string) {
			os.Rename(dir, dir+".old")
			os.MkdirAll(filepath.Join(dir, "references"), 0o755)
			os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: kit\ndescription: a kit\n---\nDo it.\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "references", "a.md"), []byte("reference b"), 0o644)
			os.WriteFile(filepath.Join(dir, "references", "b.md"), []byte("reference a"), 0o644)
			os.Symlink("a.md", filepath.Join(dir, "references", "link"))
		}, false},
		{"SKILL.md a link", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "SKILL.md"))
			os.Symlink(outside, filepath.Join(dir, "SKILL.md"))
		}, false},
		{"SKILL.md removed", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "SKILL.md"))
		}, true},
	}
	for _, tc := range changes {
		t.Run(tc.name, func(t *testing.T) {
			root := cachetest.Root(t)
			skills, dir, _ := setSkills(t)
			c := NewCache(WithSkillCacheRoot(root))
			warmSet(t, c, skills)
			tc.change(t, dir)
			if got := vouched(t, c, skills); got[2] {
				t.Errorf("vouched after %s = %v, want the folder left out", tc.name, got)
			}
			_, digests, err := c.MaterializeSet(t.Context(), skills)
			if tc.fails {
				var me *SkillMaterializationError
				if !errors.As(err, &me) || me.Key != skills[2].Key {
					t.Fatalf("MaterializeSet after %s = %v, want a *SkillMaterializationError for %s", tc.name, err, skills[2].Key)
				}
				return
			}
			want, werr := ContentDigest(t.Context(), dir)
			if err != nil || werr != nil || digests[2] != want {
				t.Fatalf("MaterializeSet after %s: digest %v, %v; want %s (%v)", tc.name, digests, err, want, werr)
			}
		})
	}
}

// Rule 12: a link as the folder's SKILL.md vouches while its target is a
// file; once the target is gone, the set fails as reading the folder
// does (rule 1).
func TestMaterializeSetFolderLinkTarget(t *testing.T) {
	root := cachetest.Root(t)
	skills, dir, _ := setSkills(t)
	target := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(target, []byte("---\nname: kit\ndescription: a kit\n---\nDo it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "SKILL.md"))
	if err := os.Symlink(target, filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	c := NewCache(WithSkillCacheRoot(root))
	warmSet(t, c, skills)
	if got := vouched(t, c, skills); !got[2] {
		t.Fatalf("vouched = %v, want the folder vouched for", got)
	}
	os.Remove(target)
	if got := vouched(t, c, skills); got[2] {
		t.Errorf("vouched with SKILL.md's target gone = %v, want the folder left out", got)
	}
	if _, _, err := c.MaterializeSet(t.Context(), skills); err == nil {
		t.Errorf("MaterializeSet with SKILL.md's target gone = nil error, want one")
	}
}

// Rule 12: an FS tree is read on every call, so a change to it shows
// however warm the set.
func TestMaterializeSetReadsFSTrees(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, fsys := setSkills(t)
	c := NewCache(WithSkillCacheRoot(root))
	_, digests := warmSet(t, c, skills)
	fsys["tree/references/a"] = &fstest.MapFile{Data: []byte("b"), Mode: 0o644}
	_, got, err := c.MaterializeSet(t.Context(), skills)
	if err != nil {
		t.Fatal(err)
	}
	_, want := full(t, root, skills)
	if got[3] == digests[3] || got[3] != want[3] {
		t.Errorf("MaterializeSet after the FS changed: digest %s, want %s (was %s)", got[3], want[3], digests[3])
	}
}

// Rule 12: stamps within the racy window of when they were taken vouch
// for nothing.
func TestMaterializeSetRacy(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	c := NewCache(WithSkillCacheRoot(root))
	warmSet(t, c, skills)
	store, _ := c.open()
	members := setMembers(skills)
	r := c.setRecordOf(store, c.setKey(members), members)
	racy := &setRecord{key: r.key, skills: slices.Clone(r.skills)}
	for i := range racy.skills {
		racy.skills[i].taken = racy.skills[i].stamps[len(racy.skills[i].stamps)-1].Ctime
	}
	c.keepSet(racy)
	if got := vouched(t, c, skills); slices.Contains(got, true) {
		t.Errorf("vouched with racy stamps = %v, want none", got)
	}
	// And a stamp other than the one a stat finds vouches for nothing
	// either, however old.
	other := &setRecord{key: r.key}
	for _, s := range r.skills {
		s.stamps = slices.Clone(s.stamps)
		s.stamps[len(s.stamps)-1].Ino++
		other.skills = append(other.skills, s)
	}
	c.keepSet(other)
	if got := vouched(t, c, skills); slices.Contains(got, true) {
		t.Errorf("vouched with other stamps = %v, want none", got)
	}
}

// Rule 12: the record holds the stamps the checks vouched for, not
// stamps taken after them: a tree changed between its check and the
// making of the record is not vouched for.
func TestSetRecordStampsFromChecks(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	skills = skills[:1]
	c := NewCache(WithSkillCacheRoot(root))
	warmSet(t, c, skills)
	store, _ := c.open()
	members := setMembers(skills)
	key := c.setKey(members)
	dir, digest, err := c.MaterializeContent(t.Context(), skills[0])
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.sets = nil
	c.mu.Unlock()
	os.Remove(setRecordPath(t, c, skills))
	cachetest.Changes()[0].Apply(t, dir)
	c.recordSet(store, key, nil, members, []string{dir}, []string{digest})
	if got := vouched(t, c, skills); got[0] {
		t.Errorf("vouched for a tree changed after its check")
	}
}

// Rule 12: a record that is cut short, damaged, too large, of another
// key or that does not fit its set is ignored; the set is materialized
// one by one, returns what materializing each returns, and is recorded
// again.
func TestSetRecordHostile(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	c := NewCache(WithSkillCacheRoot(root))
	warmSet(t, c, skills)
	p := setRecordPath(t, c, skills)
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	resum := func(body string) []byte { return []byte(body + sumLine(body)) }
	body, _, _ := cutLastLine(string(good))
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 1
	cases := map[string][]byte{
		"empty":              nil,
		"cut in half":        good[:len(good)/2],
		"last byte cut":      good[:len(good)-1],
		"sum line cut":       []byte(body),
		"a byte flipped":     flipped,
		"too large":          append(bytes.Repeat([]byte("x"), 16<<20), good...),
		"another key":        resum(strings.Replace(body, "key ", "key 0", 1)),
		"another name":       resum(strings.Replace(body, hexOf("alpha"), hexOf("gamma"), 1)),
		"a line lost":        resum(dropLine(body, 5)),
		"place out of range": resum(strings.Replace(body, "\ns 0 ", "\ns 9 ", 1)),
		"no stamps":          resum(strings.Replace(body, " 2\n", " 0\n", 1)),
		"another boot":       resum(strings.Replace(body, "\nboot "+bootid.ID()+"\n", "\nboot another-boot\n", 1)),
		"no boot":            resum(strings.Replace(body, "\nboot "+bootid.ID()+"\n", "\n", 1)),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			cachetest.Writable(filepath.Dir(p))
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			c := NewCache(WithSkillCacheRoot(root))
			if got := vouched(t, c, skills); slices.Contains(got, true) {
				t.Errorf("vouched with the record %s = %v, want none", name, got)
			}
			c = NewCache(WithSkillCacheRoot(root))
			dirs, digests, err := c.MaterializeSet(t.Context(), skills)
			wantDirs, wantDigests := full(t, root, skills)
			if err != nil || !slices.Equal(dirs, wantDirs) || !slices.Equal(digests, wantDigests) {
				t.Fatalf("MaterializeSet with the record %s = %q, %q, %v; want %q, %q", name, dirs, digests, err, wantDirs, wantDigests)
			}
			if got := vouched(t, NewCache(WithSkillCacheRoot(root)), skills); !slices.Equal(got, []bool{true, true, true, false}) {
				t.Errorf("vouched after the record %s was replaced = %v, want the covered skills", name, got)
			}
		})
	}
	// A folder where the record belongs is ignored too.
	os.Remove(p)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := vouched(t, NewCache(WithSkillCacheRoot(root)), skills); slices.Contains(got, true) {
		t.Errorf("vouched with a folder as the record = %v, want none", got)
	}
	if _, _, err := NewCache(WithSkillCacheRoot(root)).MaterializeSet(t.Context(), skills); err != nil {
		t.Errorf("MaterializeSet with a folder as the record: %v", err)
	}
}

// Rule 12: a set's record written on another boot vouches for nothing
// (package bootid's rule 1): the set is materialized one by one and
// recorded again, and that record of this boot vouches again.
func TestSetRecordOfAnotherBoot(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	warmSet(t, NewCache(WithSkillCacheRoot(root)), skills)
	covered := []bool{true, true, true, false}
	if got := vouched(t, NewCache(WithSkillCacheRoot(root)), skills); !slices.Equal(got, covered) {
		t.Fatalf("vouched on the boot that wrote the record = %v, want %v", got, covered)
	}
	defer bootid.SetForTest("another-boot")()
	if got := vouched(t, NewCache(WithSkillCacheRoot(root)), skills); slices.Contains(got, true) {
		t.Fatalf("vouched with a record of another boot = %v, want none", got)
	}
	dirs, digests := warmSet(t, NewCache(WithSkillCacheRoot(root)), skills)
	wantDirs, wantDigests := full(t, root, skills)
	if !slices.Equal(dirs, wantDirs) || !slices.Equal(digests, wantDigests) {
		t.Fatalf("MaterializeSet on another boot = %q, %q; want %q, %q", dirs, digests, wantDirs, wantDigests)
	}
	if got := vouched(t, NewCache(WithSkillCacheRoot(root)), skills); !slices.Equal(got, covered) {
		t.Errorf("vouched once recorded again = %v, want %v", got, covered)
	}
}

// sumLine is the last line of a record whose other lines are body.
func sumLine(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "sum " + hex.EncodeToString(sum[:]) + "\n"
}

func hexOf(s string) string { return hex.EncodeToString([]byte(s)) }

// dropLine removes the line numbered n (from 0) of text.
func dropLine(text string, n int) string {
	lines := strings.SplitAfter(text, "\n")
	return strings.Join(slices.Delete(lines, n, n+1), "")
}

// Rule 12: the record lives with the archive memos and [Cache.GC]
// removes it as it removes them.
func TestGCRemovesSetRecords(t *testing.T) {
	root := cachetest.Root(t)
	skills, _, _ := setSkills(t)
	c := NewCache(WithSkillCacheRoot(root))
	warmSet(t, c, skills)
	p := setRecordPath(t, c, skills)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	cachetest.Writable(root)
	if _, err := c.GC(t.Context(), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record of a set after GC: %v, want it removed", err)
	}
}
