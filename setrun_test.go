package adaptor_test

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	adaptor "github.com/agentadaptor/agentadaptor"
	"github.com/agentadaptor/agentadaptor/drivertest"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Rule 6: a materializer that wraps the default one, as package trust's
// does, is called for every skill on every run, however warm the set, so
// whatever it checks is checked each time.
func TestRunCallsWrappingMaterializerEachRun(t *testing.T) {
	refs := []skill.Ref{skill.Inline("one", skillMD("one")), skill.Inline("two", skillMD("two")), skill.Dir(skillDir(t, "three"))}
	m := &countingMaterializer{next: skill.NewDefaultSkillMaterializer(skill.WithSkillCacheRoot(cachetest.Root(t)))}
	agent := adaptor.New(&drivertest.Driver{}, adaptor.WithSkillMaterializer(m), adaptor.WithSkills(refs...))
	for run := 1; run <= 3; run++ {
		if _, err := agent.Run(t.Context(), "x"); err != nil {
			t.Fatal(err)
		}
		cachetest.Settle()
		if got, want := m.calls.Load(), int64(3*run); got != want {
			t.Fatalf("after run %d the wrapping materializer was called %d times, want %d", run, got, want)
		}
	}
}

// Rule 6 with rule 12 of package skill: a warm run with the default
// materializer hands the driver what a full resolution would: the
// genuine tree of an inline skill changed in its cache, and the new
// content of a folder changed in place, each with its fingerprint.
func TestWarmRunNoticesChanges(t *testing.T) {
	for _, change := range cachetest.Changes() {
		t.Run(change.Name, func(t *testing.T) {
			dir := skillDir(t, "folder")
			agent, rec := newAgent(t, adaptor.WithSkills(skill.Inline("kit", skillMD("kit")), skill.Dir(dir)))
			for range 3 {
				if _, err := agent.Run(t.Context(), "x"); err != nil {
					t.Fatal(err)
				}
				cachetest.Settle()
			}
			first := rec.Last().Skills
			tree := first.Entries[1].Path // by key: "folder", then "kit"
			genuine := cachetest.Tree(t, tree)
			change.Apply(t, tree)
			if _, err := agent.Run(t.Context(), "x"); err != nil {
				t.Fatal(err)
			}
			second := rec.Last().Skills
			if got := cachetest.Tree(t, second.Entries[1].Path); !maps.Equal(got, genuine) {
				t.Errorf("the run after %s got %q, want %q", change.Name, got, genuine)
			}
			if second.Fingerprint != first.Fingerprint {
				t.Errorf("the run after %s has fingerprint %s, want %s", change.Name, second.Fingerprint, first.Fingerprint)
			}

			// The folder, edited in place, counts with its new content.
			cachetest.Settle()
			if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := agent.Run(t.Context(), "x"); err != nil {
				t.Fatal(err)
			}
			third := rec.Last().Skills
			want, err := skill.ContentDigest(t.Context(), dir)
			if err != nil || third.Entries[0].Digest != want || third.Fingerprint == second.Fingerprint {
				t.Errorf("the run after the folder changed: digest %s, fingerprint %s; want %s (%v) and a new fingerprint", third.Entries[0].Digest, third.Fingerprint, want, err)
			}
		})
	}
}
