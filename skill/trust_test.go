package skill_test

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

const genuineMD = "---\nname: kit\ndescription: a kit\n---\nGenuine instructions.\n"

// trustSources are a skill of each cached kind, each with a SKILL.md and
// (but inline) a reference file.
func trustSources(t *testing.T) map[string]skill.Skill {
	files := map[string]string{"SKILL.md": genuineMD, "references/a.md": "reference\n"}
	mapFS := fstest.MapFS{}
	for p, body := range files {
		mapFS["kit/"+p] = &fstest.MapFile{Data: []byte(body), Mode: 0o644}
	}
	data := testarchive.TarGzFiles(t, files)
	archive := filepath.Join(t.TempDir(), "kit.tgz")
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]skill.Skill{
		"inline":        skill.Inline("kit", genuineMD),
		"fs":            skill.FS(mapFS, "kit"),
		"archive bytes": skill.Archive("kit", skill.ArchiveBytes(data)),
		"archive file":  skill.Archive("kit", skill.ArchiveFile(archive)),
	}
}

// Rule 4: a cached tree changed after it was published (edited in place
// to the same size and time, a file added or removed, made writable) is
// noticed by the next warm lookup, Lookup refuses it, and the next
// materialization throws it away and rebuilds it from the source: the
// genuine bytes, read-only. Each change is tried right after the
// publish and once the tree's record has settled (stats compared only).
func TestCacheNoticesChangedTrees(t *testing.T) {
	for kind, s := range trustSources(t) {
		for _, settled := range []bool{false, true} {
			for _, change := range cachetest.Changes() {
				name := kind + "/" + change.Name
				if settled {
					name += "/settled"
				}
				t.Run(name, func(t *testing.T) {
					c := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
					dir, digest, err := c.MaterializeContent(t.Context(), s)
					if err != nil {
						t.Fatal(err)
					}
					genuine := cachetest.Tree(t, dir)
					if settled {
						cachetest.Settle()
						if _, err := c.Materialize(t.Context(), s); err != nil {
							t.Fatal(err)
						}
					}
					change.Apply(t, dir)
					if got, ok := skillcache.Lookup(t.Context(), c, digest, "kit"); ok {
						t.Errorf("Lookup after %s = %s, true; want it refused", change.Name, got)
					}
					got, gotDigest, err := c.MaterializeContent(t.Context(), s)
					if err != nil || got != dir || gotDigest != digest {
						t.Fatalf("MaterializeContent after %s = %s, %s, %v; want %s, %s", change.Name, got, gotDigest, err, dir, digest)
					}
					if tree := cachetest.Tree(t, got); !maps.Equal(tree, genuine) {
						t.Errorf("MaterializeContent after %s holds %q, want %q", change.Name, tree, genuine)
					}
					if fi, err := os.Stat(filepath.Join(got, "SKILL.md")); err != nil || fi.Mode().Perm() != 0o444 {
						t.Errorf("SKILL.md rebuilt after %s: %v, %v; want mode 0444", change.Name, fi.Mode(), err)
					}
					if d, err := skill.ContentDigest(t.Context(), got); err != nil || d != digest {
						t.Errorf("ContentDigest of the rebuilt tree = %s, %v; want %s", d, err, digest)
					}
					if _, ok := skillcache.Lookup(t.Context(), c, digest, "kit"); !ok {
						t.Errorf("Lookup refuses the rebuilt tree")
					}
				})
			}
		}
	}
}

// An agent's run after a cached tree was changed gets the genuine
// skill: resolution before the run notices the change and rebuilds.
func TestRunAfterCachedTreeChanged(t *testing.T) {
	for _, change := range cachetest.Changes() {
		t.Run(change.Name, func(t *testing.T) {
			data := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": genuineMD, "references/a.md": "reference\n"})
			c := skill.NewCache(skill.WithSkillCacheRoot(cachetest.Root(t)))
			rec := &drivertest.Driver{RequireSkillMD: true}
			agent := adaptor.New(rec, adaptor.WithSkillMaterializer(c), adaptor.WithSkills(skill.Archive("kit", skill.ArchiveBytes(data))))
			if _, err := agent.Run(t.Context(), "first"); err != nil {
				t.Fatal(err)
			}
			first := rec.Last().Skills
			genuine := cachetest.Tree(t, first.Entries[0].Path)
			cachetest.Settle()
			change.Apply(t, first.Entries[0].Path)
			if _, err := agent.Run(t.Context(), "second"); err != nil {
				t.Fatal(err)
			}
			second := rec.Last().Skills
			if tree := cachetest.Tree(t, second.Entries[0].Path); !maps.Equal(tree, genuine) {
				t.Errorf("the run after %s got %q, want %q", change.Name, tree, genuine)
			}
			if second.Fingerprint != first.Fingerprint {
				t.Errorf("the run after %s has fingerprint %s, want %s", change.Name, second.Fingerprint, first.Fingerprint)
			}
		})
	}
}
